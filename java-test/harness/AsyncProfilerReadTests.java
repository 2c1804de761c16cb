import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordedThread;
import jdk.jfr.consumer.RecordingFile;

/**
 * fgprof reading async-profiler's recordings: its alloc samples (jdk.ObjectAllocationInNewTLAB
 * and OutsideTLAB), wall-clock samples (profiler.WallClockSample) and live objects
 * (profiler.LiveObject) beside the JDK's types (the wall samples as cpu where there is no
 * jdk.ExecutionSample, and with --event wall), held to what the JDK's own reader
 * (jdk.jfr.consumer.RecordingFile) finds in the same file, weighed as async-profiler's converter
 * weighs them: an InNewTLAB sample by its tlabSize (its allocationSize when that is 0), an
 * OutsideTLAB one by its allocationSize, a wall event by its samples, a live object by its
 * allocationSize. The recordings are async-profiler 4.5's (tests/fuzz/corpus/jfr_reader/ap45-*,
 * made on each JDK), and with FG_ASYNC_PROFILER=path/to/libasyncProfiler.so one made now of this
 * JDK, cpu, wall, alloc, live and lock in one run. Run by IntegrationTests.
 */
final class AsyncProfilerReadTests {
  private AsyncProfilerReadTests() {}

  static final String[] EVENTS = {"cpu", "wall", "alloc", "lock", "live"};

  /** A stack as fgprof convert --threads writes it, dotted: "[thread tid=N];frames...[;class]". */
  static String key(RecordedEvent e, String thread, String cls) {
    RecordedThread t = e.getThread(thread);
    String name = t == null ? "[unknown thread]" : t.getJavaName() != null && !t.getJavaName().isEmpty()
        ? t.getJavaName() : t.getOSName();
    StringBuilder b = new StringBuilder("[" + name + " tid=" + (t == null ? 0 : t.getOSThreadId()) + "]");
    List<RecordedFrame> frames = e.getStackTrace() == null ? List.of() : e.getStackTrace().getFrames();
    if (e.getStackTrace() != null && e.getStackTrace().isTruncated())
      b.append(";[truncated]");
    for (int i = frames.size() - 1; i >= 0; i--) {
      RecordedFrame f = frames.get(i);
      String c = f.getMethod().getType().getName();
      b.append(';').append(c.isEmpty() ? "" : c + ".").append(f.getMethod().getName());
      b.append(switch (f.getType()) {
        case "Kernel" -> "_[k]";
        case "JIT compiled" -> "_[j]";
        case "Inlined" -> "_[i]";
        case "Interpreted" -> "_[0]";
        default -> "";
      });
    }
    if (cls != null)
      b.append(';').append(JfrReadTests.classFrame(e.getClass(cls)));
    return b.toString().replace('/', '.');
  }

  /** What each event of the file should read as, by the rules fgprof states (jfr_reader.c). */
  static Map<String, Map<String, Long>> expected(Path rec) throws Exception {
    List<RecordedEvent> all = RecordingFile.readAllEvents(rec);
    long exec = all.stream().filter(e -> e.getEventType().getName().equals("jdk.ExecutionSample")).count();
    long tlab = all.stream().filter(e -> e.getEventType().getName().startsWith("jdk.ObjectAllocationInNewTLAB")
        || e.getEventType().getName().equals("jdk.ObjectAllocationOutsideTLAB")).count();
    Map<String, Map<String, Long>> want = new HashMap<>();
    for (String k : EVENTS)
      want.put(k, new HashMap<>());
    for (RecordedEvent e : all) {
      switch (e.getEventType().getName()) {
        case "jdk.ExecutionSample" -> want.get("cpu").merge(key(e, "sampledThread", null), 1L, Long::sum);
        case "profiler.WallClockSample" -> {   /* cpu's samples only where no jdk.ExecutionSample; --event wall's */
          if (exec == 0 && e.getLong("samples") > 0)
            want.get("cpu").merge(key(e, "sampledThread", null), e.getLong("samples"), Long::sum);
          if (e.getLong("samples") > 0)
            want.get("wall").merge(key(e, "sampledThread", null), e.getLong("samples"), Long::sum);
        }
        case "jdk.ObjectAllocationInNewTLAB" -> {
          long w = e.getLong("tlabSize") != 0 ? e.getLong("tlabSize") : e.getLong("allocationSize");
          want.get("alloc").merge(key(e, "eventThread", "objectClass"), w, Long::sum);
        }
        case "jdk.ObjectAllocationOutsideTLAB" -> want.get("alloc").merge(key(e, "eventThread", "objectClass"),
            e.getLong("allocationSize"), Long::sum);
        case "jdk.ObjectAllocationSample" -> {   /* the same allocations: only where no TLAB event */
          if (tlab == 0)
            want.get("alloc").merge(key(e, "eventThread", "objectClass"), e.getLong("weight"), Long::sum);
        }
        case "profiler.LiveObject" -> want.get("live").merge(key(e, "eventThread", "objectClass"),
            e.getLong("allocationSize"), Long::sum);
        case "jdk.JavaMonitorEnter" -> want.get("lock").merge(key(e, "eventThread", "monitorClass"),
            e.getDuration().toNanos(), Long::sum);
        case "jdk.ThreadPark" -> {
          if (LockKindTests.ownedPark(e.getClass("parkedClass")))
            want.get("lock").merge(key(e, "eventThread", "parkedClass"), e.getDuration().toNanos(), Long::sum);
        }
        default -> {}
      }
    }
    return want;
  }

