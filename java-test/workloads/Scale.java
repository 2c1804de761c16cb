import java.lang.management.ManagementFactory;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The shapes of program a sampler meets at scale, each on fixed work, each printing what is true
 * of its own run: the CPU time its worker threads used (CPU_NS, from each thread's own clock, read
 * as it ends) and the wall time of the part that a profiler could slow down.
 *
 *   live THREADS ROUNDS      THREADS threads alive together, each ROUNDS x (a little work, 5 ms sleep)
 *   end THREADS              THREADS threads work a little, wait, then all end at once: END_MS
 *   start THREADS BUSY       starting THREADS threads while BUSY others work: START_MS
 *   hop THREADS MILLIS LIB   threads that change CPU every 0.5 ms (sched_setaffinity through LIB,
 *                            java-test/jni/fghop.c), each working MILLIS ms of its own CPU
 *   vt THREADS ROUNDS        virtual threads (JDK 21+; exits 3 before), each ROUNDS x (work, 1 ms sleep)
 *   handoff PAIRS ROUNDS [MILLIS]  PAIRS pairs of threads passing a token back and forth ROUNDS
 *                            times, a little work at each pass (a context switch every few
 *                            microseconds), or until MILLIS ms have passed: HANDOFF_MS, HANDOFFS
 *   hot MILLIS               one thread in ScaleHot.spin for MILLIS ms of its CPU; run it with
 *                            -javaagent:retransformer.jar to have the class retransformed each 100 ms
 *
 * Worker threads are named scale-N: with fgagent's threads option their samples are told apart.
 */
public final class Scale {
  static final AtomicLong cpuNs = new AtomicLong();
  static volatile long sink;

  /** About n x 1 000 mixing steps: some microseconds. */
  static long work(long seed, int n) {
    long x = seed;
    for (int i = 0; i < n * 1000; i++) {
      x ^= x << 13;
      x ^= x >>> 7;
      x ^= x << 17;
      x += i;
    }
    return x;
  }

  /* looked up once: after each retransformation of ScaleHot (which deoptimizes all compiled
   * code on JDK 17) the lookup ran interpreted and took 3-5% of the hot thread's samples */
  static final java.lang.management.ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

  static long threadCpu() {
    return THREADS.getCurrentThreadCpuTime();
  }

  /** Runs body on a platform thread named scale-i that adds its CPU time to cpuNs as it ends. */
  static Thread worker(int i, Runnable body) {
    return new Thread(() -> {
      body.run();
      cpuNs.addAndGet(threadCpu());
    }, "scale-" + i);
  }

