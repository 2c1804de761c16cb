import java.lang.ref.WeakReference;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * CYCLES times: a new class loader loads JniSpinner from DIR, which loads libfgspin.so and spins
 * in it for MS milliseconds; the loader is dropped and collected, and the library unloaded with
 * it (gone from /proc/self/maps). Prints "cycles N unloaded U in T ms".
 * Run: UnloadedJni DIR CYCLES MS
 */
public final class UnloadedJni {
  /** Whether libfgspin.so's code is mapped (a profiler may map the file to read its symbols). */
  static boolean mapped() throws Exception {
    return Files.readString(Path.of("/proc/self/maps")).lines()
        .anyMatch(l -> l.endsWith("libfgspin.so") && l.contains(" r-xp "));
  }

  /** One cycle's load and spin, in a frame of its own: no slot of main's keeps the loader. */
  static WeakReference<ClassLoader> spinInNewLoader(Path dir, long nanos) throws Exception {
    URLClassLoader loader = new URLClassLoader(new URL[] {dir.toUri().toURL()}, null);
    sink += (long) loader.loadClass("JniSpinner").getMethod("run", long.class).invoke(null, nanos);
    loader.close();
    return new WeakReference<>(loader);
  }

  static long sink;

  public static void main(String[] args) throws Exception {
    Path dir = Path.of(args[0]).toAbsolutePath();
    int cycles = Integer.parseInt(args[1]);
    long nanos = (long) (Double.parseDouble(args[2]) * 1e6);
    System.setProperty("fgspin.dir", dir.toString());
    int unloaded = 0;
    long t0 = System.nanoTime();
    for (int c = 0; c < cycles; c++) {
      WeakReference<ClassLoader> ref = spinInNewLoader(dir, nanos);
      for (int i = 0; i < 100 && (ref.get() != null || mapped()); i++) {
        if (ref.get() != null)
          System.gc();
        Thread.sleep(1);   /* the library goes at the Cleaner's next turn */
      }
      if (ref.get() == null && !mapped())
        unloaded++;
    }
    System.out.printf("cycles %d unloaded %d in %d ms (%d)%n", cycles, unloaded, (System.nanoTime() - t0) / 1000000,
        sink & 1);
  }
}
