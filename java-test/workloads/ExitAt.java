/**
 * Threads that compute, allocate, contend for a monitor and start and end
 * short threads, until main returns EXIT_MS after it began, or sooner once
 * a file named exit-now appears in the working directory: the JVM then
 * exits through DestroyJavaVM (the workers are daemons) at a moment its
 * caller knows. Prints "EXIT_IN <ms>" at start and "EXITING" just before.
 * Run: ExitAt EXIT_MS [halt|return [CHURNERS]]  (halt: System.exit(0)
 * instead of returning; CHURNERS threads start and end threads, 1 unless given)
 */
public final class ExitAt {
  static final Object LOCK = new Object();
  static volatile long sink;
  static final byte[][][] KEEP = new byte[3][64][];

  public static void main(String[] args) throws Exception {
    long exitMs = Long.parseLong(args[0]);
    boolean halt = args.length > 1 && args[1].equals("halt");
    long start = System.nanoTime();
    for (int i = 0; i < 3; i++) {
      final int id = i;
      Thread t = new Thread(() -> {
        long x = id;
        for (;;) {
          synchronized (LOCK) {   /* contended: lock events */
            for (int k = 0; k < 20000; k++)
              x = x * 31 + k;
          }
          for (int k = 0; k < 200; k++) {   /* allocations, at many sites' worth of sizes */
            byte[] b = new byte[16 + (int) ((x + k) & 1023)];
            KEEP[id][k & 63] = b;   /* escapes: C2 cannot take the allocation away */
          }
          sink += Work.mix((int) x, 1);
        }
      }, "worker-" + i);
      t.setDaemon(true);
      t.start();
    }
    int churners = args.length > 2 ? Integer.parseInt(args[2]) : 1;
    for (int c = 0; c < churners; c++) {
      Thread churn = new Thread(() -> {   /* threads that start and end */
        for (int n = 0;; n++) {
          final int id = n;
          Thread s = new Thread(() -> sink += Work.mix(id, 1), "short-" + n);
          s.setDaemon(true);
          s.start();
          try {
            s.join();
            Thread.sleep(2);
          } catch (InterruptedException e) {
            return;
          }
        }
      }, "churn-" + c);
      churn.setDaemon(true);
      churn.start();
    }
    System.out.println("EXIT_IN " + exitMs);
    System.out.flush();
    java.io.File now = new java.io.File("exit-now");
    long left;
    while ((left = exitMs - (System.nanoTime() - start) / 1000000) > 0 && !now.exists())
      Thread.sleep(Math.min(left, 5));
    System.out.println("EXITING");
    System.out.flush();
    if (halt)
      System.exit(0);
  }
}
