import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.GZIPInputStream;

/**
 * event=NAME of the kernel's events (software events, tracepoints, probes, hardware counters),
 * held to what the workload counted itself (KernelEvents: the pages it took, the writes it made).
 * Run by IntegrationTests.
 */
final class KernelEventTests {
  private KernelEventTests() {}

  static final List<IntegrationTests.Named> TESTS = List.of(
      new IntegrationTests.Named("kernel_event_page_faults", KernelEventTests::pageFaultsUnderTheToucher),
      new IntegrationTests.Named("kernel_event_syscall_tracepoint", KernelEventTests::syscallTracepointUnderTheWriter),
      new IntegrationTests.Named("kernel_event_probes", KernelEventTests::probesUnderTheWriter),
      new IntegrationTests.Named("kernel_event_hardware", KernelEventTests::hardwareCountersOrWhyNot),
      new IntegrationTests.Named("kernel_event_bad_names", KernelEventTests::badNamesSayWhatIsAccepted),
      new IntegrationTests.Named("kernel_event_fd_budget", KernelEventTests::descriptorBudgetSpentSaysSo),
      new IntegrationTests.Named("kernel_event_beside_wall", KernelEventTests::besideWallNothingMerges),
      new IntegrationTests.Named("kernel_event_several_apart", KernelEventTests::severalEventsEachApart),
      new IntegrationTests.Named("kernel_event_several_restart", KernelEventTests::severalThenOneOtherThroughAttach));

  /** The JVM flags under which only the toucher takes fresh pages (KernelEvents' comment). */
  static final List<String> QUIET_HEAP = List.of("-Xms64m", "-Xmx64m", "-XX:+AlwaysPreTouch",
      "-XX:MaxDirectMemorySize=256m");

  static long truth(IntegrationTests.Run r, String key) {
    Matcher m = Pattern.compile(key + " (\\d+)").matcher(r.stdout());
    IntegrationTests.check(m.find(), "the workload printed no " + key + ":\n" + r.stdout());
    return Long.parseLong(m.group(1));
  }

  /** Where a stack has method as a frame of its own (a Java frame, any annotation). */
  static boolean under(String stack, String method) {
    return stack.contains(";" + method + ";") || stack.contains(";" + method + "_[") || stack.endsWith(";" + method);
  }

  /** A fgagent line that says a kernel event cannot be recorded, or null. */
  static String refusal(IntegrationTests.Run r) {
    return r.stderr().lines().filter(l -> l.startsWith("fgagent: event=") && l.contains("not recording it"))
        .findFirst().orElse(null);
  }

  static long fgagentLines(IntegrationTests.Run r) {
    return r.stderr().lines().filter(l -> l.startsWith("fgagent: ") && !l.startsWith("fgagent: wrote")).count();
  }

  /** A recording's kernel events read back by fgprof into collapsed stacks: their total. */
  static long readBack(IntegrationTests.Run r, String in) throws Exception {
    AttachTests.Result c = AttachTests.fgprof(r.dir(), "convert", "--event", "kernel", r.file(in).toString(),
        r.file(in + ".collapsed").toString());
    IntegrationTests.check(c.exit() == 0, "fgprof convert --event kernel " + in + ": " + c);
    return IntegrationTests.sum(IntegrationTests.collapsed(r.file(in + ".collapsed")), k -> true);
  }

