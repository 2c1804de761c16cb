import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;

/**
 * COUNT virtual threads (JDK 21 and later; says so and exits 3 on older
 * JDKs), each computing a little and parking once; prints how long it took.
 * Run: VirtualThreads COUNT
 */
public final class VirtualThreads {
  static volatile long sink;

  public static void main(String[] args) throws Exception {
    int count = Integer.parseInt(args[0]);
    Method start;
    try {
      start = Thread.class.getMethod("startVirtualThread", Runnable.class);
    } catch (NoSuchMethodException e) {
      System.out.println("no virtual threads in this JDK");
      System.exit(3);
      return;
    }
    long t0 = System.nanoTime();
    List<Thread> threads = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      final int k = i;
      threads.add((Thread) start.invoke(null, (Runnable) () -> {
        long s = k;
        for (int j = 0; j < 2000; j++)
          s = s * 31 + j;
        try {
          Thread.sleep(1);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
        sink += s;
      }));
    }
    for (Thread t : threads)
      t.join();
    System.out.printf("work %.3f s%n", (System.nanoTime() - t0) / 1e9);
  }
}
