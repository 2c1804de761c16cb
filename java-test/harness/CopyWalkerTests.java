import java.util.List;
import java.util.Map;

/**
 * walker=copy: no signal; each thread's perf_events counters (one a CPU, into a ring a CPU) copy its registers and the top
 * 32 KB of its stack at every sample, and an engine thread walks the copies. The same bounds
 * as the signal handler's walker (WalkerTests, IntegrationTests) on the same programs. Run by
 * IntegrationTests.
 */
final class CopyWalkerTests {
  private CopyWalkerTests() {}

  /** CpuBurn at 1 ms: its samples within 10% of its CPU time over the interval. */
  static void copyWalkerSamplesAtOneMillisecond(IntegrationTests.Jdk jdk) throws Exception {
    IntegrationTests.checkBurnerRate(jdk, "event=cpu,interval=1ms,walker=copy", 1, "3", "no signal, 32 KB stack copies walked off-thread");
  }

  /**
   * Interpreted, compiled, inlined and stub frames, native calls, a recursion 200 deep: the
   * copy's walk holds walker=vm's bounds (WalkerTests.checkTrueStacks: failure frames, verify,
   * the arraycopy stub under a compiled caller; checkAgainstJfr: JFR's samples in the same JVM,
   * with walker=copy) with no
   * AsyncGetCallTrace behind it, with the JIT's default code and again with -XX:UseAVX=2 (so
   * that an AVX-512 host checks the stubs and vector code of an AVX2 one too). The summary says
   * the walker and its walk time, and no handler time (there is no handler).
   */
  static void copyWalkerReadsTrueStacks(IntegrationTests.Jdk jdk) throws Exception {
    for (List<String> jit : List.of(List.<String>of(), List.of("-XX:UseAVX=2"))) {
      System.out.println("    JIT options: " + (jit.isEmpty() ? "(defaults)" : String.join(" ", jit)));
      for (String[] w : WalkerTests.TRUE_STACK_WORKS) {
        IntegrationTests.Run r = IntegrationTests.run(jdk, "interval=1ms,walker=copy,verify,ann,file={dir}/p.collapsed",
            jit, w);
        IntegrationTests.check(r.stderr().contains("walker:        copy; its own walk read every stack")
            && r.stderr().contains("walk time:") && !r.stderr().contains("handler time:"),
            "the summary does not say walker=copy:\n" + r.stderr());
        WalkerTests.checkTrueStacks(jdk, w[0], r);
        WalkerTests.checkAgainstJfr(jdk, "interval=1ms,walker=copy,file={dir}/p.collapsed", jit, w);
      }
    }
  }

  /**
   * Three methods' shares of HotMethods' CPU against what the workload measured of itself:
   * within 3 points each, as with the signal (IntegrationTests.threeHotMethodShares), over 8 s
   * rather than 4. The workload's own measure counts its clock reads into each method's
   * interval, which the samples leave out; the signal's handler time, counted in each
   * interval by its samples, dilutes that, and with no handler the shares lean about a point
   * further to the method with the most work (alpha +0.0 to +1.3 points in 8 runs on JDK 25,
   * against -1.0 to +0.7 with the signal). One run of 4 s once came 3.1 points off.
   */
  static void copyWalkerHotMethodShares(IntegrationTests.Jdk jdk) throws Exception {
    IntegrationTests.hotMethodShares(jdk, "interval=1ms,walker=copy,threads,file={dir}/p.collapsed", "8");
  }

