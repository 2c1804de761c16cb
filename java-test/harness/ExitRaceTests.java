import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.GZIPInputStream;

/**
 * The JVM's exit as an ordinary path: attach commands sent through it, sessions restarted with
 * other options while threads end, a dump that takes longer than fgprof's --timeout. Run by
 * IntegrationTests. FG_EXIT_ROUNDS (environment) sets the rounds of exit_meets_commands (4: alternately one
 * with the session from -agentpath, one attached).
 */
final class ExitRaceTests {
  private ExitRaceTests() {}

  static final List<IntegrationTests.Named> TESTS = List.of(
      new IntegrationTests.Named("exit_meets_commands", ExitRaceTests::exitMeetsCommands),
      new IntegrationTests.Named("restart_options_while_threads_end", ExitRaceTests::restartWhileThreadsEnd),
      new IntegrationTests.Named("dump_outlives_timeout", ExitRaceTests::dumpOutlivesTimeout));

  /** One fgprof attach command sent around the exit, and what came back. */
  record Sent(String command, int session, AttachTests.Result result) {}

  static final int EXIT_MS = 60000;   /* at the latest: the test creates exit-now */

  /** Waits until the JVM printed EXIT_IN (its main began); the time of that, System.nanoTime(). */
  static long mainBegan(Path dir, Process jvm) throws Exception {
    for (int i = 0; i < 3000; i++, Thread.sleep(5))
      if (Files.exists(dir.resolve("jvm-stdout.log")) && Files.readString(dir.resolve("jvm-stdout.log")).contains("EXIT_IN"))
        return System.nanoTime();
    throw new AssertionError("the workload did not start within 15 s");
  }

  /** What a command's result says, or why it is no clear answer. */
  static String outcome(Sent s) {
    AttachTests.Result r = s.result;
    String all = r.out() + r.err();
    if (r.exit() == 0) {
      boolean ok = s.command.startsWith("start") ? r.out().contains("; started (")
          : s.command.equals("dump") ? r.out().contains("dumped, profiling goes on")
          : s.command.equals("stop") ? r.out().contains("stopped; wrote")
          : r.out().startsWith("fgagent: ");
      return ok ? "done" : null;
    }
    if (r.exit() == 1)   /* the agent refused it: another session runs, or none does */
      return r.out().contains("another session is running") || r.out().contains("not profiling; accepted: start first")
          ? "refused" : null;
    if (r.exit() == 3)
      return all.contains("refused, the JVM is exiting") || all.contains("exited before its agent answered")
          || all.contains("has exited") ? "exiting" : null;
    if (r.exit() == 2)   /* the JVM was gone before anything was sent */
      return all.contains("no such process") ? "gone" : null;
    return null;
  }

  /** Whether the gzip file reads to its end. */
  static boolean gzipWhole(Path p) {
    try (InputStream in = new GZIPInputStream(Files.newInputStream(p))) {
      in.transferTo(java.io.OutputStream.nullOutputStream());
      return true;
    } catch (Exception e) {
      return false;
    }
  }

