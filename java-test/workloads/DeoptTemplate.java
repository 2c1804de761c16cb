/** Compiled normally; DeoptStorm defines many copies of it, each with its own profile. */
public final class DeoptTemplate {
  /** Sums the receivers' hash codes: a call site that compiles for the receiver types seen. */
  public static long sum(Object[] receivers, int rounds) {
    long s = 0;
    for (int r = 0; r < rounds; r++)
      for (Object o : receivers)
        s += o.hashCode();
    return s;
  }
}
