/**
 * One thread, "burner", computes for SECONDS and prints its own CPU time:
 *   THREAD_CPU_NS burner 2001234567
 *   JAVA_THREAD_ID burner 15
 * Run: CpuBurn SECONDS
 */
public final class CpuBurn {
  public static void main(String[] args) throws Exception {
    double seconds = Double.parseDouble(args[0]);
    long[] cpu = new long[1];
    Thread t = new Thread(() -> {
      long end = System.nanoTime() + (long) (seconds * 1e9);
      long s = 1;
      while (System.nanoTime() < end)
        s = Work.mix(s, 1);
      Work.sink = s;
      cpu[0] = Work.threadCpuNanos();
    }, "burner");
    t.start();
    t.join();
    System.out.println("THREAD_CPU_NS burner " + cpu[0]);
    System.out.println("JAVA_THREAD_ID burner " + t.getId());
  }
}