  /**
   * A workload exits when told (a file, exit-now: DestroyJavaVM, or System.exit in every
   * fourth round), 600 ms after two senders began to run fgprof attach start (alloc=0, its own
   * files), dump, stop and status in a loop, which they do until the JVM is gone. Rounds
   * alternate a session from -agentpath (alloc=0) and one started by attach. Required: the JVM
   * exits 0 with no hs_err; each command either completed (rc 0, its line) or was refused with
   * one clear line (another session runs, none runs, the JVM is exiting or gone); every session
   * (the -agentpath one, each start that answered rc 0) has each of its files whole (.jfr by the
   * JDK's jfr summary, .pb.gz by reading it through) and no temporary file is left; the JVM printed
   * exactly one summary per session, each accounting line OK.
   */
  static void exitMeetsCommands(IntegrationTests.Jdk jdk) throws Exception {
    int rounds = Integer.parseInt(System.getenv().getOrDefault("FG_EXIT_ROUNDS", "4"));
    Map<String, Integer> tally = Collections.synchronizedMap(new TreeMap<>());
    for (int round = 0; round < rounds; round++) {
      boolean fromStart = round % 2 == 0, halt = round % 4 == 3;
      Path dir = Files.createTempDirectory(IntegrationTests.runs, "exit-race-");
      List<String> jvmArgs = fromStart ? List.of("-agentpath:" + IntegrationTests.agent + "=alloc=0,file="
          + dir.resolve("a.jfr") + ",file=" + dir.resolve("a.pb.gz")) : List.of();
      Process jvm = AttachTests.startJvm(jdk, dir, jvmArgs, "ExitAt", Integer.toString(EXIT_MS), halt ? "halt" : "return");
      String pid = Long.toString(jvm.pid());
      long began = mainBegan(dir, jvm);
      List<Sent> sent = Collections.synchronizedList(new ArrayList<>());
      AtomicInteger sessions = new AtomicInteger();
      if (!fromStart) {
        int k = sessions.incrementAndGet();
        sent.add(new Sent("start", k, AttachTests.fgprof(dir, "attach", pid, startOf(dir, k))));
      }
      Thread.sleep(Math.max(0, 1000 - (System.nanoTime() - began) / 1000000));   /* samples to write */
      List<Thread> senders = new ArrayList<>();
      for (int s = 0; s < 2; s++) {
        final int first = s * 2;
        Thread t = new Thread(() -> {
          try {
            String[] cycle = {"start", "dump", "stop", "status"};
            for (int i = first; jvm.isAlive(); i++) {
              String c = cycle[i % cycle.length];
              int k = c.equals("start") ? sessions.incrementAndGet() : 0;
              sent.add(new Sent(c, k, AttachTests.fgprof(dir, "attach", pid, c.equals("start") ? startOf(dir, k) : c)));
            }
          } catch (Exception e) {
            throw new RuntimeException(e);
          }
        }, "sender-" + s);
        t.start();
        senders.add(t);
      }
      Thread.sleep(600);
      Files.createFile(dir.resolve("exit-now"));
      int exit = AttachTests.exitOf(jvm);
      for (Thread t : senders)
        t.join(60000);
      String stderr = Files.readString(dir.resolve("jvm-stderr.log"));
      String where = "round " + round + " (" + dir + "): ";
      try (var files = Files.list(dir)) {
        List<String> names = files.map(p -> p.getFileName().toString()).toList();
        IntegrationTests.check(names.stream().noneMatch(n -> n.startsWith("hs_err")), where + "hs_err:\n" + stderr);
        IntegrationTests.check(names.stream().noneMatch(n -> n.contains(".tmp.")), where + "a temporary file is left: "
            + names);
      }
      IntegrationTests.check(exit == 0, where + "the JVM exited " + exit + ":\n" + stderr);
      List<String> outputs = new ArrayList<>();
      if (fromStart) {
        outputs.add("a.jfr");
        outputs.add("a.pb.gz");
      }
      int expected = fromStart ? 1 : 0;
      synchronized (sent) {
        for (Sent s : sent) {
          String o = outcome(s);
          IntegrationTests.check(o != null, where + s.command + " got no clear answer: exit " + s.result.exit() + "\n"
              + s.result.out() + s.result.err());
          tally.merge(s.command + " " + o, 1, Integer::sum);
          /* a first start that raced the exit (JDK 17 loads agents in VMDeath) ends its session at once */
          if (s.command.equals("start") && (o.equals("done") || s.result.out().contains("its files written"))) {
            expected++;
            outputs.add(s.session + ".jfr");
            outputs.add(s.session + "-cpu.pb.gz");
            outputs.add(s.session + "-alloc.pb.gz");
          }
        }
      }
      for (String f : outputs) {
        Path p = dir.resolve(f);
        IntegrationTests.check(Files.isRegularFile(p) && Files.size(p) > 0, where + f + " was not written:\n" + stderr);
        if (f.endsWith(".jfr"))
          AllocLockTests.tool(List.of(jdk.home().resolve("bin/jfr").toString(), "summary", p.toString()));
        else
          IntegrationTests.check(gzipWhole(p), where + f + " is not a whole gzip file");
      }
      int summaries = count(stderr, "fgagent summary");
      IntegrationTests.check(summaries == expected, where + summaries + " summaries for " + expected + " sessions:\n"
          + stderr);
      Matcher m = Pattern.compile("accounting: .*").matcher(stderr);
      int accounted = 0;
      while (m.find()) {
        accounted++;
        IntegrationTests.check(m.group().endsWith(": OK"), where + "accounting not OK: " + m.group());
      }
      IntegrationTests.check(accounted >= expected, where + accounted + " accounting lines for " + expected + " sessions");
      tally.merge("sessions", expected, Integer::sum);
    }
    System.out.println("    " + rounds + " rounds: " + tally);
  }

