import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * alloc and lock, each held to what the run itself counted: the workload's own bytes a site
 * (java-test/workloads/AllocSites.java) and the JVM's own contention accounting, ThreadMXBean's
 * blocked and waited times (java-test/workloads/Locks.java); and read back by the tools people
 * use, the JDK's jfr and go tool pprof.
 */
final class AllocLockTests {
  private AllocLockTests() {}

  static final String[] SITES = {"siteBytes", "siteInts", "siteLongs"};
  static final String[] CLASSES = {"byte[]", "int[]", "long[]"};

  static long value(IntegrationTests.Run r, String key) {
    Matcher m = Pattern.compile("(?m)^" + Pattern.quote(key) + " (\\d+)").matcher(r.stdout());
    IntegrationTests.check(m.find(), "the workload did not print " + key + ":\n" + r.stdout() + r.stderr());
    return Long.parseLong(m.group(1));
  }

  /** The command's output; null when the tool is not there. */
  static String tool(List<String> cmd) throws Exception {
    if (!Files.isExecutable(Path.of(cmd.get(0))))
      return null;
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes());
    IntegrationTests.check(p.waitFor(120, TimeUnit.SECONDS) && p.exitValue() == 0, cmd + " failed:\n" + out);
    return out;
  }

  /**
   * Three sites allocate 38 / 57 / 5% of the bytes in objects of 2, 1 and 0.1 times the sampling
   * interval (alloc=4k): each site's share of the profile is within 3 points of the bytes it
   * counted (weighing a sample as one interval puts them at 28 / 63 / 9%, as its object's size at
   * 47 / 52 / 1%), each site's leaf frame is its array's class, and the estimated total is within
   * 15% of the bytes allocated. pprof (alloc_space) and the .jfr (jdk.ObjectAllocationSample's
   * weights) say the same as the collapsed stacks.
   */
  static void allocSitesWeighTheirBytes(IntegrationTests.Jdk jdk) throws Exception {
    IntegrationTests.Run r = IntegrationTests.run(jdk,
        "alloc=4k,file={dir}/a.collapsed,file={dir}/a.pb.gz,file={dir}/a.jfr", List.of(), "AllocSites", "2", "40000");
    r.expectCleanRun();
    Map<String, Long> s = IntegrationTests.collapsed(r.file("a.collapsed"));
    long[] counted = new long[3], profiled = new long[3];
    long countedAll = 0, profiledAll = 0;
    for (int i = 0; i < 3; i++) {
      String site = SITES[i], cls = CLASSES[i];
      counted[i] = value(r, "SITE " + site);
      countedAll += counted[i];
      profiled[i] = IntegrationTests.sum(s, k -> IntegrationTests.hasFrame(k, "AllocSites." + site));
      profiledAll += profiled[i];
      long wrongClass = IntegrationTests.sum(s, k -> IntegrationTests.hasFrame(k, "AllocSites." + site)
          && !k.endsWith(";AllocSites." + site + ";" + cls));
      IntegrationTests.check(wrongClass == 0, site + "'s stacks do not all end in " + cls + ": " + s);
    }
    for (int i = 0; i < 3; i++) {
      double want = 100.0 * counted[i] / countedAll, got = 100.0 * profiled[i] / profiledAll;
      System.out.printf("    %s: %.1f%% of the bytes profiled, %.1f%% counted%n", SITES[i], got, want);
      IntegrationTests.check(Math.abs(got - want) <= 3, SITES[i] + " has " + got + "% of the profile, " + want
          + "% of the bytes counted");
    }
    double ratio = (double) profiledAll / countedAll;
    System.out.printf("    %.0f MB estimated for %.0f MB allocated: %.3f%n", profiledAll / 1e6, countedAll / 1e6, ratio);
    IntegrationTests.check(ratio >= 0.85 && ratio <= 1.15, "the profile estimates " + ratio + " of the bytes");
    long taken = r.stat("samples taken"), stored = r.stat("stored");
    IntegrationTests.check(taken > 5000 && stored == taken, stored + " of " + taken + " allocation samples stored");

    String pprof = tool(List.of("/usr/bin/go", "tool", "pprof", "-sample_index=alloc_space", "-top", "-nodecount=200",
        r.file("a.pb.gz").toString()));
    if (pprof == null) {
      System.out.println("    go tool pprof: not installed, skipped");
    } else {   /* "flat flat% sum% cum cum%" lines: the class frames are the leaves, so flat */
      Matcher m = Pattern.compile("(?m)^\\s*\\S+\\s+([0-9.]+)%.*\\sbyte\\[\\]$").matcher(pprof);
      IntegrationTests.check(m.find(), "pprof lists no byte[]:\n" + pprof);
      double share = Double.parseDouble(m.group(1)), want = 100.0 * profiled[0] / profiledAll;
      IntegrationTests.check(Math.abs(share - want) <= 0.2, "pprof gives byte[] " + share + "%, the profile " + want);
      IntegrationTests.check(pprof.contains("Type: alloc_space"), "pprof does not read alloc_space:\n" + pprof);
    }
    long jfrBytes = 0, jfrEvents = 0;   /* read by the JDK's reader, exact: jfr print rounds a weight to its unit */
    for (jdk.jfr.consumer.RecordedEvent e : JfrTests.samples(r.file("a.jfr")))
      if (e.getEventType().getName().equals("jdk.ObjectAllocationSample") && e.getClass("objectClass").getName()
          .equals("[B")) {
        jfrBytes += e.getLong("weight");
        jfrEvents++;
      }
    double jfrRatio = (double) jfrBytes / profiled[0];
    System.out.printf("    jfr: %d byte[] samples, %.3f of the profile's bytes%n", jfrEvents, jfrRatio);
    IntegrationTests.check(jfrEvents > 1000 && Math.abs(jfrRatio - 1) <= 0.01,
        "jfr's byte[] samples weigh " + jfrRatio + " of the profile's");
  }

  /**
   * A monitor contended by three threads and a ReentrantLock by two others: the lock profile's
   * split between the two is within 5 points of the JVM's own accounting (ThreadMXBean: the
   * monitor's threads' blocked time, the lock's threads' waited time), each total within 15% of
   * it, each leaf frame the lock's class. The .jfr holds the same waits as jdk.JavaMonitorEnter
   * and jdk.ThreadPark events.
   */
  static void lockWaitsMatchTheJvmsAccounting(IntegrationTests.Jdk jdk) throws Exception {
    IntegrationTests.Run r = IntegrationTests.run(jdk, "lock,file={dir}/l.collapsed,file={dir}/l.jfr", List.of(),
        "Locks", "3", "2", "3");
    r.expectCleanRun();
    Map<String, Long> s = IntegrationTests.collapsed(r.file("l.collapsed"));
    long blocked = value(r, "MONITOR_BLOCKED_NS"), waited = value(r, "LOCK_WAITED_NS");
    long monitor = IntegrationTests.sum(s, k -> IntegrationTests.hasFrame(k, "Locks.onMonitor"));
    long lock = IntegrationTests.sum(s, k -> IntegrationTests.hasFrame(k, "Locks.onLock"));
    long monitorClass = IntegrationTests.sum(s, k -> k.endsWith(";Locks.onMonitor;java/lang/Object"));
    long lockClass = IntegrationTests.sum(s, k -> IntegrationTests.hasFrame(k, "Locks.onLock")
        && k.endsWith(";java/util/concurrent/locks/ReentrantLock$NonfairSync"));
    System.out.printf("    monitor: %.0f ms profiled, %.0f ms blocked (ThreadMXBean); lock: %.0f ms profiled, %.0f ms "
        + "waited%n", monitor / 1e6, blocked / 1e6, lock / 1e6, waited / 1e6);
    IntegrationTests.check(monitorClass == monitor && lockClass == lock,
        "the waits' leaf frames are not their locks' classes: " + s);
    double share = 100.0 * monitor / (monitor + lock), want = 100.0 * blocked / (blocked + waited);
    IntegrationTests.check(Math.abs(share - want) <= 5, "the monitor has " + share + "% of the waits, the JVM says "
        + want + "%");
    IntegrationTests.check(Math.abs((double) monitor / blocked - 1) <= 0.15, "monitor waits: " + monitor + " ns, the JVM "
        + "says " + blocked);
    IntegrationTests.check(Math.abs((double) lock / waited - 1) <= 0.15, "lock waits: " + lock + " ns, the JVM says "
        + waited);
    IntegrationTests.check(waited > 100_000_000 && blocked > 100_000_000, "too little contention to judge: " + blocked
        + " ns blocked, " + waited + " ns waited");
    String summary = tool(List.of(jdk.home().resolve("bin/jfr").toString(), "summary", r.file("l.jfr").toString()));
    long stored = r.stat("stored"), monitors = countEvents(summary, "jdk.JavaMonitorEnter"),
        parks = countEvents(summary, "jdk.ThreadPark");
    System.out.printf("    jfr: %d jdk.JavaMonitorEnter, %d jdk.ThreadPark; %d waits stored%n", monitors, parks, stored);
    IntegrationTests.check(monitors > 0 && parks > 0 && monitors + parks == stored, "the .jfr holds " + monitors
        + " monitor and " + parks + " park events for " + stored + " waits:\n" + summary);
  }

  /**
   * Allocation and lock stacks walked by fgagent's own walker from the thread's frame anchor are
   * the JVM's own: with verify, each is compared in the callback with GetStackTrace's at the same
   * point (method and bytecode index, frame by frame). On three allocation sites in compiled code
   * and on a monitor and a ReentrantLock (parked through the Unsafe.park hook) whose holders
   * allocate: no stack differs, and fgagent walked at least 90% of them (the rest: code whose
   * CompiledMethodLoad had not come yet, walked by the JVM).
   */
  static void eventStacksAreTheJvms(IntegrationTests.Jdk jdk) throws Exception {
    IntegrationTests.Run sites = IntegrationTests.run(jdk, "alloc=4k,verify,file={dir}/a.collapsed", List.of(),
        "AllocSites", "2", "40000");
    sites.expectCleanRun();
    IntegrationTests.Run locks = IntegrationTests.run(jdk, "alloc=16k,lock=0,verify,file={dir}/l-%e.collapsed",
        List.of(), "Locks", "3", "2", "2", "alloc");
    locks.expectCleanRun();
    String[][] sections = {{"AllocSites alloc", section(sites, "alloc: heap")}, {"Locks alloc", section(locks,
        "alloc: heap")}, {"Locks lock", section(locks, "lock: waits")}};
    for (String[] s : sections) {
      long stored = field(s[1], "stored:\\s+(\\d+)"), walked = field(s[1], "(\\d+) walked by fgagent"),
          differ = field(s[1], "verified:\\s+(\\d+) of fgagent's");
      System.out.printf("    %s: %d stored, %d walked by fgagent, %d differ from GetStackTrace%n", s[0], stored,
          walked, differ);
      IntegrationTests.check(differ == 0, s[0] + ": fgagent's stacks differ from the JVM's:\n" + s[1]);
      IntegrationTests.check(stored >= 100 && walked >= 0.9 * stored, s[0] + ": fgagent walked " + walked + " of "
          + stored + " stacks:\n" + s[1]);
    }
  }

  /**
   * Every allocation, alloc=0, of a program that only says hello: the thread that attaches at exit
   * to run the shutdown hooks (DestroyJavaVM) builds its Thread object on itself before the JVM
   * tells fgagent it started, so those allocations come from a thread with no record; they are
   * kept under the thread's tid, not lost.
   */
  static void eventsOfThreadsWithNoRecordAreKept(IntegrationTests.Jdk jdk) throws Exception {
    IntegrationTests.Run r = IntegrationTests.run(jdk, "alloc=0,threads,file={dir}/h.collapsed", List.of(), "Hello");
    r.expectCleanRun();
    String alloc = section(r, "alloc: heap");
    long taken = field(alloc, "samples taken:\\s+(\\d+)"), stored = field(alloc, "stored:\\s+(\\d+)");
    Map<String, Long> s = IntegrationTests.collapsed(r.file("h.collapsed"));
    long others = IntegrationTests.sum(s, k -> !k.startsWith("[main "));
    System.out.printf("    %d of %d allocations stored, %d bytes on threads other than main%n", stored, taken, others);
    IntegrationTests.check(stored == taken, stored + " of " + taken + " allocations stored:\n" + alloc);
    IntegrationTests.check(others > 0, "no allocation kept on the exiting thread: " + s.keySet());
  }

  /** The summary's section that starts with head, to the next section. */
  static String section(IntegrationTests.Run r, String head) {
    int at = r.stderr().indexOf("\n" + head);
    IntegrationTests.check(at >= 0, "no " + head + " section:\n" + r.stderr());
    int end = r.stderr().indexOf("\n  accounting:", at);
    return r.stderr().substring(at + 1, end < 0 ? r.stderr().length() : end);
  }

  static long field(String text, String regex) {
    Matcher m = Pattern.compile(regex).matcher(text);
    IntegrationTests.check(m.find(), "no " + regex + " in:\n" + text);
    return Long.parseLong(m.group(1));
  }

  static long countEvents(String jfrSummary, String type) {
    Matcher m = Pattern.compile("(?m)^\\s*" + Pattern.quote(type) + "\\s+(\\d+)").matcher(jfrSummary);
    return m.find() ? Long.parseLong(m.group(1)) : 0;
  }

  /**
   * event=cpu, alloc and lock in one run: one file an event through %e (each with its own
   * event's stacks only), one .jfr with all three, every section of the summary accounted for;
   * fgprof convert splits the .jfr through %e into the same three profiles; and a file without
   * %e for several events is refused at start with one line.
   */
  static void eventsCombineInOneRun(IntegrationTests.Jdk jdk) throws Exception {
    IntegrationTests.Run r = IntegrationTests.run(jdk,
        "event=cpu,interval=1ms,alloc=64k,lock,file={dir}/p-%e.collapsed,file={dir}/p.jfr", List.of(), "Locks", "3",
        "2", "2", "alloc");
    r.expectCleanRun();
    IntegrationTests.check(!r.stderr().contains("MISMATCH"), "an accounting does not close:\n" + r.stderr());
    for (String section : new String[] {"alloc: heap allocations", "lock: waits for contended locks"})
      IntegrationTests.check(r.stderr().contains("\n" + section), "no " + section + " section:\n" + r.stderr());
    Map<String, Long> cpu = IntegrationTests.collapsed(r.file("p-cpu.collapsed"));
    Map<String, Long> alloc = IntegrationTests.collapsed(r.file("p-alloc.collapsed"));
    Map<String, Long> lock = IntegrationTests.collapsed(r.file("p-lock.collapsed"));
    long spin = IntegrationTests.sum(cpu, k -> IntegrationTests.hasFrame(k, "Locks.spin"));
    IntegrationTests.check(spin > 1000, "the CPU profile has " + spin + " samples in Locks.spin");
    IntegrationTests.check(IntegrationTests.sum(lock, k -> k.contains("Locks.onMonitor")) > 100_000_000L,
        "the lock profile misses the monitor's waits");
    IntegrationTests.check(IntegrationTests.sum(alloc, k -> k.endsWith(";Locks.spin;byte[]")) > 0,
        "the allocation profile has no byte[] in Locks.spin: " + alloc.keySet());
    IntegrationTests.check(cpu.keySet().stream().noneMatch(k -> k.endsWith("java/lang/Object")
        || k.endsWith("$NonfairSync")), "the CPU profile holds lock stacks");
    IntegrationTests.check(lock.keySet().stream().noneMatch(k -> k.contains("Locks.spin")),
        "the lock profile holds CPU stacks");
    String summary = tool(List.of(jdk.home().resolve("bin/jfr").toString(), "summary", r.file("p.jfr").toString()));
    for (String type : new String[] {"jdk.ExecutionSample", "jdk.ObjectAllocationSample", "jdk.JavaMonitorEnter"})
      IntegrationTests.check(countEvents(summary, type) > 0, "the .jfr has no " + type + ":\n" + summary);
    /* fgprof convert with %e in its OUT: a file an event from the one .jfr, each holding what the
     * agent's own file of that event holds (samples, bytes, nanoseconds waited) */
    tool(List.of(AttachTests.fgprof().toString(), "convert", r.file("p.jfr").toString(),
        r.dir().resolve("c-%e.collapsed").toString()));
    for (String e : List.of("cpu", "alloc", "lock")) {
      long want = IntegrationTests.sum(IntegrationTests.collapsed(r.file("p-" + e + ".collapsed")), k -> true);
      long got = IntegrationTests.sum(IntegrationTests.collapsed(r.file("c-" + e + ".collapsed")), k -> true);
      System.out.printf("    convert p.jfr c-%%e.collapsed: %s %d, the agent's %d%n", e, got, want);
      IntegrationTests.check(got == want, "c-" + e + ".collapsed holds " + got + ", p-" + e + ".collapsed " + want);
    }

    IntegrationTests.Run bad = IntegrationTests.run(jdk, "event=cpu,alloc,file={dir}/p.html", List.of(), "Hello");
    IntegrationTests.check(bad.exit() != 0 && bad.stderr().contains("does not say which event it holds")
        && bad.stderr().contains("%e"), "a file without %e for two events was not refused:\n" + bad.stderr());
  }

  /**
   * On one running JVM, sessions through fgprof profile with other events each time: alloc alone,
   * lock alone, cpu with both (one file an event through %e), cpu alone after the park hook was
   * armed, then ten quick sessions switching between alloc and lock. Each profile holds its own
   * event's stacks (class leaves for alloc and lock, none for cpu); the JVM runs to its end and
   * exits 0.
   */
  static void eventsRestartOnARunningJvm(IntegrationTests.Jdk jdk) throws Exception {
    Path dir = Files.createTempDirectory(IntegrationTests.runs, "events-restart-");
    Process jvm = AttachTests.startJvm(jdk, dir, List.of(), "Locks", "3", "2", "14", "alloc");
    String pid = Long.toString(jvm.pid());
    List<String> failures = new ArrayList<>();
    try {
      Thread.sleep(700);
      String[][] sessions = {{"alloc", "a.collapsed"}, {"lock", "l.collapsed"}, {"cpu,alloc,lock", "p-%e.collapsed"},
          {"cpu", "c.collapsed"}, {"cpu,context-switches", "k-%e.collapsed"}};
      for (String[] s : sessions) {
        AttachTests.Result r = AttachTests.fgprof(dir, "profile", "--duration", "1s", "--event", s[0], "--file",
            dir.resolve(s[1]).toString(), pid);
        if (r.exit() != 0)
          failures.add("--event " + s[0] + ": " + r);
      }
      for (int c = 0; c < 10; c++) {
        String event = c % 2 == 0 ? "alloc=64k" : "lock=0";
        AttachTests.Result r = AttachTests.fgprof(dir, "profile", "--duration", "100ms", "--event", event, "--file",
            dir.resolve("q" + c + ".collapsed").toString(), pid);
        if (r.exit() != 0 || !Files.exists(dir.resolve("q" + c + ".collapsed")))
          failures.add("quick session " + c + " (" + event + "): " + r);
      }
    } finally {
      jvm.getOutputStream().close();
    }
    int exit = AttachTests.exitOf(jvm);
    String stderr = Files.readString(dir.resolve("jvm-stderr.log"));
    IntegrationTests.check(exit == 0 && !stderr.contains("hs_err"), "the JVM exited " + exit + ":\n" + stderr);
    IntegrationTests.check(failures.isEmpty(), String.join("\n", failures));
    for (String f : new String[] {"a.collapsed", "l.collapsed", "p-alloc.collapsed", "p-lock.collapsed"}) {
      Map<String, Long> s = IntegrationTests.collapsed(dir.resolve(f));
      IntegrationTests.check(!s.isEmpty(), f + " is empty");
      IntegrationTests.check(IntegrationTests.sum(s, k -> k.contains("Locks.spin") && !k.endsWith("byte[]")) == 0,
          f + " holds CPU stacks: " + s.keySet());
    }
    long allocBytes = IntegrationTests.sum(IntegrationTests.collapsed(dir.resolve("a.collapsed")),
        k -> k.endsWith(";Locks.spin;byte[]"));
    IntegrationTests.check(allocBytes > 0, "the alloc session has no byte[] in Locks.spin");
    /* a kernel event by fgprof profile: the threads parking on contended locks switch out */
    Map<String, Long> switches = IntegrationTests.collapsed(dir.resolve("k-kernel.collapsed"));
    IntegrationTests.check(IntegrationTests.sum(switches, k -> IntegrationTests.hasFrame(k, "Locks.spin")) > 0,
        "--event cpu,context-switches: no context switch under Locks.spin: " + switches.keySet());
    for (String f : new String[] {"p-cpu.collapsed", "c.collapsed", "k-cpu.collapsed"}) {
      Map<String, Long> s = IntegrationTests.collapsed(dir.resolve(f));
      IntegrationTests.check(IntegrationTests.sum(s, k -> IntegrationTests.hasFrame(k, "Locks.spin")) > 300,
          f + " has too few samples in Locks.spin");
      IntegrationTests.check(s.keySet().stream().noneMatch(k -> k.endsWith("$NonfairSync") || k.endsWith(";byte[]")),
          f + " holds alloc or lock stacks");
    }
    System.out.printf("    alloc %.1f MB in Locks.spin, lock and cpu sessions as asked, 10 quick sessions%n",
        allocBytes / 1e6);
  }

  /**
   * An event storm: 64 threads allocate as fast as they can at alloc=0 (every allocation a
   * sample) while 4 others contend a monitor (java-test/workloads/AllocStorm.java), each counting
   * what it did itself. At most 1% of the samples are lost; or, when more are (the drainer fell
   * behind), every loss is named for its cause (never memlimit, none is set) and the estimate with
   * the lost samples' weight is within 5% of the bytes the threads allocated (ThreadMXBean). The
   * profile's allocations in the loop are within 5% of those bytes, minus what the summary says
   * was lost; no lock wait is lost, and the waits profiled are within 15% of the threads' own
   * blocked time.
   */
  static void eventStormLosesNothingSilently(IntegrationTests.Jdk jdk) throws Exception {
    IntegrationTests.Run r = IntegrationTests.run(jdk, "alloc=0,lock=0,file={dir}/s-%e.collapsed", List.of(),
        "AllocStorm", "64", "4", "4");
    r.expectCleanRun();
    long allocated = value(r, "ALLOCATED_BYTES"), blocked = value(r, "MONITOR_BLOCKED_NS");
    String alloc = section(r, "alloc: heap"), lock = section(r, "lock: waits");
    long taken = field(alloc, "samples taken:\\s+(\\d+)"), lost = field(alloc, "lost:\\s+(\\d+)");
    long profiled = IntegrationTests.sum(IntegrationTests.collapsed(r.file("s-alloc.collapsed")),
        k -> IntegrationTests.hasFrame(k, "AllocStorm.allocate"));
    Matcher withLost = Pattern.compile("; ([0-9.]+) MB with the lost samples' weight").matcher(alloc);
    double estimate = withLost.find() ? Double.parseDouble(withLost.group(1)) * 1e6 : profiled;
    long waited = IntegrationTests.sum(IntegrationTests.collapsed(r.file("s-lock.collapsed")),
        k -> IntegrationTests.hasFrame(k, "AllocStorm.onMonitor"));
    System.out.printf("    %.1f MB allocated, %.1f MB profiled in AllocStorm.allocate, %.1f MB with the lost; "
        + "%d samples, %d lost (%.2f%%); monitor: %.0f ms profiled, %.0f ms blocked (ThreadMXBean)%n",
        allocated / 1e6, profiled / 1e6, estimate / 1e6, taken, lost, 100.0 * lost / taken, waited / 1e6,
        blocked / 1e6);
    IntegrationTests.check(taken > 10_000 && allocated > 10_000_000, "too few allocations to judge: " + taken
        + " samples of " + allocated + " bytes:\n" + alloc);
    IntegrationTests.check(!r.stderr().contains("memory limit") && !r.stderr().contains("memlimit"),
        "a loss blamed on a memlimit that was never set:\n" + r.stderr());
    if (lost > taken / 100) {
      IntegrationTests.check(alloc.contains("the drainer fell behind") || alloc.contains("JVMTI did not name")
          || alloc.contains("taken by a new thread") || alloc.contains("the heap refused"),
          "more than 1% lost and no cause named:\n" + alloc);
      IntegrationTests.check(Math.abs(estimate / allocated - 1) <= 0.05, "the estimate with the lost samples, "
          + estimate + " bytes, is not within 5% of the " + allocated + " allocated:\n" + alloc);
    } else {
      IntegrationTests.check(Math.abs((double) profiled / allocated - 1) <= 0.05, "the profile holds " + profiled
          + " bytes of the " + allocated + " allocated, with at most 1% of the samples lost:\n" + alloc);
    }
    IntegrationTests.check(field(lock, "lost:\\s+(\\d+)") == 0, "lock waits lost:\n" + lock);
    IntegrationTests.check(blocked > 500_000_000, "too little contention to judge: " + blocked + " ns blocked");
    IntegrationTests.check(Math.abs((double) waited / blocked - 1) <= 0.15, "monitor waits: " + waited
        + " ns profiled, the threads were blocked " + blocked + ":\n" + lock);
  }

  /**
   * Classes that come and go (java-test/workloads/HiddenStorm.java: a new hidden class and a new
   * lambda class each round, instances of each allocated at alloc=0): the event log's class-name
   * table, which lives as long as the JVM, holds at most 1000 names after 3000 rounds and grew by
   * at most 5% of the 5400 classes more than after 300 (the JDK's own classes allocated vary
   * from run to run), because a hidden class is named without the JVM's address suffix; the profile's
   * class frames (its leaves) are HiddenStorm$Item and HiddenStorm$$Lambda, with no suffix (a
   * hidden class's methods keep theirs: the method frames are the session's, not this table's).
   */
  static void eventClassNamesStayFlat(IntegrationTests.Jdk jdk) throws Exception {
    long[] names = new long[2];
    int[] rounds = {300, 3000};
    for (int i = 0; i < 2; i++) {
      IntegrationTests.Run r = IntegrationTests.run(jdk, "alloc=0,file={dir}/h.collapsed", List.of(), "HiddenStorm",
          String.valueOf(rounds[i]), "10");
      r.expectCleanRun();
      IntegrationTests.check(value(r, "HIDDEN_CLASSES") == 2L * rounds[i], "HiddenStorm defined too few classes");
      names[i] = field(r.stderr(), "class names:\\s+(\\d+)");
      Map<String, Long> s = IntegrationTests.collapsed(r.file("h.collapsed"));
      long items = IntegrationTests.sum(s, k -> k.endsWith(";HiddenStorm$Item")),
          lambdas = IntegrationTests.sum(s, k -> k.endsWith(";HiddenStorm$$Lambda"));
      IntegrationTests.check(items > 0 && lambdas > 0, "no HiddenStorm$Item or HiddenStorm$$Lambda leaves: "
          + items + ", " + lambdas);
      IntegrationTests.check(s.keySet().stream().noneMatch(k -> k.substring(k.lastIndexOf(';') + 1).contains(".0x")),
          "a class frame named with its hidden class's address: " + s.keySet().stream().filter(k ->
              k.substring(k.lastIndexOf(';') + 1).contains(".0x")).findFirst().orElse(""));
      System.out.printf("    %d hidden and lambda classes defined: %d class names held%n", 2 * rounds[i], names[i]);
    }
    long more = 2L * (rounds[1] - rounds[0]);   /* one name each, were they kept apart */
    IntegrationTests.check(names[0] > 0 && names[1] <= 1000 && names[1] - names[0] <= more / 20, "the class-name "
        + "table grew from " + names[0] + " to " + names[1] + " names with " + more + " more classes defined");
  }

  static final List<IntegrationTests.Named> TESTS = List.of(
      new IntegrationTests.Named("alloc_sites_weigh_their_bytes", AllocLockTests::allocSitesWeighTheirBytes),
      new IntegrationTests.Named("lock_waits_match_the_jvms_accounting", AllocLockTests::lockWaitsMatchTheJvmsAccounting),
      new IntegrationTests.Named("events_combine_in_one_run", AllocLockTests::eventsCombineInOneRun),
      new IntegrationTests.Named("event_stacks_are_the_jvms", AllocLockTests::eventStacksAreTheJvms),
      new IntegrationTests.Named("events_of_threads_with_no_record_are_kept",
          AllocLockTests::eventsOfThreadsWithNoRecordAreKept),
      new IntegrationTests.Named("events_restart_on_a_running_jvm", AllocLockTests::eventsRestartOnARunningJvm),
      new IntegrationTests.Named("event_storm_loses_nothing_silently", AllocLockTests::eventStormLosesNothingSilently),
      new IntegrationTests.Named("event_class_names_stay_flat", AllocLockTests::eventClassNamesStayFlat));
}
