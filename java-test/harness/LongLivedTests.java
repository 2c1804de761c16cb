import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A JVM that lives for months, in a minute: threads started and ended
 * by the tens of thousands must leave what every later signal costs, and
 * what fgagent holds, where they were. Run by IntegrationTests.
 */
final class LongLivedTests {
  private LongLivedTests() {}

  static double mean(List<Double> v, int from, int to) {
    double sum = 0;
    for (int i = from; i < to; i++)
      sum += v.get(i);
    return sum / (to - from);
  }

  /** The median of v: one interval the host held up (a walk 3 times the rest's) moves a mean of four
   *  by half, and a median little; a walk that grows with the threads ended moves both. */
  static double median(List<Double> v) {
    List<Double> s = new ArrayList<>(v);
    s.sort(null);
    int n = s.size();
    return n % 2 == 1 ? s.get(n / 2) : (s.get(n / 2 - 1) + s.get(n / 2)) / 2;
  }

  static long meanOf(List<Long> v, int from, int to) {
    long sum = 0;
    for (int i = from; i < to; i++)
      sum += v.get(i);
    return sum / (to - from);
  }

  /**
   * Up to 100 000 threads (as many as 12 s allow: a thread start and end alone takes 1.3 ms or more
   * on a 2-CPU host loaded 12 times over; at least 1000), 64 at a time, every 200th computing 25 ms
   * (under clock=auto, long enough to move to a perf_events counter), beside a thread computing all
   * along and one that stays on a POSIX timer, which also run alone for 6 s before the first thread
   * starts and 6 s after the last ends. With the default clock=auto and with clock=perf (a counter
   * for every thread):
   * - what a signal costs once the threads have ended: the handler's time a walk on each clock's
   *   signal (the summary's "by clock": a POSIX timer's, a perf_events counter's) in the 1-second
   *   intervals (loop=1s) after them within 1.2x of those before them (the median interval of
   *   each: the host's hiccups are single intervals). The same threads run the same code in both.
   *   Not the walks during the churn, nor the two clocks' walks together: the churn's mix of walks
   *   follows the rate threads start at, which follows the host, and a timer's walk often costs
   *   several times a counter's, so the clock the steady thread happened to be on moved the
   *   average 2x either way; both made a 1.2x bound fail with no thread's trace to find.
   * - the process's descriptors and resident memory (a fixed heap) after within 20% and 16
   *   (descriptors) and 10% and 8 MB (memory) of before, and while the threads come and go, the
   *   last third of the churn's within as much of its first third's (with clock=perf descriptors
   *   follow the 64 threads alive, and the scan's counters for threads starting or ending between
   *   two of its passes); fgagent's stack storage after within 10% and 0.5 MB of before.
   */
  static void threadsByTheHundredThousandLeaveNoTrace(IntegrationTests.Jdk jdk) throws Exception {
    for (String clock : List.of("", "clock=perf,")) {
      IntegrationTests.Run r = IntegrationTests.run(jdk, clock + "interval=1ms,loop=1s,log={dir}/s-%n.log,"
          + "file={dir}/p.collapsed", List.of("-Xms96m", "-Xmx96m", "-XX:+AlwaysPreTouch"),
          "MonthsOfThreads", "100000", "64", "200", "25", "12", "6");
      IntegrationTests.check(r.exit() == 0, "the workload failed:\n" + r.stdout() + r.stderr());
      Matcher started = Pattern.compile("STARTED (\\d+)").matcher(r.stdout());
      IntegrationTests.check(started.find(), "the workload did not finish:\n" + r.stdout());
      long threads = Long.parseLong(started.group(1));
      long jvmMs = number(r, "JVM (\\d+)"), churnMs = number(r, "PHASE churn (\\d+)"),
          afterMs = number(r, "PHASE after (\\d+)");
      /* Interval n of the agent's loop covers [n - 1, n) s of the JVM's time, the workload's time plus
       * jvmMs; 250 ms of margin for the agent's start within the JVM's. Interval 1 holds the JIT's start.
       * A walk's time is kept by the clock whose signal asked for it. */
      Map<String, List<Double>> before = new TreeMap<>(), after = new TreeMap<>();
      List<Double> storageBefore = new ArrayList<>(), storageAfter = new ArrayList<>();
      Pattern byClock = Pattern.compile("by clock: +([0-9.]+) us a walk on a POSIX timer's signal \\((\\d+) walks\\), "
          + "([0-9.]+) us on a perf_events counter's \\((\\d+)\\)");
      for (int n = 2; Files.exists(r.dir().resolve("s-" + (n + 1) + ".log")); n++) {   /* whole intervals */
        long from = (n - 1) * 1000L - jvmMs, to = n * 1000L - jvmMs;
        boolean isBefore = to + 250 <= churnMs, isAfter = from - 250 >= afterMs;
        if (!isBefore && !isAfter)
          continue;
        String summary = Files.readString(r.dir().resolve("s-" + n + ".log"));
        if (summary.contains("signals taken:     0\n"))
          continue;   /* an interval the drainer, held up on a busy host, ended at once to keep to its grid */
        Matcher h = Pattern.compile("handler time: +([0-9.]+) us per stack walk").matcher(summary);
        Matcher st = Pattern.compile("stack storage: +\\d+ distinct stacks in ([0-9.]+) MB").matcher(summary);
        IntegrationTests.check(h.find() && st.find(), "interval " + n + "'s summary has no handler time:\n" + summary);
        Map<String, List<Double>> phase = isBefore ? before : after;
        Matcher b = byClock.matcher(summary);
        if (b.find()) {
          if (Long.parseLong(b.group(2)) >= 50)
            phase.computeIfAbsent("a timer's", k -> new ArrayList<>()).add(Double.parseDouble(b.group(1)));
          if (Long.parseLong(b.group(4)) >= 50)
            phase.computeIfAbsent("a counter's", k -> new ArrayList<>()).add(Double.parseDouble(b.group(3)));
        } else if (!clock.isEmpty()) {   /* clock=perf: every walk a counter's */
          phase.computeIfAbsent("a counter's", k -> new ArrayList<>()).add(Double.parseDouble(h.group(1)));
        }
        (isBefore ? storageBefore : storageAfter).add(Double.parseDouble(st.group(1)));
      }
      Looks quietBefore = looks(r, 2000, churnMs), churn = looks(r, churnMs, afterMs), quietAfter = looks(r, afterMs + 250, Long.MAX_VALUE);
      int m = churn.fds().size();
      IntegrationTests.check(m >= 20 && quietBefore.fds().size() >= 8 && quietAfter.fds().size() >= 8,
          "too few looks: " + quietBefore.fds().size() + " before, " + m + " during, " + quietAfter.fds().size() + " after");
      StringBuilder walkText = new StringBuilder();
      List<String> compared = new ArrayList<>();
      for (String kind : before.keySet()) {
        List<Double> b = before.get(kind), a = after.getOrDefault(kind, List.of());
        if (b.size() < 3 || a.size() < 3)
          continue;
        compared.add(kind);
        walkText.append(String.format(", a walk on %s signal %.2f -> %.2f us", kind, median(b), median(a)));
      }
      long fdsBefore = meanOf(quietBefore.fds(), 0, quietBefore.fds().size()), fdsAfter = meanOf(quietAfter.fds(), 0, quietAfter.fds().size());
      long rssBefore = meanOf(quietBefore.rssKb(), 0, quietBefore.rssKb().size()), rssAfter = meanOf(quietAfter.rssKb(), 0, quietAfter.rssKb().size());
      long fdsFirst = meanOf(churn.fds(), 0, m / 3), fdsLast = meanOf(churn.fds(), m - m / 3, m);
      long rssFirst = meanOf(churn.rssKb(), 0, m / 3), rssLast = meanOf(churn.rssKb(), m - m / 3, m);
      double storeBefore = mean(storageBefore, 0, storageBefore.size()), storeAfter = mean(storageAfter, 0, storageAfter.size());
      System.out.printf("    %s: %d threads in %d ms; before them -> after%s, descriptors %d -> %d, "
          + "RSS %d -> %d kB, stack storage %.1f -> %.1f MB; while they ran (first third -> last): descriptors %d -> %d, "
          + "RSS %d -> %d kB%n", clock.isEmpty() ? "clock=auto" : "clock=perf", threads, afterMs - churnMs, walkText,
          fdsBefore, fdsAfter, rssBefore, rssAfter, storeBefore, storeAfter, fdsFirst, fdsLast, rssFirst, rssLast);
      IntegrationTests.check(!compared.isEmpty(), "no clock's walks in 3 intervals before the threads and 3 after: "
          + before + " and " + after);
      IntegrationTests.check(threads >= 1000, "only " + threads + " threads started in 12 s");
      for (String kind : compared)
        IntegrationTests.check(median(after.get(kind)) <= 1.2 * median(before.get(kind)), "a walk on " + kind
            + " signal costs " + median(after.get(kind)) + " us after the threads against " + median(before.get(kind))
            + " before them: " + before.get(kind) + " and " + after.get(kind));
      IntegrationTests.check(fdsAfter <= fdsBefore * 1.2 + 16 && fdsLast <= fdsFirst * 1.2 + 16,
          "descriptors grew: " + quietBefore.fds() + ", " + churn.fds() + ", " + quietAfter.fds());
      IntegrationTests.check(rssAfter <= rssBefore * 1.1 + 8192 && rssLast <= rssFirst * 1.1 + 8192,
          "resident memory grew: " + quietBefore.rssKb() + ", " + churn.rssKb() + ", " + quietAfter.rssKb());
      IntegrationTests.check(storeAfter <= storeBefore * 1.1 + 0.5, "stack storage grew: " + storageBefore + " and " + storageAfter);
    }
  }

  /** The watcher's looks at descriptors and resident memory from ms since the workload's start up to before ms. */
  record Looks(List<Long> fds, List<Long> rssKb) {}

  static Looks looks(IntegrationTests.Run r, long fromMs, long toMs) {
    List<Long> fds = new ArrayList<>(), rss = new ArrayList<>();
    Matcher w = Pattern.compile("WATCH (\\d+) (\\d+) (\\d+)").matcher(r.stdout());
    while (w.find()) {
      long at = Long.parseLong(w.group(1));
      if (at >= fromMs && at < toMs) {
        fds.add(Long.parseLong(w.group(2)));
        rss.add(Long.parseLong(w.group(3)));
      }
    }
    return new Looks(fds, rss);
  }

  static long number(IntegrationTests.Run r, String pattern) {
    Matcher m = Pattern.compile(pattern).matcher(r.stdout());
    IntegrationTests.check(m.find(), "the workload did not print " + pattern + ":\n" + r.stdout());
    return Long.parseLong(m.group(1));
  }

  static final List<IntegrationTests.Named> TESTS = List.of(
      new IntegrationTests.Named("threads_by_the_hundred_thousand_leave_no_trace",
          LongLivedTests::threadsByTheHundredThousandLeaveNoTrace));
}
