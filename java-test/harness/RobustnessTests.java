import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Integration tests of what the profiler must never do to the program it
 * profiles: take more than a bounded share of a thread's CPU, whatever the
 * stack, or stop at the smallest interval it accepts. Run by IntegrationTests.
 */
final class RobustnessTests {
  private RobustnessTests() {}

  /** The summary's handler time: its us a walk, ms in all and share of the CPU sampled. */
  record HandlerTime(double usPerWalk, double msInAll, double share) {}

  /** The summary's "handler time: U us per stack walk on average (S s in all, X% of the CPU sampled". */
  static HandlerTime handlerTime(IntegrationTests.Run r) {
    Matcher m = Pattern.compile("handler time: +([0-9.]+) us per stack walk on average \\(([0-9.]+) s in all, "
        + "([0-9.]+)% of the CPU sampled").matcher(r.stderr());
    IntegrationTests.check(m.find(), "no handler time in the summary:\n" + r.stderr());
    return new HandlerTime(Double.parseDouble(m.group(1)), Double.parseDouble(m.group(2)) * 1e3,
        Double.parseDouble(m.group(3)));
  }

  /**
   * A 3000-frame recursion at 1 ms, with default options and with depth=8192: nothing lost
   * (stacks are stored once, a sample is five words; the signals the back-off skipped after the
   * thread's last walk are stored with that walk's sample when the thread ends), and the leaf's
   * samples carry every frame once the thread's walk room has grown (its first few walks are cut
   * and marked).
   */
  static void deepStacksAreKeptWhole(IntegrationTests.Jdk jdk) throws Exception {
    for (String opts : List.of("", "depth=8192,")) {
      IntegrationTests.Run r = IntegrationTests.run(jdk, opts + "interval=1ms,threads,file={dir}/p.collapsed", List.of(),
          "DeepRecursion", "3000", "2");
      r.expectCleanRun();
      long taken = r.stat("signals taken"), lost = r.stat("samples lost");
      long skippedLost = r.numberBefore("(skipped signals of a thread that stored no sample)");
      Map<String, Long> s = IntegrationTests.collapsed(r.file("p.collapsed"));
      long leaf = IntegrationTests.sum(s, k -> k.startsWith("[deep tid=") && k.contains("DeepRecursion.leaf"));
      long whole = IntegrationTests.sum(s, k -> k.startsWith("[deep tid=") && k.contains("DeepRecursion.leaf")
          && k.split(";").length > 3000 && !k.contains("[truncated]"));
      Matcher last = Pattern.compile("\\((\\d+) to their thread's last one, no later one coming\\)").matcher(r.stderr());
      System.out.printf("    %s: taken %d, lost %d; skipped signals stored with their thread's last sample %s; leaf %d "
          + "samples, %d with every frame%n", opts.isEmpty() ? "defaults" : opts, taken, lost,
          last.find() ? last.group(1) : "0", leaf, whole);
      IntegrationTests.check(lost <= taken / 100 && skippedLost == 0, lost + " of " + taken + " samples lost ("
          + skippedLost + " skipped by the back-off)\n" + r.stderr());
      IntegrationTests.check(leaf > 1000 && whole >= 0.9 * leaf,
          "only " + whole + " of " + leaf + " leaf samples kept every frame");
      IntegrationTests.check(r.stat("samples stored") == IntegrationTests.sum(s, k -> true),
          "the profile does not hold every stored sample");
    }
  }

