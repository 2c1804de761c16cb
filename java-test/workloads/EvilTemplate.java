/** Compiled normally; EvilNames loads a copy of it under a hostile class name. */
public final class EvilTemplate {
  public static long spin(long seed) {
    long x = seed;
    for (int i = 0; i < 1_000_000; i++) {
      x ^= x << 13;
      x ^= x >>> 7;
      x ^= x << 17;
    }
    return x;
  }
}
