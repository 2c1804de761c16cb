/**
 * A thread computing throughout, and System.gc() called N times between two marks of the workload's
 * own clock, 200 ms apart, allocating next to nothing else. Prints, when done,
 *   mark gcs START_MS END_MS   (System.currentTimeMillis, ms since 1970)
 *   gcs N
 * Usage: GcMarks N
 */
public final class GcMarks {
  static volatile boolean stop;
  static volatile long sink;

  static long spin(long x) {
    for (int i = 0; i < 100_000; i++)
      x = x * 6364136223846793005L + 1442695040888963407L;
    return x;
  }

  public static void main(String[] args) throws Exception {
    int n = Integer.parseInt(args[0]);
    Thread busy = new Thread(() -> {
      long x = 1;
      while (!stop)
        x = spin(x);
      sink = x;
    }, "busy");
    busy.start();
    Thread.sleep(500);
    long t0 = System.currentTimeMillis();
    for (int i = 0; i < n; i++) {
      System.gc();
      Thread.sleep(200);
    }
    long t1 = System.currentTimeMillis();
    Thread.sleep(500);
    stop = true;
    busy.join();
    System.out.println("mark gcs " + t0 + " " + t1);
    System.out.println("gcs " + n);
  }
}
