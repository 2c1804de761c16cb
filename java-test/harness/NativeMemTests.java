import java.nio.file.Files;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * nativemem, leak and nativelock held to what the workload itself counted
 * (java-test/workloads/NativeMem.java, java-test/jni/fgnm.c): bytes a native site, the sites
 * that keep what they allocate, the nanoseconds its own threads waited on a pthread mutex.
 */
final class NativeMemTests {
  private NativeMemTests() {}

  static final String JEMALLOC = "/usr/lib/x86_64-linux-gnu/libjemalloc.so.2";
  static final String TCMALLOC = "/usr/lib/x86_64-linux-gnu/libtcmalloc_minimal.so.4";

  static Path jniDir() {
    return IntegrationTests.classes.resolveSibling("java-test-jni");
  }

  /** NativeMem under options, java started with LD_PRELOAD=preload (null: none). */
  static IntegrationTests.Run nativeMem(IntegrationTests.Jdk jdk, String options, String preload, String... args)
      throws Exception {
    List<String> prefix = preload == null ? List.of() : List.of("env", "LD_PRELOAD=" + preload);
    List<String> main = new ArrayList<>(List.of("NativeMem", jniDir().toString()));
    main.addAll(List.of(args));
    IntegrationTests.Run r = IntegrationTests.runUnder(prefix, jdk, options, List.of(), main.toArray(new String[0]));
    r.expectCleanRun();
    return r;
  }

  static Map<String, Long> counted(IntegrationTests.Run r, String key) {
    Map<String, Long> m = new java.util.LinkedHashMap<>();
    Matcher x = Pattern.compile("(?m)^" + key + " (\\S+) (\\d+)$").matcher(r.stdout());
    while (x.find())
      m.put(x.group(1), Long.parseLong(x.group(2)));
    return m;
  }

  /** The profile's bytes under each site frame ("nm_site_..."), summed over its stacks. */
  static long under(Map<String, Long> stacks, String frame) {
    return IntegrationTests.sum(stacks, k -> IntegrationTests.hasFrame(k, frame));
  }

  /** Each site's share of the ten sites' bytes within 3 points of its share of the bytes counted. */
  static void sharesMatch(IntegrationTests.Run r, Map<String, Long> stacks, String label) {
    Map<String, Long> truth = counted(r, "SITE");
    IntegrationTests.check(truth.size() == NativeMem.SITES.length, "the workload did not print its "
        + NativeMem.SITES.length + " sites:\n" + r.stdout());
    long all = truth.values().stream().mapToLong(Long::longValue).sum(), profiledAll = 0;
    for (String site : truth.keySet())
      profiledAll += under(stacks, site);
    IntegrationTests.check(profiledAll > 0, label + ": no site in the profile: " + stacks.keySet());
    StringBuilder line = new StringBuilder();
    for (Map.Entry<String, Long> e : truth.entrySet()) {
      double want = 100.0 * e.getValue() / all, got = 100.0 * under(stacks, e.getKey()) / profiledAll;
      line.append(String.format(" %s %.1f/%.1f", e.getKey().replace("nm_site_", ""), got, want));
      IntegrationTests.check(Math.abs(got - want) <= 3, label + ": " + e.getKey() + " has " + got
          + "% of the sites' bytes, " + want + "% counted");
    }
    double ratio = (double) profiledAll / all;
    System.out.printf("    %s: share profiled/counted:%s; %.0f MB estimated for %.0f MB (%.3f)%n", label, line,
        profiledAll / 1e6, all / 1e6, ratio);
    IntegrationTests.check(ratio > 0.9 && ratio < 1.1, label + ": the sites' bytes estimated at " + ratio);
  }

  static void accountingClosed(IntegrationTests.Run r, String section) {
    Matcher m = Pattern.compile("(?s)\\n" + section + ": .*?accounting: +taken (\\d+) = stored (\\d+) \\+ lost (\\d+)"
        + "(?: \\+ freed (\\d+))?: (OK|MISMATCH)").matcher(r.stderr());
    IntegrationTests.check(m.find(), "no " + section + " accounting in the summary:\n" + r.stderr());
    IntegrationTests.check(m.group(5).equals("OK") && Long.parseLong(m.group(3)) == 0,
        section + "'s accounting: " + m.group(0));
  }

