/**
 * One thread "deep", FRAMES deep, sleeps in three phases from one call site:
 * REST seconds; then a new stack after another: one frame deeper each time,
 * 30 ms each, COUNT of them; then REST seconds again, on the stack of the first
 * phase. Under a memlimit the second phase's stacks fill the table: the third
 * phase's stack is already known and must still count. Prints the phases'
 * lengths, the time main waited in join (for a short thread "warm", then for
 * "deep") and the longest of the second phase's sleeps as the workload
 * measured them:
 *   PHASES_NS FIRST FILL LAST LIFE LONGEST_FILL_SLEEP
 * Run: MemlimitPhases FRAMES REST COUNT
 */
public final class MemlimitPhases {
  static void sleep(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      throw new RuntimeException(e);
    }
  }

  static long longestFill;

  static void deeper(int frames) {
    if (frames <= 0) {
      long start = System.nanoTime();
      sleep(30);
      longestFill = Math.max(longestFill, System.nanoTime() - start);
    } else {
      deeper(frames - 1);
    }
  }

  /* phase 0 and 2 sleep from the same call site, so their stacks are one */
  static void phases(long rest, int count, long[] ns) {
    for (int phase = 0; phase < 3; phase++) {
      long start = System.nanoTime();
      if (phase == 1) {
        for (int i = 1; i <= count; i++)
          deeper(i);
      } else {
        sleep(rest);
      }
      ns[phase] = System.nanoTime() - start;
    }
  }

  static void descend(int depth, long rest, int count, long[] ns) {
    if (depth <= 1)
      phases(rest, count, ns);
    else
      descend(depth - 1, rest, count, ns);
  }

  public static void main(String[] args) throws Exception {
    int frames = Integer.parseInt(args[0]);
    long rest = (long) (Double.parseDouble(args[1]) * 1000);
    int count = Integer.parseInt(args[2]);
    long[] ns = new long[3];
    long[] life = new long[1];
    Thread deep = new Thread(null, () -> {
      long start = System.nanoTime();
      descend(frames, rest, count, ns);
      life[0] = System.nanoTime() - start;
    }, "deep", 64L << 20);
    /* main waits first for a short thread, then for "deep", from one call site: its waiting
     * stack is sampled (and stored) before deep's stacks can fill a memlimit */
    Thread warm = new Thread(() -> sleep(200), "warm");
    long joined = 0;
    for (Thread t : new Thread[] {warm, deep}) {
      long start = System.nanoTime();
      t.start();
      t.join();
      joined += System.nanoTime() - start;
    }
    System.out.println("PHASES_NS " + ns[0] + " " + ns[1] + " " + ns[2] + " " + joined + " " + longestFill);
  }
}