  /** fgprof convert of each event rec holds reads exactly what expected() says; what it read, per event. */
  static String readsAsExpected(Path dir, Path rec) throws Exception {
    Map<String, Map<String, Long>> want = expected(rec);
    StringBuilder said = new StringBuilder();
    for (String event : EVENTS) {
      Map<String, Long> w = want.get(event);
      String out = rec.getFileName() + "-" + event + ".collapsed";
      if (w.isEmpty()) {
        AttachTests.Result r = AttachTests.fgprof(dir, "convert", "--event", event, rec.toString(),
            dir.resolve(out).toString());
        String says = event.equals("wall") ? "--event wall: no profiler.WallClockSample event"
            : "has no " + event + " events";
        IntegrationTests.check(r.exit() != 0 && r.err().contains(says), rec + ": no " + event + " events expected, "
            + "fgprof: " + r);
        continue;
      }
      JfrReadTests.convert(dir, event, true, rec, out);
      Map<String, Long> got = JfrTests.collapsedDotted(dir.resolve(out));
      String diff = JfrTests.differences(got, w);
      IntegrationTests.check(diff.isEmpty(), rec.getFileName() + " " + event + ": fgprof differs from the JDK's "
          + "reading: " + diff);
      said.append(String.format(" %s %d in %d stacks;", event, w.values().stream().mapToLong(Long::longValue).sum(),
          w.size()));
    }
    return said.toString();
  }

  /**
   * Every async-profiler 4.5 recording of this JDK among the fuzz corpus's seeds (cpu, wall, cpu
   * with wall, alloc, alloc with live, lock, and all of cpu, alloc and lock) reads as the JDK's
   * reader reads it; with FG_ASYNC_PROFILER, a recording made now too.
   */
  static void asyncProfilerRecordingsAreRead(IntegrationTests.Jdk jdk) throws Exception {
    Path corpus = IntegrationTests.agent.getParent().getParent().resolve("tests/fuzz/corpus/jfr_reader");
    String suffix = jdk.label().equals("jdk17") ? "-jdk17.jfr" : "-jdk25.jfr";
    List<Path> recs = new ArrayList<>();
    try (DirectoryStream<Path> ds = Files.newDirectoryStream(corpus, "ap45-*" + suffix)) {
      ds.forEach(recs::add);
    }
    IntegrationTests.check(recs.size() >= 7, "fewer async-profiler recordings than 7 in " + corpus + ": " + recs);
    Path dir = Files.createTempDirectory(IntegrationTests.runs, "ap-read-");
    String ap = System.getenv("FG_ASYNC_PROFILER");
    if (ap != null && !ap.isEmpty()) {
      IntegrationTests.Run r = IntegrationTests.run(jdk, null, List.of("-agentpath:" + ap
          + "=start,event=cpu,interval=5ms,wall=20ms,alloc=64k,live,lock,file=ap-now.jfr"), "Locks", "2", "2", "1",
          "alloc");
      IntegrationTests.check(r.exit() == 0, "the run under async-profiler failed:\n" + r.stderr());
      recs.add(r.file("ap-now.jfr"));
    }
    for (Path rec : recs)
      System.out.printf("    %s:%s%n", rec.getFileName(), readsAsExpected(dir, rec));
  }

  /**
   * A JDK recording with the TLAB events on beside jdk.ObjectAllocationSample (both sample the same
   * allocations): fgprof reads the TLAB events alone, exactly as the JDK's reader finds them, and
   * says on one line that it left the allocation samples out.
   */
  static void jdkTlabRecordingIsReadOnce(IntegrationTests.Jdk jdk) throws Exception {
    IntegrationTests.Run r = IntegrationTests.run(jdk, null, List.of("-XX:StartFlightRecording=filename=tlab.jfr,"
        + "settings=profile,jdk.ObjectAllocationInNewTLAB#enabled=true,jdk.ObjectAllocationOutsideTLAB#enabled=true"),
        "AllocSites", "2", "20000");
    IntegrationTests.check(r.exit() == 0, "the recorded run failed:\n" + r.stderr());
    Path rec = r.file("tlab.jfr");
    long samples = RecordingFile.readAllEvents(rec).stream()
        .filter(e -> e.getEventType().getName().equals("jdk.ObjectAllocationSample")).count();
    IntegrationTests.check(samples > 0, "the JDK recorded no jdk.ObjectAllocationSample beside its TLAB events");
    System.out.printf("    %s%n", readsAsExpected(r.dir(), rec));
    AttachTests.Result c = AttachTests.fgprof(r.dir(), "convert", "--event", "alloc", rec.toString(),
        r.dir().resolve("again.collapsed").toString());
    IntegrationTests.check(c.exit() == 0 && c.err().contains("its " + samples + " jdk.ObjectAllocationSample events "
        + "left out"), "fgprof did not say it left the allocation samples out: " + c);
  }

  static final List<IntegrationTests.Named> TESTS = List.of(
      new IntegrationTests.Named("jdk_tlab_recording_is_read_once", AsyncProfilerReadTests::jdkTlabRecordingIsReadOnce),
      new IntegrationTests.Named("async_profiler_recordings_are_read",
          AsyncProfilerReadTests::asyncProfilerRecordingsAreRead));
}