  /**
   * Ten native sites of a library loaded after the start (malloc, calloc, realloc, posix_memalign,
   * aligned_alloc, memalign, valloc, pvalloc, reallocarray) on fresh threads, 100 of them short-lived: each site's share within 3 points of its bytes, the sum
   * within 10%; direct buffers under ByteBuffer.allocateDirect within 10% of their 52 MB, and
   * Inflaters under Inflater.init; forks and 200 dlopen/dlclose cycles of a patched library ran
   * clean; HTML, pprof, OTLP and speedscope files hold the sites in malloc_space bytes; the JDK's own JFR reader reads every profiler.Malloc (size, thread, stack) and their sizes
   * sum to the collapsed stacks' bytes, and fgprof reads the .jfr back to equal stacks; nothing lost.
   */
  static void sitesWeighTheirBytes(IntegrationTests.Jdk jdk) throws Exception {
    IntegrationTests.Run r = nativeMem(jdk, "nativemem=32k,file={dir}/m.collapsed,file={dir}/m.jfr,file={dir}/m.html,"
        + "file={dir}/m.pb.gz,file={dir}/m.otlp,file={dir}/m.speedscope.json", null, "40");
    Map<String, Long> s = IntegrationTests.collapsed(r.file("m.collapsed"));
    sharesMatch(r, s, "libc malloc");
    /* every format: its title, sample type or unit, and a site's frame */
    String html = Files.readString(r.file("m.html")), speedscope = Files.readString(r.file("m.speedscope.json"));
    String pprof = new String(new java.util.zip.GZIPInputStream(Files.newInputStream(r.file("m.pb.gz"))).readAllBytes(),
        java.nio.charset.StandardCharsets.ISO_8859_1);
    String otlp = new String(Files.readAllBytes(r.file("m.otlp")), java.nio.charset.StandardCharsets.ISO_8859_1);
    IntegrationTests.check(html.contains("native memory flame graph") && html.contains("nm_site_aligned_freed"),
        "the flame graph is not nativemem's");
    IntegrationTests.check(pprof.contains("malloc_space") && pprof.contains("nm_site_aligned_freed"),
        "the pprof file has no malloc_space samples of the sites");
    IntegrationTests.check(otlp.contains("malloc_space") && otlp.contains("nm_site_aligned_freed"),
        "the OTLP file has no malloc_space samples of the sites");
    IntegrationTests.check(speedscope.contains("\"unit\":\"bytes\"") && speedscope.contains("nm_site_aligned_freed"),
        "the speedscope file is not in bytes of the sites");
    long direct = IntegrationTests.sum(s, k -> k.contains("NativeMem.directBuffers;java/nio/ByteBuffer.allocateDirect;"));
    double directRatio = direct / (800.0 * 64 * 1024);
    long inflaters = IntegrationTests.sum(s, k -> k.contains("NativeMem.inflaters;java/util/zip/Inflater.<init>"));
    System.out.printf("    direct buffers %.1f MB (%.3f of 52.4 MB), Inflaters %.1f MB%n", direct / 1e6, directRatio,
        inflaters / 1e6);
    IntegrationTests.check(directRatio > 0.9 && directRatio < 1.1, "direct buffers estimated at " + directRatio);
    IntegrationTests.check(inflaters > 0, "no Inflater under NativeMem.inflaters: " + s.keySet());
    Matcher u = Pattern.compile("UNLOADED (\\d+)").matcher(r.stdout());
    IntegrationTests.check(u.find() && Integer.parseInt(u.group(1)) >= 150, "the helper library was not unloaded:\n"
        + r.stdout());
    accountingClosed(r, "nativemem");
    /* the JDK's own reader (JMC's parser) reads each profiler.Malloc with its size, thread and stack */
    long jfrBytes = 0, jfrEvents = 0;
    for (RecordedEvent e : RecordingFile.readAllEvents(r.file("m.jfr"))) {
      if (!e.getEventType().getName().equals("profiler.Malloc"))
        continue;
      IntegrationTests.check(e.getThread("eventThread") != null && e.getStackTrace() != null
          && !e.getStackTrace().getFrames().isEmpty(), "a profiler.Malloc without thread or stack: " + e);
      IntegrationTests.check("jdk.jfr.DataAmount".equals(e.getEventType().getField("size").getContentType()),
          "profiler.Malloc's size is not a data amount");
      jfrBytes += e.getLong("size");
      jfrEvents++;
    }
    long collapsedBytes = IntegrationTests.sum(s, k -> true);
    System.out.printf("    the JDK's reader: %d profiler.Malloc events, %d bytes (collapsed: %d)%n", jfrEvents,
        jfrBytes, collapsedBytes);
    IntegrationTests.check(jfrBytes == collapsedBytes, "the .jfr's profiler.Malloc sizes sum to " + jfrBytes
        + ", the collapsed stacks to " + collapsedBytes);
    Path back = r.file("back.collapsed");
    AttachTests.Result c = AttachTests.fgprof(r.dir(), "convert", "--event", "nativemem", r.file("m.jfr").toString(),
        back.toString());
    IntegrationTests.check(c.exit() == 0, "fgprof convert failed: " + c);
    IntegrationTests.check(IntegrationTests.collapsed(back).equals(s), "the .jfr's nativemem stacks differ from the "
        + "collapsed ones");
  }

