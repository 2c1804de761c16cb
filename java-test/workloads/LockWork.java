import java.util.concurrent.locks.ReentrantLock;

/**
 * Fixed contended work, for the lock profiler's cost: THREADS threads take a monitor and THREADS
 * others a ReentrantLock, each TURNS times, holding it for about 5 us of computing. Prints the
 * work's own time WORK_MS n, then DONE.
 * Run: LockWork THREADS TURNS
 */
public final class LockWork {
  static final Object MONITOR = new Object();
  static final ReentrantLock LOCK = new ReentrantLock();
  static volatile long sink;

  static void compute() {
    long x = 0;
    for (int i = 0; i < 2000; i++)
      x += x * 31 + i;
    sink += x;
  }

  public static void main(String[] args) throws Exception {
    int threads = Integer.parseInt(args[0]), turns = Integer.parseInt(args[1]);
    for (int i = 0; i < 2000; i++)   /* compiled before the clock starts */
      compute();
    Thread[] t = new Thread[2 * threads];
    long began = System.nanoTime();
    for (int i = 0; i < t.length; i++) {
      boolean monitor = i < threads;
      t[i] = new Thread(() -> {
        for (int k = 0; k < turns; k++) {
          if (monitor) {
            synchronized (MONITOR) {
              compute();
            }
          } else {
            LOCK.lock();
            try {
              compute();
            } finally {
              LOCK.unlock();
            }
          }
        }
      }, (monitor ? "monitor-" : "lock-") + i);
      t[i].start();
    }
    for (Thread x : t)
      x.join();
    System.out.println("WORK_MS " + (System.nanoTime() - began) / 1_000_000);
    System.out.println("DONE");
  }
}
