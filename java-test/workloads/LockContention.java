/**
 * THREADS threads take turns on one monitor for SECONDS; each holds it for
 * about 2 ms of computing, so most of the time most threads wait at
 * LockContention.critical's monitor entry.
 * Run: LockContention THREADS SECONDS
 */
public final class LockContention {
  static final Object LOCK = new Object();

  static void critical() {
    synchronized (LOCK) {
      ComputeSleep.compute(2_000_000);
    }
  }

  public static void main(String[] args) throws Exception {
    int n = Integer.parseInt(args[0]);
    double seconds = Double.parseDouble(args[1]);
    long until = System.nanoTime() + (long) (seconds * 1e9);
    Thread[] threads = new Thread[n];
    for (int i = 0; i < n; i++) {
      threads[i] = new Thread(() -> {
        while (System.nanoTime() < until)
          critical();
      }, "contender-" + i);
      threads[i].start();
    }
    for (Thread t : threads)
      t.join();
    System.out.println("DONE");
  }
}
