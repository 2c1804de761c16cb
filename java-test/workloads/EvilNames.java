import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;

/**
 * Loads EvilTemplate under the class name  Evil<</script><img src=x onerror=pwned=1>
 * (legal for the JVM: only . ; [ are forbidden in class names, '/' separates packages; the
 * handler assigns the global pwned) and
 * runs its spin() for SECONDS, so that the name reaches every output through the agent.
 * Run: EvilNames SECONDS
 */
public final class EvilNames {
  static final String INTERNAL = "Evil<</script><img src=x onerror=pwned=1>";

  /** The class file with the UTF-8 constant "EvilTemplate" replaced by name. */
  static byte[] renamed(byte[] cls, String name) {
    byte[] from = "EvilTemplate".getBytes(StandardCharsets.UTF_8);
    byte[] to = name.getBytes(StandardCharsets.UTF_8);
    for (int i = 3; i + from.length <= cls.length; i++) {
      // a CONSTANT_Utf8 entry: tag 1, u2 length, bytes
      if (cls[i - 3] != 1 || ((cls[i - 2] & 0xff) << 8 | (cls[i - 1] & 0xff)) != from.length)
        continue;
      boolean same = true;
      for (int k = 0; k < from.length && same; k++)
        same = cls[i + k] == from[k];
      if (!same)
        continue;
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      out.write(cls, 0, i - 2);
      out.write(to.length >> 8);
      out.write(to.length & 0xff);
      out.write(to, 0, to.length);
      out.write(cls, i + from.length, cls.length - i - from.length);
      return out.toByteArray();
    }
    throw new IllegalStateException("no EvilTemplate constant in the class file");
  }

  public static void main(String[] args) throws Exception {
    double seconds = Double.parseDouble(args[0]);
    byte[] template;
    try (InputStream in = EvilNames.class.getResourceAsStream("EvilTemplate.class")) {
      template = in.readAllBytes();
    }
    byte[] evil = renamed(template, INTERNAL);
    String binaryName = INTERNAL.replace('/', '.');
    Class<?> cls = new ClassLoader(EvilNames.class.getClassLoader()) {
      Class<?> define() { return defineClass(binaryName, evil, 0, evil.length); }
    }.define();
    Method spin = cls.getMethod("spin", long.class);
    long end = System.nanoTime() + (long) (seconds * 1e9), s = 1;
    while (System.nanoTime() < end)
      s = (long) spin.invoke(null, s);
    System.out.println("LOADED " + cls.getName() + " " + s);
  }
}