  /**
   * A thread taking 64 MiB of fresh memory at a time: it holds at least 90% of the page faults
   * of the whole JVM (its heap pre-touched), and the faults under touchFresh are within 5% of the
   * pages it counted. Recorded beside event=cpu, alloc and lock in one run, each in its own file
   * (%e), the .jfr holding them all; fgprof reads the kernel events back from it.
   */
  static void pageFaultsUnderTheToucher(IntegrationTests.Jdk jdk) throws Exception {
    IntegrationTests.Run r = IntegrationTests.run(jdk, "event=cpu,event=page-faults,alloc,lock,threads,"
        + "file={dir}/p-%e.collapsed,file={dir}/p.jfr", QUIET_HEAP, "KernelEvents", "faults", "3");
    r.expectCleanRun();
    IntegrationTests.check(refusal(r) == null, "page-faults refused: " + refusal(r));
    for (String e : new String[] {"cpu", "alloc", "kernel"})
      IntegrationTests.check(Files.exists(r.file("p-" + e + ".collapsed")), "no p-" + e + ".collapsed:\n" + r.stderr());
    long pages = truth(r, "PAGES");
    Map<String, Long> s = IntegrationTests.collapsed(r.file("p-kernel.collapsed"));
    long all = IntegrationTests.sum(s, k -> true);
    long toucher = IntegrationTests.sum(s, k -> k.startsWith("[toucher tid=") && under(k, "KernelEvents.touchFresh"));
    System.out.printf("    page-faults: %d in all, %d (%.1f%%) under touchFresh, which took %d pages%n", all, toucher,
        100.0 * toucher / all, pages);
    IntegrationTests.check(toucher >= 0.9 * all, "touchFresh holds " + toucher + " of " + all + " page faults");
    IntegrationTests.check(Math.abs(toucher - pages) <= 0.05 * pages, toucher + " faults under touchFresh vs "
        + pages + " pages it took");
    Matcher m = Pattern.compile("kernel event: page-faults[^\\n]*\\n  events:\\s+(\\d+)").matcher(r.stderr());
    IntegrationTests.check(m.find() && Long.parseLong(m.group(1)) == all,
        "the summary's kernel events differ from the profile's " + all + ":\n" + r.stderr());
    IntegrationTests.check(readBack(r, "p.jfr") == all, "the .jfr's kernel events differ from the collapsed file's");
  }

