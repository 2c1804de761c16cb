import java.io.FileOutputStream;
import java.nio.ByteBuffer;

/**
 * Kernel events with known sources, each on a thread of its own, each counting its own truth.
 *
 * <pre>
 *   faults SECONDS   thread "toucher": touchFresh() takes 64 MiB of fresh memory at a time (a
 *                    direct buffer: malloc's mmap, which the JDK zeroes page by page) and lets it
 *                    go; prints "PAGES n", the pages it took
 *   write SECONDS    thread "writer": writeLoop() writes one byte to /dev/null at a time; prints
 *                    "WRITES n", the write system calls it made
 *   both SECONDS     the toucher as faults has it, and beside it thread "switcher": sleepLoop()
 *                    sleeps 1 ms at a time; prints "PAGES n" and "SWITCHES n", the context switches
 *                    of the switcher while in sleepLoop (voluntary and not, its
 *                    /proc/thread-self/status before and after)
 * </pre>
 *
 * The main thread only waits. Run with -XX:MaxDirectMemorySize=256m, so that the buffers let go
 * are freed (munmap) by the JDK's own collections as the limit nears, and with -Xms equal to
 * -Xmx and -XX:+AlwaysPreTouch, so that the Java heap faults no page of its own meanwhile.
 */
public final class KernelEvents {
  static final int BUFFER = 64 << 20;   // past glibc's largest mmap threshold (32 MiB): always fresh pages
  static volatile long sink;

  static long touchFresh() {
    ByteBuffer b = ByteBuffer.allocateDirect(BUFFER);
    long sum = 0;
    for (int i = 0; i < BUFFER; i += 4096)
      sum += b.get(i);
    return sum;
  }

  static long writeLoop(FileOutputStream out, long until) throws Exception {
    long n = 0;
    while (System.nanoTime() < until) {
      for (int i = 0; i < 256; i++)
        out.write(1);
      n += 256;
    }
    return n;
  }

  static long sleepLoop(long until) throws InterruptedException {
    long n = 0;
    while (System.nanoTime() < until) {
      Thread.sleep(1);
      n++;
    }
    return n;
  }

  /** The calling thread's context switches so far, voluntary and not (its /proc/thread-self/status). */
  static long switches() throws Exception {
    long n = 0;
    for (String line : java.nio.file.Files.readAllLines(java.nio.file.Paths.get("/proc/thread-self/status")))
      if (line.startsWith("voluntary_ctxt_switches:") || line.startsWith("nonvoluntary_ctxt_switches:"))
        n += Long.parseLong(line.substring(line.indexOf(':') + 1).trim());
    return n;
  }

  public static void main(String[] args) throws Exception {
    String mode = args[0];
    long until = System.nanoTime() + (long) (Double.parseDouble(args[1]) * 1e9);
    long[] count = new long[1];
    Thread t;
    if (mode.equals("both")) {
      long[] switched = new long[1];
      Thread switcher = new Thread(() -> {
        try {
          long before = switches();
          sleepLoop(until);
          switched[0] = switches() - before;
        } catch (Exception e) {
          throw new RuntimeException(e);
        }
      }, "switcher");
      switcher.start();
      main(new String[] {"faults", args[1]});
      switcher.join();
      System.out.println("SWITCHES " + switched[0]);
      return;
    }
    if (mode.equals("faults")) {
      t = new Thread(() -> {
        long pages = 0;
        while (System.nanoTime() < until) {
          sink += touchFresh();
          pages += BUFFER / 4096;
        }
        count[0] = pages;
      }, "toucher");
    } else if (mode.equals("write")) {
      t = new Thread(() -> {
        try (FileOutputStream out = new FileOutputStream("/dev/null")) {
          count[0] = writeLoop(out, until);
        } catch (Exception e) {
          throw new RuntimeException(e);
        }
      }, "writer");
    } else {
      throw new IllegalArgumentException("mode: faults, write or both");
    }
    t.start();
    t.join();
    System.out.println((mode.equals("faults") ? "PAGES " : "WRITES ") + count[0]);
  }
}