  static String startOf(Path dir, int k) {
    return "start,event=cpu,interval=1ms,alloc=0,file=" + dir.resolve(k + ".jfr") + ",file=" + dir.resolve(k + "-%e.pb.gz");
  }

  static int count(String text, String what) {
    int n = 0;
    for (int i = text.indexOf(what); i >= 0; i = text.indexOf(what, i + 1))
      n++;
    return n;
  }

  /* Each set differs from the one before in interval, loop, clock or event: what a thread's end reads. */
  static final String[] OPTION_SETS = {"interval=1ms", "interval=7ms,loop=1s", "event=itimer,interval=3ms",
      "clock=posix,interval=2ms", "event=wall,interval=5ms", "event=cpu,interval=1ms,alloc=64k,lock",
      "event=cpu,interval=2ms,alloc=16k,live", "event=cpu,interval=4ms,alloc=32k,live,lock"};

  /**
   * Four threads start and end short threads without pause (about a thousand a second) while
   * fgprof attach starts and stops 30 sessions in a row, each with the next of OPTION_SETS (the
   * options a->opts holds are replaced at each start while ThreadEnd callbacks read them). Each
   * start and stop answers rc 0, each stop writes its file, the JVM exits 0 with no hs_err.
   */
  static void restartWhileThreadsEnd(IntegrationTests.Jdk jdk) throws Exception {
    Path dir = Files.createTempDirectory(IntegrationTests.runs, "restart-ends-");
    Process jvm = AttachTests.startJvm(jdk, dir, List.of(), "ExitAt", "120000", "return", "4");
    String pid = Long.toString(jvm.pid());
    mainBegan(dir, jvm);
    long t0 = System.nanoTime();
    int n = 30;
    for (int i = 0; i < n; i++) {
      String set = OPTION_SETS[i % OPTION_SETS.length], base = "r" + i + (set.contains("loop") ? "-%n" : "");
      String file = dir.resolve(base + (set.contains("alloc") ? ".jfr" : ".collapsed")).toString();
      AttachTests.Result start = AttachTests.fgprof(dir, "attach", pid, "start," + set + ",file=" + file);
      IntegrationTests.check(start.exit() == 0 && start.out().contains("; started ("), "start " + i + ": " + start);
      AttachTests.Result stop = AttachTests.fgprof(dir, "attach", pid, "stop");
      IntegrationTests.check(stop.exit() == 0 && stop.out().contains("stopped; wrote"), "stop " + i + ": " + stop);
      /* written, if empty: a session of a few ms under load may take no sample (loop=: a file an interval, %n) */
      try (var files = Files.list(dir)) {
        String prefix = base.replace("%n", "");
        IntegrationTests.check(files.anyMatch(p -> p.getFileName().toString().startsWith(prefix)),
            "session " + i + " wrote no " + file);
      }
    }
    double secs = (System.nanoTime() - t0) / 1e9;
    jvm.destroy();   /* SIGTERM: the JVM's exit, the agent idle */
    int exit = AttachTests.exitOf(jvm);
    String stderr = Files.readString(dir.resolve("jvm-stderr.log"));
    try (var files = Files.list(dir)) {
      IntegrationTests.check(files.noneMatch(p -> p.getFileName().toString().startsWith("hs_err")), "hs_err:\n" + stderr);
    }
    IntegrationTests.check(exit == 143 || exit == 0, "the JVM exited " + exit + ":\n" + stderr);
    long ended = count(stderr, "fgagent summary");
    IntegrationTests.check(ended == n, ended + " summaries for " + n + " sessions");
    /* each summary names its own session's interval: the options it ran with, not the next one's */
    Matcher m = Pattern.compile("interval asked:\\s+([0-9.]+) ms").matcher(stderr);
    for (int i = 0; i < n; i++) {
      Matcher want = Pattern.compile("interval=([0-9]+)ms").matcher(OPTION_SETS[i % OPTION_SETS.length]);
      IntegrationTests.check(m.find() && want.find() && Double.parseDouble(m.group(1)) == Double.parseDouble(want.group(1)),
          "session " + i + "'s summary does not give its interval " + OPTION_SETS[i % OPTION_SETS.length]);
    }
    Matcher acc = Pattern.compile("accounting: .*").matcher(stderr);
    while (acc.find())
      IntegrationTests.check(acc.group().endsWith(": OK"), "accounting not OK: " + acc.group());
    System.out.printf("    %d sessions started and stopped in %.1f s while short threads ended%n", n, secs);
  }