  /** The same shares with jemalloc and tcmalloc preloaded (skipped where Debian's packages are not installed). */
  static void sitesWeighTheirBytesUnderOtherAllocators(IntegrationTests.Jdk jdk) throws Exception {
    for (String lib : new String[] {JEMALLOC, TCMALLOC}) {
      if (!Files.exists(Path.of(lib))) {
        System.out.println("    " + lib + ": not installed, skipped (scripts/install-deps.sh installs it)");
        continue;
      }
      IntegrationTests.Run r = nativeMem(jdk, "nativemem=32k,file={dir}/m.collapsed", lib, "40");
      sharesMatch(r, IntegrationTests.collapsed(r.file("m.collapsed")), Path.of(lib).getFileName().toString());
      accountingClosed(r, "nativemem");
    }
  }

  /**
   * leak (at 8k: about 2500 samples of each kept site): exactly the three sites that keep what they
   * allocate (malloc, posix_memalign, valloc), each within 5% of its bytes, and
   * none of the seven that free; with the default allocator and with jemalloc. Its .jfr holds every
   * sampled allocation with its address (profiler.Malloc) and a profiler.Free of each freed one's
   * address, after it: fgprof convert --leak makes of it exactly the agent's own leak stacks, and
   * without --leak every site that allocated.
   */
  static void leakNamesExactlyTheUnfreedSites(IntegrationTests.Jdk jdk) throws Exception {
    for (String lib : new String[] {null, JEMALLOC}) {
      if (lib != null && !Files.exists(Path.of(lib))) {
        System.out.println("    " + lib + ": not installed, skipped");
        continue;
      }
      IntegrationTests.Run r = nativeMem(jdk, "nativemem=8k,leak,file={dir}/l.collapsed,file={dir}/l.jfr", lib, "40");
      Map<String, Long> s = IntegrationTests.collapsed(r.file("l.collapsed"));
      Map<String, Long> truth = counted(r, "SITE");
      List<String> kept = new ArrayList<>();
      Matcher k = Pattern.compile("(?m)^KEPT (\\S+)$").matcher(r.stdout());
      while (k.find())
        kept.add(k.group(1));
      IntegrationTests.check(kept.size() == 3, "the workload did not say which sites keep:\n" + r.stdout());
      StringBuilder line = new StringBuilder();
      for (String site : truth.keySet()) {
        long got = under(s, site);
        if (kept.contains(site)) {
          double ratio = (double) got / truth.get(site);
          line.append(String.format(" %s %.3f", site.replace("nm_site_", ""), ratio));
          IntegrationTests.check(ratio > 0.95 && ratio < 1.05, site + " leaked " + got + " bytes estimated, "
              + truth.get(site) + " kept");
        } else {
          IntegrationTests.check(got == 0, site + " frees all it allocates, yet the leak report has " + got
              + " bytes of it");
        }
      }
      unseenFreesFoundLate(r, s);
      System.out.printf("    leak (%s): kept sites estimated/kept:%s; freeing sites absent%n",
          lib == null ? "libc" : "jemalloc", line);
      accountingClosed(r, "nativemem");
      leakFromTheRecording(r, s, truth);
    }
  }

