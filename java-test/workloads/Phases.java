import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;

/**
 * A steady computing thread throughout, and a second thread computing in anomaly() only between
 * two marks of the workload's own clock: a known spike in time. Prints, when done,
 *   mark NAME START_MS END_MS          (System.currentTimeMillis, ms since 1970)
 *   cpu NAME STEADY_NS ANOMALY_NS      (each thread's CPU time within that mark)
 * for the marks quiet1, spike and quiet2, a second each, half a second apart; then one System.gc().
 * Usage: Phases
 */
public final class Phases {
  static volatile boolean stopSteady, stopSpike;
  static volatile long sink;
  static final ThreadMXBean MX = ManagementFactory.getThreadMXBean();

  static long steady(long x) {
    for (int i = 0; i < 100_000; i++)
      x = x * 6364136223846793005L + 1442695040888963407L;
    return x;
  }

  static long anomaly(long x) {
    for (int i = 0; i < 100_000; i++)
      x = x * 2862933555777941757L + 3037000493L;
    return x;
  }

  static void pause(long ms) throws InterruptedException {
    long end = System.currentTimeMillis() + ms;
    for (long left; (left = end - System.currentTimeMillis()) > 0;)
      Thread.sleep(left);
  }

  public static void main(String[] args) throws Exception {
    Thread steadyThread = new Thread(() -> {
      long x = 1;
      while (!stopSteady)
        x = steady(x);
      sink = x;
    }, "steady");
    steadyThread.start();
    pause(1000);
    StringBuilder out = new StringBuilder();
    long steadyId = steadyThread.getId();
    for (String mark : new String[] {"quiet1", "spike", "quiet2"}) {
      Thread spike = null;
      long t0 = System.currentTimeMillis(), s0 = MX.getThreadCpuTime(steadyId), a0 = 0;
      if (mark.equals("spike")) {
        stopSpike = false;
        spike = new Thread(() -> {
          long x = 2;
          while (!stopSpike)
            x = anomaly(x);
          sink = x;
        }, "spike");
        spike.start();
      }
      pause(1000);
      long a1 = 0;
      if (spike != null) {
        a1 = MX.getThreadCpuTime(spike.getId());
        stopSpike = true;
        spike.join();
      }
      long t1 = System.currentTimeMillis(), s1 = MX.getThreadCpuTime(steadyId);
      out.append("mark ").append(mark).append(' ').append(t0).append(' ').append(t1).append('\n');
      out.append("cpu ").append(mark).append(' ').append(s1 - s0).append(' ').append(a1 - a0).append('\n');
      pause(500);
    }
    stopSteady = true;
    steadyThread.join();
    System.gc();   /* after the marks: a collection a recording of the JVM's events holds */
    System.out.print(out);
  }
}
