import java.io.InputStream;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;

/**
 * A deoptimization storm: COPIES copies of DeoptTemplate, each defined as a hidden class of
 * its own, run hot on Integers until compiled (inlined Integer.hashCode behind a class
 * check), then on Strings and Longs, which fail the check: an uncommon trap and a
 * deoptimization for every copy, with the compiled frame on the stack. Prints the work time.
 * Run: DeoptStorm COPIES
 */
public final class DeoptStorm {
  public static void main(String[] args) throws Throwable {
    int copies = Integer.parseInt(args[0]);
    byte[] bytes;
    try (InputStream in = DeoptStorm.class.getResourceAsStream("DeoptTemplate.class")) {
      bytes = in.readAllBytes();
    }
    Object[] ints = new Object[64], mixed = new Object[64];
    for (int i = 0; i < 64; i++) {
      ints[i] = i;
      mixed[i] = i % 3 == 0 ? "s" + i : i % 3 == 1 ? (Object) (long) i : (Object) i;
    }
    long t0 = System.nanoTime(), s = 0;
    for (int c = 0; c < copies; c++) {
      Class<?> k = MethodHandles.lookup().defineHiddenClass(bytes, true).lookupClass();
      MethodHandle sum = MethodHandles.lookup().findStatic(k, "sum",
          MethodType.methodType(long.class, Object[].class, int.class));
      for (int i = 0; i < 40; i++)
        s += (long) sum.invokeExact(ints, 500);
      s += (long) sum.invokeExact(mixed, 200);
    }
    System.out.printf("work %.3f s (%d)%n", (System.nanoTime() - t0) / 1e9, s);
  }
}
