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

  public static void main(String[] args) throws Exception {
    String mode = args[0];
    long until = System.nanoTime() + (long) (Double.parseDouble(args[1]) * 1e9);
    long[] count = new long[1];
    Thread t;
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
      throw new IllegalArgumentException("mode: faults or write");
    }
    t.start();
    t.join();
    System.out.println((mode.equals("faults") ? "PAGES " : "WRITES ") + count[0]);
  }
}
