import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The default sampler on the shapes of program production has (java-test/workloads/Scale.java),
 * each judged by what the run itself says: the worker threads' own CPU time, the workload's own
 * clock, the summary's accounting. scripts/bench-scale.sh measures the same cases against
 * walker=copy and async-profiler (results/scale.md).
 */
final class ScaleTests {
  private ScaleTests() {}

  /** The failure frames a walk can end in (forte's tick names). */
  static final Pattern FAILED = Pattern.compile(".*\\[(no_Java_frame|no_class_load|GC_active|unknown_not_Java|"
      + "not_walkable_not_Java|unknown_Java|not_walkable_Java|unknown_state|thread_exit|deopt|safepoint|unknown_tick)\\].*");

  static long value(IntegrationTests.Run r, String key) {
    Matcher m = Pattern.compile("(?m)^" + key + " (\\d+)").matcher(r.stdout());
    IntegrationTests.check(m.find(), "the workload did not print " + key + ":\n" + r.stdout() + r.stderr());
    return Long.parseLong(m.group(1));
  }

  /** The samples of the threads whose name starts with prefix, and those of them that failed. */
  static long[] samples(Map<String, Long> s, String prefix) {
    return new long[] {IntegrationTests.sum(s, k -> k.startsWith("[" + prefix)),
        IntegrationTests.sum(s, k -> k.startsWith("[" + prefix) && FAILED.matcher(k).matches())};
  }

  /**
   * 1000 threads alive together, each doing a little work between 5 ms sleeps, half a second
   * each. With a perf_events counter a thread (clock=perf) their samples come to at least 0.85
   * of their own CPU time / 1 ms (walker=copy, its CPUs' rings overrun, kept 0.24-0.37), at most
   * 1% of them lost and 2% failed. The default (clock=auto) keeps such threads, which switch
   * every 0.1 ms, on POSIX CPU timers, which fire only when the kernel's tick finds the thread
   * running: a thread that ends before its timer's first signal leaves its CPU time unsampled
   * (10-15% of it here). The summary must count that time (never signalled), so that what is
   * stored and what is counted lost come to the workers' CPU time / 1 ms; any other loss stays
   * under 1%, failures under 2%. The summary's handler time is no more than the workers' CPU
   * grew by over an unprofiled run, give or take 5% of it: these threads are often switched
   * out inside the handler, and that time is not the handler's.
   */
  static void manyLiveThreadsKeepTheirSamples(IntegrationTests.Jdk jdk) throws Exception {
    IntegrationTests.Run bare = IntegrationTests.run(jdk, null, List.of(), "Scale", "live", "1000", "100");
    IntegrationTests.check(bare.exit() == 0, "the unprofiled run failed:\n" + bare.stderr());
    double bareCpuMs = value(bare, "CPU_NS") / 1e6;
    for (String clock : List.of("clock=perf,", "")) {
      IntegrationTests.Run r = IntegrationTests.run(jdk, clock + "interval=1ms,threads,file={dir}/p.collapsed",
          List.of(), "Scale", "live", "1000", "100");
      r.expectCleanRun();
      long cpu = value(r, "CPU_NS"), taken = r.stat("signals taken"), lost = r.stat("samples lost");
      long unsignalled = r.stderr().contains("never signalled:") ? r.stat("never signalled") : 0;
      long[] s = samples(IntegrationTests.collapsed(r.file("p.collapsed")), "scale-");
      double rate = s[0] / (cpu / 1e6), counted = (s[0] + unsignalled) / (cpu / 1e6);
      System.out.printf("    %s: %d samples for %.0f ms of the workers' CPU: %.3f a ms, %.3f with the %d never "
          + "signalled; %d of %d lost, %d failed%n", clock.isEmpty() ? "default" : "clock=perf", s[0], cpu / 1e6,
          rate, counted, unsignalled, lost, taken, s[1]);
      if (clock.isEmpty()) {
        IntegrationTests.check(counted >= 0.85 && counted <= 1.15, "the workers' samples and the intervals never "
            + "signalled are " + counted + " of their CPU / 1 ms");
        IntegrationTests.check((lost - unsignalled) * 100 <= taken, (lost - unsignalled) + " of " + taken
            + " samples lost, beside those never signalled");
      } else {
        IntegrationTests.check(rate >= 0.85 && rate <= 1.15, "the workers' samples are " + rate + " of their CPU / 1 ms");
        IntegrationTests.check(lost * 100 <= taken, lost + " of " + taken + " samples lost");
      }
      IntegrationTests.check(s[1] * 50 <= s[0], s[1] + " of " + s[0] + " samples failed");
      RobustnessTests.HandlerTime h = RobustnessTests.handlerTime(r);
      double handlerMs = h.msInAll(), grew = cpu / 1e6 - bareCpuMs;
      System.out.printf("    handler time %.2f us a walk, %.0f ms in all; the workers' CPU %.0f ms, unprofiled %.0f ms%n",
          h.usPerWalk(), handlerMs, cpu / 1e6, bareCpuMs);
      IntegrationTests.check(handlerMs <= Math.max(0, grew) + 0.05 * bareCpuMs, "the summary's handler time, "
          + handlerMs + " ms, is more than the workers' CPU grew by (" + grew + " ms of " + bareCpuMs + ")");
    }
  }

