import java.util.ArrayList;
import java.util.List;

/**
 * THREADS threads allocate short- and medium-lived objects for SECONDS: many
 * young and some old collections, with GC worker threads busy.
 * Run with a small heap: -Xmx64m GcStorm THREADS SECONDS
 */
public final class GcStorm {
  public static void main(String[] args) throws Exception {
    int threads = Integer.parseInt(args[0]);
    double seconds = Double.parseDouble(args[1]);
    long end = System.nanoTime() + (long) (seconds * 1e9);
    Thread[] ts = new Thread[threads];
    for (int i = 0; i < threads; i++) {
      ts[i] = new Thread(() -> {
        List<int[]> keep = new ArrayList<>();
        long n = 0;
        while (System.nanoTime() < end) {
          int[] a = new int[64 + (int) (n % 4096)];
          a[0] = (int) n;
          if (n % 16 == 0)
            keep.add(a);
          if (keep.size() > 2000)
            keep.subList(0, 1000).clear();
          n++;
        }
        Work.sink += n + keep.size();
      }, "alloc-" + i);
      ts[i].start();
    }
    for (Thread t : ts)
      t.join();
    System.out.println("DONE");
  }
}
