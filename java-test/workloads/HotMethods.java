/**
 * Three hot methods with CPU shares of about 50/30/20 %, each call timed with the
 * thread's own CPU clock. Prints the measured shares (the ground truth) as
 *   GROUND_TRUTH HotMethods.alpha 0.5012
 * Run: HotMethods SECONDS [cpu]: SECONDS of wall time, or with "cpu" of the hot thread's own CPU
 * time, so that a busy machine lengthens the run instead of thinning its samples.
 */
public final class HotMethods {
  static long alpha(long s) { return Work.mix(s, 5); }
  static long beta(long s) { return Work.mix(s, 3); }
  static long gamma(long s) { return Work.mix(s, 2); }

  public static void main(String[] args) throws Exception {
    double seconds = Double.parseDouble(args[0]);
    if (args.length > 1 && !args[1].equals("cpu")) {
      System.err.println("HotMethods: '" + args[1] + "' is not known after SECONDS; accepted: cpu (or nothing: wall time)");
      System.exit(2);
    }
    java.util.function.LongSupplier clock = args.length > 1 ? Work::threadCpuNanos : System::nanoTime;
    long[] cpu = new long[3];
    Thread t = new Thread(() -> {
      long end = clock.getAsLong() + (long) (seconds * 1e9);
      long s = 1;
      while (clock.getAsLong() < end) {
        long t0 = Work.threadCpuNanos();
        s = alpha(s);
        long t1 = Work.threadCpuNanos();
        s = beta(s);
        long t2 = Work.threadCpuNanos();
        s = gamma(s);
        long t3 = Work.threadCpuNanos();
        cpu[0] += t1 - t0;
        cpu[1] += t2 - t1;
        cpu[2] += t3 - t2;
      }
      Work.sink = s;
    }, "hot");
    t.start();
    t.join();
    double total = cpu[0] + cpu[1] + cpu[2];
    String[] names = {"alpha", "beta", "gamma"};
    for (int i = 0; i < 3; i++)
      System.out.printf("GROUND_TRUTH HotMethods.%s %.4f%n", names[i], cpu[i] / total);
  }
}