  /**
   * Pairs of threads handing a token back and forth for 2 s, a context switch every few
   * microseconds: the default keeps them on POSIX CPU timers, which cost nothing at a switch, so
   * they make at least 2/3 as many handoffs a second as unprofiled; a perf_events counter a
   * thread (clock=perf) made them about 3 times slower on this project's VM (results/scale.md).
   * One run's rate swings by a third with where the scheduler puts the pairs, so three runs of
   * each, interleaved, are compared by their medians. Each profiled run's samples, at the
   * kernel's tick and standing for the intervals since, come to 0.85-1.15 of the threads' own
   * CPU time / 1 ms.
   */
  static void handoffsCostLittle(IntegrationTests.Jdk jdk) throws Exception {
    double[] without = new double[3], with = new double[3];
    for (int i = 0; i < 3; i++) {
      IntegrationTests.Run bare = IntegrationTests.run(jdk, null, List.of(), "Scale", "handoff", "2", "10000000",
          "2000");
      IntegrationTests.check(bare.exit() == 0, "the unprofiled run failed:\n" + bare.stderr());
      without[i] = value(bare, "HANDOFFS") / (double) value(bare, "HANDOFF_MS");
      IntegrationTests.Run r = IntegrationTests.run(jdk, "interval=1ms,threads,file={dir}/p.collapsed", List.of(),
          "Scale", "handoff", "2", "10000000", "2000");
      r.expectCleanRun();
      with[i] = value(r, "HANDOFFS") / (double) value(r, "HANDOFF_MS");
      long cpu = value(r, "CPU_NS");
      long[] s = samples(IntegrationTests.collapsed(r.file("p.collapsed")), "scale-");
      double rate = s[0] / (cpu / 1e6);
      Matcher own = Pattern.compile("fgagent's own threads used ([0-9.]+) s CPU").matcher(r.stderr());
      System.out.printf("    %.1f handoffs a ms profiled, %.1f not; %d samples for %.0f ms of their CPU: %.3f a ms; "
          + "fgagent's threads %s s CPU%n", with[i], without[i], s[0], cpu / 1e6, rate, own.find() ? own.group(1) : "?");
      if (cpu < 500_000_000L) {   /* beside busy processes JDK 17's handoffs crawl: a few ticks' samples */
        System.out.println("    too little CPU to judge the samples by");
        continue;
      }
      IntegrationTests.check(rate >= 0.85 && rate <= 1.15, "the handing threads' samples are " + rate
          + " of their CPU / 1 ms");
      IntegrationTests.check(s[1] * 50 <= s[0], s[1] + " of " + s[0] + " samples failed");
    }
    java.util.Arrays.sort(without);
    java.util.Arrays.sort(with);
    System.out.printf("    medians: %.1f handoffs a ms profiled, %.1f not%n", with[1], without[1]);
    IntegrationTests.check(with[1] * 1.5 >= without[1], "the median run made " + with[1] + " handoffs a ms profiled, "
        + without[1] + " unprofiled");
  }

  /**
   * 3000 threads that end at once: their end costs the profiled run at most twice the unprofiled
   * one's time (plus 300 ms for a busy host); walker=copy's thread end, a full pass over every
   * ring waiting for the registry, took 33-40 times as long.
   */
  static void threadEndsCostLittle(IntegrationTests.Jdk jdk) throws Exception {
    IntegrationTests.Run bare = IntegrationTests.run(jdk, null, List.of(), "Scale", "end", "3000");
    IntegrationTests.check(bare.exit() == 0, "the unprofiled run failed:\n" + bare.stderr());
    IntegrationTests.Run r = IntegrationTests.run(jdk, "interval=1ms,threads,file={dir}/p.collapsed", List.of(),
        "Scale", "end", "3000");
    r.expectCleanRun();
    long without = value(bare, "END_MS"), with = value(r, "END_MS");
    System.out.printf("    3000 threads ended in %d ms profiled, %d ms not%n", with, without);
    IntegrationTests.check(with <= 2 * without + 300, "the threads took " + with + " ms to end, " + without
        + " ms unprofiled");
  }

