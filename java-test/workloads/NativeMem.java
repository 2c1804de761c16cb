import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.Deflater;
import java.util.zip.Inflater;

/**
 * nativemem's truth: libfgnm.so (java-test/jni/fgnm.c), loaded after the agent started, allocates
 * MB/2 to 2 MB megabytes (HALVES) from each of ten native sites (malloc, calloc, realloc, posix_memalign,
 * aligned_alloc, memalign, valloc, pvalloc (none where the allocator has none), reallocarray; three of them
 * keep what they allocated) on fresh threads, 4 rounds of 3 threads
 * and 25 short ones;
 * direct buffers from directBuffers() and Inflaters from inflaters(); between rounds a child
 * process (fork/exec) and a library loaded, called and unloaded 50 times. Prints "SITE name bytes"
 * for each site and "KEPT name" for those that keep; at the end 200 blocks freed where no hook sees it,
 * each followed by an allocation of its size ("AGAIN n": those given the freed address back). With "lock": native threads contend a
 * pthread mutex (lock, timedlock) and a rwlock (wrlock, timedwrlock, timedrdlock), and it prints the ns
 * each site waited.
 * With "loop": rounds (and a contended lock) again and again until standard input closes.
 * Run: NativeMem JNI_DIR MB [lock THREADS ROUNDS HOLD_US | loop]
 */
public final class NativeMem {
  static final String[] SITES = {"nm_site_malloc_kept", "nm_site_malloc_freed", "nm_site_calloc_freed",
      "nm_site_realloc_freed", "nm_site_memalign_kept", "nm_site_aligned_freed", "nm_site_oldmemalign_freed",
      "nm_site_valloc_kept", "nm_site_pvalloc_freed", "nm_site_reallocarray_freed"};
  static final boolean[] KEEPS = {true, false, false, false, true, false, false, true, false, false};
  /** Each site's bytes in halves of MB: shares of 1/20 to 4/20, so that no error spreads evenly. */
  static final int[] HALVES = {1, 3, 2, 1, 1, 4, 2, 1, 2, 3};
  /** The lock sites of contend(), in its order. */
  static final String[] LOCK_SITES = {"nm_lock_site", "nm_wrlock_site", "nm_timedlock_site", "nm_timedwrlock_site",
      "nm_timedrdlock_site", "nm_clocklock_site", "nm_clockwrlock_site", "nm_clockrdlock_site"};

  static native long run(int site, long bytes);
  static native int dlcycle(String path, int n);
  static native int unseenFrees(int n);
  static native int refusedArguments();
  static native void contend(int threads, int rounds, int holdUs, long[] out);

  static final List<ByteBuffer> held = new ArrayList<>();

  /** 64 KiB direct buffers, count of them, dropped at once (the Cleaner frees them later). */
  static long directBuffers(int count) {
    long n = 0;
    for (int i = 0; i < count; i++) {
      ByteBuffer b = ByteBuffer.allocateDirect(64 * 1024);
      b.put(0, (byte) i);
      n += b.capacity();
    }
    return n;
  }

  /** count Inflaters, each inflating a small deflated block, then ended. */
  static long inflaters(int count, byte[] deflated) throws Exception {
    long n = 0;
    byte[] out = new byte[1 << 16];
    for (int i = 0; i < count; i++) {
      Inflater inf = new Inflater();
      inf.setInput(deflated);
      while (!inf.finished())
        n += inf.inflate(out);
      inf.end();
    }
    return n;
  }

  static byte[] deflated() {
    byte[] in = new byte[50000];
    for (int i = 0; i < in.length; i++)
      in[i] = (byte) ('a' + i % 13);
    Deflater d = new Deflater();
    d.setInput(in);
    d.finish();
    ByteArrayOutputStream bo = new ByteArrayOutputStream();
    byte[] buf = new byte[4096];
    while (!d.finished())
      bo.write(buf, 0, d.deflate(buf));
    d.end();
    return bo.toByteArray();
  }

  public static void main(String[] args) throws Exception {
    String dir = args[0];
    System.load(dir + "/libfgnm.so");   /* after the agent's start: patched when loaded */
    if (args.length > 2 && args[2].equals("lock")) {
      long[] waited = new long[LOCK_SITES.length];
      int threads = Integer.parseInt(args[3]);
      contend(threads, Integer.parseInt(args[4]), Integer.parseInt(args[5]), waited);
      for (int s = 0; s < LOCK_SITES.length && s < threads; s++)
        System.out.println("WAITED " + LOCK_SITES[s] + " " + waited[s]);
      System.out.println("REFUSED " + refusedArguments() + " of 4");
      return;
    }
    long perSite = Long.parseLong(args[1]) << 20;
    if (args.length > 2 && args[2].equals("loop")) {
      Thread reader = new Thread(() -> {
        try {
          while (System.in.read() >= 0) {}
        } catch (java.io.IOException e) {
        }
      }, "stdin");
      reader.start();
      long[] waited = new long[LOCK_SITES.length];
      byte[] deflated = deflated();
      int loops = 0;
      while (reader.isAlive()) {
        for (int s = 0; s < SITES.length; s++)
          run(s, perSite * HALVES[s] / 2 / 12);
        directBuffers(20);
        inflaters(20, deflated);
        contend(4, 20, 200, waited);
        dlcycle(dir + "/libfgnmhelper.so", 5);
        loops++;
      }
      System.out.println("LOOPS " + loops);
      return;
    }
    long[] bytes = new long[SITES.length];
    byte[] deflated = deflated();
    int unloaded = 0;
    for (int round = 0; round < 4; round++) {
      Thread[] ts = new Thread[3];
      for (int k = 0; k < ts.length; k++) {
        ts[k] = new Thread(() -> {
          for (int s = 0; s < SITES.length; s++) {
            long b = run(s, perSite * HALVES[s] / 2 / 12);
            synchronized (bytes) {
              bytes[s] += b;
            }
          }
        }, "nm-" + round + "-" + k);
        ts[k].start();
      }
      directBuffers(200);
      inflaters(200, deflated);
      for (Thread t : ts)
        t.join();
      Thread[] churn = new Thread[25];   /* threads that start, malloc a little and end while sampled */
      for (int k = 0; k < churn.length; k++) {
        churn[k] = new Thread(() -> {
          long b = run(1, 256 * 1024);
          synchronized (bytes) {
            bytes[1] += b;
          }
        }, "churn-" + round + "-" + k);
        churn[k].start();
      }
      for (Thread t : churn)
        t.join();
      Process p = new ProcessBuilder("/bin/true").start();
      if (p.waitFor() != 0)
        throw new AssertionError("/bin/true failed");
      unloaded += dlcycle(dir + "/libfgnmhelper.so", 50);
    }
    for (int s = 0; s < SITES.length; s++) {
      System.out.println("SITE " + SITES[s] + " " + bytes[s]);
      if (KEEPS[s])
        System.out.println("KEPT " + SITES[s]);
    }
    System.out.println("UNLOADED " + unloaded);
    System.out.println("AGAIN " + unseenFrees(200));
  }
}
