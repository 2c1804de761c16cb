import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;

/**
 * Computes for SECONDS, then deletes DIR (empty): the agent's output directory
 * is gone by the time it writes at exit.
 * Run: RemoveDirAtExit DIR SECONDS
 */
public final class RemoveDirAtExit {
  public static void main(String[] args) throws IOException {
    Path dir = Paths.get(args[0]);
    long end = System.nanoTime() + (long) (Double.parseDouble(args[1]) * 1e9), s = 1;
    while (System.nanoTime() < end)
      s = Work.mix(s, 1);
    Work.sink = s;
    Files.delete(dir);
  }
}
