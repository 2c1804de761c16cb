import java.util.concurrent.locks.LockSupport;

/**
 * Three threads for SECONDS: "half" computes 20 ms then sleeps 20 ms, over and
 * over (about 50% off-CPU); "spin" computes all the time (about 0%); "parked"
 * parks for the whole run. Prints each thread's CPU time and wall time:
 *   THREAD_TIMES half CPU_NS WALL_NS
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

  static void halfAndHalf(long until) throws InterruptedException {
    while (System.nanoTime() < until) {
      compute(20_000_000);
      Thread.sleep(20);
    }
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
    long[][] times = new long[2][2];
    for (int i = 0; i < 2; i++) {
      int k = i;
      threads[i] = new Thread(() -> {
        long t0 = System.nanoTime();
        try {
          if (k == 0)
            halfAndHalf(until);
          else
            spin(until);
        } catch (InterruptedException e) {
          throw new RuntimeException(e);
        }
        times[k][0] = Work.threadCpuNanos();
        times[k][1] = System.nanoTime() - t0;
      }, names[i]);
      threads[i].start();
    }
    for (Thread t : threads)
      t.join();
    for (int i = 0; i < 2; i++)
      System.out.println("THREAD_TIMES " + names[i] + " " + times[i][0] + " " + times[i][1]);
  }
}