  /**
   * A recursion 3000 frames deep: deeper than the 32 KB copy holds. The samples the copy cut keep
   * the frames it holds, leaf first, marked [truncated], and the summary counts them as cut where
   * the copy ended; at the first of them the thread is signalled instead (the summary says one
   * thread's stack went deeper than the copy), and from then on its handler walks it whole: the
   * cut samples are the few the rings held by then, and at least 90% of the leaf's samples carry
   * every frame. None is a failure frame.
   */
  static void copyWalkerSignalsAThreadDeeperThanTheCopy(IntegrationTests.Jdk jdk) throws Exception {
    IntegrationTests.Run r = IntegrationTests.run(jdk, "walker=copy,interval=1ms,threads,file={dir}/p.collapsed", List.of(),
        "DeepRecursion", "3000", "2");
    r.expectCleanRun();
    Map<String, Long> s = IntegrationTests.collapsed(r.file("p.collapsed"));
    long deep = 0, truncated = 0, failed = 0, leaf = 0, whole = 0;
    int fewest = Integer.MAX_VALUE;
    for (Map.Entry<String, Long> e : s.entrySet()) {
      if (!e.getKey().startsWith("[deep tid="))
        continue;
      String[] frames = e.getKey().split(";");
      deep += e.getValue();
      if (e.getKey().matches(".*;\\[(unknown|not_walkable)_\\w+\\](;.*)?"))
        failed += e.getValue();
      if (e.getKey().contains("DeepRecursion.leaf")) {
        leaf += e.getValue();
        if (frames.length > 3000 && !e.getKey().contains("[truncated]"))
          whole += e.getValue();
      }
      if (frames.length < 2 || !frames[1].equals("[truncated]"))
        continue;
      truncated += e.getValue();
      int descend = 0;
      for (String f : frames)
        if (f.equals("DeepRecursion.descend"))
          descend++;
      fewest = Math.min(fewest, descend);
    }
    long cut = r.numberBefore("cut where the copy ended");
    long tooDeep = r.numberBefore("whose stack went deeper than the copy");
    System.out.printf("    deep: %d samples, %d cut where the copy ended (%d marked [truncated], at least %d descend "
        + "frames each), %d thread(s) signalled instead; leaf: %d samples, %d with every frame; %d failure frames%n",
        deep, cut, truncated, fewest == Integer.MAX_VALUE ? 0 : fewest, tooDeep, leaf, whole, failed);
    IntegrationTests.check(tooDeep >= 1, "no thread was signalled instead:\n" + r.stderr());
    IntegrationTests.check(cut >= 1 && cut <= 40, cut + " samples cut where the copy ended: the thread was not switched at once");
    IntegrationTests.check(truncated >= cut && fewest >= 100, "the cut samples keep " + fewest + " descend frames, "
        + truncated + " marked for " + cut + " cut");
    IntegrationTests.check(leaf > 1000 && whole >= 0.9 * leaf, "only " + whole + " of " + leaf + " leaf samples kept every frame");
    IntegrationTests.check(failed * 200 < deep, failed + " of " + deep + " samples are failure frames");
  }

  /**
   * 60 threads under an open-file limit of 128: walker=copy's counters, one per thread and
   * CPU, take at most three quarters of fgagent's budget (half the limit), so the threads past
   * that are signalled and walked in their handler instead (the summary says how many). The run
   * is clean, every sample accounted for, and the workers' samples are walked: Work.mix in them,
   * under 1% failure frames.
   */
  static void copyWalkerSignalsThreadsPastHalfTheFileLimit(IntegrationTests.Jdk jdk) throws Exception {
    IntegrationTests.Run r = IntegrationTests.runUnder(List.of("prlimit", "--nofile=128:128", "--"), jdk,
        "walker=copy,interval=1ms,threads,file={dir}/p.collapsed", List.of(), "ManyThreads", "60", "work", "3");
    r.expectCleanRun();
    long signalled = r.numberBefore("threads instead");
    Map<String, Long> s = IntegrationTests.collapsed(r.file("p.collapsed"));
    long workers = IntegrationTests.sum(s, k -> k.startsWith("[many-"));
    long mixed = IntegrationTests.sum(s, k -> k.startsWith("[many-") && k.contains(";Work.mix"));
    long failed = IntegrationTests.sum(s, k -> k.startsWith("[many-") && k.matches(".*;\\[(unknown|not_walkable)_\\w+\\](;.*)?"));
    System.out.printf("    %d threads signalled instead; workers: %d samples, %d in Work.mix, %d failure frames%n",
        signalled, workers, mixed, failed);
    IntegrationTests.check(signalled >= 1, "no thread was signalled past half the file limit:\n" + r.stderr());
    IntegrationTests.check(workers > 100 && mixed * 2 > workers, "only " + mixed + " of " + workers
        + " worker samples in Work.mix");
    IntegrationTests.check(failed * 100 < workers, failed + " of " + workers + " worker samples are failure frames");
  }

