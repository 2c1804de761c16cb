/** CPU work that stays in plain compiled Java: no intrinsic stubs, no allocation. */
final class Work {
  private Work() {}

  static long sink;

  /** About units x 20 k integer mixing steps. */
  static long mix(long seed, int units) {
    long x = seed;
    for (int u = 0; u < units; u++) {
      for (int i = 0; i < 20_000; i++) {
        x ^= x << 13;
        x ^= x >>> 7;
        x ^= x << 17;
        x += i;
      }
    }
    return x;
  }

  /** mix(seed, 1) with other shifts: an overload of the same work. */
  static long mix(long seed) {
    long x = seed;
    for (int i = 0; i < 20_000; i++) {
      x ^= x << 21;
      x ^= x >>> 35;
      x ^= x << 4;
      x += i;
    }
    return x;
  }

  static long threadCpuNanos() {
    return java.lang.management.ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime();
  }
}
