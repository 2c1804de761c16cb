/**
 * Starts THREADS short-lived threads, PARALLEL at a time, each computing a
 * little: thread registration and record recycling under churn.
 * Run: ThreadChurn THREADS PARALLEL
 */
public final class ThreadChurn {
  public static void main(String[] args) throws Exception {
    int threads = Integer.parseInt(args[0]);
    int parallel = Integer.parseInt(args[1]);
    Thread[] batch = new Thread[parallel];
    int started = 0;
    while (started < threads) {
      int n = Math.min(parallel, threads - started);
      for (int i = 0; i < n; i++) {
        final int id = started + i;
        batch[i] = new Thread(() -> Work.sink += Work.mix(id, 1 + id % 3), "churn-" + id);
        batch[i].start();
      }
      for (int i = 0; i < n; i++)
        batch[i].join();
      started += n;
    }
    System.out.println("STARTED " + started);
  }
}