  static void sleep(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      throw new RuntimeException(e);
    }
  }

  static void await(CountDownLatch l) {
    try {
      l.await();
    } catch (InterruptedException e) {
      throw new RuntimeException(e);
    }
  }

  static void joinAll(List<Thread> ts) throws InterruptedException {
    for (Thread t : ts)
      t.join();
  }

  static void live(int n, int rounds) throws Exception {
    List<Thread> ts = new ArrayList<>();
    CountDownLatch go = new CountDownLatch(1);
    for (int i = 0; i < n; i++) {
      final int k = i;
      ts.add(worker(i, () -> {
        await(go);
        long s = k;
        for (int r = 0; r < rounds; r++) {
          s = work(s, 40);
          sleep(5);
        }
        sink += s;
      }));
    }
    for (Thread t : ts)
      t.start();
    long t0 = System.nanoTime();
    go.countDown();
    joinAll(ts);
    System.out.println("LIVE_MS " + (System.nanoTime() - t0) / 1_000_000);
  }

  static void end(int n) throws Exception {
    List<Thread> ts = new ArrayList<>();
    CountDownLatch ready = new CountDownLatch(n), go = new CountDownLatch(1);
    for (int i = 0; i < n; i++) {
      final int k = i;
      ts.add(worker(i, () -> {
        sink += work(k, 200);
        ready.countDown();
        await(go);
      }));
    }
    for (Thread t : ts)
      t.start();
    ready.await();
    long t0 = System.nanoTime();
    go.countDown();
    joinAll(ts);
    System.out.println("END_MS " + (System.nanoTime() - t0) / 1_000_000);
  }

  static void start(int n, int busy) throws Exception {
    List<Thread> bg = new ArrayList<>();
    CountDownLatch stop = new CountDownLatch(1);
    for (int i = 0; i < busy; i++) {
      final int k = i;
      bg.add(worker(i, () -> {
        long s = k;
        while (stop.getCount() > 0) {
          s = work(s, 100);
          sleep(1);
        }
        sink += s;
      }));
    }
    for (Thread t : bg)
      t.start();
    sleep(500);
    List<Thread> ts = new ArrayList<>();
    CountDownLatch ran = new CountDownLatch(n), go = new CountDownLatch(1);
    for (int i = 0; i < n; i++)
      ts.add(worker(busy + i, () -> {
        ran.countDown();
        await(go);
      }));
    long t0 = System.nanoTime();
    for (Thread t : ts)
      t.start();
    ran.await();
    long took = System.nanoTime() - t0;
    go.countDown();
    stop.countDown();
    joinAll(ts);
    joinAll(bg);
    System.out.println("START_MS " + String.format("%.1f", took / 1e6));
  }

  static void hop(int n, int millis, String lib) throws Exception {
    System.load(lib);
    int cpus = Runtime.getRuntime().availableProcessors();
    List<Thread> ts = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      final int k = i;
      ts.add(worker(i, () -> {
        long s = k, until = threadCpu() + millis * 1_000_000L;
        int cpu = k % cpus;
        while (threadCpu() < until) {
          ScaleHop.pin(cpu);
          cpu = (cpu + 1) % cpus;
          long step = threadCpu() + 500_000;
          while (threadCpu() < step)
            s = work(s, 5);
        }
        sink += s;
      }));
    }
    long t0 = System.nanoTime();
    for (Thread t : ts)
      t.start();
    joinAll(ts);
    System.out.println("HOP_MS " + (System.nanoTime() - t0) / 1_000_000);
  }

  static void vt(int n, int rounds) throws Exception {
    Method ofVirtual;
    try {
      ofVirtual = Thread.class.getMethod("startVirtualThread", Runnable.class);
    } catch (NoSuchMethodException e) {
      System.out.println("no virtual threads in this JDK");
      System.exit(3);
      return;
    }
    long cpu0 = ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime();
    long t0 = System.nanoTime();
    List<Thread> ts = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      final int k = i;
      ts.add((Thread) ofVirtual.invoke(null, (Runnable) () -> {
        double s = k;
        for (int r = 0; r < rounds; r++) {
          s += VtHot.hot(s, 200);
          sleep(1);
        }
        sink += (long) s;
      }));
    }
    joinAll(ts);
    System.out.println("VT_MS " + (System.nanoTime() - t0) / 1_000_000);
    System.out.println("MAIN_CPU_NS " + (ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime() - cpu0));
  }

  static void handoff(int pairs, int rounds, long millis) throws Exception {
    List<Thread> ts = new ArrayList<>();
    CountDownLatch go = new CountDownLatch(1);
    AtomicLong done = new AtomicLong();
    long[] until = new long[1];
    for (int p = 0; p < pairs; p++) {
      java.util.concurrent.SynchronousQueue<Long> there = new java.util.concurrent.SynchronousQueue<>(),
          back = new java.util.concurrent.SynchronousQueue<>();
      ts.add(worker(2 * p, () -> {
        await(go);
        long s = 1;
        int r = 0;
        try {
          for (; r < rounds && System.nanoTime() < until[0]; r++) {
            there.put(work(s, 2));
            s = back.take();
          }
          there.put(-1L);   /* the last: its partner stops */
        } catch (InterruptedException e) {
          throw new RuntimeException(e);
        }
        done.addAndGet(r);
        sink += s;
      }));
      ts.add(worker(2 * p + 1, () -> {
        await(go);
        try {
          for (long v; (v = there.take()) != -1L;)
            back.put(work(v, 2));
        } catch (InterruptedException e) {
          throw new RuntimeException(e);
        }
      }));
    }
    for (Thread t : ts)
      t.start();
    long t0 = System.nanoTime();
    until[0] = millis > 0 ? t0 + millis * 1_000_000L : Long.MAX_VALUE;
    go.countDown();
    joinAll(ts);
    System.out.println("HANDOFF_MS " + (System.nanoTime() - t0) / 1_000_000);
    System.out.println("HANDOFFS " + done.get());
  }

  static void hot(int millis) throws Exception {
    Thread t = worker(0, () -> {
      long s = 1, until = threadCpu() + millis * 1_000_000L;
      while (threadCpu() < until)
        s = ScaleHot.spin(s);
      sink += s;
    });
    long t0 = System.nanoTime();
    t.start();
    t.join();
    System.out.println("HOT_MS " + (System.nanoTime() - t0) / 1_000_000);
    System.out.println("RETRANSFORMED " + System.getProperty("retransformer.done", "0"));
  }

  public static void main(String[] a) throws Exception {
    switch (a[0]) {
      case "live": live(Integer.parseInt(a[1]), Integer.parseInt(a[2])); break;
      case "end": end(Integer.parseInt(a[1])); break;
      case "start": start(Integer.parseInt(a[1]), Integer.parseInt(a[2])); break;
      case "hop": hop(Integer.parseInt(a[1]), Integer.parseInt(a[2]), a[3]); break;
      case "vt": vt(Integer.parseInt(a[1]), Integer.parseInt(a[2])); break;
      case "handoff": handoff(Integer.parseInt(a[1]), Integer.parseInt(a[2]), a.length > 3 ? Long.parseLong(a[3]) : 0);
        break;
      case "hot": hot(Integer.parseInt(a[1])); break;
      default: throw new IllegalArgumentException("mode: live|end|start|hop|vt|handoff|hot, not " + a[0]);
    }
    System.out.println("CPU_NS " + cpuNs.get());
  }
}

/** The virtual threads' compiled leaf: ordinary compiled code, called from a continuation. */
final class VtHot {
  static double hot(double s, int n) {
    for (int i = 0; i < n * 100; i++)
      s += Math.sin(s + i) * 1e-3;
    return s;
  }
}

/** The class the retransformer agent redefines; its Method*s change each time. */
final class ScaleHot {
  static long spin(long s) {
    for (int i = 0; i < 100_000; i++) {
      s ^= s << 13;
      s ^= s >>> 7;
      s ^= s << 17;
    }
    return s;
  }
}

/** sched_setaffinity for the calling thread, in java-test/jni/fghop.c. */
final class ScaleHop {
  static native void pin(int cpu);
}
