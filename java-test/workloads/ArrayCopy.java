/**
 * Time dominated by System.arraycopy's stub: StringBuilder.delete on a long
 * builder shifts its characters down with arraycopy on every call.
 * Run: ArrayCopy SECONDS
 */
public final class ArrayCopy {
  static int deleteLoop(StringBuilder sb, long end) {
    int n = 0;
    while (System.nanoTime() < end) {
      for (int i = 0; i < 1000; i++) {
        sb.delete(0, 1);
        sb.append('x');
      }
      n++;
    }
    return n;
  }

  public static void main(String[] args) {
    double seconds = Double.parseDouble(args[0]);
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < 200_000; i++)
      sb.append((char) ('a' + i % 26));
    long end = System.nanoTime() + (long) (seconds * 1e9);
    Work.sink = deleteLoop(sb, end);
  }
}
