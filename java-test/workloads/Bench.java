/**
 * Fixed work for overhead measurements: BATCHES rounds of the demo's order
 * processing (parsing, regex, maps, sorting, strings) and integer mixing on
 * one thread. Prints the time the work itself took:
 *   ELAPSED_NS 4012345678
 * Run: Bench BATCHES
 */
public final class Bench {
  public static void main(String[] args) {
    int batches = Integer.parseInt(args[0]);
    long t0 = System.nanoTime();
    long s = 0;
    for (int i = 0; i < batches; i++) {
      s += Demo.batch(i);
      s = Work.mix(s, 10);
    }
    long elapsed = System.nanoTime() - t0;
    Work.sink = s;
    System.out.println("ELAPSED_NS " + elapsed);
  }
}
