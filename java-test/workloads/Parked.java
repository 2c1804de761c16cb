import java.util.concurrent.locks.LockSupport;

/**
 * THREADS threads parked (or sleeping, with "sleep") for SECONDS: the cost of
 * wall-clock sampling threads that do nothing.
 * Run: Parked THREADS SECONDS [park|sleep]
 */
public final class Parked {
  public static void main(String[] args) throws Exception {
    int n = Integer.parseInt(args[0]);
    double seconds = Double.parseDouble(args[1]);
    boolean sleep = args.length > 2 && args[2].equals("sleep");
    long ns = (long) (seconds * 1e9);
    Thread[] threads = new Thread[n];
    for (int i = 0; i < n; i++) {
      threads[i] = new Thread(() -> {
        if (sleep) {
          try {
            Thread.sleep(ns / 1_000_000);
          } catch (InterruptedException e) {
            return;
          }
        } else {
          LockSupport.parkNanos(ns);
        }
      }, "idle-" + i);
      threads[i].start();
    }
    for (Thread t : threads)
      t.join();
    System.out.println("DONE");
  }
}
