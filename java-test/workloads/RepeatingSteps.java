/**
 * A loop that repeats one sequence of nine steps, the first 1.6 times as long
 * as the others, all in the regression gate's helper (CallPathWorkload.hash:
 * about 5 us a unit here), each step timed on the
 * monotonic clock; passes that took half again as long as the fastest (the thread
 * was switched out in them) are left out of that truth. A sampler whose
 * period keeps step with the loop lands on the same few points of each pass
 * and miscounts the steps, differently in each run. Prints the measured
 * shares (the ground truth) as
 *   GROUND_TRUTH RepeatingSteps.step0 0.1826
 * Run: RepeatingSteps SECONDS
 */
public final class RepeatingSteps {
  static final int STEPS = 9;

  static int first = 16, rest = 10;   /* read from fields: the JIT treats every step alike */

  static long step0(long s) { return CallPathWorkload.hash(s + 1, first); }
  static long step1(long s) { return CallPathWorkload.hash(s + 2, rest); }
  static long step2(long s) { return CallPathWorkload.hash(s + 3, rest); }
  static long step3(long s) { return CallPathWorkload.hash(s + 4, rest); }
  static long step4(long s) { return CallPathWorkload.hash(s + 5, rest); }
  static long step5(long s) { return CallPathWorkload.hash(s + 6, rest); }
  static long step6(long s) { return CallPathWorkload.hash(s + 7, rest); }
  static long step7(long s) { return CallPathWorkload.hash(s + 8, rest); }
  static long step8(long s) { return CallPathWorkload.hash(s + 9, rest); }

  /** One pass, each step's end read on the monotonic clock (a vDSO read: the loop stays regular). */
  static long pass(long s, long[] at) {
    at[0] = System.nanoTime();
    s = step0(s);
    at[1] = System.nanoTime();
    s = step1(s);
    at[2] = System.nanoTime();
    s = step2(s);
    at[3] = System.nanoTime();
    s = step3(s);
    at[4] = System.nanoTime();
    s = step4(s);
    at[5] = System.nanoTime();
    s = step5(s);
    at[6] = System.nanoTime();
    s = step6(s);
    at[7] = System.nanoTime();
    s = step7(s);
    at[8] = System.nanoTime();
    s = step8(s);
    at[9] = System.nanoTime();
    return s;
  }

  public static void main(String[] args) throws Exception {
    double seconds = Double.parseDouble(args[0]);
    long[] cpu = new long[STEPS];
    long[] kept = new long[2];   /* passes counted, passes left out */
    Thread t = new Thread(() -> {
      long end = System.nanoTime() + (long) (seconds * 1e9);
      long s = 1, fastest = Long.MAX_VALUE;
      long[] at = new long[STEPS + 1];
      while (System.nanoTime() < end) {
        s = pass(s, at);
        long took = at[STEPS] - at[0];
        fastest = Math.min(fastest, took);
        /* a pass the thread was switched out in (or the JIT still shaping the code)
         * counts time it did not run: left out */
        if (took > fastest + fastest / 2) {
          kept[1]++;
          continue;
        }
        kept[0]++;
        for (int i = 0; i < STEPS; i++)
          cpu[i] += at[i + 1] - at[i];
      }
      Work.sink = s;
    }, "steps");
    t.start();
    t.join();
    double total = 0;
    for (long c : cpu)
      total += c;
    System.out.printf("PASSES kept %d left out %d%n", kept[0], kept[1]);
    for (int i = 0; i < STEPS; i++)
      System.out.printf("GROUND_TRUTH RepeatingSteps.step%d %.4f%n", i, cpu[i] / total);
  }
}
