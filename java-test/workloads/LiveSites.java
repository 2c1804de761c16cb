/**
 * Two allocation sites of the same arrays, one whose objects are kept to the end and one whose
 * objects are dropped at once, for alloc,live: only the kept site's objects are alive at the
 * dump. Each iteration allocates one int[1020] (4096 bytes with its 16-byte header) at keepSite
 * and DROPPED_PER_KEPT of them at dropSite; keepSite's go into a list held by a static field. Then the
 * workload calls System.gc() itself (twice: a young collection may leave some of dropSite's
 * arrays in the old generation for the first) so that what is left is what is reachable.
 * Prints KEPT_BYTES (the kept objects' sizes, headers included, as the JVM counts them for the
 * sampler), DROPPED_BYTES, then DONE, and returns with the kept list still reachable.
 * With a third argument "thread" the sites run on a thread of their own, live-worker, that has
 * ended before the dump ("main": on the main thread); a fourth gives the arrays' length in ints;
 * a fifth, "wait", then prints HOLDING and waits (60 s at most) for a file named go in the working
 * directory (a dump is taken meanwhile), drops the first half of the kept objects, calls
 * System.gc() twice again and prints KEPT_AFTER_BYTES.
 * Before the work the kept list is given room for all of them (its growth would leave garbage
 * arrays among the sampled objects) and System.gc() clears the start-up's garbage (class loading's
 * and the launcher's), so that with alloc=0 a table of sampled objects filled by the work holds
 * its kept arrays alone once it has freed the slots of what the collector cleared.
 * Run: LiveSites KEPT_OBJECTS DROPPED_PER_KEPT [thread|main [INTS [wait]]]
 *
 * This class holds no string constant (its driver, with every literal, is the nested class
 * Driver): HotSpot's CompileBroker::compile_method interns all of a method's class's string
 * constants (ConstantPool::resolve_string_constants) before a C2 compile, on the thread whose
 * invocation counter asked for it, inside the method it was entering. With the literals here,
 * a compile of dropSite asked at its entry allocated an interned String and its byte[] under
 * dropSite's stack, alive for the class's life (its constant pool holds them): one sample of
 * it made the dropped site "alive" in about 1 run of 40 on Temurin 25, rightly.
 */
public final class LiveSites {
  static final java.util.ArrayList<int[]> KEPT = new java.util.ArrayList<>();
  static volatile int[] sink;

  static int ints = 1020;

  static int[] keepSite() { return new int[ints]; }
  static int[] dropSite() { return new int[ints]; }

  static void work(int kept, int perKept) {
    for (int i = 0; i < kept; i++) {
      KEPT.add(keepSite());
      for (int k = 0; k < perKept; k++)
        sink = dropSite();   /* a volatile store: escape analysis cannot remove it */
    }
    sink = null;
  }

  public static void main(String[] args) throws Exception {
    Driver.main(args);
  }

  /** Arguments, the worker thread and every line printed: the string constants, kept out of LiveSites. */
  static final class Driver {
    static void main(String[] args) throws Exception {
      int kept = Integer.parseInt(args[0]), perKept = Integer.parseInt(args[1]);
      if (args.length > 3)
        ints = Integer.parseInt(args[3]);
      KEPT.ensureCapacity(kept);
      System.gc();
      if (args.length > 2 && args[2].equals("thread")) {
        Thread t = new Thread(() -> work(kept, perKept), "live-worker");
        t.start();
        t.join();
      } else {
        work(kept, perKept);
      }
      System.gc();
      System.gc();
      long size = (ints * 4L + 16 + 7) / 8 * 8;   /* header and padding to 8 bytes, as HotSpot lays an int[] out */
      System.out.println("KEPT_BYTES " + KEPT.size() * size);
      System.out.println("DROPPED_BYTES " + (long) kept * perKept * size);
      if (args.length > 4 && args[4].equals("wait")) {
        System.out.println("HOLDING");
        System.out.flush();
        java.nio.file.Path go = java.nio.file.Paths.get("go");
        for (int i = 0; i < 600 && !java.nio.file.Files.exists(go); i++)
          Thread.sleep(100);
        KEPT.subList(0, KEPT.size() / 2).clear();
        System.gc();
        System.gc();
        System.out.println("KEPT_AFTER_BYTES " + KEPT.size() * size);
      }
      System.out.println("DONE");
    }
  }
}
