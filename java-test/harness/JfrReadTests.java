import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import jdk.jfr.consumer.RecordedClass;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;

/**
 * fgprof reading JFR recordings: the JDK's own (-XX:StartFlightRecording), held to what the JDK's
 * own reader (jdk.jfr.consumer.RecordingFile) finds in the same file, and fgagent's, read back to
 * exactly the profile the agent wrote beside it. Run by IntegrationTests.
 */
final class JfrReadTests {
  private JfrReadTests() {}

  static Map<String, Long> convert(Path dir, String event, boolean threads, Path jfr, String out) throws Exception {
    return convert(dir, event, threads, false, jfr, out);
  }

  /** The same, with --lines when lines. */
  static Map<String, Long> convert(Path dir, String event, boolean threads, boolean lines, Path jfr, String out)
      throws Exception {
    List<String> cmd = new java.util.ArrayList<>(List.of("convert", "--event", event));
    if (threads)
      cmd.add("--threads");
    if (lines)
      cmd.add("--lines");
    cmd.add(jfr.toString());
    cmd.add(dir.resolve(out).toString());
    AttachTests.Result r = AttachTests.fgprof(dir, cmd.toArray(new String[0]));
    IntegrationTests.check(r.exit() == 0, "fgprof " + cmd + ": " + r);
    return IntegrationTests.collapsed(dir.resolve(out));
  }

  /** A class as fgagent's frames name it: "java/lang/Object", "byte[]". */
  static String classFrame(RecordedClass c) {
    if (c == null)
      return "[no class]";
    String n = c.getName().replace('.', '/');   /* "java.lang.Object", or an array's descriptor "[B" */
    int dims = 0;
    while (n.charAt(dims) == '[')
      dims++;
    if (dims == 0)
      return n;
    String elem = n.substring(dims);
    elem = switch (elem.charAt(0)) {
      case 'Z' -> "boolean"; case 'B' -> "byte"; case 'C' -> "char"; case 'S' -> "short";
      case 'I' -> "int"; case 'J' -> "long"; case 'F' -> "float"; case 'D' -> "double";
      default -> elem.substring(1, elem.length() - 1);
    };
    return elem + "[]".repeat(dims);
  }

  /**
   * A recording the JDK made of Locks (monitors, a ReentrantLock, allocation) with its profile
   * settings: fgprof convert reads every jdk.ExecutionSample as the JDK's reader reads it (every
   * stack of every thread with its count, frame kinds marked; with --lines each frame at its line), every jdk.ObjectAllocationSample's
   * weight under its class, and every jdk.JavaMonitorEnter's and owned lock's jdk.ThreadPark's duration.
   */
  static void jdkRecordingsAreRead(IntegrationTests.Jdk jdk) throws Exception {
    IntegrationTests.Run r = IntegrationTests.run(jdk, null, List.of("-XX:StartFlightRecording=filename=rec.jfr,"
        + "settings=profile"), "Locks", "3", "2", "2", "alloc");
    IntegrationTests.check(r.exit() == 0, "the recorded run failed:\n" + r.stderr());
    Path rec = r.file("rec.jfr");
    Map<String, Long> cpuWant = new HashMap<>(), cpuLinesWant = new HashMap<>(), allocWant = new HashMap<>();
    long lockWant = 0, lockEvents = 0;
    for (RecordedEvent e : RecordingFile.readAllEvents(rec)) {
      switch (e.getEventType().getName()) {
        case "jdk.ExecutionSample" -> {
          cpuWant.merge(JfrTests.stackKey(e).replaceAll(":\\d+(_\\[|;|$)", "$1"), 1L,
              Long::sum);   /* without line numbers: convert names methods as the agent does without lines */
          cpuLinesWant.merge(JfrTests.stackKey(e), 1L, Long::sum);
        }
        case "jdk.ObjectAllocationSample" -> allocWant.merge(classFrame(e.getClass("objectClass")),
            e.getLong("weight"), Long::sum);
        case "jdk.JavaMonitorEnter" -> {
          lockWant += e.getDuration().toNanos();
          lockEvents++;
        }
        case "jdk.ThreadPark" -> {   /* owned locks' parks only (LockKindTests) */
          if (LockKindTests.ownedPark(e.getClass("parkedClass"))) {
            lockWant += e.getDuration().toNanos();
            lockEvents++;
          }
        }
        default -> {}
      }
    }
    convert(r.dir(), "cpu", true, rec, "cpu.collapsed");
    convert(r.dir(), "cpu", true, true, rec, "cpu-lines.collapsed");
    Map<String, Long> cpu = JfrTests.collapsedDotted(r.dir().resolve("cpu.collapsed"));
    String diff = JfrTests.differences(cpu, cpuWant);
    IntegrationTests.check(diff.isEmpty(), "fgprof's CPU samples differ from the JDK's reading: " + diff);
    Map<String, Long> cpuLines = JfrTests.collapsedDotted(r.dir().resolve("cpu-lines.collapsed"));
    diff = JfrTests.differences(cpuLines, cpuLinesWant);
    IntegrationTests.check(diff.isEmpty(), "with --lines, fgprof's CPU samples differ from the JDK's reading: " + diff);
    IntegrationTests.check(cpuLines.keySet().stream().anyMatch(k -> k.matches(".*\\.\\w+:\\d+(_\\[.\\])?(;.*|$)")),
        "--lines named no frame at a line: " + cpuLines.keySet());
    Map<String, Long> alloc = convert(r.dir(), "alloc", false, rec, "alloc.collapsed");
    Map<String, Long> allocByClass = new HashMap<>();
    alloc.forEach((k, v) -> allocByClass.merge(k.substring(k.lastIndexOf(';') + 1), v, Long::sum));
    IntegrationTests.check(allocByClass.equals(allocWant), "fgprof's allocation weights by class " + allocByClass
        + ", the JDK's " + allocWant);
    long lock = IntegrationTests.sum(convert(r.dir(), "lock", false, rec, "lock.collapsed"), k -> true);
    IntegrationTests.check(Math.abs(lock - lockWant) <= lockEvents, "fgprof's lock waits " + lock + " ns, the JDK's "
        + lockWant);
    System.out.printf("    %d CPU samples in %d stacks, %d allocation classes, %d lock waits (%.0f ms) as the JDK "
        + "reads them%n", cpuWant.values().stream().mapToLong(Long::longValue).sum(), cpuWant.size(),
        allocWant.size(), lockEvents, lockWant / 1e6);
  }

