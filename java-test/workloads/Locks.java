import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A monitor contended by MONITOR_THREADS threads and a ReentrantLock by LOCK_THREADS others, each
 * holder computing about 1 ms with it held, for SECONDS. The JVM's own accounting of the same
 * waits (thread contention monitoring on): each thread's ThreadMXBean blocked time (entering a
 * monitor) and waited time (parked: the ReentrantLock's waiters, and nothing else here waits).
 * Prints, in ns:
 *   MONITOR_BLOCKED_NS n
 *   LOCK_WAITED_NS n
 * With a fourth argument "alloc", the holders also allocate (a byte[256] each turn of their loop).
 * Run: Locks MONITOR_THREADS LOCK_THREADS SECONDS [alloc]
 */
public final class Locks {
  static final Object MONITOR = new Object();
  static final ReentrantLock LOCK = new ReentrantLock();
  static volatile long sink;
  static volatile Object kept;
  static boolean allocate;

  static void spin(long ns) {
    long end = System.nanoTime() + ns, x = 0;
    while (System.nanoTime() < end) {
      x += x * 31 + 7;
      if (allocate)
        kept = new byte[256];
    }
    sink += x;
  }

  static void onMonitor() {
    synchronized (MONITOR) {
      spin(1_000_000);
    }
  }

  static void onLock() {
    LOCK.lock();
    try {
      spin(1_000_000);
    } finally {
      LOCK.unlock();
    }
  }

  public static void main(String[] args) throws Exception {
    int monitors = Integer.parseInt(args[0]), locks = Integer.parseInt(args[1]);
    double seconds = Double.parseDouble(args[2]);
    allocate = args.length > 3 && args[3].equals("alloc");
    ThreadMXBean mx = ManagementFactory.getThreadMXBean();
    mx.setThreadContentionMonitoringEnabled(true);
    long until = System.nanoTime() + (long) (seconds * 1e9);
    int n = monitors + locks;
    Thread[] threads = new Thread[n];
    long[] blockedMs = new long[n], waitedMs = new long[n];
    for (int i = 0; i < n; i++) {
      int me = i;
      boolean monitor = i < monitors;
      threads[i] = new Thread(() -> {
        while (System.nanoTime() < until) {
          if (monitor)
            onMonitor();
          else
            onLock();
        }
        java.lang.management.ThreadInfo info = mx.getThreadInfo(Thread.currentThread().getId());
        blockedMs[me] = info.getBlockedTime();
        waitedMs[me] = info.getWaitedTime();
      }, monitor ? "monitor-" + i : "lock-" + i);
      threads[i].start();
    }
    long blocked = 0, waited = 0;
    for (int i = 0; i < n; i++) {
      threads[i].join();
      if (i < monitors)
        blocked += blockedMs[i] * 1_000_000L;
      else
        waited += waitedMs[i] * 1_000_000L;
    }
    System.out.println("MONITOR_BLOCKED_NS " + blocked);
    System.out.println("LOCK_WAITED_NS " + waited);
    System.out.println("DONE");
  }
}
