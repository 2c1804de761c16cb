/**
 * Starts THREADS threads that either sleep or work (Work.mix, then REST_MS of rest, in a loop) for SECONDS,
 * then prints the process's resident memory (VmRSS from /proc/self/status) measured while they are
 * all still alive, and how many of them ran.
 * Run: ManyThreads THREADS sleep|work SECONDS [REST_MS]   (default 20)
 * 1000 threads resting 20 ms keep two cores about full: the main thread, which starts them one by
 * one and then reads the RSS, waits behind them all for minutes on a shared machine.
 */
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;

public final class ManyThreads {
  public static void main(String[] args) throws Exception {
    int n = Integer.parseInt(args[0]);
    boolean work = args[1].equals("work");
    double seconds = Double.parseDouble(args[2]);
    long restMs = args.length > 3 ? Long.parseLong(args[3]) : 20;
    CountDownLatch started = new CountDownLatch(n), stop = new CountDownLatch(1);
    AtomicLong ran = new AtomicLong();
    for (int i = 0; i < n; i++) {
      Thread t = new Thread(() -> {
        started.countDown();
        long s = 1;
        try {
          if (work) {
            while (stop.getCount() > 0) {   /* a little work, then a rest: 1000 busy threads would starve the JVM */
              s = Work.mix(s, 1);
              Thread.sleep(restMs);
            }
          } else {
            stop.await();
          }
        } catch (InterruptedException e) {
          return;
        }
        ran.incrementAndGet();
        Work.sink = s;
      }, "many-" + i);
      t.setDaemon(true);
      t.start();
    }
    started.await();
    Thread.sleep((long) (seconds * 1000));
    long rssKb = 0;
    for (String line : Files.readAllLines(Path.of("/proc/self/status")))
      if (line.startsWith("VmRSS:"))
        rssKb = Long.parseLong(line.replaceAll("[^0-9]", ""));
    stop.countDown();
    System.out.println("THREADS " + n + " RSS_KB " + rssKb);
  }
}