  /**
   * Blocks of 30 000 bytes freed where no hook sees it, then an allocation of the same size: each the
   * allocator placed at the freed address, both sampled (at 8k, 1 - e^-3.66 = 0.974 each), is a free
   * found late (the summary's count), not a second live block at one address; only blocks not found so
   * may stay as leaks.
   */
  static void unseenFreesFoundLate(IntegrationTests.Run r, Map<String, Long> leak) {
    Matcher again = Pattern.compile("(?m)^AGAIN (\\d+)$").matcher(r.stdout());
    IntegrationTests.check(again.find(), "the workload did not say how often the address came back:\n" + r.stdout());
    long back = Long.parseLong(again.group(1));
    Matcher late = Pattern.compile("(?m)^  frees seen late: +(\\d+) ").matcher(r.stderr());
    long found = late.find() ? Long.parseLong(late.group(1)) : 0;
    IntegrationTests.check(back > 100, "the allocator gave the freed address back " + back
        + " times of 200: too few to check the late frees");
    /* expected 0.949 of them, sd 0.016 at 200: 0.85 is 6 sd below */
    IntegrationTests.check(found >= back * 85 / 100, "of " + back + " allocations at an address freed unseen, the "
        + "summary found " + found + " late frees:\n" + r.stderr());
    long stale = under(leak, "nm_site_freed_unseen");
    IntegrationTests.check(stale <= (200 - found) * 33000L, "nm_site_freed_unseen leaks " + stale
        + " bytes, more than the " + (200 - found) + " blocks whose free was not found");
    System.out.printf("    frees unseen: %d of 200 addresses came back, %d found late, %d bytes left as leaks%n",
        back, found, stale);
  }

  /**
   * The leak session's .jfr read by the JDK's reader (each profiler.Free of an address a profiler.Malloc
   * gave before it, no address twice alive) and converted by fgprof: with --leak the same stacks and
   * bytes as the agent's own report; without, every site that allocated.
   */
  /** Each event of the recording at address a, in time order: what a double allocation looked like. */
  static String describe(List<RecordedEvent> events, long a) {
    StringBuilder b = new StringBuilder();
    for (RecordedEvent e : events)
      if (e.hasField("address") && e.getLong("address") == a)
        b.append(String.format("%s %s; ", e.getEventType().getName().replace("profiler.", ""), e.getStartTime()));
    return b.toString();
  }

