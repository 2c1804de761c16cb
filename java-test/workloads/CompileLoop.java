import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;

/**
 * javac, a large program nobody here wrote, compiling the .java files under SOURCES again and
 * again in this JVM for SECONDS of wall time: the JIT compiles, recompiles and (JDK 17's
 * sweeper, JDK 25's unloading) frees thousands of methods meanwhile, and new code takes the
 * place of freed code. Prints COMPILES n.
 * Run: CompileLoop SECONDS SOURCES
 */
public final class CompileLoop {
  public static void main(String[] args) throws IOException {
    double seconds = Double.parseDouble(args[0]);
    List<String> files;
    try (Stream<Path> s = Files.walk(Path.of(args[1]))) {
      files = s.filter(p -> p.toString().endsWith(".java")).map(Path::toString).collect(Collectors.toList());
    }
    JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
    Path out = Files.createDirectories(Path.of("compile-loop-classes"));   /* in the working directory */
    long end = System.nanoTime() + (long) (seconds * 1e9);
    int compiles = 0;
    do {
      String[] command = Stream.concat(Stream.of("-nowarn", "-proc:none", "-d", out.toString()), files.stream())
          .toArray(String[]::new);
      if (javac.run(null, null, System.err, command) != 0)
        throw new IllegalStateException("javac failed");
      compiles++;
    } while (System.nanoTime() < end);
    System.out.println("COMPILES " + compiles);
  }
}
