import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Integration tests of fgagent loaded into a JVM that is already running, through fgprof
 * attach and fgprof profile (the attach socket, no jcmd): the JVM is started without the agent.
 * Run by IntegrationTests.
 */
final class AttachTests {
  private AttachTests() {}

  static final List<IntegrationTests.Named> TESTS = List.of(
      new IntegrationTests.Named("attach_rate_dump_restart_shares", AttachTests::rateDumpRestartShares),
      new IntegrationTests.Named("attach_refused_cleanly", AttachTests::refusedCleanly));

  record Result(int exit, String out, String err) {}

  static Path fgprof() {
    return IntegrationTests.agent.getParent().resolve("fgprof");
  }

  /** Runs a command to its end (60 s at most). */
  static Result exec(Path dir, String... cmd) throws Exception {
    ProcessBuilder pb = new ProcessBuilder(cmd).directory(dir.toFile());
    Path out = Files.createTempFile(dir, "out-", ".log"), err = Files.createTempFile(dir, "err-", ".log");
    pb.redirectOutput(out.toFile());
    pb.redirectError(err.toFile());
    Process p = pb.start();
    if (!p.waitFor(60, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new AssertionError("did not finish within 60 s: " + String.join(" ", cmd));
    }
    return new Result(p.exitValue(), Files.readString(out), Files.readString(err));
  }

  static Result fgprof(Path dir, String... args) throws Exception {
    List<String> cmd = new ArrayList<>();
    cmd.add(fgprof().toString());
    cmd.addAll(Arrays.asList(args));
    return exec(dir, cmd.toArray(new String[0]));
  }

  /** A JVM started without the agent, its output in dir. */
  static Process startJvm(IntegrationTests.Jdk jdk, Path dir, List<String> jvmArgs, String... mainAndArgs)
      throws Exception {
    List<String> cmd = new ArrayList<>();
    cmd.add(jdk.java().toString());
    cmd.addAll(jvmArgs);
    cmd.add("-cp");
    cmd.add(IntegrationTests.classes.toString());
    cmd.addAll(Arrays.asList(mainAndArgs));
    ProcessBuilder pb = new ProcessBuilder(cmd).directory(dir.toFile());
    pb.redirectOutput(dir.resolve("jvm-stdout.log").toFile());
    pb.redirectError(dir.resolve("jvm-stderr.log").toFile());
    return pb.start();
  }

  static int exitOf(Process p) throws Exception {
    if (!p.waitFor(120, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new AssertionError("the JVM did not finish within 120 s");
    }
    return p.exitValue();
  }

  /** The CPU time (ns) of the thread named name in process pid, by its schedstat. */
  static long threadCpuNs(long pid, String name) throws Exception {
    try (var tasks = Files.list(Paths.get("/proc/" + pid + "/task"))) {
      for (Path task : (Iterable<Path>) tasks::iterator)
        if (Files.readString(task.resolve("comm")).strip().equals(name))
          return Long.parseLong(Files.readString(task.resolve("schedstat")).split(" ")[0]);
    }
    throw new AssertionError("no thread " + name + " in process " + pid);
  }

  static final List<String> SEPARATE_METHODS = List.of("-XX:CompileCommand=quiet",
      "-XX:CompileCommand=dontinline,HotMethods::*", "-XX:CompileCommand=dontinline,Work::mix");

  /**
   * HotMethods runs without the agent; fgprof attach starts fgagent at 1 ms: over a window
   * inside the session the hot thread gets at least 90% of one sample per ms of its CPU time
   * (its schedstat, read by this harness); dump writes the profile while sampling goes on;
   * stop writes it again, grown. Then fgprof profile starts the loaded agent again (a new
   * session) for 6 s: each hot method's share within 3 points of what the workload measured
   * with its own CPU clock. Two more sessions in event=wall each sample the hot thread (a wall
   * sampler starts afresh). The JVM goes on and exits 0.
   */
  static void rateDumpRestartShares(IntegrationTests.Jdk jdk) throws Exception {
    Path dir = Files.createTempDirectory(IntegrationTests.runs, "attach-");
    Process jvm = startJvm(jdk, dir, SEPARATE_METHODS, "HotMethods", "20");
    String pid = Long.toString(jvm.pid());
    Thread.sleep(1500);
    Result start = fgprof(dir, "attach", pid, "start,interval=1ms,threads,file=a.collapsed");
    IntegrationTests.check(start.exit == 0 && start.out.contains("started ("),
        "attach start: exit " + start.exit + "\n" + start.out + start.err);
    long cpu0 = threadCpuNs(jvm.pid(), "hot");
    Thread.sleep(2500);
    long cpu1 = threadCpuNs(jvm.pid(), "hot");
    Result dump = fgprof(dir, "attach", pid, "dump");
    IntegrationTests.check(dump.exit == 0 && dump.out.contains("dumped, profiling goes on"), "dump: " + dump.out + dump.err);
    long dumped = IntegrationTests.sum(IntegrationTests.collapsed(dir.resolve("a.collapsed")), k -> true);
    Thread.sleep(300);   /* sampling goes on after the dump */
    Result stop = fgprof(dir, "attach", pid, "stop");
    IntegrationTests.check(stop.exit == 0 && stop.out.contains("stopped; wrote " + dir.resolve("a.collapsed")),
        "stop: " + stop.out + stop.err);
    Map<String, Long> a = IntegrationTests.collapsed(dir.resolve("a.collapsed"));
    long hot = IntegrationTests.sum(a, k -> k.startsWith("[hot tid="));
    double window = (cpu1 - cpu0) / 1e6;   /* ms of CPU inside the session */
    System.out.printf("    session 1: hot thread %d samples for %.0f ms of CPU in a window inside it; dump %d, "
        + "final %d samples%n", hot, window, dumped, IntegrationTests.sum(a, k -> true));
    IntegrationTests.check(hot >= 0.9 * window, "only " + hot + " samples of the hot thread for " + window
        + " ms of its CPU inside the session: under 90% of the 1 ms rate");
    IntegrationTests.check(dumped > 0 && dumped < IntegrationTests.sum(a, k -> true),
        "dump wrote " + dumped + " samples, the final profile " + IntegrationTests.sum(a, k -> true));

    Result profile = fgprof(dir, "profile", "--duration", "6s", "--threads", "--file", "b.collapsed", pid);
    IntegrationTests.check(profile.exit == 0, "fgprof profile: exit " + profile.exit + "\n" + profile.err);
    long[] wall = new long[2];
    for (int i = 0; i < 2; i++) {   /* event=wall, twice: each session's wall sampler looks at every thread afresh */
      Result w = fgprof(dir, "profile", "--event", "wall", "--interval", "5ms", "--duration", "1s", "--threads",
          "--file", "w" + i + ".collapsed", pid);
      IntegrationTests.check(w.exit == 0, "wall session " + i + ": exit " + w.exit + "\n" + w.err);
      wall[i] = IntegrationTests.sum(IntegrationTests.collapsed(dir.resolve("w" + i + ".collapsed")),
          k -> k.startsWith("[hot tid="));
    }
    int exit = exitOf(jvm);
    String stdout = Files.readString(dir.resolve("jvm-stdout.log")), stderr = Files.readString(dir.resolve("jvm-stderr.log"));
    IntegrationTests.check(exit == 0 && !stderr.contains("hs_err"), "the JVM exited " + exit + ":\n" + stderr);
    Map<String, Long> b = IntegrationTests.collapsed(dir.resolve("b.collapsed"));
    String[] methods = {"HotMethods.alpha", "HotMethods.beta", "HotMethods.gamma"};
    long all = IntegrationTests.sum(b, k -> k.startsWith("[hot tid=")
        && Arrays.stream(methods).anyMatch(m -> IntegrationTests.hasFrame(k, m)));
    /* 3 points are 3 standard deviations of a 50% share at 2500 samples */
    IntegrationTests.check(all >= 2500, "session 2: too few samples in the three methods: " + all);
    StringBuilder report = new StringBuilder();
    for (String m : methods) {
      Matcher g = Pattern.compile("GROUND_TRUTH " + Pattern.quote(m) + " ([0-9.]+)").matcher(stdout);
      IntegrationTests.check(g.find(), "workload printed no ground truth for " + m);
      double truth = Double.parseDouble(g.group(1)) * 100;
      double seen = 100.0 * IntegrationTests.sum(b, k -> k.startsWith("[hot tid=") && IntegrationTests.hasFrame(k, m)) / all;
      report.append(String.format("%s truth %.1f%% profile %.1f%%; ", m, truth, seen));
      IntegrationTests.check(Math.abs(truth - seen) <= 3.0, "session 2: share off by more than 3 points: " + report);
    }
    System.out.println("    session 2 (fgprof profile, " + all + " samples): " + report + "sessions 3 and 4 (wall, 1 s "
        + "at 5 ms): hot thread " + wall[0] + " and " + wall[1] + " samples");
    IntegrationTests.check(wall[0] >= 100 && wall[1] >= 100, "wall sessions: hot thread " + wall[0] + " and " + wall[1]
        + " samples for 1 s at 5 ms");
  }

  /**
   * Each case fgprof cannot attach in ends with exit 2 and one line naming it, and the target
   * is left as it was: no such process; a process that is not a HotSpot JVM (not sent SIGQUIT,
   * which would kill it); a JVM started with -XX:+DisableAttachMechanism; a JVM that does not
   * answer in time (stopped); another user's JVM (fgprof run as nobody). Options the agent
   * refuses end with exit 1 and its message, as does fgprof profile on a JVM whose agent is
   * already profiling into its own files (it names that session's files and leaves it running,
   * for its own client to stop); the JVM goes on. A refusal of a process that is there is said at
   * once: fgprof waits to see a process exit only when it could not reach it, never after a
   * verdict (each of not a JVM, attach disabled and another user within REFUSED_MS).
   */
  /** A refusal's bound: fgprof waited 2 s after each before, to see whether the process was exiting. */
  static final long REFUSED_MS = 1000;

  /** The pid of a kernel thread (PF_KTHREAD in /proc/PID/stat's flags), or null when none is visible. */
  static String kernelThread() throws java.io.IOException {
    try (var procs = Files.list(Paths.get("/proc"))) {
      for (Path p : (Iterable<Path>) procs::iterator) {
        String name = p.getFileName().toString();
        if (!name.chars().allMatch(Character::isDigit))
          continue;
        try {
          String stat = Files.readString(p.resolve("stat"));
          String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
          if ((Long.parseLong(f[6]) & 0x00200000L) != 0)   /* field 9, the flags */
            return name;
        } catch (java.io.IOException | RuntimeException e) {
          /* gone meanwhile */
        }
      }
    }
    return null;
  }

  static void refusedCleanly(IntegrationTests.Jdk jdk) throws Exception {
    Path dir = Files.createTempDirectory(IntegrationTests.runs, "attach-refused-");
    Result none = fgprof(dir, "attach", "999999999", "status");
    IntegrationTests.check(none.exit == 2 && none.err.contains("no such process: 999999999"), "no process: " + none);

    /* the sleeper older than fgprof's 1 s for a fork about to exec java, which it rightly waits for */
    Process sleeper = new ProcessBuilder("sleep", "30").start();
    Process closed = startJvm(jdk, dir, List.of("-XX:+DisableAttachMechanism"), "HotMethods", "3");
    Thread.sleep(1100);
    long t0 = System.nanoTime();
    Result notJvm = fgprof(dir, "attach", Long.toString(sleeper.pid()), "status");
    long notJvmMs = (System.nanoTime() - t0) / 1_000_000;
    boolean sleeperAlive = sleeper.isAlive();
    sleeper.destroy();
    IntegrationTests.check(notJvm.exit == 2 && notJvm.err.contains("is not a HotSpot JVM") && sleeperAlive,
        "not a JVM: " + notJvm + ", still alive: " + sleeperAlive);
    IntegrationTests.check(notJvmMs < REFUSED_MS, "fgprof took " + notJvmMs + " ms to refuse a process that is "
        + "not a JVM");

    /* a kernel thread maps nothing, as an exiting process: told apart at once by its flags */
    String kthread = kernelThread();
    long kthreadMs = -1;
    if (kthread == null) {
      System.out.println("    no kernel thread visible in this pid namespace: that refusal not checked");
    } else {
      t0 = System.nanoTime();
      Result k = fgprof(dir, "attach", kthread, "status");
      kthreadMs = (System.nanoTime() - t0) / 1_000_000;
      IntegrationTests.check(k.exit == 2 && k.err.contains("is a kernel thread"), "kernel thread " + kthread + ": " + k);
      IntegrationTests.check(kthreadMs < REFUSED_MS, "fgprof took " + kthreadMs + " ms to refuse a kernel thread");
    }

    t0 = System.nanoTime();
    Result disabled = fgprof(dir, "attach", Long.toString(closed.pid()), "status");
    long disabledMs = (System.nanoTime() - t0) / 1_000_000;
    IntegrationTests.check(disabled.exit == 2 && disabled.err.contains("-XX:+DisableAttachMechanism"),
        "attach disabled: " + disabled);
    IntegrationTests.check(disabledMs < REFUSED_MS, "fgprof took " + disabledMs + " ms to refuse a JVM with attach "
        + "disabled");
    IntegrationTests.check(exitOf(closed) == 0, "the JVM with attach disabled did not exit 0");

    Process jvm = startJvm(jdk, dir, List.of(), "HotMethods", "9");
    String pid = Long.toString(jvm.pid());
    Thread.sleep(1000);
    Result badOption = fgprof(dir, "attach", pid, "start,interval=fast");
    IntegrationTests.check(badOption.exit == 1 && badOption.out.contains("option interval='fast' is not valid"),
        "bad option: " + badOption);
    Result sched = fgprof(dir, "attach", pid, "start,sched");
    IntegrationTests.check(sched.exit == 1 && sched.out.contains("option sched is not available when attaching"),
        "sched at attach: " + sched);
    IntegrationTests.check(new ProcessBuilder("kill", "-STOP", pid).start().waitFor() == 0, "kill -STOP " + pid);
    /* a stop is taken by each thread as it next runs: wait until the kernel says every one stopped */
    String running = "";
    for (int i = 0; i < 200; i++, Thread.sleep(10)) {
      running = "";
      try (var tasks = Files.list(Paths.get("/proc/" + pid + "/task"))) {
        for (Path t : (Iterable<Path>) tasks::iterator) {
          String stat = Files.readString(t.resolve("stat"));
          if (stat.charAt(stat.lastIndexOf(')') + 2) != 'T')
            running += " " + t.getFileName();
        }
      }
      if (running.isEmpty())
        break;
    }
    IntegrationTests.check(running.isEmpty(), "the JVM did not stop: threads" + running + " still not stopped");
    Result late = fgprof(dir, "attach", "--timeout", "1s", pid, "status");
    new ProcessBuilder("kill", "-CONT", pid).start().waitFor();
    IntegrationTests.check(late.exit == 2 && late.err.contains("within 1000 ms"), "stopped JVM: " + late);
    Path copy = Files.createTempDirectory("fgprof-nobody-");
    for (Path f : List.of(fgprof(), IntegrationTests.agent)) {   /* where nobody may read them */
      Files.copy(f, copy.resolve(f.getFileName()));
      copy.resolve(f.getFileName()).toFile().setReadable(true, false);
      copy.resolve(f.getFileName()).toFile().setExecutable(true, false);
    }
    copy.toFile().setReadable(true, false);
    copy.toFile().setExecutable(true, false);
    t0 = System.nanoTime();
    Result other = exec(dir, "runuser", "-u", "nobody", "--", copy.resolve("fgprof").toString(), "attach", pid, "status");
    long otherMs = (System.nanoTime() - t0) / 1_000_000;
    for (Path f : List.of(fgprof(), IntegrationTests.agent))
      Files.delete(copy.resolve(f.getFileName()));
    Files.delete(copy);
    IntegrationTests.check(other.exit == 2 && other.err.contains("belongs to another user"), "another user: " + other);
    IntegrationTests.check(otherMs < REFUSED_MS, "fgprof took " + otherMs + " ms to refuse another user's JVM");
    Result own = fgprof(dir, "attach", pid, "start,file=own.collapsed");
    Result busy = fgprof(dir, "profile", "--duration", "1s", "--file", "mine.collapsed", pid);
    Result ownStop = fgprof(dir, "attach", pid, "stop");
    IntegrationTests.check(own.exit == 0 && busy.exit == 1 && busy.err.contains("another session is running")
        && busy.err.contains("own.collapsed") && ownStop.exit == 0 && Files.exists(dir.resolve("own.collapsed"))
        && !Files.exists(dir.resolve("mine.collapsed")), "profile while the agent already profiles: " + busy
        + "\nthe session's own stop: " + ownStop);
    int exit = exitOf(jvm);
    IntegrationTests.check(exit == 0, "the JVM exited " + exit + " after the refused attaches:\n"
        + Files.readString(dir.resolve("jvm-stderr.log")));
    System.out.println("    refused: no process, not a JVM (" + notJvmMs + " ms), a kernel thread (" + kthreadMs
        + " ms), attach disabled (" + disabledMs
        + " ms), bad option, sched, no answer in 1 s, another user (" + otherMs + " ms), profile while already "
        + "profiling");
  }
}
