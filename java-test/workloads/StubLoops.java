import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.function.Supplier;
import java.util.zip.Adler32;
import java.util.zip.CRC32;

/**
 * Loops that spend their time where a walker meets stubs and the VM rather than plain Java
 * frames, each on a thread named after the loop:
 *   megamorphic  Number.doubleValue() over mixed Numbers (vtable stubs)
 *   lambdas      a list of Supplier lambdas called through the interface (itable stubs)
 *   intrinsics   CRC32, Adler32, Base64 and SHA-256 over byte arrays (intrinsic stubs)
 *   nanotime     System.nanoTime() (a VM leaf call into the vDSO)
 *   alloc        arrays and objects too large for the TLAB fast path (C2's allocation slow path)
 * Every frame of each loop is a Java method the test can name: the loop method is always on
 * the stack under the thread's run method.
 * Run: StubLoops SECONDS LOOP...
 */
public final class StubLoops {
  static volatile double sinkD;
  static volatile long sinkL;
  static volatile Object sinkO;

  static double megamorphic(long end) {
    Number[] nums = new Number[4096];
    for (int i = 0; i < nums.length; i++) {
      switch (i % 5) {
        case 0: nums[i] = Integer.valueOf(i); break;
        case 1: nums[i] = Long.valueOf(i); break;
        case 2: nums[i] = Double.valueOf(i); break;
        case 3: nums[i] = Float.valueOf(i); break;
        default: nums[i] = Short.valueOf((short) i); break;
      }
    }
    double s = 0;
    while (System.nanoTime() < end)
      for (int r = 0; r < 200; r++)
        for (Number n : nums)
          s += n.doubleValue();
    return s;
  }

  static long lambdas(long end) {
    List<Supplier<Long>> fs = new ArrayList<>();
    for (int i = 0; i < 8; i++) {
      final long k = i;
      switch (i % 4) {
        case 0: fs.add(() -> k * 3); break;
        case 1: fs.add(() -> k + 7); break;
        case 2: fs.add(() -> k ^ 5); break;
        default: fs.add(() -> k - 1); break;
      }
    }
    long s = 0;
    while (System.nanoTime() < end)
      for (int r = 0; r < 100_000; r++)
        for (Supplier<Long> f : fs)
          s += f.get();
    return s;
  }

  static long intrinsics(long end) throws Exception {
    byte[] data = new byte[64 * 1024];
    for (int i = 0; i < data.length; i++)
      data[i] = (byte) (i * 31);
    MessageDigest sha = MessageDigest.getInstance("SHA-256");
    long s = 0;
    while (System.nanoTime() < end) {
      CRC32 crc = new CRC32();
      crc.update(data, 0, data.length);
      Adler32 adler = new Adler32();
      adler.update(data, 0, data.length);
      String b64 = Base64.getEncoder().encodeToString(data);
      byte[] back = Base64.getDecoder().decode(b64.getBytes(StandardCharsets.ISO_8859_1));
      s += crc.getValue() + adler.getValue() + back.length + sha.digest(data)[0];
    }
    return s;
  }

  static long nanotime(long end) {
    long s = 0;
    for (long t = 0; t < end; t = System.nanoTime())
      s += t & 1;
    return s;
  }

  static long alloc(long end) {
    long s = 0;
    while (System.nanoTime() < end) {
      for (int i = 0; i < 1000; i++) {
        long[] big = new long[8192 + (i & 63)];   /* 64 KB: past the TLAB fast path */
        big[i] = i;
        sinkO = big;
        s += big.length;
      }
    }
    return s;
  }

  public static void main(String[] args) throws Exception {
    double seconds = Double.parseDouble(args[0]);
    long end = System.nanoTime() + (long) (seconds * 1e9);
    List<Thread> threads = new ArrayList<>();
    for (int a = 1; a < args.length; a++) {
      String loop = args[a];
      Thread t = new Thread(() -> {
        try {
          switch (loop) {
            case "megamorphic": sinkD = megamorphic(end); break;
            case "lambdas": sinkL = lambdas(end); break;
            case "intrinsics": sinkL = intrinsics(end); break;
            case "nanotime": sinkL = nanotime(end); break;
            case "alloc": sinkL = alloc(end); break;
            default: throw new IllegalArgumentException("unknown loop " + loop);
          }
        } catch (Exception e) {
          throw new RuntimeException(e);
        }
      }, loop);
      threads.add(t);
      t.start();
    }
    for (Thread t : threads)
      t.join();
  }
}
