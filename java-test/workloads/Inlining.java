/**
 * outer() calls the small hot method inner() in a loop: C2 inlines it. With
 * DebugNonSafepoints on, a sample in inner's code is still reported as inner.
 * Run: Inlining SECONDS
 */
public final class Inlining {
  static int inner(int x) {
    int h = x * 0x9E3779B1;
    h ^= h >>> 15;
    h *= 0x85EBCA6B;
    return h ^ (h >>> 13);
  }

  static long outer(int n) {
    long s = 0;
    for (int i = 0; i < n; i++)
      s += inner(i);
    return s;
  }

  public static void main(String[] args) throws Exception {
    double seconds = Double.parseDouble(args[0]);
    Thread t = new Thread(() -> {
      long end = System.nanoTime() + (long) (seconds * 1e9);
      long s = 0;
      while (System.nanoTime() < end)
        s += outer(1_000_000);
      Work.sink = s;
    }, "inliner");
    t.start();
    t.join();
  }
}
