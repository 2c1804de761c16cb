/**
 * A fixed-work loop for the CI regression gate's call-path case: nine
 * request steps, each spending its time in one shared helper, Util-style
 * hash(). Every step's own code is trivial, so the helper holds nearly all
 * the self time whatever the mix. VARIANT:
 *   base     every step asks hash() for 10 units of work
 *   slower   price() asks for 16 (1.6 times: its share goes from about 11% to
 *            about 16%, while hash()'s self share and every frame's own share
 *            barely move: a regression only its call path shows)
 * Run: CallPathWorkload VARIANT REQUESTS
 */
public final class CallPathWorkload {
  static long hash(long s, int units) {
    for (int u = 0; u < units; u++)
      for (int i = 0; i < 2_000; i++) {
        s ^= s << 13;
        s ^= s >>> 7;
        s ^= s << 17;
      }
    return s;
  }

  /* Every step reads its units from a field, so that the JIT compiles the
   * nine inlined copies of hash() alike (a constant count would let it
   * shape eight of them differently from price's). */
  static int priceUnits = 10, units = 10;

  static long price(long s) { return hash(s + 1, priceUnits); }
  static long tax(long s) { return hash(s + 2, units); }
  static long ship(long s) { return hash(s + 3, units); }
  static long audit(long s) { return hash(s + 4, units); }
  static long log(long s) { return hash(s + 5, units); }
  static long pack(long s) { return hash(s + 6, units); }
  static long bill(long s) { return hash(s + 7, units); }
  static long sort(long s) { return hash(s + 8, units); }
  static long load(long s) { return hash(s + 9, units); }

  public static void main(String[] args) {
    switch (args[0]) {
      case "base": priceUnits = 10; break;
      case "slower": priceUnits = 16; break;
      default: throw new IllegalArgumentException("VARIANT must be base or slower, not " + args[0]);
    }
    int requests = Integer.parseInt(args[1]);
    long t0 = System.nanoTime(), s = 1;
    for (int r = 0; r < requests; r++)
      s = load(sort(bill(pack(log(audit(ship(tax(price(s)))))))));
    System.out.println("ELAPSED_NS " + (System.nanoTime() - t0) + " " + s);
  }
}
