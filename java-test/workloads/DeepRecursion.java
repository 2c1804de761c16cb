/**
 * Recurses FRAMES deep in thread "deep", then computes in leaf() for SECONDS.
 * Run: DeepRecursion FRAMES SECONDS
 */
public final class DeepRecursion {
  static long leaf(double seconds) {
    long end = System.nanoTime() + (long) (seconds * 1e9);
    long s = 1;
    while (System.nanoTime() < end)
      s = Work.mix(s, 1);
    return s;
  }

  static long descend(int depth, double seconds) {
    if (depth <= 1)
      return leaf(seconds);
    return descend(depth - 1, seconds) + 1;
  }

  public static void main(String[] args) throws Exception {
    int frames = Integer.parseInt(args[0]);
    double seconds = Double.parseDouble(args[1]);
    Thread t = new Thread(null, () -> Work.sink = descend(frames, seconds), "deep", 64L << 20);
    t.start();
    t.join();
  }
}
