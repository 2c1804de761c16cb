import java.io.File;
import java.lang.reflect.Array;

/**
 * A loop of short JNI calls (file attributes, reflective arrays, the
 * processor count) on the main thread for SECONDS; prints how long it took.
 * Run: JniLoop SECONDS
 */
public final class JniLoop {
  public static void main(String[] args) {
    double seconds = Double.parseDouble(args[0]);
    long t0 = System.nanoTime(), end = t0 + (long) (seconds * 1e9);
    File here = new File(".");
    long n = 0;
    while (System.nanoTime() < end) {
      for (int i = 0; i < 100; i++) {
        n += here.exists() ? 1 : 0;
        n += Array.getLength(Array.newInstance(int.class, i & 7));
        n += Runtime.getRuntime().availableProcessors();
      }
    }
    System.out.printf("work %.3f s (%d)%n", (System.nanoTime() - t0) / 1e9, n);
  }
}