  static void leakFromTheRecording(IntegrationTests.Run r, Map<String, Long> agents, Map<String, Long> truth)
      throws Exception {
    java.util.HashMap<Long, Long> live = new java.util.HashMap<>();   /* address -> its Malloc's time */
    long mallocs = 0, frees = 0;
    List<RecordedEvent> events = new ArrayList<>(RecordingFile.readAllEvents(r.file("l.jfr")));
    events.sort(java.util.Comparator.comparing(RecordedEvent::getStartTime));
    for (RecordedEvent e : events) {
      String type = e.getEventType().getName();
      if (type.equals("profiler.Malloc")) {
        long a = e.getLong("address");
        Long before = live.put(a, e.getStartTime().toEpochMilli() * 1000000L + e.getStartTime().getNano() % 1000000);
        IntegrationTests.check(a != 0 && before == null, "a profiler.Malloc of address " + a + " at "
            + e.getStartTime() + " (0, or alive already: " + describe(events, a) + ")");
        mallocs++;
      } else if (type.equals("profiler.Free")) {
        long a = e.getLong("address");
        IntegrationTests.check(live.remove(a) != null, "a profiler.Free of address " + a + " no Malloc gave before it");
        IntegrationTests.check(e.getStackTrace() != null, "a profiler.Free without its allocation's stack");
        frees++;
      }
    }
    Matcher freed = Pattern.compile("(?m)^  freed: +(\\d+) ").matcher(r.stderr());
    IntegrationTests.check(freed.find() && Long.parseLong(freed.group(1)) == frees, "the .jfr holds " + frees
        + " profiler.Free events, the summary says " + (freed.find(0) ? freed.group(1) : "nothing") + " freed");
    Path leakBack = r.file("leak-back.collapsed"), allBack = r.file("all-back.collapsed");
    AttachTests.Result c = AttachTests.fgprof(r.dir(), "convert", "--event", "nativemem", "--leak",
        r.file("l.jfr").toString(), leakBack.toString());
    IntegrationTests.check(c.exit() == 0, "fgprof convert --leak failed: " + c);
    Map<String, Long> fromJfr = IntegrationTests.collapsed(leakBack);
    IntegrationTests.check(fromJfr.equals(agents), "fgprof convert --leak of the .jfr differs from the agent's leak "
        + "report: " + fromJfr.size() + " stacks, " + IntegrationTests.sum(fromJfr, k -> true) + " bytes against "
        + agents.size() + " stacks, " + IntegrationTests.sum(agents, k -> true) + " bytes");
    c = AttachTests.fgprof(r.dir(), "convert", "--event", "nativemem", r.file("l.jfr").toString(), allBack.toString());
    IntegrationTests.check(c.exit() == 0, "fgprof convert failed: " + c);
    Map<String, Long> all = IntegrationTests.collapsed(allBack);
    List<String> missing = new ArrayList<>();
    for (Map.Entry<String, Long> t : truth.entrySet())
      if (t.getValue() > 0 && under(all, t.getKey()) == 0)
        missing.add(t.getKey());
    IntegrationTests.check(missing.isEmpty(), "the .jfr's allocations lack the sites " + missing);
    System.out.printf("    the .jfr: %d profiler.Malloc, %d profiler.Free by address; fgprof convert --leak: the agent's "
        + "%d stacks and %d bytes; without --leak all %d sites that allocated%n", mallocs, frees, fromJfr.size(),
        IntegrationTests.sum(fromJfr, k -> true), truth.values().stream().filter(v -> v > 0).count());
  }

  /**
   * nativelock=0: native threads of the workload take a pthread mutex (pthread_mutex_lock, _timedlock,
   * _clocklock) and a rwlock (_wrlock, _timedwrlock, _timedrdlock, _clockwrlock, _clockrdlock) in turns,
   * two threads a site;
   * each site's ns in the profile within 5% of what the threads measured around their calls.
   */
  static void nativeLockWaitsMatchTheThreadsOwn(IntegrationTests.Jdk jdk) throws Exception {
    IntegrationTests.Run r = nativeMem(jdk, "nativelock=0,file={dir}/k.collapsed", null, "0", "lock", "16", "100",
        "200");
    Map<String, Long> s = IntegrationTests.collapsed(r.file("k.collapsed"));
    Map<String, Long> waited = counted(r, "WAITED");
    IntegrationTests.check(waited.size() == NativeMem.LOCK_SITES.length, "the workload did not print its waits:\n" + r.stdout());
    for (Map.Entry<String, Long> e : waited.entrySet()) {
      long got = under(s, e.getKey());
      double ratio = (double) got / e.getValue();
      System.out.printf("    %s: %.1f ms profiled, %.1f ms measured (%.3f)%n", e.getKey(), got / 1e6,
          e.getValue() / 1e6, ratio);
      IntegrationTests.check(e.getValue() > 10_000_000, e.getKey() + " waited only " + e.getValue() + " ns");
      IntegrationTests.check(ratio > 0.95 && ratio < 1.05, e.getKey() + ": " + got + " ns profiled, " + e.getValue()
          + " measured");
    }
    /* a bad clock or deadline is refused by the call before it tries the lock: so with the hooks */
    IntegrationTests.check(r.stdout().contains("REFUSED 4 of 4"), "calls glibc refuses (EINVAL) did otherwise under "
        + "nativelock:\n" + r.stdout());
    accountingClosed(r, "nativelock");
  }

