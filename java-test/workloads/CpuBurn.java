/**
 * One thread, "burner", computes for SECONDS and prints its own CPU time:
 *   THREAD_CPU_NS burner 2001234567
 *   JAVA_THREAD_ID burner 15
 * With "overloads", it calls two methods of one name in turn, Work.mix(long, int) and
 * Work.mix(long), which a profile must keep apart where it says a method's descriptor.
 * Run: CpuBurn SECONDS [overloads]
 */
public final class CpuBurn {
  public static void main(String[] args) throws Exception {
    double seconds = Double.parseDouble(args[0]);
    boolean overloads = args.length > 1 && args[1].equals("overloads");
    long[] cpu = new long[1];
    Thread t = new Thread(() -> {
      long end = System.nanoTime() + (long) (seconds * 1e9);
      long s = 1;
      for (int n = 0; System.nanoTime() < end; n++)
        s = overloads && (n & 1) == 1 ? Work.mix(s) : Work.mix(s, 1);
      Work.sink = s;
      cpu[0] = Work.threadCpuNanos();
    }, "burner");
    t.start();
    t.join();
    System.out.println("THREAD_CPU_NS burner " + cpu[0]);
    System.out.println("JAVA_THREAD_ID burner " + t.getId());
  }
}