  /**
   * A session from -agentpath with alloc=0 gathers a large profile for 6 s; fgprof attach
   * --timeout 500ms dump then waits past its timeout for the agent that said it is writing: rc 0,
   * its "dumped" line, and (when the dump took longer than the timeout) one line saying it waits.
   * The dump must take longer than 500 ms here, else the case is not shown. Then stop likewise.
   */
  static void dumpOutlivesTimeout(IntegrationTests.Jdk jdk) throws Exception {
    Path dir = Files.createTempDirectory(IntegrationTests.runs, "dump-timeout-");
    Process jvm = AttachTests.startJvm(jdk, dir, List.of("-agentpath:" + IntegrationTests.agent + "=alloc=0,file="
        + dir.resolve("big.jfr") + ",file=" + dir.resolve("big.pb.gz")), "ExitAt", "60000");
    String pid = Long.toString(jvm.pid());
    mainBegan(dir, jvm);
    Thread.sleep(6000);
    long t0 = System.nanoTime();
    AttachTests.Result dump = AttachTests.fgprof(dir, "attach", "--timeout", "500ms", pid, "dump");
    double dumpS = (System.nanoTime() - t0) / 1e9;
    IntegrationTests.check(dump.exit() == 0 && dump.out().contains("dumped, profiling goes on"), "dump: " + dump);
    IntegrationTests.check(dumpS > 0.5, "the dump took " + dumpS + " s, within the 500 ms timeout: the case is not shown");
    IntegrationTests.check(dump.err().contains("is still writing the profile"), "no line saying fgprof waits: " + dump);
    t0 = System.nanoTime();
    AttachTests.Result stop = AttachTests.fgprof(dir, "attach", "--timeout", "500ms", pid, "stop");
    double stopS = (System.nanoTime() - t0) / 1e9;
    IntegrationTests.check(stop.exit() == 0 && stop.out().contains("stopped; wrote"), "stop: " + stop);
    jvm.destroy();
    AttachTests.exitOf(jvm);
    IntegrationTests.check(gzipWhole(dir.resolve("big.pb.gz")), "big.pb.gz is not whole");
    System.out.printf("    dump %.1f s, stop %.1f s past a 500 ms --timeout; big.jfr %d bytes%n", dumpS, stopS,
        Files.size(dir.resolve("big.jfr")));
  }
}