  /**
   * Sessions started and stopped by attach on one running JVM, each with other options:
   * nativemem, nativelock, nativemem+leak with CPU, then CPU alone, then nativemem again; each
   * native session writes its own event's stacks (the native sites, or the lock sites), and the JVM, allocating, forking and unloading a
   * patched library all along, exits 0.
   */
  static void sessionsRestartWithOtherOptions(IntegrationTests.Jdk jdk) throws Exception {
    Path dir = Files.createTempDirectory(IntegrationTests.runs, "nativemem-restart-");
    Process jvm = AttachTests.startJvm(jdk, dir, List.of(), "NativeMem", jniDir().toString(), "2", "loop");
    String pid = Long.toString(jvm.pid());
    List<String> failures = new ArrayList<>();
    String[][] sessions = {{"nativemem=4k", "m1.collapsed"}, {"nativelock=0", "k.collapsed"},
        {"event=cpu,interval=1ms,nativemem=4k,leak", "p-%e.collapsed"}, {"event=cpu,interval=1ms", "c.collapsed"},
        {"nativemem=4k", "m2.collapsed"}};
    try {
      Thread.sleep(700);
      for (String[] s : sessions) {
        AttachTests.Result start = AttachTests.fgprof(dir, "attach", pid, "start," + s[0] + ",file=" + s[1]);
        Thread.sleep(1200);   /* a loaded machine runs a few of the workload's loops meanwhile */
        AttachTests.Result stop = AttachTests.fgprof(dir, "attach", pid, "stop");
        if (start.exit() != 0 || stop.exit() != 0)
          failures.add(s[0] + ": " + start + " " + stop);
      }
      AttachTests.Result both = AttachTests.fgprof(dir, "profile", "--duration", "1200ms", "--event",
          "nativemem=4k,nativelock=0", "--file", dir.resolve("n-%e.collapsed").toString(), pid);
      if (both.exit() != 0)
        failures.add("fgprof profile --event nativemem=4k,nativelock=0: " + both);
    } finally {
      jvm.getOutputStream().close();
    }
    int exit = AttachTests.exitOf(jvm);
    String stderr = Files.readString(dir.resolve("jvm-stderr.log"));
    IntegrationTests.check(exit == 0 && !stderr.contains("hs_err"), "the JVM exited " + exit + ":\n" + stderr);
    IntegrationTests.check(failures.isEmpty(), String.join("\n", failures));
    Map<String, Long> nativeLocks = IntegrationTests.collapsed(dir.resolve("n-nativelock.collapsed"));
    IntegrationTests.check(under(nativeLocks, "nm_lock_site") > 0 && under(nativeLocks, "nm_site_malloc_kept") == 0,
        "fgprof profile's nativelock file: " + nativeLocks.keySet());
    for (String f : new String[] {"m1.collapsed", "p-nativemem.collapsed", "m2.collapsed", "n-nativemem.collapsed"}) {
      Map<String, Long> s = IntegrationTests.collapsed(dir.resolve(f));
      IntegrationTests.check(under(s, "nm_site_malloc_kept") > 0, f + " has no nm_site_malloc_kept: " + s.keySet());
      IntegrationTests.check(under(s, "nm_lock_site") == 0, f + " holds lock stacks");
    }
    Map<String, Long> leak = IntegrationTests.collapsed(dir.resolve("p-nativemem.collapsed"));
    IntegrationTests.check(under(leak, "nm_site_malloc_freed") == 0, "the leak session has freed allocations");
    Map<String, Long> lock = IntegrationTests.collapsed(dir.resolve("k.collapsed"));
    IntegrationTests.check(under(lock, "nm_lock_site") > 0, "the nativelock session has no nm_lock_site");
    IntegrationTests.check(under(lock, "nm_site_malloc_kept") == 0, "the nativelock session holds malloc stacks");
    Matcher loops = Pattern.compile("LOOPS (\\d+)").matcher(Files.readString(dir.resolve("jvm-stdout.log")));
    IntegrationTests.check(loops.find(), "the workload did not finish");
    System.out.printf("    5 sessions on one JVM, %s loops of the workload: each session its own event's stacks%n",
        loops.group(1));
  }

