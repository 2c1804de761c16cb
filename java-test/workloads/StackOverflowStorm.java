/**
 * Thread "deep" recurses up to FRAMES deep, every frame catching
 * StackOverflowError (its stack is small enough to overflow first), ROUNDS
 * times; prints how long it took. Deep, changing stacks: the walks are the
 * costliest a profiler meets.
 * Run: StackOverflowStorm FRAMES ROUNDS
 */
public final class StackOverflowStorm {
  static long sink;

  static long down(int depth) {
    if (depth == 0) {
      long s = 0;
      for (int i = 0; i < 2000; i++)
        s += i * 31 ^ s;
      return s;
    }
    try {
      return down(depth - 1) + 1;
    } catch (StackOverflowError e) {
      return depth & 7;
    }
  }

  public static void main(String[] args) throws Exception {
    int frames = Integer.parseInt(args[0]);
    int rounds = Integer.parseInt(args[1]);
    long t0 = System.nanoTime();
    Thread t = new Thread(null, () -> {
      for (int r = 0; r < rounds; r++)
        sink += down(frames);
    }, "deep", 1L << 20);
    t.start();
    t.join();
    System.out.printf("work %.3f s%n", (System.nanoTime() - t0) / 1e9);
  }
}
