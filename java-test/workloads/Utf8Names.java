/**
 * Threads whose names the kernel and fixed buffers cut mid-character: one
 * named "ww" + "é" x 100 computing for SECONDS, and RENAMES threads that rename
 * themselves "renamed-N-é中" while they compute.
 * Run: Utf8Names SECONDS RENAMES
 */
public final class Utf8Names {
  static volatile long sink;

  static void spin(long nanos) {
    long end = System.nanoTime() + nanos, s = 1;
    while (System.nanoTime() < end)
      s = s * 31 + 7;
    sink += s;
  }

  public static void main(String[] args) throws Exception {
    double seconds = Double.parseDouble(args[0]);
    int renames = Integer.parseInt(args[1]);
    Thread wide = new Thread(() -> spin((long) (seconds * 1e9)), "ww" + "é".repeat(100));
    wide.start();
    for (int i = 0; i < renames; i++) {
      final int n = i;
      Thread t = new Thread(() -> {
        spin(2_000_000);
        Thread.currentThread().setName("renamed-" + n + "-é中");
        spin(8_000_000);
      }, "renamer");
      t.start();
      t.join();
    }
    wide.join();
  }
}