  /** The getdents64 path under a directory-listing loop, from the counter's own callchain. */
  static void copyWalkerKeepsKernelFrames(IntegrationTests.Jdk jdk) throws Exception {
    IntegrationTests.Run r = IntegrationTests.run(jdk, "walker=copy,interval=5ms,threads,file={dir}/p.collapsed", List.of(),
        "DirList", "3");
    r.expectCleanRun();
    if (r.stderr().contains("kernel frames off") || r.stderr().contains("kernel frames are named [kernel]")) {
      System.out.println("    SKIP: " + r.stderr().lines().filter(l -> l.contains("kernel frames")).findFirst().orElse(""));
      return;
    }
    Map<String, Long> s = IntegrationTests.collapsed(r.file("p.collapsed"));
    long kernel = IntegrationTests.sum(s, k -> k.startsWith("[lister tid=") && k.contains("_[k]"));
    long getdents = IntegrationTests.sum(s, k -> k.startsWith("[lister tid=") && KernelFrameTests.getdentsPath(k)
        && k.contains(";java/io/UnixFileSystem.list;"));
    System.out.printf("    lister: %d samples with kernel frames, %d in getdents64's path under UnixFileSystem.list%n",
        kernel, getdents);
    IntegrationTests.check(kernel > 100 && getdents * 2 >= kernel, "only " + getdents + " of " + kernel
        + " kernel samples in getdents64's path under UnixFileSystem.list");
  }

  /**
   * A JNI library loaded by a class loader of its own, spun in for 5 ms and unloaded with that
   * loader, 100 times, sampled at 1 ms with walker=copy: the copies are walked after the
   * library may be gone, and reading its code (the leaf has no unwind rows, so the walk reads
   * the call before its return address) must not fault. The JVM exits 0 with every sample
   * accounted for, and the library was really unloaded in at least 90 of the 100 cycles.
   */
  static void copyWalkerSurvivesUnloadedJniLibraries(IntegrationTests.Jdk jdk) throws Exception {
    java.nio.file.Path jni = IntegrationTests.classes.resolveSibling("java-test-jni");
    IntegrationTests.Run r = IntegrationTests.run(jdk, "interval=1ms,walker=copy,threads,file={dir}/p.collapsed", List.of(),
        "UnloadedJni", jni.toString(), "100", "5");
    r.expectCleanRun();
    java.util.regex.Matcher m = java.util.regex.Pattern.compile("cycles 100 unloaded (\\d+)").matcher(r.stdout());
    IntegrationTests.check(m.find(), "the workload did not finish:\n" + r.stdout());
    int unloaded = Integer.parseInt(m.group(1));
    long main = IntegrationTests.sum(IntegrationTests.collapsed(r.file("p.collapsed")), k -> k.startsWith("[main tid="));
    System.out.printf("    %d of 100 cycles unloaded the library; main: %d samples%n", unloaded, main);
    IntegrationTests.check(unloaded >= 90, "the library was unloaded in only " + unloaded + " of 100 cycles");
    IntegrationTests.check(main >= 300, "only " + main + " samples of main for 100 x 5 ms of spinning");
  }

  static final List<IntegrationTests.Named> TESTS = List.of(
      new IntegrationTests.Named("copy_walker_samples_at_1ms", CopyWalkerTests::copyWalkerSamplesAtOneMillisecond),
      new IntegrationTests.Named("copy_walker_reads_true_stacks", CopyWalkerTests::copyWalkerReadsTrueStacks),
      new IntegrationTests.Named("copy_walker_hot_method_shares", CopyWalkerTests::copyWalkerHotMethodShares),
      new IntegrationTests.Named("copy_walker_signals_a_thread_deeper_than_the_copy",
          CopyWalkerTests::copyWalkerSignalsAThreadDeeperThanTheCopy),
      new IntegrationTests.Named("copy_walker_keeps_kernel_frames", CopyWalkerTests::copyWalkerKeepsKernelFrames),
      new IntegrationTests.Named("copy_walker_signals_threads_past_half_the_file_limit",
          CopyWalkerTests::copyWalkerSignalsThreadsPastHalfTheFileLimit),
      new IntegrationTests.Named("copy_walker_survives_unloaded_jni_libraries",
          CopyWalkerTests::copyWalkerSurvivesUnloadedJniLibraries));
}
