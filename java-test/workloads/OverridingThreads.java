import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Application code that a profiler must never run: THREADS threads of a Thread subclass that
 * overrides every method of Thread and Object it may (getId, getContextClassLoader, toString,
 * hashCode, equals, getUncaughtExceptionHandler, isInterrupted, interrupt, getStackTrace, run
 * aside), contending for a monitor whose class overrides toString, hashCode and equals and for a
 * ReentrantLock subclass that overrides toString, each allocating, for SECONDS. The program itself
 * calls none of the overrides while it runs. Prints the calls counted, then calls getId() once on
 * purpose to show that the count sees a call:
 *   STARTED            (its threads running)
 *   OVERRIDE_CALLS n
 *   LOADER_CALLS n     (with -Djava.system.class.loader=CountingLoader: the JDK classes it was asked for)
 *   AFTER_ONE_CALL n+1
 * Run: OverridingThreads THREADS SECONDS
 */
public final class OverridingThreads {
  static final AtomicLong CALLS = new AtomicLong();
  static volatile Object kept;
  static volatile long sink;

  static final class Counted extends Thread {
    Counted(Runnable r, String name) { super(r, name); }
    @Override @SuppressWarnings("deprecation") public long getId() { CALLS.incrementAndGet(); return super.getId(); }
    @Override public ClassLoader getContextClassLoader() { CALLS.incrementAndGet(); return super.getContextClassLoader(); }
    @Override public String toString() { CALLS.incrementAndGet(); return super.toString(); }
    @Override public int hashCode() { CALLS.incrementAndGet(); return super.hashCode(); }
    @Override public boolean equals(Object o) { CALLS.incrementAndGet(); return super.equals(o); }
    @Override public UncaughtExceptionHandler getUncaughtExceptionHandler() {
      CALLS.incrementAndGet();
      return super.getUncaughtExceptionHandler();
    }
    @Override public boolean isInterrupted() { CALLS.incrementAndGet(); return super.isInterrupted(); }
    @Override public void interrupt() { CALLS.incrementAndGet(); super.interrupt(); }
    @Override public StackTraceElement[] getStackTrace() { CALLS.incrementAndGet(); return super.getStackTrace(); }
  }

  /** A monitor whose class's Object methods are the application's. */
  static final class Monitor {
    @Override public String toString() { CALLS.incrementAndGet(); return "Monitor"; }
    @Override public int hashCode() { CALLS.incrementAndGet(); return 1; }
    @Override public boolean equals(Object o) { CALLS.incrementAndGet(); return o == this; }
  }

  static final class CountedLock extends ReentrantLock {
    @Override public String toString() { CALLS.incrementAndGet(); return "CountedLock"; }
    @Override public int hashCode() { CALLS.incrementAndGet(); return 2; }
  }

  static final Monitor MONITOR = new Monitor();
  static final CountedLock LOCK = new CountedLock();

  static void spin(long ns) {
    long end = System.nanoTime() + ns, x = 0;
    while (System.nanoTime() < end) {
      x += x * 31 + 7;
      kept = new byte[128];
    }
    sink += x;
  }

  public static void main(String[] args) throws Exception {
    int n = Integer.parseInt(args[0]);
    long until = System.nanoTime() + (long) (Double.parseDouble(args[1]) * 1e9);
    Counted[] threads = new Counted[n];
    for (int i = 0; i < n; i++) {
      boolean monitor = i % 2 == 0;
      threads[i] = new Counted(() -> {
        while (System.nanoTime() < until) {
          if (monitor) {
            synchronized (MONITOR) {
              spin(300_000);
            }
          } else {
            LOCK.lock();
            try {
              spin(300_000);
            } finally {
              LOCK.unlock();
            }
          }
          spin(100_000);
        }
      }, "counted-" + i);
      threads[i].start();
    }
    System.out.println("STARTED");
    for (Counted t : threads)
      t.join();
    System.out.println("OVERRIDE_CALLS " + CALLS.get());
    if (ClassLoader.getSystemClassLoader() instanceof CountingLoader)
      System.out.println("LOADER_CALLS " + CountingLoader.JDK_CLASSES.get());
    sink += threads[0].getId();
    System.out.println("AFTER_ONE_CALL " + CALLS.get());
  }
}