  /**
   * Threads moving to another CPU every 0.5 ms of their CPU time: their samples come to at least
   * 0.94 of their CPU time / 1 ms. A counter for each CPU (walker=copy) keeps each CPU's part of
   * a period apart and loses it: 0.85-0.92 there.
   */
  static void threadsHoppingCpusKeepTheirSamples(IntegrationTests.Jdk jdk) throws Exception {
    if (Runtime.getRuntime().availableProcessors() < 2) {
      System.out.println("    one CPU: nothing to hop between");
      return;
    }
    String lib = IntegrationTests.classes.resolveSibling("java-test-jni").resolve("libfghop.so").toString();
    IntegrationTests.Run r = IntegrationTests.run(jdk, "interval=1ms,threads,file={dir}/p.collapsed", List.of(),
        "Scale", "hop", "200", "20", lib);
    r.expectCleanRun();
    long cpu = value(r, "CPU_NS");
    long[] s = samples(IntegrationTests.collapsed(r.file("p.collapsed")), "scale-");
    double rate = s[0] / (cpu / 1e6);
    System.out.printf("    %d samples for %.0f ms of the hopping threads' CPU: %.3f a ms%n", s[0], cpu / 1e6, rate);
    IntegrationTests.check(rate >= 0.94 && rate <= 1.1, "the hopping threads' samples are " + rate
        + " of their CPU / 1 ms");
  }

  /**
   * Virtual threads computing between 1 ms sleeps (JDK 21 and later): at most 5% of their carriers'
   * samples fail (walker=copy, which does not walk continuations: 93%), and the leaf they spend
   * their time in is under most of them.
   */
  static void virtualThreadsAreWalked(IntegrationTests.Jdk jdk) throws Exception {
    IntegrationTests.Run r = IntegrationTests.run(jdk, "interval=1ms,threads,file={dir}/p.collapsed", List.of(),
        "Scale", "vt", "1000", "10");
    if (r.exit() == 3 && r.stdout().contains("no virtual threads")) {
      System.out.println("    no virtual threads in this JDK");
      return;
    }
    r.expectCleanRun();
    Map<String, Long> stacks = IntegrationTests.collapsed(r.file("p.collapsed"));
    long[] s = samples(stacks, "ForkJoinPool");
    long hot = IntegrationTests.sum(stacks, k -> k.startsWith("[ForkJoinPool") && IntegrationTests.hasFrame(k, "VtHot.hot"));
    System.out.printf("    carriers: %d samples, %d failed, %d in VtHot.hot%n", s[0], s[1], hot);
    IntegrationTests.check(s[0] >= 500, "only " + s[0] + " samples of the carriers");
    IntegrationTests.check(s[1] * 20 <= s[0], s[1] + " of " + s[0] + " carrier samples failed");
    IntegrationTests.check(hot * 2 >= s[0], "only " + hot + " of " + s[0] + " carrier samples in VtHot.hot");
  }

  /**
   * A class retransformed every 100 ms by a java agent, as APM agents do, its method hot: at most
   * 1% of the thread's samples fail and 95% are in the retransformed method, whose new Method*s
   * each retransformation makes must be named.
   */
  static void retransformedClassesAreNamed(IntegrationTests.Jdk jdk) throws Exception {
    String agentJar = IntegrationTests.classes.resolve("retransformer.jar").toString();
    IntegrationTests.Run r = IntegrationTests.run(jdk, "interval=1ms,threads,file={dir}/p.collapsed",
        List.of("-javaagent:" + agentJar), "Scale", "hot", "3000");
    r.expectCleanRun();
    long done = value(r, "RETRANSFORMED");
    Map<String, Long> stacks = IntegrationTests.collapsed(r.file("p.collapsed"));
    long[] s = samples(stacks, "scale-");
    long hot = IntegrationTests.sum(stacks, k -> k.startsWith("[scale-") && IntegrationTests.hasFrame(k, "ScaleHot.spin"));
    /* ScaleHot is never instantiated: a sample in its constructor is one whose Method* the
     * walker took for the method that had that address before a retransformation freed it */
    long ghost = IntegrationTests.sum(stacks, k -> k.startsWith("[scale-") && IntegrationTests.hasFrame(k, "ScaleHot.<init>"));
    System.out.printf("    %d retransformations; %d samples, %d failed, %d in ScaleHot.spin, %d in its constructor%n", done,
        s[0], s[1], hot, ghost);
    IntegrationTests.check(done >= 10, "the class was retransformed only " + done + " times");
    IntegrationTests.check(ghost == 0, ghost + " samples in ScaleHot.<init>, which never runs");
    IntegrationTests.check(s[1] * 100 <= s[0], s[1] + " of " + s[0] + " samples failed");
    IntegrationTests.check(hot * 100 >= s[0] * 95, "only " + hot + " of " + s[0] + " samples in ScaleHot.spin");
  }

  static final List<IntegrationTests.Named> TESTS = List.of(
      new IntegrationTests.Named("many_live_threads_keep_their_samples", ScaleTests::manyLiveThreadsKeepTheirSamples),
      new IntegrationTests.Named("thread_ends_cost_little", ScaleTests::threadEndsCostLittle),
      new IntegrationTests.Named("handoffs_cost_little", ScaleTests::handoffsCostLittle),
      new IntegrationTests.Named("threads_hopping_cpus_keep_their_samples",
          ScaleTests::threadsHoppingCpusKeepTheirSamples),
      new IntegrationTests.Named("virtual_threads_are_walked", ScaleTests::virtualThreadsAreWalked),
      new IntegrationTests.Named("retransformed_classes_are_named", ScaleTests::retransformedClassesAreNamed));
}
