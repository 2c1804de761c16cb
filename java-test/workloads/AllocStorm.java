import java.lang.management.ManagementFactory;

/**
 * An event storm: ALLOC_THREADS threads allocate byte arrays of 16 to 1040 bytes as fast as they
 * can for SECONDS while LOCK_THREADS others contend a monitor (each holder sleeping 1 ms with
 * it held, so that they wait however little CPU they get). The run counts what it did itself:
 * each allocating thread's own bytes (com.sun.management.ThreadMXBean's getThreadAllocatedBytes,
 * from the thread's first allocation in the loop to its last) and the lock threads' waits
 * (thread contention monitoring: their blocked time, entering the monitor). Prints:
 *   ALLOCATED_BYTES n
 *   MONITOR_BLOCKED_NS n
 * Run: AllocStorm ALLOC_THREADS LOCK_THREADS SECONDS
 */
public final class AllocStorm {
  static final Object MONITOR = new Object();
  static volatile Object kept;

  static void allocate(long until, int seed) {
    int x = seed;
    while (System.nanoTime() < until) {
      for (int i = 0; i < 64; i++) {
        x = x * 1103515245 + 12345;
        kept = new byte[16 + ((x >>> 16) & 1023)];
      }
    }
  }

  static void onMonitor(long until) throws InterruptedException {
    while (System.nanoTime() < until) {
      synchronized (MONITOR) {
        Thread.sleep(1);
      }
    }
  }

  public static void main(String[] args) throws Exception {
    int allocators = Integer.parseInt(args[0]), lockers = Integer.parseInt(args[1]);
    double seconds = Double.parseDouble(args[2]);
    com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    mx.setThreadContentionMonitoringEnabled(true);
    mx.setThreadAllocatedMemoryEnabled(true);
    long until = System.nanoTime() + (long) (seconds * 1e9);
    int n = allocators + lockers;
    Thread[] threads = new Thread[n];
    long[] bytes = new long[n], blockedMs = new long[n];
    for (int i = 0; i < n; i++) {
      int me = i;
      boolean alloc = i >= lockers;   /* the lock threads first: they contend however busy the allocators keep the CPUs */
      threads[i] = new Thread(() -> {
        long id = Thread.currentThread().getId();
        if (alloc) {
          long before = mx.getThreadAllocatedBytes(id);
          allocate(until, me);
          bytes[me] = mx.getThreadAllocatedBytes(id) - before;
        } else {
          try {
            onMonitor(until);
          } catch (InterruptedException e) {
            throw new RuntimeException(e);
          }
          blockedMs[me] = mx.getThreadInfo(id).getBlockedTime();
        }
      }, alloc ? "alloc-" + i : "lock-" + i);
      threads[i].start();
    }
    long allocated = 0, blocked = 0;
    for (int i = 0; i < n; i++) {
      threads[i].join();
      allocated += bytes[i];
      blocked += blockedMs[i] * 1_000_000L;
    }
    System.out.println("ALLOCATED_BYTES " + allocated);
    System.out.println("MONITOR_BLOCKED_NS " + blocked);
  }
}