  /** tracefs mounted, or why it cannot be: null when it is. */
  static String tracefs() throws Exception {
    if (Files.isDirectory(Paths.get("/sys/kernel/tracing/events")) || Files.isDirectory(Paths.get("/sys/kernel/debug/tracing/events")))
      return null;
    Process p = new ProcessBuilder("mount", "-t", "tracefs", "nodev", "/sys/kernel/tracing").redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes());
    return p.waitFor() == 0 && Files.isDirectory(Paths.get("/sys/kernel/tracing/events")) ? null
        : "tracefs is not mounted and mount -t tracefs failed: " + out.trim();
  }

  /**
   * syscalls:sys_enter_write every 100 writes, beside event=cpu: the writes under writeLoop are
   * within 2% (and a period) of the writes it counted, at least 90% of all; every output writes
   * the kernel event's profile (collapsed, HTML, pprof, speedscope, JFR, OTLP), and fgprof reads
   * the same total back from the .jfr and the .otlp file.
   */
  static void syscallTracepointUnderTheWriter(IntegrationTests.Jdk jdk) throws Exception {
    String why = tracefs();
    if (why != null || !Files.exists(Paths.get("/sys/kernel/tracing/events/syscalls/sys_enter_write/id"))) {
      System.out.println("    SKIP: " + (why != null ? why : "no syscalls:sys_enter_write tracepoint (CONFIG_FTRACE_SYSCALLS)"));
      return;
    }
    IntegrationTests.Run r = IntegrationTests.run(jdk, "event=cpu,event=syscalls:sys_enter_write,interval=100,threads,"
        + "file={dir}/p-%e.collapsed,file={dir}/p-%e.html,file={dir}/p-%e.pb.gz,file={dir}/p-%e.speedscope.json,"
        + "file={dir}/p.jfr,file={dir}/p.otlp", List.of(), "KernelEvents", "write", "2");
    r.expectCleanRun();
    IntegrationTests.check(refusal(r) == null, "the tracepoint refused: " + refusal(r));
    long writes = truth(r, "WRITES");
    Map<String, Long> s = IntegrationTests.collapsed(r.file("p-kernel.collapsed"));
    long all = IntegrationTests.sum(s, k -> true);
    long writer = IntegrationTests.sum(s, k -> k.startsWith("[writer tid=") && under(k, "KernelEvents.writeLoop"));
    System.out.printf("    sys_enter_write: %d events, %d under writeLoop, which made %d writes%n", all, writer, writes);
    IntegrationTests.check(writer >= 0.9 * all, "writeLoop holds " + writer + " of " + all);
    IntegrationTests.check(Math.abs(writer - writes) <= 0.02 * writes + 100, writer + " vs " + writes + " writes");
    String html = Files.readString(r.file("p-kernel.html"));
    IntegrationTests.check(html.contains("writeLoop") && html.contains("kernel event flame graph: syscalls:sys_enter_write"),
        "the HTML lacks the kernel event or its name");
    String speedscope = Files.readString(r.file("p-kernel.speedscope.json"));
    IntegrationTests.check(speedscope.contains("KernelEvents.writeLoop"), "speedscope lacks writeLoop");
    String pprof;
    try (GZIPInputStream in = new GZIPInputStream(Files.newInputStream(r.file("p-kernel.pb.gz")))) {
      pprof = new String(in.readAllBytes(), java.nio.charset.StandardCharsets.ISO_8859_1);
    }
    IntegrationTests.check(pprof.contains("events") && pprof.contains("syscalls:sys_enter_write")
        && pprof.contains("KernelEvents.writeLoop"), "pprof lacks the kernel event's sample type or stacks");
    IntegrationTests.check(readBack(r, "p.jfr") == all, "the .jfr's kernel events differ");
    IntegrationTests.check(readBack(r, "p.otlp") == all, "the .otlp's kernel events differ");
    IntegrationTests.check(Files.exists(r.file("p-cpu.collapsed")), "no CPU profile beside the kernel event's");
  }

  /** The file the running JVM maps libc from (this harness's: the JVMs it starts are the same). */
  static String libc() throws Exception {
    for (String line : Files.readAllLines(Paths.get("/proc/self/maps"))) {
      int at = line.indexOf('/');
      if (at > 0 && line.substring(at).matches(".*/libc[.-][^/]*so.*"))
        return line.substring(at).trim();
    }
    return null;
  }

  /**
   * A kprobe on vfs_write and a uprobe on libc's write, each every 100 hits: their events under
   * writeLoop are within 5% (and a period) of its writes. Where the kernel has no kprobe PMU, the
   * kprobe must fail with one line saying so, and nothing else.
   */
  static void probesUnderTheWriter(IntegrationTests.Jdk jdk) throws Exception {
    boolean kprobes = Files.exists(Paths.get("/sys/bus/event_source/devices/kprobe/type"));
    String lib = libc();
    IntegrationTests.check(lib != null, "no libc in /proc/self/maps");
    String[][] probes = {{"kprobe:vfs_write", kprobes ? "" : "no kprobe PMU"},
        {"uprobe:" + lib + ":write", Files.exists(Paths.get("/sys/bus/event_source/devices/uprobe/type")) ? "" : "no uprobe PMU"}};
    for (String[] probe : probes) {
      IntegrationTests.Run r = IntegrationTests.run(jdk, "event=" + probe[0] + ",interval=100,threads,file={dir}/p.collapsed",
          List.of(), "KernelEvents", "write", "2");
      IntegrationTests.check(r.exit() == 0, "JVM exited with " + r.exit() + ":\n" + r.stderr());
      if (!probe[1].isEmpty()) {
        String line = refusal(r);
        System.out.println("    " + probe[0] + ": " + line);
        IntegrationTests.check(line != null && line.contains(probe[1]) && fgagentLines(r) == 1,
            "expected one line saying " + probe[1] + ":\n" + r.stderr());
        IntegrationTests.check(!Files.exists(r.file("p.collapsed")), "a profile written for a refused probe");
        continue;
      }
      r.expectCleanRun();
      IntegrationTests.check(!r.stderr().contains("replaced fgagent's"), "a kernel event alone (no SIGPROF handler "
          + "of ours) warned that another SIGPROF handler replaced fgagent's:\n" + r.stderr());
      long writes = truth(r, "WRITES");
      Map<String, Long> s = IntegrationTests.collapsed(r.file("p.collapsed"));
      long all = IntegrationTests.sum(s, k -> true);
      long writer = IntegrationTests.sum(s, k -> k.startsWith("[writer tid=") && under(k, "KernelEvents.writeLoop"));
      System.out.printf("    %s: %d events, %d under writeLoop, which made %d writes%n", probe[0], all, writer, writes);
      IntegrationTests.check(writer >= 0.9 * all, "writeLoop holds " + writer + " of " + all);
      IntegrationTests.check(Math.abs(writer - writes) <= 0.05 * writes + 100, writer + " vs " + writes + " writes");
    }
  }

  /**
   * cycles: where the kernel lists a cpu PMU and a cycles counter opens, samples are required,
   * most of them under writeLoop (the one busy thread); where it lists none (a virtual machine
   * without a PMU), the one outcome accepted is one line naming that, and no profile.
   */
  static void hardwareCountersOrWhyNot(IntegrationTests.Jdk jdk) throws Exception {
    boolean pmu = Files.isDirectory(Paths.get("/sys/bus/event_source/devices/cpu"));
    IntegrationTests.Run r = IntegrationTests.run(jdk, "event=cycles,interval=1000000,threads,file={dir}/p.collapsed",
        List.of(), "KernelEvents", "write", "2");
    IntegrationTests.check(r.exit() == 0, "JVM exited with " + r.exit() + ":\n" + r.stderr());
    String line = refusal(r);
    if (!pmu) {
      System.out.println("    no cpu PMU here: " + line);
      IntegrationTests.check(line != null && line.contains("event=cycles cannot be recorded: no hardware PMU")
          && fgagentLines(r) == 1, "expected one line naming the missing PMU:\n" + r.stderr());
      IntegrationTests.check(!Files.exists(r.file("p.collapsed")), "a profile written without a PMU");
      return;
    }
    if (line != null && line.contains("perf_event_paranoid")) {
      System.out.println("    SKIP: " + line);
      return;
    }
    r.expectCleanRun();
    Map<String, Long> s = IntegrationTests.collapsed(r.file("p.collapsed"));
    long all = IntegrationTests.sum(s, k -> true);
    long writer = IntegrationTests.sum(s, k -> k.startsWith("[writer tid=") && under(k, "KernelEvents.writeLoop"));
    System.out.printf("    cycles: %d in all, %d under writeLoop%n", all, writer);
    IntegrationTests.check(all > 0 && writer >= 0.5 * all, "writeLoop holds " + writer + " of " + all + " cycles");
  }

  /**
   * Under an open-file limit of 60 the counters' budget is 30, shared with event=cpu's counters
   * (clock=perf): 15 each. A JVM has more threads than that: the kernel event's counters stop at
   * 15 at once, said in one line, the threads left out counted in the summary, and the run and
   * its accounting go on. Two kernel events share those 15: 7 each, each said and counted alone;
   * beside one that cannot start (cycles without a PMU), the other has the 15.
   */
  static void descriptorBudgetSpentSaysSo(IntegrationTests.Jdk jdk) throws Exception {
    IntegrationTests.Run r = IntegrationTests.runUnder(List.of("prlimit", "--nofile=60:60"), jdk,
        "event=cpu,clock=perf,event=context-switches,threads,file={dir}/p-%e.collapsed", List.of(), "KernelEvents",
        "write", "1");
    r.expectCleanRun();
    long lines = r.stderr().lines().filter(l -> l.startsWith("fgagent: warning: event=context-switches: the "
        + "descriptor budget is spent (15 counters")).count();
    Matcher m = Pattern.compile("given a counter, (\\d+) given none \\(its budget of 15 descriptors spent\\)")
        .matcher(r.stderr());
    System.out.println("    " + r.stderr().lines().filter(l -> l.contains("given none")).findFirst().orElse("(none)").trim());
    IntegrationTests.check(lines == 1, "expected one line saying the budget is spent:\n" + r.stderr());
    IntegrationTests.check(m.find() && Long.parseLong(m.group(1)) > 0, "the summary counts no thread left out:\n"
        + r.stderr());
    IntegrationTests.check(Files.exists(r.file("p-kernel.collapsed")), "no kernel event profile");
    /* two kernel events share the same 15 evenly: 7 counters each, each said once and counted in its own section */
    r = IntegrationTests.runUnder(List.of("prlimit", "--nofile=60:60"), jdk,
        "event=cpu,clock=perf,event=context-switches,event=page-faults,threads,file={dir}/p-%e.collapsed", List.of(),
        "KernelEvents", "write", "1");
    r.expectCleanRun();
    for (String e : new String[] {"context-switches", "page-faults"}) {
      String said = "fgagent: warning: event=" + e + ": the descriptor budget is spent (7 counters";
      long n = r.stderr().lines().filter(l -> l.startsWith(said)).count();
      Matcher left = Pattern.compile("kernel event: " + e + "[^\\n]*\\n.*\\n  threads:\\s+(\\d+) given a counter, (\\d+) "
          + "given none \\(its budget of 7 descriptors spent\\)").matcher(r.stderr());
      IntegrationTests.check(n == 1, e + ": expected one line saying its budget is spent:\n" + r.stderr());
      IntegrationTests.check(left.find() && Long.parseLong(left.group(1)) > 0 && Long.parseLong(left.group(2)) > 0,
          e + ": the summary counts no thread left out:\n" + r.stderr());
      IntegrationTests.check(Files.exists(r.file("p-" + e + ".collapsed")), "no " + e + " profile");
    }
    if (Files.isDirectory(Paths.get("/sys/bus/event_source/devices/cpu")))
      return;   /* cycles would start: the case below needs an event that cannot */
    /* cycles refused (no PMU): context-switches, the one kernel event that starts, has the 15 alone */
    r = IntegrationTests.runUnder(List.of("prlimit", "--nofile=60:60"), jdk,
        "event=cpu,clock=perf,event=cycles,event=context-switches,threads,file={dir}/p-%e.collapsed", List.of(),
        "KernelEvents", "write", "1");
    IntegrationTests.check(r.exit() == 0 && refusal(r) != null && refusal(r).contains("event=cycles"),
        "cycles was not refused with one line:\n" + r.stderr());
    IntegrationTests.check(r.stderr().contains("fgagent: warning: event=context-switches: the descriptor budget is "
        + "spent (15 counters"), "context-switches did not get the whole share:\n" + r.stderr());
    IntegrationTests.check(Files.exists(r.file("p-kernel.collapsed")), "no p-kernel.collapsed for the one event");
  }

  /**
   * Beside event=wall, whose sampler signals each thread and waits for its handler to take the
   * signal: a kernel event's counters signal on a signal of their own (SIGURG), so no wall signal
   * merges with a pending counter's (both on SIGPROF, wall lost 15-20% of its samples so).
   */
  static void besideWallNothingMerges(IntegrationTests.Jdk jdk) throws Exception {
    IntegrationTests.Run r = IntegrationTests.run(jdk, "event=wall,event=context-switches,threads,file={dir}/p-%e.collapsed",
        List.of(), "KernelEvents", "write", "2");
    r.expectCleanRun();
    long taken = r.stat("signals taken"), lost = r.stat("samples lost");
    Matcher m = Pattern.compile("kernel event: context-switches[^\\n]*\\n  events:\\s+(\\d+)").matcher(r.stderr());
    IntegrationTests.check(m.find() && Long.parseLong(m.group(1)) > 0, "no context switches counted:\n" + r.stderr());
    System.out.printf("    wall: %d signals taken, %d lost; context switches: %s%n", taken, lost, m.group(1));
    IntegrationTests.check(lost <= taken / 100, "wall lost " + lost + " of " + taken + " samples:\n" + r.stderr());
  }

  /** A protocol buffer varint at b[at[0]], at[0] moved past it. */
  static long varint(byte[] b, int[] at) {
    long v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      int x = b[at[0]++] & 0xff;
      v |= (long) (x & 0x7f) << shift;
      if (x < 0x80)
        break;
    }
    return v;
  }

  /** The fields of message b[from, to): number -> each value (a varint, or a LEN field's bytes). */
  static Map<Integer, List<Object>> fields(byte[] b, int from, int to) {
    Map<Integer, List<Object>> out = new java.util.HashMap<>();
    int[] at = {from};
    while (at[0] < to) {
      long key = varint(b, at);
      Object v;
      if ((key & 7) == 0) {
        v = varint(b, at);
      } else if ((key & 7) == 2) {
        int n = (int) varint(b, at);
        v = java.util.Arrays.copyOfRange(b, at[0], at[0] + n);
        at[0] += n;
      } else {
        throw new AssertionError("a pprof wire type fgagent never writes: " + (key & 7));
      }
      out.computeIfAbsent((int) (key >>> 3), k -> new java.util.ArrayList<>()).add(v);
    }
    return out;
  }

  /** A pprof file's sample types, "type/unit" each, in order (profile.proto's sample_type, string_table). */
  static List<String> pprofSampleTypes(Path gz) throws Exception {
    byte[] b;
    try (GZIPInputStream in = new GZIPInputStream(Files.newInputStream(gz))) {
      b = in.readAllBytes();
    }
    Map<Integer, List<Object>> profile = fields(b, 0, b.length);
    List<String> strings = new java.util.ArrayList<>();
    for (Object s : profile.getOrDefault(6, List.of()))
      strings.add(new String((byte[]) s, java.nio.charset.StandardCharsets.UTF_8));
    List<String> types = new java.util.ArrayList<>();
    for (Object t : profile.getOrDefault(1, List.of())) {
      Map<Integer, List<Object>> vt = fields((byte[]) t, 0, ((byte[]) t).length);
      types.add(strings.get((int) (long) (Long) vt.get(1).get(0)) + "/" + strings.get((int) (long) (Long) vt.get(2).get(0)));
    }
    return types;
  }

  /** The summary's section of kernel event name: its events, and whether its accounting closes. */
  static long[] summaryOf(IntegrationTests.Run r, String name) {
    Matcher m = Pattern.compile("kernel event: " + Pattern.quote(name) + "[^\\n]*\\n  events:\\s+(\\d+)(?:.*\\n)*?"
        + "  accounting:\\s+taken (\\d+) = stored (\\d+) \\+ lost (\\d+): (OK|MISMATCH)").matcher(r.stderr());
    IntegrationTests.check(m.find(), "no summary section for " + name + ":\n" + r.stderr());
    return new long[] {Long.parseLong(m.group(1)), Long.parseLong(m.group(2)), Long.parseLong(m.group(3)),
        Long.parseLong(m.group(4)), m.group(5).equals("OK") ? 1 : 0};
  }

  /**
   * page-faults and context-switches at once, beside event=cpu and alloc: each in its own file
   * named after it (%e), no file of the two mixed. The toucher holds at least 90% of the page
   * faults, within 5% of the pages it took; the switcher's context switches under sleepLoop are
   * within 5% (and two periods) of those its own /proc/thread-self/status counted, and it holds
   * under 2% of the page faults. Each event's summary section counts its profile's events and
   * closes (taken = stored + lost); fgprof convert --event NAME of the .jfr gives back each
   * event's stacks exactly as its collapsed file has them, and its pprof file types its values by
   * the event's name.
   */
  static void severalEventsEachApart(IntegrationTests.Jdk jdk) throws Exception {
    IntegrationTests.Run r = IntegrationTests.run(jdk, "event=cpu,event=page-faults,event=context-switches,alloc,threads,"
        + "file={dir}/p-%e.collapsed,file={dir}/p-%e.pb.gz,file={dir}/p.jfr", QUIET_HEAP, "KernelEvents", "both", "3");
    r.expectCleanRun();
    IntegrationTests.check(refusal(r) == null, "a kernel event refused: " + refusal(r));
    for (String e : new String[] {"cpu", "alloc", "page-faults", "context-switches"})
      IntegrationTests.check(Files.exists(r.file("p-" + e + ".collapsed")), "no p-" + e + ".collapsed:\n" + r.stderr());
    IntegrationTests.check(!Files.exists(r.file("p-kernel.collapsed")), "a p-kernel.collapsed beside each event's own");
    long pages = truth(r, "PAGES"), switches = truth(r, "SWITCHES");
    Map<String, Long> pf = IntegrationTests.collapsed(r.file("p-page-faults.collapsed"));
    Map<String, Long> cs = IntegrationTests.collapsed(r.file("p-context-switches.collapsed"));
    long pfAll = IntegrationTests.sum(pf, k -> true), csAll = IntegrationTests.sum(cs, k -> true);
    long toucher = IntegrationTests.sum(pf, k -> k.startsWith("[toucher tid=") && under(k, "KernelEvents.touchFresh"));
    long switcherFaults = IntegrationTests.sum(pf, k -> k.startsWith("[switcher tid="));
    long switcher = IntegrationTests.sum(cs, k -> k.startsWith("[switcher tid=") && under(k, "KernelEvents.sleepLoop"));
    System.out.printf("    page-faults: %d, %d under touchFresh (%d pages), %d on the switcher; context-switches: %d, "
        + "%d under sleepLoop (%d counted by the switcher)%n", pfAll, toucher, pages, switcherFaults, csAll, switcher,
        switches);
    IntegrationTests.check(toucher >= 0.9 * pfAll, "touchFresh holds " + toucher + " of " + pfAll + " page faults");
    IntegrationTests.check(Math.abs(toucher - pages) <= 0.05 * pages, toucher + " faults vs " + pages + " pages");
    IntegrationTests.check(switcherFaults < 0.02 * pfAll, "the switcher holds " + switcherFaults + " page faults");
    IntegrationTests.check(Math.abs(switcher - switches) <= 0.05 * switches + 20,
        switcher + " context switches under sleepLoop vs " + switches + " the switcher counted");
    String[][] events = {{"page-faults", Long.toString(pfAll)}, {"context-switches", Long.toString(csAll)}};
    for (String[] e : events) {
      long[] s = summaryOf(r, e[0]);
      IntegrationTests.check(s[0] == Long.parseLong(e[1]), "the summary's " + e[0] + " events " + s[0]
          + " differ from the profile's " + e[1]);
      IntegrationTests.check(s[4] == 1 && s[1] == s[2] + s[3] && s[1] > 0, e[0] + ": accounting taken " + s[1]
          + " = stored " + s[2] + " + lost " + s[3] + " does not close");
      AttachTests.Result c = AttachTests.fgprof(r.dir(), "convert", "--threads", "--event", e[0],
          r.file("p.jfr").toString(), r.file("back-" + e[0] + ".collapsed").toString());
      IntegrationTests.check(c.exit() == 0, "fgprof convert --event " + e[0] + ": " + c);
      IntegrationTests.check(IntegrationTests.collapsed(r.file("back-" + e[0] + ".collapsed"))
          .equals(IntegrationTests.collapsed(r.file("p-" + e[0] + ".collapsed"))),
          "the .jfr's " + e[0] + " stacks differ from its collapsed file's");
      List<String> types = pprofSampleTypes(r.file("p-" + e[0] + ".pb.gz"));
      IntegrationTests.check(types.equals(List.of("samples/count", e[0] + "/events")),
          "p-" + e[0] + ".pb.gz's sample types: " + types);
    }
  }

  /**
   * Through attach on a running JVM: a session of two kernel events (page-faults and
   * context-switches, %e a file each), stopped, then one of another (minor-faults, its file
   * %e=kernel as a session's one kernel event has it). The first session's files hold their own
   * events (the toucher's faults; the switcher's switches); the second's holds the toucher's
   * faults and no event of the first's is counted any more: its summary has minor-faults alone,
   * and once stopped the JVM holds no more descriptors than after the first stop (every counter
   * of both sessions closed).
   */
  static void severalThenOneOtherThroughAttach(IntegrationTests.Jdk jdk) throws Exception {
    Path dir = Files.createTempDirectory(IntegrationTests.runs, "kevents-restart-");
    List<String> args = new java.util.ArrayList<>(QUIET_HEAP);
    Process jvm = AttachTests.startJvm(jdk, dir, args, "KernelEvents", "both", "10");
    String pid = Long.toString(jvm.pid());
    long fdsAfterFirst, fdsAfterSecond;
    try {
      Thread.sleep(700);
      AttachTests.Result start = AttachTests.fgprof(dir, "attach", pid,
          "start,event=page-faults,event=context-switches,threads,file=a-%e.collapsed");
      IntegrationTests.check(start.exit() == 0 && start.out().contains("started ("), "first start: " + start);
      Thread.sleep(1500);
      AttachTests.Result stop = AttachTests.fgprof(dir, "attach", pid, "stop");
      IntegrationTests.check(stop.exit() == 0, "first stop: " + stop);
      fdsAfterFirst = LifecycleTests.openFiles(jvm.pid());
      start = AttachTests.fgprof(dir, "attach", pid, "start,event=minor-faults,threads,file=b-%e.collapsed");
      IntegrationTests.check(start.exit() == 0 && start.out().contains("started ("), "second start: " + start);
      Thread.sleep(1500);
      stop = AttachTests.fgprof(dir, "attach", pid, "stop");
      IntegrationTests.check(stop.exit() == 0, "second stop: " + stop);
      fdsAfterSecond = LifecycleTests.openFiles(jvm.pid());
    } finally {
      jvm.getOutputStream().close();
    }
    int exit = AttachTests.exitOf(jvm);
    String stderr = Files.readString(dir.resolve("jvm-stderr.log"));
    IntegrationTests.check(exit == 0 && !stderr.contains("hs_err"), "the JVM exited " + exit + ":\n" + stderr);
    Map<String, Long> pf = IntegrationTests.collapsed(dir.resolve("a-page-faults.collapsed"));
    Map<String, Long> cs = IntegrationTests.collapsed(dir.resolve("a-context-switches.collapsed"));
    Map<String, Long> minor = IntegrationTests.collapsed(dir.resolve("b-kernel.collapsed"));
    long pfAll = IntegrationTests.sum(pf, k -> true), minorAll = IntegrationTests.sum(minor, k -> true);
    long pfToucher = IntegrationTests.sum(pf, k -> k.startsWith("[toucher tid=") && under(k, "KernelEvents.touchFresh"));
    long csSwitcher = IntegrationTests.sum(cs, k -> k.startsWith("[switcher tid=") && under(k, "KernelEvents.sleepLoop"));
    long minorToucher = IntegrationTests.sum(minor, k -> k.startsWith("[toucher tid=")
        && under(k, "KernelEvents.touchFresh"));
    System.out.printf("    first session: %d page faults (%d under touchFresh), %d switches under sleepLoop; second: "
        + "%d minor faults (%d under touchFresh); descriptors %d then %d%n", pfAll, pfToucher, csSwitcher, minorAll,
        minorToucher, fdsAfterFirst, fdsAfterSecond);
    IntegrationTests.check(pfAll > 0 && pfToucher >= 0.9 * pfAll, "first session: touchFresh holds " + pfToucher
        + " of " + pfAll + " page faults");
    IntegrationTests.check(csSwitcher > 0, "first session: no context switch under sleepLoop");
    IntegrationTests.check(minorAll > 0 && minorToucher >= 0.9 * minorAll, "second session: touchFresh holds "
        + minorToucher + " of " + minorAll + " minor faults");
    for (String f : new String[] {"b-page-faults.collapsed", "b-context-switches.collapsed", "a-kernel.collapsed",
        "b-minor-faults.collapsed"})
      IntegrationTests.check(!Files.exists(dir.resolve(f)), f + " written");
    String second = stderr.substring(stderr.lastIndexOf("fgagent summary"));
    IntegrationTests.check(second.contains("kernel event: minor-faults") && !second.contains("kernel event: page-faults")
        && !second.contains("kernel event: context-switches"), "the second summary's kernel events:\n" + second);
    IntegrationTests.check(fdsAfterSecond <= fdsAfterFirst, "the JVM holds " + fdsAfterSecond
        + " descriptors after the second stop, " + fdsAfterFirst + " after the first");
  }

  /** A name that is no event, a fifth kernel event: exit 1 with one line naming what is accepted. */
  static void badNamesSayWhatIsAccepted(IntegrationTests.Jdk jdk) throws Exception {
    String[][] cases = {{"event=pagefaults", "event='pagefaults' is not valid", "page-faults, minor-faults"},
        {"event=faults,event=cs,event=migrations,event=major-faults,event=minor-faults,file={dir}/p-%e.collapsed",
            "event='minor-faults' is a kernel event past the 4", "up to 4 kernel events a session"},
        {"event=kprobe:../x", "event='kprobe:../x' is not valid", "kprobe:FUNC"},
        {"event=syscalls:nothing_here_at_all", "no such tracepoint", "available_events"}};
    String noTracefs = tracefs();
    if (noTracefs != null)   /* then the tracepoint's line says so */
      cases[3] = new String[] {"event=syscalls:nothing_here_at_all", "tracefs is not mounted", "mount -t tracefs"};
    for (String[] c : cases) {
      IntegrationTests.Run r = IntegrationTests.run(jdk, c[0] + (c[0].contains("file=") ? "" : ",file={dir}/p.collapsed"),
          List.of(), "Hello");
      String out = r.stderr();
      boolean atStart = c[0].startsWith("event=syscalls:");   /* known only as the session starts: not recorded */
      IntegrationTests.check(atStart ? r.exit() == 0 : r.exit() == 1, c[0] + ": exit " + r.exit() + "\n" + out);
      IntegrationTests.check(out.contains(c[1]) && out.contains(c[2]), c[0] + ": " + out);
    }
  }
}
