/**
 * Thread "deep" recurses FRAMES deep and computes in leaf() until standard input closes; the
 * JVM then exits 0. A target for profiling sessions started and stopped from outside.
 * Run: Lifecycle FRAMES
 */
public final class Lifecycle {
  static volatile boolean done;

  static long leaf() {
    long s = 1;
    while (!done)
      s = Work.mix(s, 1);
    return s;
  }

  static long descend(int depth) {
    if (depth <= 1)
      return leaf();
    return descend(depth - 1) + 1;
  }

  public static void main(String[] args) throws Exception {
    int frames = Integer.parseInt(args[0]);
    Thread t = new Thread(null, () -> Work.sink = descend(frames), "deep", 64L << 20);
    t.start();
    while (System.in.read() >= 0) {
    }
    done = true;
    t.join();
  }
}