  /**
   * async-profiler's own recording of NativeMem (nativemem=64k: its profiler.Malloc and
   * profiler.Free events) through fgprof convert: every site with --event nativemem, and with
   * --leak exactly the two that keep their memory, its frees matched by address. Skipped where
   * its library is not built (ASPROF, default /tmp/ap-src/build/lib/libasyncProfiler.so).
   */
  static void asyncProfilersRecordingsConvert(IntegrationTests.Jdk jdk) throws Exception {
    String ap = System.getenv().getOrDefault("ASPROF", "/tmp/ap-src/build/lib/libasyncProfiler.so");
    if (!Files.exists(Path.of(ap))) {
      System.out.println("    " + ap + ": not there, skipped");
      return;
    }
    Path dir = Files.createTempDirectory(IntegrationTests.runs, "nativemem-ap-");
    List<String> cmd = List.of(jdk.java().toString(), "-agentpath:" + ap + "=start,nativemem=64k,file="
        + dir.resolve("ap.jfr"), "-cp", IntegrationTests.classes.toString(), "NativeMem", jniDir().toString(), "20");
    Process p = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true)
        .redirectOutput(dir.resolve("ap.log").toFile()).start();
    IntegrationTests.check(p.waitFor(120, java.util.concurrent.TimeUnit.SECONDS) && p.exitValue() == 0,
        "async-profiler's run failed:\n" + Files.readString(dir.resolve("ap.log")));
    for (String mode : new String[] {"all", "leak"}) {
      Path out = dir.resolve(mode + ".collapsed");
      List<String> args = new ArrayList<>(List.of("convert", "--event", "nativemem"));
      if (mode.equals("leak"))
        args.add("--leak");
      args.addAll(List.of(dir.resolve("ap.jfr").toString(), out.toString()));
      AttachTests.Result c = AttachTests.fgprof(dir, args.toArray(new String[0]));
      IntegrationTests.check(c.exit() == 0, "fgprof convert " + args + ": " + c);
      Map<String, Long> s = IntegrationTests.collapsed(out);
      List<String> seen = new ArrayList<>();
      for (String site : new String[] {"nm_site_malloc_kept", "nm_site_malloc_freed", "nm_site_calloc_freed",
          "nm_site_realloc_freed", "nm_site_memalign_kept", "nm_site_aligned_freed"})
        if (IntegrationTests.sum(s, k -> k.contains("." + site + ";") || k.contains(";" + site + ";")) > 0)
          seen.add(site);
      System.out.printf("    async-profiler's recording, %s: %s%n", mode, seen);
      List<String> want = mode.equals("leak") ? List.of("nm_site_malloc_kept", "nm_site_memalign_kept")
          : List.of("nm_site_malloc_kept", "nm_site_malloc_freed", "nm_site_calloc_freed", "nm_site_realloc_freed",
              "nm_site_memalign_kept", "nm_site_aligned_freed");
      IntegrationTests.check(seen.equals(want), mode + ": sites " + seen + ", expected " + want);
    }
  }

  static final List<IntegrationTests.Named> TESTS = List.of(
      new IntegrationTests.Named("nativemem_sites_weigh_their_bytes", NativeMemTests::sitesWeighTheirBytes),
      new IntegrationTests.Named("nativemem_under_jemalloc_and_tcmalloc",
          NativeMemTests::sitesWeighTheirBytesUnderOtherAllocators),
      new IntegrationTests.Named("nativemem_leak_names_exactly_the_unfreed_sites",
          NativeMemTests::leakNamesExactlyTheUnfreedSites),
      new IntegrationTests.Named("nativelock_waits_match_the_threads_own", NativeMemTests::nativeLockWaitsMatchTheThreadsOwn),
      new IntegrationTests.Named("nativemem_sessions_restart_with_other_options",
          NativeMemTests::sessionsRestartWithOtherOptions),
      new IntegrationTests.Named("nativemem_async_profilers_recordings_convert",
          NativeMemTests::asyncProfilersRecordingsConvert));
}
