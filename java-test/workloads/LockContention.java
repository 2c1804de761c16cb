import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;

/**
 * THREADS threads take turns on one monitor for SECONDS; each holds it for
 * about 2 ms of computing, so most of the time most threads wait at
 * LockContention.critical's monitor entry. With the JVM's thread contention
 * monitoring on, prints what the JVM counted for the threads together: time
 * blocked entering a monitor and their wall time, both in ns:
 *   CONTENDERS BLOCKED_NS WALL_NS
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
    ThreadMXBean mx = ManagementFactory.getThreadMXBean();
    mx.setThreadContentionMonitoringEnabled(true);
    long until = System.nanoTime() + (long) (seconds * 1e9);
    Thread[] threads = new Thread[n];
    long[] blockedMs = new long[n], wallNs = new long[n];
    for (int i = 0; i < n; i++) {
      int me = i;
      threads[i] = new Thread(() -> {
        long start = System.nanoTime();
        while (System.nanoTime() < until)
          critical();
        wallNs[me] = System.nanoTime() - start;
        blockedMs[me] = mx.getThreadInfo(Thread.currentThread().getId()).getBlockedTime();
      }, "contender-" + i);
      threads[i].start();
    }
    long blocked = 0, wall = 0;
    for (int i = 0; i < n; i++) {
      threads[i].join();
      blocked += blockedMs[i] * 1_000_000L;
      wall += wallNs[i];
    }
    System.out.println("CONTENDERS " + blocked + " " + wall);
    System.out.println("DONE");
  }
}
