import java.util.Random;
import java.util.zip.Deflater;

/**
 * Time spent inside zlib: compresses 1 MiB of half-random bytes at the
 * highest level over and over (Deflater.deflateBytesBytes -> deflate -> ...).
 * Run: Deflate SECONDS
 */
public final class Deflate {
  static long compress(byte[] input, byte[] out) {
    Deflater d = new Deflater(Deflater.BEST_COMPRESSION);
    d.setInput(input);
    d.finish();
    long total = 0;
    while (!d.finished())
      total += d.deflate(out);
    d.end();
    return total;
  }

  public static void main(String[] args) {
    double seconds = Double.parseDouble(args[0]);
    byte[] input = new byte[1 << 20];
    Random r = new Random(42);
    for (int i = 0; i < input.length; i++)
      input[i] = (byte) (i % 7 == 0 ? r.nextInt(256) : 'a' + r.nextInt(4));
    byte[] out = new byte[64 * 1024];
    long end = System.nanoTime() + (long) (seconds * 1e9);
    long total = 0;
    while (System.nanoTime() < end)
      total += compress(input, out);
    Work.sink = total;
  }
}
