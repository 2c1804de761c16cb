import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.locks.LockSupport;

/**
 * Three threads for SECONDS: "half" computes 20 ms then sleeps 20 ms, over and
 * over (about 50% off-CPU); "spin" computes all the time (about 0%); "parked"
 * parks for the whole run. Prints, for half and spin, the thread's CPU time and
 * wall time, and the time it spent off a CPU as its kernel saw it: asleep
 * (timed around each sleep) plus waiting in a run queue outside its sleeps
 * (its schedstat). Under a hypervisor that takes the CPU away, CPU time falls
 * while that off-CPU time does not: the kernel sees the thread running.
 *   THREAD_TIMES half CPU_NS WALL_NS
 *   OFF_CPU half OFF_NS WALL_NS        (only with /proc/thread-self/schedstat)
 * Run: ComputeSleep SECONDS
 */
public final class ComputeSleep {
  static void compute(long ns) {
    long end = System.nanoTime() + ns;
    long s = 1;
    while (System.nanoTime() < end)
      s = Work.mix(s, 1);
    Work.sink += s;
  }

  /** The calling thread's run-queue wait so far (ns), from its schedstat; -1 without one. */
  static long runQueueNanos() {
    try {
      String[] f = Files.readString(Path.of("/proc/thread-self/schedstat")).trim().split(" ");
      return Long.parseLong(f[1]);
    } catch (Exception e) {
      return -1;
    }
  }

  /** Returns the time spent off a CPU inside Thread.sleep (ns), and the run-queue wait within it in waited[0]. */
  static long halfAndHalf(long until, long[] waited) throws InterruptedException {
    long slept = 0;
    while (System.nanoTime() < until) {
      compute(20_000_000);
      long q0 = runQueueNanos(), t0 = System.nanoTime();
      Thread.sleep(20);
      slept += System.nanoTime() - t0;
      waited[0] += runQueueNanos() - q0;
    }
    return slept;
  }

  static void spin(long until) {
    while (System.nanoTime() < until)
      compute(1_000_000);
  }

  public static void main(String[] args) throws Exception {
    double seconds = Double.parseDouble(args[0]);
    long start = System.nanoTime(), until = start + (long) (seconds * 1e9);
    Thread parked = new Thread(() -> LockSupport.parkNanos((long) (seconds * 1e9) + 500_000_000L), "parked");
    parked.setDaemon(true);
    parked.start();
    String[] names = {"half", "spin"};
    Thread[] threads = new Thread[2];
    long[][] times = new long[2][3];
    for (int i = 0; i < 2; i++) {
      int k = i;
      threads[i] = new Thread(() -> {
        long t0 = System.nanoTime(), q0 = runQueueNanos(), slept = 0;
        long[] waitedAsleep = {0};
        try {
          if (k == 0)
            slept = halfAndHalf(until, waitedAsleep);
          else
            spin(until);
        } catch (InterruptedException e) {
          throw new RuntimeException(e);
        }
        long q1 = runQueueNanos();
        times[k][0] = Work.threadCpuNanos();
        times[k][1] = System.nanoTime() - t0;
        times[k][2] = q0 < 0 || q1 < 0 ? -1 : slept + (q1 - q0 - waitedAsleep[0]);
      }, names[i]);
      threads[i].start();
    }
    for (Thread t : threads)
      t.join();
    for (int i = 0; i < 2; i++) {
      System.out.println("THREAD_TIMES " + names[i] + " " + times[i][0] + " " + times[i][1]);
      if (times[i][2] >= 0)
        System.out.println("OFF_CPU " + names[i] + " " + times[i][2] + " " + times[i][1]);
    }
  }
}
