import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.Inflater;

/**
 * The agent's own GC marks (JVMTI GarbageCollectionStart/Finish): GcMarks calls System.gc() N times
 * between two marks of its clock; the agent's heatmap page and the heatmap fgprof makes of the
 * agent's .jfr (its fgagent.GCPause events) each hold at least N GC pauses in that span. More is
 * allowed: a young collection of the JVM's own may fall in it. Run by IntegrationTests.
 */
final class GcMarkTests {
  private GcMarkTests() {}

  static final int GCS = 5;

  /** A mark of a page: kind (0 gc pause, 1 gc, 2 safepoint), start (ns since 1970), duration, label. */
  record PageMark(int kind, long startEpochNs, long durationNs, String label) {}

  static final class Reader {
    final byte[] b;
    int p;
    Reader(byte[] b) { this.b = b; }
    long v() {
      long x = 0;
      for (int shift = 0;; shift += 7) {
        int c = b[p++] & 0xff;
        x |= (long) (c & 127) << shift;
        if (c < 128)
          return x;
      }
    }
    String bytes() {
      int n = (int) v();
      String s = new String(b, p, n, StandardCharsets.UTF_8);
      p += n;
      return s;
    }
  }

  /** A part of a heatmap page's data back to bytes, as its script's text7 reads it (agent/output/heatmap_blob.h). */
  static byte[] text7(String s) {
    int[] bad = {0, '\r', ',', '<', 127};
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    int acc = 0, bits = 0;
    for (int i = 0; i < s.length(); i++) {
      int c = s.charAt(i);
      IntegrationTests.check(c < 128, "a heatmap page's data holds character " + c);
      if (c == 127) {
        IntegrationTests.check(i + 1 < s.length() && s.charAt(i + 1) >= '0' && s.charAt(i + 1) <= '4',
            "a heatmap page's data holds an escape it cannot read");
        c = bad[s.charAt(++i) - '0'];
      }
      acc = (acc << 7 | c) & 0x7fff;
      bits += 7;
      if (bits >= 8) {
        bits -= 8;
        out.write(acc >>> bits & 255);
      }
    }
    return out.toByteArray();
  }

  /** The marks of a heatmap page, decoded as its script decodes its head (agent/output/heatmap.c). */
  static List<PageMark> pageMarks(Path page) throws Exception {
    String html = Files.readString(page);
    Matcher h = Pattern.compile("\"startEpochNs\":(\\d+)").matcher(html);
    IntegrationTests.check(h.find(), page + ": no startEpochNs in its header");
    long epoch = Long.parseLong(h.group(1));
    Matcher d = Pattern.compile("<script type=\"text/plain\" id=\"data\">deflate-raw:([^,<]*)").matcher(html);
    IntegrationTests.check(d.find(), page + ": no deflated data part");
    Inflater inf = new Inflater(true);
    inf.setInput(text7(d.group(1)));
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    byte[] buf = new byte[65536];
    while (!inf.finished()) {
      int n = inf.inflate(buf);
      IntegrationTests.check(n > 0 || !inf.needsInput(), page + ": its head part is cut");
      out.write(buf, 0, n);
    }
    Reader r = new Reader(out.toByteArray());
    for (long i = 0, n = r.v(); i < n; i++) {   /* frames: kind byte, name */
      r.p++;
      r.bytes();
    }
    for (long i = 0, n = r.v(); i < n; i++) {   /* nodes */
      r.v();
      r.v();
    }
    for (long i = 0, n = r.v(); i < n; i++) {   /* stacks */
      r.v();
      r.v();
      r.v();
    }
    for (long i = 0, n = r.v(); i < n; i++) {   /* threads */
      r.v();
      r.bytes();
    }
    List<PageMark> marks = new ArrayList<>();
    long at = 0;
    for (long i = 0, n = r.v(); i < n; i++) {
      int kind = (int) r.v();
      at += r.v();
      long duration = r.v();
      marks.add(new PageMark(kind, epoch + at, duration, r.bytes()));
    }
    return marks;
  }

  static long pausesIn(List<PageMark> marks, long fromMs, long toMs) {
    return marks.stream().filter(m -> m.kind() == 0 && m.startEpochNs() >= fromMs * 1_000_000L
        && m.startEpochNs() <= toMs * 1_000_000L).count();
  }

