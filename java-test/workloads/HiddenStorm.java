import java.io.InputStream;
import java.lang.invoke.CallSite;
import java.lang.invoke.LambdaMetafactory;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.function.IntSupplier;

/**
 * Classes that come and go for the JVM's life: each of ROUNDS rounds defines a new hidden class
 * (Lookup.defineHiddenClass of Item's bytes, unloadable once unreachable) and a new lambda class
 * (LambdaMetafactory, as a call site's first run does), and allocates INSTANCES instances of each;
 * nothing keeps them, so the JVM may unload them. Prints:
 *   HIDDEN_CLASSES n   (hidden and lambda classes defined)
 * Run: HiddenStorm ROUNDS INSTANCES
 */
public final class HiddenStorm {
  static volatile Object kept;

  public static final class Item {
    public int value;

    public Item() {
      value = 1;
    }
  }

  static int seven(int x) {
    return x + 7;
  }

  public static void main(String[] args) throws Throwable {
    int rounds = Integer.parseInt(args[0]), instances = Integer.parseInt(args[1]);
    byte[] bytes;
    try (InputStream in = HiddenStorm.class.getResourceAsStream("HiddenStorm$Item.class")) {
      bytes = in.readAllBytes();
    }
    MethodHandles.Lookup lookup = MethodHandles.lookup();
    MethodHandle impl = lookup.findStatic(HiddenStorm.class, "seven", MethodType.methodType(int.class, int.class));
    long defined = 0;
    for (int round = 0; round < rounds; round++) {
      Class<?> hidden = lookup.defineHiddenClass(bytes, true).lookupClass();
      MethodHandle make = lookup.findConstructor(hidden, MethodType.methodType(void.class));
      CallSite site = LambdaMetafactory.metafactory(lookup, "getAsInt", MethodType.methodType(IntSupplier.class,
          int.class), MethodType.methodType(int.class), impl, MethodType.methodType(int.class));
      MethodHandle factory = site.getTarget();
      defined += 2;
      for (int i = 0; i < instances; i++) {
        kept = make.invoke();
        kept = (IntSupplier) factory.invoke(i);
      }
    }
    System.out.println("HIDDEN_CLASSES " + defined);
  }
}
