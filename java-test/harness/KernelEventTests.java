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
      new IntegrationTests.Named("kernel_event_beside_wall", KernelEventTests::besideWallNothingMerges));

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
   * its accounting go on.
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

  /** A name that is no event, a second kernel event: exit 1 with one line naming what is accepted. */
  static void badNamesSayWhatIsAccepted(IntegrationTests.Jdk jdk) throws Exception {
    String[][] cases = {{"event=pagefaults", "event='pagefaults' is not valid", "page-faults, minor-faults"},
        {"event=page-faults,event=cs", "second kernel event", "one kernel event a session"},
        {"event=kprobe:../x", "event='kprobe:../x' is not valid", "kprobe:FUNC"},
        {"event=syscalls:nothing_here_at_all", "no such tracepoint", "available_events"}};
    String noTracefs = tracefs();
    if (noTracefs != null)   /* then the tracepoint's line says so */
      cases[3] = new String[] {"event=syscalls:nothing_here_at_all", "tracefs is not mounted", "mount -t tracefs"};
    for (String[] c : cases) {
      IntegrationTests.Run r = IntegrationTests.run(jdk, c[0] + ",file={dir}/p.collapsed", List.of(), "Hello");
      String out = r.stderr();
      boolean atStart = c[0].startsWith("event=syscalls:");   /* known only as the session starts: not recorded */
      IntegrationTests.check(atStart ? r.exit() == 0 : r.exit() == 1, c[0] + ": exit " + r.exit() + "\n" + out);
      IntegrationTests.check(out.contains(c[1]) && out.contains(c[2]), c[0] + ": " + out);
    }
  }
}