  static void gcPausesAreMarked(IntegrationTests.Jdk jdk) throws Exception {
    IntegrationTests.Run r = IntegrationTests.run(jdk, "interval=1ms,file={dir}/p.heatmap.html,file={dir}/p.jfr",
        List.of("-Xmx64m"), "GcMarks", String.valueOf(GCS));
    r.expectCleanRun();
    Matcher m = Pattern.compile("(?m)^mark gcs (\\d+) (\\d+)$").matcher(r.stdout());
    IntegrationTests.check(m.find(), "the workload printed no mark:\n" + r.stdout());
    long from = Long.parseLong(m.group(1)), to = Long.parseLong(m.group(2));
    List<PageMark> agent = pageMarks(r.file("p.heatmap.html"));
    long inAgent = pausesIn(agent, from, to);
    AttachTests.Result conv = AttachTests.fgprof(r.dir(), "heatmap", r.file("p.jfr").toString(),
        r.dir().resolve("q.heatmap.html").toString());
    IntegrationTests.check(conv.exit() == 0, "fgprof heatmap p.jfr: " + conv);
    List<PageMark> read = pageMarks(r.dir().resolve("q.heatmap.html"));
    long inRead = pausesIn(read, from, to);
    System.out.printf("    %d System.gc() in %d ms: the agent's page marks %d GC pauses there (%d in all), "
        + "fgprof heatmap of its .jfr %d (%d)%n", GCS, to - from, inAgent, agent.size(), inRead, read.size());
    IntegrationTests.check(inAgent >= GCS, "the agent's heatmap marks " + inAgent + " GC pauses in the span of "
        + GCS + " System.gc() calls: " + agent);
    IntegrationTests.check(inRead == inAgent, "the heatmap of the agent's .jfr marks " + inRead
        + " GC pauses in that span, the agent's own page " + inAgent);
    IntegrationTests.check(agent.stream().allMatch(k -> k.label().equals("GC pause (JVMTI)") && k.durationNs() > 0),
        "a mark of the agent's is not a JVMTI GC pause with a duration: " + agent);
    /* a session whose outputs draw no marks asks for no GC events and writes none */
    IntegrationTests.Run plain = IntegrationTests.run(jdk, "interval=1ms,file={dir}/p.collapsed", List.of("-Xmx64m"),
        "GcMarks", "1");
    plain.expectCleanRun();
    IntegrationTests.check(!plain.stderr().contains("GC pauses are not marked"), "plain run: " + plain.stderr());
  }

  /** A session of fgprof attach: start with options, wait, stop. */
  static void session(Path dir, String pid, String options, long ms) throws Exception {
    AttachTests.Result start = AttachTests.fgprof(dir, "attach", pid, "start," + options);
    IntegrationTests.check(start.exit() == 0 && start.out().contains("started ("), "attach start," + options + ": "
        + start);
    Thread.sleep(ms);
    AttachTests.Result stop = AttachTests.fgprof(dir, "attach", pid, "stop");
    IntegrationTests.check(stop.exit() == 0, "attach stop: " + stop);
  }

  /**
   * Attached sessions: one with a heatmap marks the pauses of a JVM calling System.gc() every 200 ms;
   * a restart with a collapsed file only; a third with a heatmap again marks them again (a stop turned
   * the events off, the start of a session that draws them turns them back on).
   */
  static void attachedSessionsMarkGcPauses(IntegrationTests.Jdk jdk) throws Exception {
    Path dir = Files.createTempDirectory(IntegrationTests.runs, "gcmarks-");
    Process jvm = AttachTests.startJvm(jdk, dir, List.of("-Xmx64m"), "GcMarks", "60");
    String pid = Long.toString(jvm.pid());
    Thread.sleep(1500);
    session(dir, pid, "interval=1ms,file=a.heatmap.html", 2000);
    session(dir, pid, "interval=1ms,file=b.collapsed", 500);
    session(dir, pid, "interval=1ms,file=c.heatmap.html", 2000);
    jvm.destroy();
    jvm.waitFor();
    long a = pageMarks(dir.resolve("a.heatmap.html")).stream().filter(k -> k.kind() == 0).count();
    long c = pageMarks(dir.resolve("c.heatmap.html")).stream().filter(k -> k.kind() == 0).count();
    System.out.printf("    attached sessions of 2 s, System.gc() every 200 ms: %d and %d GC pauses marked%n", a, c);
    /* 10 calls a session; 5 leaves room for a loaded machine's late wake-ups */
    IntegrationTests.check(a >= 5 && c >= 5, "attached sessions marked " + a + " and " + c + " GC pauses in 2 s of "
        + "System.gc() every 200 ms");
  }

  static final List<IntegrationTests.Named> TESTS = List.of(
      new IntegrationTests.Named("gc_pauses_are_marked", GcMarkTests::gcPausesAreMarked),
      new IntegrationTests.Named("gc_pauses_are_marked_attached", GcMarkTests::attachedSessionsMarkGcPauses));
}
