import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * fgprof's --from and --to on a recording with a known spike (Phases: a thread computing in
 * anomaly() only between two marks of the workload's own clock, beside a steady one): a range's
 * profile holds what the workload says ran in it, and diff of the spike against a quiet range names
 * the spike's method, while two quiet ranges name nothing. Run by IntegrationTests.
 */
final class TimeRangeTests {
  private TimeRangeTests() {}

  /** A mark of the workload's clock, 50 ms inside at each end (samples at a thread's start or end). */
  record Mark(long startMs, long endMs, long steadyNs, long anomalyNs) {
    String from() { return Instant.ofEpochMilli(startMs + 50).toString(); }
    String to() { return Instant.ofEpochMilli(endMs - 50).toString(); }
  }

  static Map<String, Mark> marks(String stdout) {
    Map<String, long[]> times = new HashMap<>(), cpu = new HashMap<>();
    Matcher m = Pattern.compile("(?m)^(mark|cpu) (\\w+) (\\d+) (\\d+)$").matcher(stdout);
    while (m.find())
      (m.group(1).equals("mark") ? times : cpu).put(m.group(2),
          new long[] {Long.parseLong(m.group(3)), Long.parseLong(m.group(4))});
    Map<String, Mark> out = new HashMap<>();
    for (String k : times.keySet())
      out.put(k, new Mark(times.get(k)[0], times.get(k)[1], cpu.get(k)[0], cpu.get(k)[1]));
    IntegrationTests.check(out.size() == 3, "the workload printed no marks:\n" + stdout);
    return out;
  }

  static Map<String, Long> convertRange(Path dir, Path in, Mark mark, String out) throws Exception {
    AttachTests.Result r = AttachTests.fgprof(dir, "convert", "--from", mark.from(), "--to", mark.to(), in.toString(),
        dir.resolve(out).toString());
    IntegrationTests.check(r.exit() == 0, "fgprof convert --from " + mark.from() + " --to " + mark.to() + ": " + r);
    return IntegrationTests.collapsed(dir.resolve(out));
  }

  static long samplesOf(Map<String, Long> stacks, String method) {
    return stacks.entrySet().stream().filter(e -> e.getKey().contains(method)).mapToLong(Map.Entry::getValue).sum();
  }

  static long all(Map<String, Long> stacks) {
    return stacks.values().stream().mapToLong(Long::longValue).sum();
  }

  /** fgprof diff --json of two ranges of one file: its exit status and the frames it calls slower (or new). */
  record Verdict(int exit, List<String> slower, String json) {}

  static Verdict diff(Path dir, Path in, Mark base, Mark next) throws Exception {
    AttachTests.Result r = AttachTests.fgprof(dir, "diff", "--json", "--base-from", base.from(), "--base-to",
        base.to(), "--from", next.from(), "--to", next.to(), in.toString(), in.toString());
    IntegrationTests.check(r.exit() == 0 || r.exit() == 1, "fgprof diff: " + r);
    List<String> slower = new ArrayList<>();
    Matcher m = Pattern.compile("\\{\"name\":\"([^\"]*)\",\"status\":\"(slower|new)\"").matcher(r.out());
    while (m.find())
      slower.add(m.group(1));
    String json = r.out();
    return new Verdict(r.exit(), slower, json.length() > 1500 ? json.substring(0, 1500) + "..." : json);
  }

  static void rangesHoldWhatRanInThem(IntegrationTests.Jdk jdk) throws Exception {
    IntegrationTests.Run r = IntegrationTests.run(jdk, "interval=1ms,file={dir}/p.jfr,file={dir}/p.otlp", List.of(),
        "Phases");
    r.expectCleanRun();
    Map<String, Mark> marks = marks(r.stdout());
    Mark spike = marks.get("spike"), quiet1 = marks.get("quiet1"), quiet2 = marks.get("quiet2");
    for (String file : new String[] {"p.jfr", "p.otlp"}) {
      Map<String, Long> s = convertRange(r.dir(), r.file(file), spike, file + "-spike.collapsed");
      Map<String, Long> q = convertRange(r.dir(), r.file(file), quiet1, file + "-quiet1.collapsed");
      double want = (double) spike.anomalyNs() / (spike.anomalyNs() + spike.steadyNs());
      double got = (double) samplesOf(s, "Phases.anomaly") / (samplesOf(s, "Phases.anomaly") + samplesOf(s, "Phases.steady"));
      System.out.printf("    %s: spike range %d samples, anomaly %.3f of the two threads' (their CPU time: %.3f); "
          + "quiet range %d samples, anomaly %d%n", file, all(s), got, want, all(q), samplesOf(q, "Phases.anomaly"));
      /* the range is 0.9 of its mark: its samples at 1 ms are that much of the threads' CPU time */
      double expected = 0.9 * (spike.steadyNs() + spike.anomalyNs()) / 1e6;
      IntegrationTests.check(all(s) >= 0.6 * expected && all(s) >= 20, file + ": " + all(s) + " samples in the "
          + "spike's range, where its threads ran " + expected + " ms");
      IntegrationTests.check(Math.abs(got - want) < 0.1, file + ": anomaly() holds " + got + " of the spike range's "
          + "samples, its thread " + want + " of the CPU time");
      double quietExpected = 0.9 * quiet1.steadyNs() / 1e6;
      IntegrationTests.check(samplesOf(q, "Phases.anomaly") == 0 && samplesOf(q, "Phases.steady") >= 0.6 * quietExpected,
          file + ": the quiet range holds " + samplesOf(q, "Phases.anomaly") + " samples of anomaly(), "
          + samplesOf(q, "Phases.steady") + " of steady()");
    }
    Verdict v = diff(r.dir(), r.file("p.jfr"), quiet1, spike);
    System.out.printf("    diff quiet1 -> spike: exit %d, slower %s%n", v.exit(), v.slower());
    IntegrationTests.check(v.exit() == 1 && !v.slower().isEmpty() && v.slower().get(0).equals("Phases.anomaly"),
        "diff of the spike against a quiet range does not name anomaly() first: " + v.json());
    Verdict quiet = diff(r.dir(), r.file("p.jfr"), quiet1, quiet2);
    System.out.printf("    diff quiet1 -> quiet2: exit %d, slower %s%n", quiet.exit(), quiet.slower());
    IntegrationTests.check(quiet.exit() == 0 && quiet.slower().isEmpty(),
        "diff of two quiet ranges names a frame slower: " + quiet.json());
    AttachTests.Result bad = AttachTests.fgprof(r.dir(), "convert", "--from", "soon", r.file("p.jfr").toString(),
        r.dir().resolve("x.html").toString());
    IntegrationTests.check(bad.exit() == 2 && bad.err().contains("--from 'soon' is not a time; accepted:"),
        "a bad --from: " + bad);
    Files.writeString(r.dir().resolve("c.collapsed"), "a;b 3\n");
    AttachTests.Result untimed = AttachTests.fgprof(r.dir(), "convert", "--to", "1s",
        r.dir().resolve("c.collapsed").toString(), r.dir().resolve("y.html").toString());
    IntegrationTests.check(untimed.exit() == 2 && untimed.err().contains("has no sample times"),
        "--to on collapsed stacks: " + untimed);
  }

  static final List<IntegrationTests.Named> TESTS = List.of(
      new IntegrationTests.Named("time_ranges_hold_what_ran_in_them", TimeRangeTests::rangesHoldWhatRanInThem));
}
