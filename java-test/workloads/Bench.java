/**
 * Fixed work for overhead measurements: BATCHES rounds of the demo's order
 * processing (parsing, regex, maps, sorting, strings) and integer mixing on
 * one thread, after WARMUP untimed rounds (default 0) that let the JIT settle,
 * so the time is the steady state's. Prints the wall time and the thread CPU
 * time (user + system, so signal delivery and the handler included) that the
 * timed work took, and the CPU time of the whole process so far (JIT, GC, a
 * profiler's threads):
 *   ELAPSED_NS 4012345678
 *   CPU_NS 3998765432
 *   PROCESS_CPU_NS 5012345678
 * With KIND mix, a batch is one Work.mix unit instead (20 000 integer mixing
 * steps, no allocation): a steadier workload, its time hardly moved by GC or JIT.
 * With KIND deep, the same unit runs under DEPTH (100) calls of a recursive
 * method: steady work whose every sample is a stack over a hundred frames deep.
 * Run: Bench BATCHES [WARMUP] [demo|mix|deep]
 */
public final class Bench {
  static final int DEPTH = 100;

  /* Work.mix at the bottom of depth more frames of this method. */
  static long down(int depth, long s) {
    return depth == 0 ? Work.mix(s, 1) : down(depth - 1, s) + 1;
  }

  /** One unit of KIND's work, the i-th, carrying s along. */
  static long unit(String kind, int i, long s) {
    switch (kind) {
      case "deep": return down(DEPTH, s);
      case "mix": return Work.mix(s, 1);
      default: return Work.mix(s + Demo.batch(i), 10);
    }
  }

  static boolean known(String kind) {
    return kind.equals("demo") || kind.equals("mix") || kind.equals("deep");
  }

  public static void main(String[] args) {
    int batches = Integer.parseInt(args[0]);
    int warmup = args.length > 1 ? Integer.parseInt(args[1]) : 0;
    String kind = args.length > 2 ? args[2] : "demo";
    if (!known(kind)) {
      System.err.println("Bench: KIND '" + kind + "' is not known; accepted: demo, mix, deep");
      System.exit(2);
    }
    long w = 0;
    for (int i = 0; i < warmup; i++)
      w = unit(kind, i, w);
    Work.sink = w;
    long c0 = Work.threadCpuNanos();
    long t0 = System.nanoTime();
    long s = 0;
    for (int i = 0; i < batches; i++)
      s = unit(kind, i, s);
    long elapsed = System.nanoTime() - t0;
    long cpu = Work.threadCpuNanos() - c0;
    Work.sink = s;
    System.out.println("ELAPSED_NS " + elapsed);
    System.out.println("CPU_NS " + cpu);
    System.out.println("PROCESS_CPU_NS " + ((com.sun.management.OperatingSystemMXBean)
        java.lang.management.ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime());
  }
}
