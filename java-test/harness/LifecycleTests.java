import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Sessions started and stopped again on one running JVM, each with other options than the one
 * before: every start must set up what its own options need. Run by IntegrationTests.
 */
final class LifecycleTests {
  private LifecycleTests() {}

  static final List<IntegrationTests.Named> TESTS = List.of(
      new IntegrationTests.Named("restart_with_every_option_set", LifecycleTests::restartWithEveryOptionSet));

  static final int FRAMES = 3000;

  /** One session's options, and what its profile of the deep thread must show. */
  record Session(String options, boolean cpuRate, boolean whole) {}

  /* Each set differs from the one before in walker, cstack, depth, kernel, clock, event or loop. */
  static final List<Session> SESSIONS = List.of(
      new Session("walker=vm,cstack=no", true, true),
      new Session("walker=copy", true, true),             /* the signal's walker to the copy's */
      new Session("depth=64", true, false),
      new Session("", true, true),
      new Session("walker=vm,cstack=native,depth=8192", true, true),
      new Session("kernel", true, true),
      new Session("clock=perf", true, true),
      new Session("clock=posix,cstack=no", true, true),
      new Session("walker=asgct,cstack=no", true, true),
      new Session("event=itimer,interval=4ms", false, true),
      new Session("", true, true),
      new Session("event=wall,interval=5ms", false, true),
      new Session("walker=copy,cstack=no", true, true),
      new Session("loop=1s", false, true));

  /** The process's open file descriptors. */
  static long openFiles(long pid) throws Exception {
    try (var fds = Files.list(java.nio.file.Paths.get("/proc/" + pid + "/fd"))) {
      return fds.count();
    }
  }

  /** Samples of the deep thread, and how many of them hold its whole stack (the recursion's root). */
  static long[] deepSamples(Map<String, Long> stacks) {
    long all = 0, whole = 0;
    for (Map.Entry<String, Long> e : stacks.entrySet()) {
      if (!e.getKey().startsWith("[deep tid="))
        continue;
      all += e.getValue();
      String[] f = e.getKey().split(";");
      int descend = 0;
      for (String x : f)
        if (x.equals("Lifecycle.descend"))
          descend++;
      if (descend >= FRAMES - 1 && !e.getKey().contains("[truncated]"))
        whole += e.getValue();
    }
    return new long[] {all, whole};
  }

