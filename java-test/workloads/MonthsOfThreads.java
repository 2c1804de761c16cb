import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

/**
 * A JVM that lives for months, in seconds: THREADS threads started and ended,
 * PARALLEL at a time, each computing a little, every LONG_EVERY-th one for
 * LONG_MS ms of CPU (long enough to earn a perf_events counter under
 * clock=auto), beside a "steady" thread computing all along and a "ticking"
 * one computing 0.2 ms between sleeps of 0.1 ms (it stays on a POSIX timer
 * under clock=auto). Ends after SECONDS if the threads take longer. Every
 * 250 ms a watcher prints the process's descriptors, resident memory and
 * POSIX timers (-1: no /proc/self/timers): "WATCH <ms since start> <fds>
 * <rss kB> <timers>".
 * Run: MonthsOfThreads THREADS PARALLEL LONG_EVERY LONG_MS SECONDS
 */
public final class MonthsOfThreads {
  static volatile boolean done;

  static long fds() {
    try (Stream<Path> s = Files.list(Path.of("/proc/self/fd"))) {
      return s.count();
    } catch (IOException e) {
      return -1;
    }
  }

  static long timers() {
    try {
      return Files.readAllLines(Path.of("/proc/self/timers")).stream().filter(l -> l.startsWith("ID:")).count();
    } catch (IOException e) {
      return -1;
    }
  }

  static long rssKb() throws IOException {
    for (String line : Files.readAllLines(Path.of("/proc/self/status")))
      if (line.startsWith("VmRSS:"))
        return Long.parseLong(line.replaceAll("[^0-9]", ""));
    return -1;
  }

  static void compute(long cpuNs) {
    long until = threadCpuNs() + cpuNs;
    long x = 1;
    while (threadCpuNs() < until)
      x = Work.mix(x, 1);
    Work.sink += x;
  }

  static long threadCpuNs() {
    return java.lang.management.ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime();
  }

  public static void main(String[] args) throws Exception {
    int threads = Integer.parseInt(args[0]), parallel = Integer.parseInt(args[1]);
    int longEvery = Integer.parseInt(args[2]), longMs = Integer.parseInt(args[3]);
    long start = System.nanoTime(), end = start + Long.parseLong(args[4]) * 1_000_000_000L;
    Thread ticking = new Thread(() -> {
      try {
        while (!done) {
          compute(200_000);
          Thread.sleep(0, 100_000);
        }
      } catch (InterruptedException e) {
        throw new RuntimeException(e);
      }
    }, "ticking");
    ticking.start();
    Thread steady = new Thread(() -> {
      long x = 1;
      while (!done)
        x = Work.mix(x, 1);
      Work.sink += x;
    }, "steady");
    steady.start();
    Thread watcher = new Thread(() -> {
      try {
        while (!done) {
          System.out.println("WATCH " + (System.nanoTime() - start) / 1_000_000 + " " + fds() + " " + rssKb() + " "
              + timers());
          Thread.sleep(250);
        }
      } catch (Exception e) {
        throw new RuntimeException(e);
      }
    }, "watcher");
    watcher.setDaemon(true);
    watcher.start();
    Thread[] batch = new Thread[parallel];
    int started = 0;
    while (started < threads && System.nanoTime() < end) {
      int n = Math.min(parallel, threads - started);
      for (int i = 0; i < n; i++) {
        final int id = started + i;
        final boolean lasts = id % longEvery == 0;
        batch[i] = new Thread(() -> {
          if (lasts)
            compute(longMs * 1_000_000L);
          else
            Work.sink += id;
        }, "churn-" + id);
        batch[i].start();
      }
      for (int i = 0; i < n; i++)
        batch[i].join();
      started += n;
    }
    done = true;
    steady.join();
    ticking.join();
    System.out.println("STARTED " + started + " in " + (System.nanoTime() - start) / 1_000_000 + " ms");
  }
}