  /**
   * Walks of a 3000-frame stack (150-300 us) in the handler (walker=vm) cost more than 5% of a 200 us interval: the thread
   * skips signals after each, their time credited to the next sample. Without the back-off the
   * walks took most of the thread's CPU (the timer counts the handler's time too). The stack
   * stays well under the 1 ms walk budget even while it runs interpreted on a busy machine, so
   * what is checked here is the back-off alone (at 6000 frames, 1 run in 12 beside two busy
   * loops had its depth halved by the budget, as designed, and the stacks cut).
   */
  static void costlyWalksBackOff(IntegrationTests.Jdk jdk) throws Exception {
    IntegrationTests.Run r = IntegrationTests.run(jdk,
        "interval=200us,walker=vm,depth=4096,threads,file={dir}/p.collapsed", List.of(),
        "DeepRecursion", "3000", "2");
    r.expectCleanRun();
    long skipped = r.numberBefore("signals skipped after walks");
    double share = handlerTime(r).share();
    Map<String, Long> s = IntegrationTests.collapsed(r.file("p.collapsed"));
    long deep = IntegrationTests.sum(s, k -> k.startsWith("[deep tid="));
    long whole = IntegrationTests.sum(s, k -> k.startsWith("[deep tid=") && k.split(";").length > 3000);
    System.out.printf("    %d signals skipped, handler share %.2f%%, deep: %d samples, %d with every frame%n",
        skipped, share, deep, whole);
    IntegrationTests.check(skipped > 0, "no signal was skipped after walks of 3000 frames at 200 us");
    /* 5% for the walks the back-off allows, plus the proof walks timed on the CPU clock */
    IntegrationTests.check(share < 8.0, "the handler took " + share + "% of the CPU sampled");
    IntegrationTests.check(whole >= 0.9 * deep, "only " + whole + " of " + deep + " samples kept every frame\n"
        + r.stderr());
  }

  /** A hello world at the smallest interval accepted finishes, every signal accounted. */
  static void helloAtTheSmallestInterval(IntegrationTests.Jdk jdk) throws Exception {
    IntegrationTests.Run r = IntegrationTests.run(jdk, "interval=200us,file={dir}/p.collapsed", List.of(), "Hello");
    r.expectCleanRun();
    IntegrationTests.check(r.stdout().contains("hello"), "no hello:\n" + r.stdout());
    IntegrationTests.Run low = IntegrationTests.run(jdk, "interval=10us", List.of(), "Hello");
    IntegrationTests.check(low.exit() == 1 && low.stderr().contains("from 200us to 60s"),
        "interval=10us was not refused with the accepted range:\n" + low.stderr());
  }

