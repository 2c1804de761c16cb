import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;

/**
 * Waits for owned locks beside waits for events, for SECONDS. Owned locks, each contended by two
 * threads holding it about 1 ms a turn: a monitor (onMonitor), a ReentrantLock (onReentrant), a
 * ReentrantReadWriteLock's write lock (onWriteLock) and a Semaphore of one permit (onSemaphore);
 * each thread times its own acquisitions with System.nanoTime (fast path, spinning and preemption
 * between parks included), and the JVM accounts for them too (ThreadMXBean, contention monitoring
 * on: the monitor's threads' blocked time, the others' waited time, i.e. parked). Waits for
 * events, which are no lock contention: three threads waiting on a CountDownLatch that opens at
 * the end (onLatch), one in a Condition's awaitNanos for the whole run on a lock nobody else
 * takes (onCondition), and the idle worker of a pool (ThreadPoolExecutor.getTask). Prints, in ns:
 *   MONITOR_NS n       and JVM_MONITOR_NS n (ThreadMXBean's, whole milliseconds)
 *   REENTRANT_NS n     and JVM_REENTRANT_NS n
 *   WRITE_LOCK_NS n    and JVM_WRITE_LOCK_NS n
 *   SEMAPHORE_NS n     and JVM_SEMAPHORE_NS n
 *   LATCH_NS n      (the three latch threads' waits)
 *   CONDITION_NS n
 * Run: LockKinds SECONDS
 */
public final class LockKinds {
  static final Object MONITOR = new Object();
  static final ReentrantLock REENTRANT = new ReentrantLock();
  static final ReentrantReadWriteLock RW = new ReentrantReadWriteLock();
  static final Semaphore SEMAPHORE = new Semaphore(1);
  static final CountDownLatch LATCH = new CountDownLatch(1);
  static final ReentrantLock QUIET = new ReentrantLock();
  static final Condition NEVER = QUIET.newCondition();
  static volatile long sink;

  static void spin(long ns) {
    long end = System.nanoTime() + ns, x = 0;
    while (System.nanoTime() < end)
      x += x * 31 + 7;
    sink += x;
  }

  static long onMonitor() {
    long t0 = System.nanoTime(), waited;
    synchronized (MONITOR) {
      waited = System.nanoTime() - t0;
      spin(1_000_000);
    }
    return waited;
  }

  static long onReentrant() {
    long t0 = System.nanoTime();
    REENTRANT.lock();
    long waited = System.nanoTime() - t0;
    try {
      spin(1_000_000);
    } finally {
      REENTRANT.unlock();
    }
    return waited;
  }

  static long onWriteLock() {
    long t0 = System.nanoTime();
    RW.writeLock().lock();
    long waited = System.nanoTime() - t0;
    try {
      spin(1_000_000);
    } finally {
      RW.writeLock().unlock();
    }
    return waited;
  }

  static long onSemaphore() throws InterruptedException {
    long t0 = System.nanoTime();
    SEMAPHORE.acquire();
    long waited = System.nanoTime() - t0;
    try {
      spin(1_000_000);
    } finally {
      SEMAPHORE.release();
    }
    return waited;
  }

  static long onLatch() throws InterruptedException {
    long t0 = System.nanoTime();
    LATCH.await();
    return System.nanoTime() - t0;
  }

  static long onCondition(long ns) throws InterruptedException {
    QUIET.lock();
    try {
      long t0 = System.nanoTime(), left = ns;
      while (left > 0)
        left = NEVER.awaitNanos(left);
      return System.nanoTime() - t0;
    } finally {
      QUIET.unlock();
    }
  }

  interface Turn { long take() throws Exception; }

  public static void main(String[] args) throws Exception {
    long runNs = (long) (Double.parseDouble(args[0]) * 1e9), until = System.nanoTime() + runNs;
    String[] kinds = {"MONITOR_NS", "REENTRANT_NS", "WRITE_LOCK_NS", "SEMAPHORE_NS"};
    Turn[] turns = {LockKinds::onMonitor, LockKinds::onReentrant, LockKinds::onWriteLock, LockKinds::onSemaphore};
    /* each turn once alone first: the classes its bytecode names are resolved then, not by two
     * contenders at once (they would wait on the class loader's lock, a true monitor wait under
     * onWriteLock that is not the write lock's) */
    for (Turn t : turns)
      t.take();
    ThreadMXBean mx = ManagementFactory.getThreadMXBean();
    mx.setThreadContentionMonitoringEnabled(true);
    long[] waited = new long[kinds.length * 2], jvmMs = new long[kinds.length * 2];
    Thread[] contenders = new Thread[waited.length];
    for (int i = 0; i < contenders.length; i++) {
      int me = i;
      Turn turn = turns[i / 2];
      contenders[i] = new Thread(() -> {
        try {
          long w = 0;
          while (System.nanoTime() < until)
            w += turn.take();
          waited[me] = w;
          ThreadInfo info = mx.getThreadInfo(Thread.currentThread().getId());
          jvmMs[me] = me < 2 ? info.getBlockedTime() : info.getWaitedTime();
        } catch (Exception e) {
          throw new RuntimeException(e);
        }
      }, kinds[i / 2].toLowerCase() + "-" + i);
    }
    long[] latchWaited = new long[3];
    Thread[] latchers = new Thread[latchWaited.length];
    for (int i = 0; i < latchers.length; i++) {
      int me = i;
      latchers[i] = new Thread(() -> {
        try {
          latchWaited[me] = onLatch();
        } catch (InterruptedException e) {
          throw new RuntimeException(e);
        }
      }, "latch-" + i);
    }
    long[] conditionWaited = new long[1];
    Thread condition = new Thread(() -> {
      try {
        conditionWaited[0] = onCondition(runNs);
      } catch (InterruptedException e) {
        throw new RuntimeException(e);
      }
    }, "condition");
    ExecutorService pool = new ThreadPoolExecutor(1, 1, 1, TimeUnit.HOURS, new LinkedBlockingQueue<>());
    pool.submit(() -> spin(1_000_000)).get();   /* its worker now waits for work (getTask) */
    for (Thread t : contenders)
      t.start();
    for (Thread t : latchers)
      t.start();
    condition.start();
    while (System.nanoTime() < until)
      Thread.sleep(10);
    LATCH.countDown();
    for (Thread t : contenders)
      t.join();
    for (Thread t : latchers)
      t.join();
    condition.join();
    pool.shutdown();
    pool.awaitTermination(10, TimeUnit.SECONDS);
    for (int k = 0; k < kinds.length; k++) {
      System.out.println(kinds[k] + " " + (waited[2 * k] + waited[2 * k + 1]));
      System.out.println("JVM_" + kinds[k] + " " + (jvmMs[2 * k] + jvmMs[2 * k + 1]) * 1_000_000L);
    }
    long latch = 0;
    for (long w : latchWaited)
      latch += w;
    System.out.println("LATCH_NS " + latch);
    System.out.println("CONDITION_NS " + conditionWaited[0]);
  }
}
