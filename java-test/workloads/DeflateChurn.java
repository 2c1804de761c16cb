import java.util.zip.Deflater;

/**
 * malloc-heavy: ITERATIONS times a new Deflater (zlib's deflateInit: some 270 KB in five or six
 * allocations through libzip's or libz's import slots), 4 KB compressed, then end() (its frees).
 * Prints WORK_MS, the loop's own time, and WORK_CPU_MS, its thread's CPU time (what a busy
 * machine's other processes do not add to).
 * Run: DeflateChurn ITERATIONS
 */
public final class DeflateChurn {
  public static void main(String[] args) {
    int n = Integer.parseInt(args[0]);
    byte[] input = new byte[4096];
    for (int i = 0; i < input.length; i++)
      input[i] = (byte) ('a' + (i * 7 + i / 13) % 17);
    byte[] out = new byte[8192];
    java.lang.management.ThreadMXBean mx = java.lang.management.ManagementFactory.getThreadMXBean();
    long total = 0, cpu0 = mx.getCurrentThreadCpuTime(), t0 = System.nanoTime();
    for (int i = 0; i < n; i++) {
      Deflater d = new Deflater(1);
      d.setInput(input);
      d.finish();
      while (!d.finished())
        total += d.deflate(out);
      d.end();
    }
    long ms = (System.nanoTime() - t0) / 1000000, cpu = (mx.getCurrentThreadCpuTime() - cpu0) / 1000000;
    System.out.println("WORK_MS " + ms);
    System.out.println("WORK_CPU_MS " + cpu);
    System.out.println("BYTES " + total);
  }
}