  /**
   * One run of the agent writes each event's collapsed stacks and one .jfr: fgprof convert reads
   * the .jfr back to exactly the stacks and counts of each collapsed file (cpu samples, alloc
   * bytes, lock nanoseconds).
   */
  static void fgagentRecordingsReadBack(IntegrationTests.Jdk jdk) throws Exception {
    IntegrationTests.Run r = IntegrationTests.run(jdk,
        "event=cpu,interval=1ms,alloc=64k,lock,file={dir}/p-%e.collapsed,file={dir}/p.jfr", List.of(), "Locks", "3",
        "2", "2", "alloc");
    r.expectCleanRun();
    for (String e : new String[] {"cpu", "alloc", "lock"}) {
      Map<String, Long> want = IntegrationTests.collapsed(r.file("p-" + e + ".collapsed"));
      Map<String, Long> got = convert(r.dir(), e, false, r.file("p.jfr"), "q-" + e + ".collapsed");
      String diff = JfrTests.differences(want, got);
      IntegrationTests.check(diff.isEmpty(), e + ": the .jfr read back differs from the agent's collapsed stacks: "
          + diff);
      System.out.printf("    %s: %d stacks, %d in all, read back exactly%n", e, want.size(),
          want.values().stream().mapToLong(Long::longValue).sum());
    }
  }

  /**
   * A recording cut short (a crashed JVM's, a copy cut off): the JDK's recording of CpuBurn
   * followed by its first half, a second chunk cut in the middle. fgprof convert writes OUT from
   * the first chunk, exactly what the whole recording alone converts to, prints one line naming a
   * byte in the cut chunk, and exits 4; the first half alone (nothing readable before the cut)
   * exits 2 and writes nothing.
   */
  static void cutRecordingsKeepWhatWasRead(IntegrationTests.Jdk jdk) throws Exception {
    IntegrationTests.Run r = IntegrationTests.run(jdk, null, List.of("-XX:StartFlightRecording=filename=rec.jfr,"
        + "settings=profile"), "CpuBurn", "1");
    IntegrationTests.check(r.exit() == 0, "the recorded run failed:\n" + r.stderr());
    byte[] rec = java.nio.file.Files.readAllBytes(r.file("rec.jfr"));
    byte[] cut = java.util.Arrays.copyOf(rec, rec.length + rec.length / 2);
    System.arraycopy(rec, 0, cut, rec.length, rec.length / 2);
    Path cutFile = r.dir().resolve("cut.jfr"), half = r.dir().resolve("half.jfr");
    java.nio.file.Files.write(cutFile, cut);
    java.nio.file.Files.write(half, java.util.Arrays.copyOf(rec, rec.length / 2));
    Map<String, Long> whole = convert(r.dir(), "cpu", true, r.file("rec.jfr"), "whole.collapsed");
    AttachTests.Result c = AttachTests.fgprof(r.dir(), "convert", "--event", "cpu", "--threads", cutFile.toString(),
        r.dir().resolve("cut.collapsed").toString());
    String[] lines = c.err().strip().split("\n");
    java.util.regex.Matcher byteAt = java.util.regex.Pattern.compile("byte (\\d+)").matcher(c.err());
    IntegrationTests.check(c.exit() == 4 && lines.length == 1 && byteAt.find(), "fgprof convert of a cut recording: " + c);
    long at = Long.parseLong(byteAt.group(1));
    IntegrationTests.check(at >= rec.length && at < cut.length, "the bad byte named is " + at + ", the cut chunk is at "
        + rec.length + ".." + cut.length);
    Map<String, Long> kept = IntegrationTests.collapsed(r.dir().resolve("cut.collapsed"));
    String diff = JfrTests.differences(whole, kept);
    IntegrationTests.check(!whole.isEmpty() && diff.isEmpty(), "the cut recording's output differs from the first chunk's: "
        + diff);
    AttachTests.Result h = AttachTests.fgprof(r.dir(), "convert", "--event", "cpu", half.toString(),
        r.dir().resolve("half.collapsed").toString());
    IntegrationTests.check(h.exit() == 2 && !java.nio.file.Files.exists(r.dir().resolve("half.collapsed")),
        "fgprof convert of half a chunk: " + h);
    System.out.printf("    %d stacks kept from a recording cut at byte %d of %d; %s", kept.size(), rec.length
        + rec.length / 2, cut.length, c.err());
  }

  static final List<IntegrationTests.Named> TESTS = List.of(
      new IntegrationTests.Named("jdk_recordings_are_read", JfrReadTests::jdkRecordingsAreRead),
      new IntegrationTests.Named("fgagent_recordings_read_back", JfrReadTests::fgagentRecordingsReadBack),
      new IntegrationTests.Named("cut_recordings_keep_what_was_read", JfrReadTests::cutRecordingsKeepWhatWasRead));
}
