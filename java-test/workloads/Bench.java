/**
 * Fixed work for overhead measurements: BATCHES rounds of the demo's order
 * processing (parsing, regex, maps, sorting, strings) and integer mixing on
 * one thread. Prints the wall time and the thread CPU time (user + system, so
 * signal delivery and the handler included) that the work itself took:
 *   ELAPSED_NS 4012345678
 *   CPU_NS 3998765432
 * Run: Bench BATCHES
 */
public final class Bench {
  public static void main(String[] args) {
    int batches = Integer.parseInt(args[0]);
    long c0 = Work.threadCpuNanos();
    long t0 = System.nanoTime();
    long s = 0;
    for (int i = 0; i < batches; i++) {
      s += Demo.batch(i);
      s = Work.mix(s, 10);
    }
    long elapsed = System.nanoTime() - t0;
    long cpu = Work.threadCpuNanos() - c0;
    Work.sink = s;
    System.out.println("ELAPSED_NS " + elapsed);
    System.out.println("CPU_NS " + cpu);
  }
}
