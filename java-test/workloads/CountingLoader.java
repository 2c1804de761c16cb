import java.util.concurrent.atomic.AtomicLong;

/**
 * A system class loader of the application's own (-Djava.system.class.loader=CountingLoader):
 * counts the JDK's classes (java.*, jdk.*) it is asked for, which a program whose classes its
 * parent defines never asks it for: a profiler's JNI FindClass from a callback does (it asks the
 * system loader when no Java frame calls it). OverridingThreads prints the count.
 */
public final class CountingLoader extends ClassLoader {
  static final AtomicLong JDK_CLASSES = new AtomicLong();

  static {
    ClassLoader.registerAsParallelCapable();
  }

  public CountingLoader(ClassLoader parent) {
    super(parent);
  }

  @Override
  protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
    if (name.startsWith("java.") || name.startsWith("jdk."))
      JDK_CLASSES.incrementAndGet();
    return super.loadClass(name, resolve);
  }
}