  /**
   * Thread names cut by the kernel's 15-byte comm and fixed buffers, renamed threads: every
   * text output decodes as strict UTF-8 (a strict JSON parser rejected the speedscope file).
   */
  static void outputsAreValidUtf8(IntegrationTests.Jdk jdk) throws Exception {
    IntegrationTests.Run r = IntegrationTests.run(jdk, "interval=1ms,threads,file={dir}/p.collapsed,"
        + "file={dir}/p.html,file={dir}/p.speedscope.json,file={dir}/p.txt", List.of(), "Utf8Names", "1", "40");
    r.expectCleanRun();
    for (String f : List.of("p.collapsed", "p.html", "p.speedscope.json", "p.txt")) {
      byte[] bytes = Files.readAllBytes(r.file(f));
      try {
        StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
            .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes));
      } catch (CharacterCodingException e) {
        throw new AssertionError(f + " is not valid UTF-8: " + e);
      }
    }
    String collapsed = Files.readString(r.file("p.collapsed"));
    IntegrationTests.check(collapsed.contains("[ww" + "é".repeat(100) + " tid="),
        "the wide thread's whole name is not in the collapsed stacks");
    IntegrationTests.check(collapsed.contains("[renamed-") && collapsed.contains("-é中 tid="),
        "no renamed thread with its whole name");
  }

  /** A log on a full device: the summary is not lost, it goes to stderr with the reason. */
  static void fullLogFallsBackToStderr(IntegrationTests.Jdk jdk) throws Exception {
    IntegrationTests.Run r = IntegrationTests.run(jdk, "interval=1ms,log=/dev/full,file={dir}/p.collapsed",
        List.of(), "Hello");
    r.expectCleanRun();   /* the summary, with its accounting, is on stderr */
    IntegrationTests.check(r.stderr().contains("cannot write the summary to log='/dev/full'"),
        "no word of the full log:\n" + r.stderr());
  }

  /** Two -agentpath for fgagent: the second is refused with a message, the first profiles. */
  static void secondLoadIsRefused(IntegrationTests.Jdk jdk) throws Exception {
    IntegrationTests.Run r = IntegrationTests.run(jdk, "interval=1ms,file={dir}/first.collapsed",
        List.of("-agentpath:" + IntegrationTests.agent + "=file=second.collapsed"), "HotMethods", "1");
    r.expectCleanRun();
    IntegrationTests.check(r.stderr().contains("already loaded in this JVM"), "no refusal:\n" + r.stderr());
    long samples = IntegrationTests.sum(IntegrationTests.collapsed(r.file("first.collapsed")), k -> true);
    IntegrationTests.check(samples > 500, "the first agent's profile has " + samples + " samples");
    IntegrationTests.check(!Files.exists(r.file("second.collapsed")), "the second agent wrote a profile");
  }

  /**
   * 300 threads under an open-file limit of 256, while main writes and reads files: fgagent's
   * counters stay within their budget (half the limit), so every one of the application's round
   * trips works, with clock=perf and with walker=copy; the threads past the budget are not
   * sampled, said on stderr once and counted in the summary; the run is clean. The default
   * (clock=auto) samples every thread: a timer takes no descriptor, and a thread stays on it when
   * a counter would pass the budget. event=wall keeps
   * the /proc files it reads each thread's state from within the same budget (past it, it opens
   * and closes them at each look), and its round trips work too.
   */
  static void descriptorsStayTheApplications(IntegrationTests.Jdk jdk) throws Exception {
    for (String walker : List.of("", "clock=perf,", "walker=copy,", "event=wall,")) {
      IntegrationTests.Run r = IntegrationTests.runUnder(List.of("prlimit", "--nofile=256:256", "--"), jdk,
          walker + "interval=1ms,threads,file={dir}/p.collapsed", List.of(), "FileRoundTrips", "300", "3");
      r.expectCleanRun();
      java.util.regex.Matcher m = java.util.regex.Pattern.compile("round trips ok (\\d+) failed (\\d+)").matcher(r.stdout());
      IntegrationTests.check(m.find(), "the workload did not finish:\n" + r.stdout() + r.stderr());
      long ok = Long.parseLong(m.group(1)), failed = Long.parseLong(m.group(2));
      boolean wall = walker.startsWith("event=wall"), timers = walker.isEmpty();
      long unsampled = wall || timers ? 0 : r.numberBefore("threads given no counter");
      long busy = IntegrationTests.sum(IntegrationTests.collapsed(r.file("p.collapsed")), k -> k.startsWith("[busy-"));
      System.out.printf("    %s: round trips %d ok, %d failed; %d threads not sampled; busy threads' samples %d%n",
          walker.isEmpty() ? "default" : walker.substring(0, walker.length() - 1), ok, failed, unsampled, busy);
      IntegrationTests.check(failed == 0 && ok >= 20, "the application's files failed with " + walker + ": "
          + r.stdout());
      IntegrationTests.check(wall || timers || (unsampled >= 1 && r.stderr().contains("the descriptor budget is spent")),
          "the threads past the budget are not said:\n" + r.stderr());
      if (timers) {   /* clock=auto: a thread's timer takes no descriptor, so every thread is sampled */
        IntegrationTests.check(!r.stderr().contains("threads given no counter"), "threads left unsampled:\n" + r.stderr());
        long onTimers = r.numberBefore("threads on a POSIX CPU timer"), onCounters = r.numberBefore("on a perf_events counter");
        IntegrationTests.check(onTimers + onCounters >= 300, "only " + onTimers + " threads on timers and " + onCounters
            + " on counters at the end:\n" + r.stderr());
      }
      IntegrationTests.check(busy > 200, "only " + busy + " samples of the busy threads that were sampled");
    }
  }

  /**
   * perf_event_open refused altogether (a container's seccomp profile; here a preloaded shim,
   * java-test/jni/noperf.c): the default samples with POSIX CPU timers alone and says so in one
   * line, the burner's samples still its CPU time / 1 ms within 10%; clock=perf falls back to
   * itimer, as event=cpu did before clock= existed.
   */
  static void timersSampleWhenPerfIsRefused(IntegrationTests.Jdk jdk) throws Exception {
    String shim = "LD_PRELOAD=" + IntegrationTests.classes.resolveSibling("java-test-jni").resolve("libnoperf.so");
    IntegrationTests.Run r = IntegrationTests.runUnder(List.of("env", shim), jdk,
        "interval=1ms,threads,file={dir}/p.collapsed", List.of(), "CpuBurn", "2");
    r.expectCleanRun();
    IntegrationTests.check(r.stderr().contains("perf_event_open refused (Permission denied); each thread is sampled by a "
        + "POSIX CPU timer"), "the refusal is not said:\n" + r.stderr());
    IntegrationTests.check(r.stderr().contains("a POSIX CPU timer per thread, firing at the kernel's tick (no counters"),
        "the summary does not name the timers:\n" + r.stderr());
    java.util.regex.Matcher m = java.util.regex.Pattern.compile("THREAD_CPU_NS burner (\\d+)").matcher(r.stdout());
    IntegrationTests.check(m.find(), "workload printed no CPU time");
    double expected = Long.parseLong(m.group(1)) / 1e6;
    long samples = IntegrationTests.sum(IntegrationTests.collapsed(r.file("p.collapsed")), k -> k.startsWith("[burner tid="));
    System.out.printf("    perf_event_open refused: burner %d samples, %.1f expected%n", samples, expected);
    IntegrationTests.check(Math.abs(samples / expected - 1) <= 0.10, "samples/expected = " + samples / expected);
    IntegrationTests.Run perf = IntegrationTests.runUnder(List.of("env", shim), jdk,
        "clock=perf,interval=1ms,file={dir}/p.collapsed", List.of(), "CpuBurn", "0.5");
    perf.expectCleanRun();
    IntegrationTests.check(perf.stderr().contains("falling back to event=itimer"), "clock=perf did not fall back to "
        + "itimer:\n" + perf.stderr());
  }


  /**
   * The JVM's JNI checker (-Xcheck:jni) finds no fault in our JNI use: no local reference past
   * the capacity a native frame is granted (JVMTI's GetLoadedClasses and GetAllThreads hand out
   * one reference per class or thread), no call with an exception pending, no bad argument.
   */
  static void checkedJniFindsNoFault(IntegrationTests.Jdk jdk) throws Exception {
    for (String opts : List.of("interval=1ms,alloc,lock,threads,verify,file={dir}/p.jfr",
        "interval=1ms,alloc,live,nativemem,nativelock,file={dir}/p.jfr")) {
      IntegrationTests.Run r = IntegrationTests.run(jdk, opts, List.of("-Xcheck:jni"), "Demo", "2");
      r.expectCleanRun();
      for (String out : List.of(r.stdout(), r.stderr()))
        IntegrationTests.check(!out.contains("WARNING") && !out.contains("FATAL ERROR"),
            "-Xcheck:jni complains with " + opts + ":\n" + out);
    }
  }

  static final List<IntegrationTests.Named> TESTS = List.of(
      new IntegrationTests.Named("checked_jni_finds_no_fault", RobustnessTests::checkedJniFindsNoFault),
      new IntegrationTests.Named("timers_sample_when_perf_is_refused", RobustnessTests::timersSampleWhenPerfIsRefused),
      new IntegrationTests.Named("descriptors_stay_the_applications", RobustnessTests::descriptorsStayTheApplications),
      new IntegrationTests.Named("full_log_falls_back_to_stderr", RobustnessTests::fullLogFallsBackToStderr),
      new IntegrationTests.Named("second_load_is_refused", RobustnessTests::secondLoadIsRefused),
      new IntegrationTests.Named("outputs_are_valid_utf8", RobustnessTests::outputsAreValidUtf8),
      new IntegrationTests.Named("costly_walks_back_off", RobustnessTests::costlyWalksBackOff),
      new IntegrationTests.Named("hello_at_the_smallest_interval", RobustnessTests::helloAtTheSmallestInterval));
}