  /**
   * The JVM starts with walker=asgct,cstack=no,depth=64 (the smallest setup), then each session of
   * SESSIONS in turn: fgprof attach start with its options, a second (loop=1s: 2.5), stop. Each profile
   * holds the deep thread (3000 frames) with at least 85% of one sample per interval of its CPU
   * time between start and stop (its schedstat; cpu events), and with depth >= 3000 at least 95%
   * of its samples whole; with depth=64 at least 90% cut. Then 20 start/stop cycles with no pause,
   * each with the next session's options, each writing its file. Idle again, the JVM holds no
   * more open files than after the first session (walker=copy's rings, the wall sampler's /proc
   * files go with their session). The JVM exits 0, no hs_err.
   */
  static void restartWithEveryOptionSet(IntegrationTests.Jdk jdk) throws Exception {
    Path dir = Files.createTempDirectory(IntegrationTests.runs, "lifecycle-");
    Process jvm = AttachTests.startJvm(jdk, dir, List.of("-agentpath:" + IntegrationTests.agent
        + "=walker=asgct,cstack=no,depth=64,file=" + dir.resolve("s0.collapsed")), "Lifecycle", Integer.toString(FRAMES));
    String pid = Long.toString(jvm.pid());
    StringBuilder report = new StringBuilder();
    List<String> failures = new ArrayList<>();
    long fdsIdle = 0, fdsAfter = 0;
    try {
      Thread.sleep(1500);
      AttachTests.Result first = AttachTests.fgprof(dir, "attach", pid, "stop");
      IntegrationTests.check(first.exit() == 0, "the first stop: " + first);
      fdsIdle = openFiles(jvm.pid());
      for (int i = 0; i < SESSIONS.size(); i++) {
        Session s = SESSIONS.get(i);
        String file = "s" + (i + 1) + (s.options().contains("loop=") ? "-%n" : "") + ".collapsed";
        String opts = "start," + (s.options().isEmpty() ? "" : s.options() + ",")
            + (s.options().contains("interval=") ? "" : "interval=1ms,") + "threads,file=" + file;
        AttachTests.Result start = AttachTests.fgprof(dir, "attach", pid, opts);
        IntegrationTests.check(start.exit() == 0 && start.out().contains("started ("),
            "session " + (i + 1) + " (" + s.options() + "): start: " + start);
        long cpu0 = AttachTests.threadCpuNs(jvm.pid(), "deep");
        Thread.sleep(s.options().contains("loop=") ? 2500 : 1000);
        long cpu1 = AttachTests.threadCpuNs(jvm.pid(), "deep");
        AttachTests.Result stop = AttachTests.fgprof(dir, "attach", pid, "stop");
        IntegrationTests.check(stop.exit() == 0, "session " + (i + 1) + " (" + s.options() + "): stop: " + stop);
        long all = 0, whole = 0;
        int files = 0;
        for (int n = 1; n <= (s.options().contains("loop=") ? 9 : 1); n++) {
          Path p = dir.resolve(file.replace("%n", Integer.toString(n)));
          if (!Files.exists(p))
            continue;
          long[] d = deepSamples(IntegrationTests.collapsed(p));
          all += d[0];
          whole += d[1];
          files++;
        }
        double intervalMs = s.options().contains("interval=") ? Double.parseDouble(
            s.options().replaceAll(".*interval=([0-9.]+)ms.*", "$1")) : 1.0;   /* 1 ms unless said */
        double expected = (cpu1 - cpu0) / 1e6 / intervalMs;
        report.append(String.format("    %-40s deep %5d samples (%.0f intervals of CPU seen), %5.1f%% whole%s%n",
            s.options().isEmpty() ? "(defaults)" : s.options(), all, expected, all > 0 ? 100.0 * whole / all : 0.0,
            files > 1 ? ", " + files + " files" : ""));
        if (s.options().contains("loop=") && files < 2)
          failures.add("session " + (i + 1) + " (" + s.options() + "): " + files + " interval files, not 2 or more");
        if (all == 0 || (s.cpuRate() && all < 0.85 * expected))
          failures.add("session " + (i + 1) + " (" + s.options() + "): " + all + " samples of the deep thread for "
              + String.format("%.0f", expected) + " intervals of its CPU");
        if (s.whole() && whole < 0.95 * all)
          failures.add("session " + (i + 1) + " (" + s.options() + "): " + whole + " of " + all + " samples whole");
        if (!s.whole() && whole > 0.1 * all)
          failures.add("session " + (i + 1) + " (" + s.options() + "): " + whole + " of " + all
              + " samples whole with depth=64");
      }
      for (int c = 0; c < 20; c++) {
        Session s = SESSIONS.get(c % SESSIONS.size());
        String file = "q" + c + ".collapsed";
        AttachTests.Result start = AttachTests.fgprof(dir, "attach", pid,
            "start," + (s.options().isEmpty() ? "" : s.options().replaceAll(",?loop=[^,]*", "") + ",") + "file=" + file);
        AttachTests.Result stop = AttachTests.fgprof(dir, "attach", pid, "stop");
        if (start.exit() != 0 || stop.exit() != 0 || !Files.exists(dir.resolve(file)))
          failures.add("quick cycle " + c + " (" + s.options() + "): start " + start + ", stop " + stop);
      }
      fdsAfter = openFiles(jvm.pid());
      report.append(String.format("    open files while idle: %d after the first session, %d after the last%n",
          fdsIdle, fdsAfter));
      if (fdsAfter > fdsIdle)
        failures.add("the idle JVM holds " + (fdsAfter - fdsIdle) + " more files after the sessions than after the first");
    } finally {
      jvm.getOutputStream().close();
    }
    int exit = AttachTests.exitOf(jvm);
    String stderr = Files.readString(dir.resolve("jvm-stderr.log"));
    System.out.print(report);
    IntegrationTests.check(exit == 0 && !stderr.contains("hs_err"), "the JVM exited " + exit + ":\n" + stderr);
    IntegrationTests.check(failures.isEmpty(), String.join("\n", failures) + "\n" + report);
  }
}
