/**
 * A fixed-work service loop for the CI regression gate: parse, transform, render,
 * about 40 / 20 / 40 % of the CPU. VARIANT changes one real code path:
 *   base     transform does 10 units of work per request
 *   slower   transform does 12 units (20% more work: a regression)
 *   faster   transform does 8 units (20% less work: an improvement)
 * Run: RegressionWorkload VARIANT REQUESTS
 */
public final class RegressionWorkload {
  static long parse(long s) {
    for (int u = 0; u < 20; u++)
      for (int i = 0; i < 5_000; i++) {
        s ^= s << 13;
        s ^= s >>> 7;
        s ^= s << 17;
      }
    return s;
  }

  static long transform(long s, int units) {
    for (int u = 0; u < units; u++)
      for (int i = 0; i < 5_000; i++) {
        s = s * 6364136223846793005L + 1442695040888963407L;
        s ^= s >>> 29;
      }
    return s;
  }

  static long render(long s) {
    for (int u = 0; u < 20; u++)
      for (int i = 0; i < 5_000; i++) {
        s += (s << 5) ^ (s >>> 3) ^ i;
      }
    return s;
  }

  public static void main(String[] args) {
    int units;
    switch (args[0]) {
      case "base": units = 10; break;
      case "slower": units = 12; break;
      case "faster": units = 8; break;
      default: throw new IllegalArgumentException("VARIANT must be base, slower or faster, not " + args[0]);
    }
    int requests = Integer.parseInt(args[1]);
    long t0 = System.nanoTime(), s = 1;
    for (int r = 0; r < requests; r++)
      s = render(transform(parse(s), units));
    System.out.println("ELAPSED_NS " + (System.nanoTime() - t0) + " " + s);
  }
}
