import java.lang.reflect.Proxy;

/**
 * COUNT classes defined, each a proxy class in a class loader of its own
 * (dropped at once, so classes are unloaded too); prints how long it took.
 * Run: ClassLoadStorm COUNT
 */
public final class ClassLoadStorm {
  public static void main(String[] args) {
    int count = Integer.parseInt(args[0]);
    long t0 = System.nanoTime();
    long n = 0;
    for (int i = 0; i < count; i++) {
      ClassLoader loader = new ClassLoader(ClassLoadStorm.class.getClassLoader()) {};
      Runnable r = (Runnable) Proxy.newProxyInstance(loader, new Class<?>[] {Runnable.class},
          (proxy, method, a) -> null);
      n += r.getClass().getName().length();
    }
    System.out.printf("work %.3f s (%d)%n", (System.nanoTime() - t0) / 1e9, n);
  }
}
