import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Integration tests of continuous mode (loop=): a profile per interval, each written and then
 * replaced by an empty one, for a continuous-profiling system to pick up. Run by IntegrationTests.
 */
final class ContinuousTests {
  private ContinuousTests() {}

  static final List<IntegrationTests.Named> TESTS = List.of(
      new IntegrationTests.Named("loop_writes_each_interval", ContinuousTests::loopWritesEachInterval));

  static long number(String text, String regex) {
    Matcher m = Pattern.compile(regex).matcher(text);
    IntegrationTests.check(m.find(), "no '" + regex + "' in:\n" + text);
    return Long.parseLong(m.group(1));
  }

  /**
   * Interval i's summary (LOG-i.txt) with its books closed (taken = stored + lost), and its
   * profile (FILE-i.collapsed) holding exactly the samples that summary stored; FILE-i.jfr, when
   * written, holds the same stacks, an event per sample (read by the JDK's RecordingFile).
   */
  static String closedInterval(IntegrationTests.Run r, String log, String file, int i) throws Exception {
    Path summary = r.dir().resolve(log + "-" + i + ".txt");
    IntegrationTests.check(Files.exists(summary), "no summary for interval " + i);
    String s = Files.readString(summary);
    IntegrationTests.check(s.contains("accounting:") && s.contains(": OK"), "interval " + i + "'s books:\n" + s);
    long stored = number(s, "samples stored: *(\\d+)");
    long inFile = IntegrationTests.sum(IntegrationTests.collapsed(r.dir().resolve(file + "-" + i + ".collapsed")), k -> true);
    IntegrationTests.check(stored == inFile, "interval " + i + ": summary stored " + stored + ", file holds " + inFile);
    Path jfr = r.dir().resolve(file + "-" + i + ".jfr");
    if (Files.exists(jfr)) {
      String differ = JfrTests.differences(JfrTests.collapsedDotted(r.dir().resolve(file + "-" + i + ".collapsed")),
          JfrTests.jfrStacks(jfr));
      IntegrationTests.check(differ.isEmpty(), "interval " + i + "'s JFR file: " + differ);
    }
    return s;
  }

  /**
   * loop=1s on a 3.5 s run: one profile and one summary per interval (%n numbered), each
   * interval's books closed (taken = stored + lost) and its file holding exactly the samples its
   * summary stored, so nothing is lost or counted twice at a rotation; every full interval
   * spans one second of wall time; and the stack store does not grow after the first interval
   * on a steady workload (each interval starts an empty profile, the stacks are stored once).
   */
  static void loopWritesEachInterval(IntegrationTests.Jdk jdk) throws Exception {
    IntegrationTests.Run r = IntegrationTests.run(jdk,
        "loop=1s,interval=1ms,threads,file={dir}/p-%n.collapsed,file={dir}/p-%n.jfr,log={dir}/s-%n.txt", List.of(), "HotMethods", "3.5");
    IntegrationTests.check(r.exit() == 0, "exit " + r.exit() + ":\n" + r.stderr());
    List<String> report = new ArrayList<>();
    int n = 0;
    long firstBytes = -1;
    while (Files.exists(r.dir().resolve("p-" + (n + 1) + ".collapsed")))
      n++;
    IntegrationTests.check(n >= 4, "only " + n + " interval files for a 3.5 s run at loop=1s");
    for (int i = 1; i <= n; i++) {
      String s = closedInterval(r, "s", "p", i);
      long stored = number(s, "samples stored: *(\\d+)");
      Matcher wall = Pattern.compile("wall time: *([0-9.]+) s sampled").matcher(s);
      IntegrationTests.check(wall.find(), "no wall time in interval " + i + "'s summary");
      double seconds = Double.parseDouble(wall.group(1));
      if (i < n)
        IntegrationTests.check(seconds > 0.95 && seconds < 1.1, "interval " + i + " spans " + seconds + " s, not 1 s");
      Matcher store = Pattern.compile("stack storage: *\\d+ distinct stacks in ([0-9.]+) MB").matcher(s);
      IntegrationTests.check(store.find(), "no stack storage line in interval " + i + "'s summary");
      long bytes = Math.round(Double.parseDouble(store.group(1)) * 10);
      if (i == 2)
        firstBytes = bytes;
      if (i > 2)
        IntegrationTests.check(bytes == firstBytes, "the stack store grew from interval 2 to " + i + ": " + s);
      report.add(String.format("%d: %d samples, %.3f s, %.1f MB", i, stored, seconds, bytes / 10.0));
    }
    System.out.println("    " + n + " intervals (each .jfr holds its .collapsed's samples); " + String.join("; ", report));
    backOffCarriedAcrossIntervals(jdk);
    wallIntervalsCloseTheirBooks(jdk);
  }

  /** event=wall with loop=1s: repeats and ticks joined to pending signals, every interval's books closed. */
  static void wallIntervalsCloseTheirBooks(IntegrationTests.Jdk jdk) throws Exception {
    IntegrationTests.Run r = IntegrationTests.run(jdk,
        "loop=1s,event=wall,interval=5ms,threads,file={dir}/w-%n.collapsed,file={dir}/w-%n.jfr,log={dir}/v-%n.txt", List.of(),
        "ComputeSleep", "2.5");
    IntegrationTests.check(r.exit() == 0, "exit " + r.exit() + ":\n" + r.stderr());
    int n = 0;
    long repeats = 0;
    for (int i = 1; Files.exists(r.dir().resolve("v-" + i + ".txt")); i++, n++) {
      String s = closedInterval(r, "v", "w", i);
      repeats += number(s, "(\\d+) idle threads counted again");
    }
    System.out.println("    event=wall: " + n + " intervals, " + repeats + " idle repeats, every interval's books closed");
    IntegrationTests.check(n >= 3 && repeats > 0, n + " wall intervals, " + repeats + " repeats");
  }

  /**
   * Walks of a 3000-frame stack at 200 us (walker=vm: in the handler) make the back-off skip signals all the time, their
   * weight carried by the thread's next sample, which may fall in the next interval: the skipped
   * signals go with it, and every interval's books still close.
   */
  static void backOffCarriedAcrossIntervals(IntegrationTests.Jdk jdk) throws Exception {
    IntegrationTests.Run r = IntegrationTests.run(jdk,
        "loop=1s,interval=200us,walker=vm,depth=4096,file={dir}/d-%n.collapsed,log={dir}/e-%n.txt", List.of(),
        "DeepRecursion", "3000", "2.5");
    IntegrationTests.check(r.exit() == 0, "exit " + r.exit() + ":\n" + r.stderr());
    long skipped = 0;
    int n = 0;
    for (int i = 1; Files.exists(r.dir().resolve("e-" + i + ".txt")); i++, n++) {
      String s = closedInterval(r, "e", "d", i);
      skipped += number(s, "back-off: *(\\d+) signals skipped");
    }
    System.out.println("    at 200 us on 3000 frames: " + n + " intervals, " + skipped + " signals skipped by the "
        + "back-off, every interval's books closed");
    IntegrationTests.check(n >= 3 && skipped > 0, n + " intervals, " + skipped + " skipped: the case is not exercised");
  }
}
