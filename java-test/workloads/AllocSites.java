/**
 * Three allocation sites, each counting the bytes it allocated (the arrays' lengths: their
 * 16-byte headers are under 4% of the smallest), so that an allocation profile can be held to
 * the workload's own figures. Sized against a sampling interval of 4 KiB, so that the chance a
 * sample takes an object spans 0.09 to 0.86 and only a profile that weighs each sample by its
 * object's chance (not as one interval, nor as its size) gets the shares right; and small enough
 * for a thread-local allocation buffer, the path whose sampling every JDK gets right (JDK 17's
 * sampler undercounts objects allocated outside one: JDK-8356372, fixed in JDK 25).
 *   siteBytes   byte[8176] (8 KiB) every 3rd iteration
 *   siteInts    int[1020] (4 KiB) every iteration
 *   siteLongs   long[48] (384 B) every iteration
 * THREADS threads run ITERATIONS each; every array is kept in a ring of 64 so that escape
 * analysis cannot remove it. Prints per site SITE name bytes, the work's own time WORK_MS n,
 * then DONE.
 * This class holds no string constant (the driver, AllocSitesDriver, prints and names the
 * threads): when a thread's C1 code asks for a method of it to be compiled at a higher tier,
 * HotSpot interns the class's string constants on that thread first
 * (CompileBroker::compile_method -> ConstantPool::resolve_string_constants), and those Strings
 * and their byte[]s are sampled under whichever site the thread was in.
 * Run: AllocSites THREADS ITERATIONS
 */
public final class AllocSites {
  static final Object[][] KEEP = new Object[64][];

  static Object siteBytes() { return new byte[8176]; }
  static Object siteInts() { return new int[1020]; }
  static Object siteLongs() { return new long[48]; }

  static void work(long iterations, Object[] keep) {
    for (long i = 0; i < iterations; i++) {
      int slot = (int) (i & 63);
      if (i % 3 == 0)
        keep[slot] = siteBytes();
      keep[(slot + 21) & 63] = siteInts();
      keep[(slot + 42) & 63] = siteLongs();
    }
  }

  static Runnable worker(int i, long iterations) {
    Object[] keep = KEEP[i] = new Object[64];
    return () -> work(iterations, keep);
  }

  public static void main(String[] args) throws Exception {
    AllocSitesDriver.run(args);
  }
}

/** AllocSites's threads, clock and figures, apart from its string-free class. */
final class AllocSitesDriver {
  private AllocSitesDriver() {}

  static void run(String[] args) throws Exception {
    int threads = Integer.parseInt(args[0]);
    long iterations = Long.parseLong(args[1]);
    Thread[] t = new Thread[threads];
    long began = System.nanoTime();
    for (int i = 0; i < threads; i++) {
      t[i] = new Thread(AllocSites.worker(i, iterations), "allocator-" + i);
      t[i].start();
    }
    for (Thread x : t)
      x.join();
    System.out.println("WORK_MS " + (System.nanoTime() - began) / 1_000_000);
    System.out.println("SITE siteBytes " + threads * ((iterations + 2) / 3) * 8176L);
    System.out.println("SITE siteInts " + threads * iterations * 1020L * 4);
    System.out.println("SITE siteLongs " + threads * iterations * 48L * 8);
    System.out.println("DONE");
  }
}
