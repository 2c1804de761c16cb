import java.util.List;
import java.util.Map;

/**
 * Integration tests of the walker's truth: stacks it recovers where AsyncGetCallTrace fails
 * keep every caller, and option verify proves each Java edge against the caller's bytecode.
 * Run by IntegrationTests.
 */
final class WalkerTests {
  private WalkerTests() {}

  /**
   * StringBuilder.delete's arraycopy stub, where raw AsyncGetCallTrace fails on ~98% of
   * samples (unknown_Java): with walker=asgct the recovery pops the stub and attributes the
   * samples to StringBuilder.delete, with the stub as the leaf frame and the recoveries counted.
   */
  static void arraycopyIsAttributedToItsCaller(IntegrationTests.Jdk jdk) throws Exception {
    IntegrationTests.Run r = IntegrationTests.run(jdk, "interval=1ms,threads,walker=asgct,file={dir}/p.collapsed", List.of(), "ArrayCopy", "3");
    r.expectCleanRun();
    Map<String, Long> s = IntegrationTests.collapsed(r.file("p.collapsed"));
    long all = IntegrationTests.sum(s, k -> k.startsWith("[main tid="));
    long delete = IntegrationTests.sum(s, k -> k.startsWith("[main tid=") && IntegrationTests.hasFrame(k, "java/lang/StringBuilder.delete"));
    long failed = IntegrationTests.sum(s, k -> k.startsWith("[main tid=") && k.split(";").length > 1
        && k.split(";")[1].matches("\\[(unknown|not_walkable)_.*\\]"));
    long stub = IntegrationTests.sum(s, k -> k.startsWith("[main tid=") && k.matches(".*;j\\w*arraycopy\\w*$"));
    /* the stub's caller is shift, which delete calls: its inlined frames come from the
     * call's own debug record, not from the code the return address lands in */
    long chain = IntegrationTests.sum(s, k -> k.startsWith("[main tid=") && k.matches(
        ".*;java/lang/AbstractStringBuilder\\.delete;java/lang/AbstractStringBuilder\\.shift;j\\w*arraycopy\\w*$"));
    System.out.printf("    main: %d samples, %.1f%% under StringBuilder.delete, %.2f%% failed, %d end in an "
        + "arraycopy stub, %d of them under delete;shift; summary recovered=%d%n", all, 100.0 * delete / all,
        100.0 * failed / all, stub, chain, r.stat("recovered"));
    IntegrationTests.check(chain >= stub * 0.80, "only " + chain + " of " + stub + " arraycopy samples under delete;shift");
    IntegrationTests.check(all > 1500, "too few samples: " + all);
    IntegrationTests.check(delete >= all * 0.80, "only " + delete + " of " + all + " samples under StringBuilder.delete");
    IntegrationTests.check(failed < all * 0.005, failed + " of " + all + " samples are failure frames");
    IntegrationTests.check(stub > all / 2 && r.stat("recovered") >= stub, "recovered samples not counted or the stub not shown");
  }

  /**
   * verify: every Java caller->callee edge is checked against the caller's bytecode at its bci
   * (the rules are unit-tested in tests/unit/test_call_site.c). On a workload whose stacks are
   * mostly recovered by fgagent's walker (an arraycopy stub under inlined frames) and on one of
   * inlined calls, at least 99.9% of the edges checked are calls the bytecode can make, and
   * none of the wrong ones is in a stack fgagent recovered.
   */
  static void verifyProvesEveryEdge(IntegrationTests.Jdk jdk) throws Exception {
    for (String[] w : new String[][] {{"ArrayCopy", "2"}, {"Inlining", "2"}}) {
      IntegrationTests.Run r = IntegrationTests.run(jdk, "interval=1ms,verify,file={dir}/p.collapsed", List.of(), w);
      r.expectCleanRun();
      long edges = r.stat("verify"), checked = r.numberBefore("checked against the caller's bytecode");
      long calls = r.numberBefore("invokes of the callee"), wrong = r.stat("wrong edges");
      long wrongRecovered = r.numberBefore("of them in recovered stacks");
      long recovered = r.stderr().contains("recovered:") ? r.stat("recovered") : 0;
      System.out.printf("    %s: %d edges, %d checked, %d invokes of the callee, %d wrong (%d in recovered stacks); "
          + "recovered samples %d%n", w[0], edges, checked, calls, wrong, wrongRecovered, recovered);
      IntegrationTests.check(checked > 2000 && checked >= edges * 0.99, "only " + checked + " of " + edges + " edges checked");
      IntegrationTests.check(wrong * 1000 <= checked, wrong + " wrong edges of " + checked + ":\n" + r.stderr());
      IntegrationTests.check(wrongRecovered == 0, "wrong edges in recovered stacks:\n" + r.stderr());
      if (w[0].equals("ArrayCopy")) {   /* the stub sits under shift's invoke of arraycopy, not under delete */
        long stubs = r.numberBefore("arraycopy stubs under a Java caller"), fused = r.numberBefore("of them not at an invoke");
        System.out.printf("    %d arraycopy stubs under a Java caller, %d not at a copy%n", stubs, fused);
        IntegrationTests.check(stubs > 1000 && fused * 100 <= stubs, fused + " of " + stubs + " arraycopy stubs not under a copy");
      }
    }
    IntegrationTests.Run off = IntegrationTests.run(jdk, "interval=1ms,file={dir}/p.collapsed", List.of(), "Inlining", "0.5");
    IntegrationTests.check(!off.stderr().contains("verify:"), "verify reported while off:\n" + off.stderr());
  }

  /**
   * walker=vm (the signal's; the default walker=copy has CopyWalkerTests): fgagent's own walker reads at least 95% of the Java stacks of
   * programs with interpreted, compiled, inlined and stub frames, native calls and deep
   * recursion; failure frames stay under 0.5% of samples; every edge it reports is one the
   * caller's bytecode can make (verify, at most 0.1% wrong); and on ArrayCopy the JDK 25
   * chain delete;shift;arraycopy stub is right in at least 80% of the stub's samples.
   */
  static void vmWalkerReadsTrueStacks(IntegrationTests.Jdk jdk) throws Exception {
    for (String[] w : TRUE_STACK_WORKS) {
      IntegrationTests.Run r = IntegrationTests.run(jdk, "interval=1ms,walker=vm,verify,file={dir}/p.collapsed", List.of(), w);
      r.expectCleanRun();
      long java = r.stat("Java stacks"), own = ownWalks(r);
      System.out.printf("    %s: %d Java stacks, %d read by the vm walker%n", w[0], java, own);
      IntegrationTests.check(own >= java * 0.95, "the vm walker read only " + own + " of " + java + " Java stacks:\n" + r.stderr());
      checkTrueStacks(w[0], r);
    }
    IntegrationTests.Run asgct = IntegrationTests.run(jdk, "interval=1ms,walker=asgct,file={dir}/p.collapsed", List.of(), "Inlining", "0.5");
    asgct.expectCleanRun();
    IntegrationTests.check(asgct.stderr().contains("walker:        asgct; AsyncGetCallTrace walks every stack"),
        "walker=asgct not said in the summary:\n" + asgct.stderr());
  }

  /**
   * Loops whose time goes to stubs and the VM (StubLoops): megamorphic vtable and itable
   * calls, intrinsics, System.nanoTime and C2's allocation slow path, where AsyncGetCallTrace
   * alone fails on up to a third of the samples. With the default walker each loop's samples
   * keep the loop's own method: failure frames under 0.5% of the vtable/itable loops' samples
   * and under 1% of the others', and under 1% of any loop's samples lack the loop method.
   */
  static void stubLoopsKeepTheirMethods(IntegrationTests.Jdk jdk) throws Exception {
    String[] loops = {"megamorphic", "lambdas", "intrinsics", "nanotime", "alloc"};
    String[] args = new String[loops.length + 2];
    args[0] = "StubLoops";
    args[1] = "3";
    System.arraycopy(loops, 0, args, 2, loops.length);
    IntegrationTests.Run r = IntegrationTests.run(jdk, "interval=1ms,threads,file={dir}/p.collapsed", List.of(), args);
    r.expectCleanRun();
    Map<String, Long> s = IntegrationTests.collapsed(r.file("p.collapsed"));
    for (String loop : loops) {
      String root = "[" + loop + " tid=";
      long all = IntegrationTests.sum(s, k -> k.startsWith(root));
      long failed = IntegrationTests.sum(s, k -> k.startsWith(root) && k.matches(".*;\\[(unknown|not_walkable)_\\w+\\](;.*)?"));
      long without = IntegrationTests.sum(s, k -> k.startsWith(root) && !IntegrationTests.hasFrame(k, "StubLoops." + loop));
      System.out.printf("    %s: %d samples, %d failure frames, %d without StubLoops.%s%n", loop, all, failed, without, loop);
      double failBound = loop.equals("megamorphic") || loop.equals("lambdas") ? 0.005 : 0.01;
      IntegrationTests.check(all >= 300, loop + ": too few samples: " + all);
      IntegrationTests.check(failed <= all * failBound, loop + ": " + failed + " of " + all + " samples are failure frames");
      IntegrationTests.check(without <= all * 0.01, loop + ": " + without + " of " + all + " samples lack StubLoops." + loop
          + ", the first of them by count:\n" + s.entrySet().stream()
              .filter(e -> e.getKey().startsWith(root) && !IntegrationTests.hasFrame(e.getKey(), "StubLoops." + loop))
              .sorted((a, b) -> Long.compare(b.getValue(), a.getValue())).limit(8)
              .map(e -> "  " + e.getValue() + " " + e.getKey()).collect(java.util.stream.Collectors.joining("\n")));
    }
  }

  /**
   * Frames deoptimized under a running callee (DeoptStorm: an uncommon trap and a
   * deoptimization for each of 300 copies of a method): HotSpot patches the return address into
   * such a frame to the method's deoptimization handler and keeps the pc it replaced in the
   * frame. Inside Deoptimization::fetch_unroll_info, reached only through that handler,
   * AsyncGetCallTrace gives up (ticks_deopt); the walker reads the kept pc and goes on. So the
   * samples there keep the method being deoptimized and its callers. Before, 48-171 samples there
   * in a run, 96-100% of them lacked the method, on JDK 17 and 25 alike; after, none of 25-213
   * (a dozen runs, some beside two busy loops).
   * Bound: 2% of them and one more; judged when there are 20 or more (how many come varies
   * with the JIT's timing).
   */
  static void deoptimizedFramesKeepTheirCallers(IntegrationTests.Jdk jdk) throws Exception {
    IntegrationTests.Run r = IntegrationTests.run(jdk, "interval=200us,threads,file={dir}/p.collapsed", List.of(),
        "DeoptStorm", "300");
    r.expectCleanRun();
    Map<String, Long> s = IntegrationTests.collapsed(r.file("p.collapsed"));
    String deopt = "Deoptimization::fetch_unroll_info";
    long under = IntegrationTests.sum(s, k -> IntegrationTests.hasFrame(k, deopt));
    long lacking = IntegrationTests.sum(s, k -> IntegrationTests.hasFrame(k, deopt) && !k.contains(";DeoptTemplate."));
    System.out.printf("    %d samples under %s, %d of them without the method deoptimized%n", under, deopt, lacking);
    if (under < 20) {
      System.out.println("    too few to judge on this JDK");
      return;
    }
    IntegrationTests.check(lacking <= under / 50 + 1, lacking + " of " + under + " samples under " + deopt
        + " lack DeoptTemplate's frame, the first of them by count:\n" + s.entrySet().stream()
            .filter(e -> IntegrationTests.hasFrame(e.getKey(), deopt) && !e.getKey().contains(";DeoptTemplate."))
            .sorted((a, b) -> Long.compare(b.getValue(), a.getValue())).limit(8)
            .map(e -> "  " + e.getValue() + " " + e.getKey()).collect(java.util.stream.Collectors.joining("\n")));
  }

  /** The programs whose stacks vmWalkerReadsTrueStacks and CopyWalkerTests check, with their arguments. */
  static final String[][] TRUE_STACK_WORKS = {{"ArrayCopy", "3"}, {"HotMethods", "3"}, {"Deflate", "3"}, {"DeepRecursion", "200", "3"}};

  /**
   * A clean run of one of TRUE_STACK_WORKS with verify: over 1000 samples, under 0.5% of them
   * failure frames, at most 0.1% of the edges wrong, and on ArrayCopy the chain
   * delete;shift;arraycopy stub right in at least 80% of the stub's samples.
   */
  static void checkTrueStacks(String work, IntegrationTests.Run r) throws Exception {
    r.expectCleanRun();
    Map<String, Long> s = IntegrationTests.collapsed(r.file("p.collapsed"));
    long all = IntegrationTests.sum(s, k -> true);
    java.util.function.Predicate<String> failure = k -> k.matches("(.*;)?\\[(unknown|not_walkable)_\\w+\\](;.*)?");
    long failed = IntegrationTests.sum(s, failure);
    long checked = r.numberBefore("checked against the caller's bytecode"), wrong = r.stat("wrong edges");
    System.out.printf("    %s: %d samples, %d failure frames, %d edges checked, %d wrong%n", work, all, failed, checked, wrong);
    IntegrationTests.check(all > 1000, "too few samples: " + all);
    IntegrationTests.check(failed * 200 < all, failed + " of " + all + " samples are failure frames, the first of them:\n"
        + s.entrySet().stream().filter(e -> failure.test(e.getKey())).sorted((a, b) -> Long.compare(b.getValue(), a.getValue()))
            .limit(8).map(e -> "  " + e.getValue() + " " + e.getKey()).collect(java.util.stream.Collectors.joining("\n")));
    IntegrationTests.check(checked > 1000 && wrong * 1000 <= checked, wrong + " wrong edges of " + checked + ":\n" + r.stderr());
    if (work.equals("ArrayCopy")) {
      long stub = IntegrationTests.sum(s, k -> k.matches(".*;j\\w*arraycopy\\w*$"));
      long chain = IntegrationTests.sum(s, k -> k.matches(
          ".*;java/lang/AbstractStringBuilder\\.delete;java/lang/AbstractStringBuilder\\.shift;j\\w*arraycopy\\w*$"));
      System.out.printf("    %d samples end in an arraycopy stub, %d of them under delete;shift%n", stub, chain);
      IntegrationTests.check(stub > all / 2 && chain >= stub * 0.80, "only " + chain + " of " + stub + " arraycopy samples under delete;shift");
    }
  }

  /** "walker: vm; its own walk read N (...)" from the summary. */
  private static long ownWalks(IntegrationTests.Run r) {
    java.util.regex.Matcher m = java.util.regex.Pattern.compile("walker:\\s+vm; its own walk read (\\d+)").matcher(r.stderr());
    IntegrationTests.check(m.find(), "no vm walker line in the summary:\n" + r.stderr());
    return Long.parseLong(m.group(1));
  }

  static final List<IntegrationTests.Named> TESTS = List.of(
      new IntegrationTests.Named("vm_walker_reads_true_stacks", WalkerTests::vmWalkerReadsTrueStacks),
      new IntegrationTests.Named("stub_loops_keep_their_methods", WalkerTests::stubLoopsKeepTheirMethods),
      new IntegrationTests.Named("deoptimized_frames_keep_their_callers", WalkerTests::deoptimizedFramesKeepTheirCallers),
      new IntegrationTests.Named("arraycopy_attributed_to_caller", WalkerTests::arraycopyIsAttributedToItsCaller),
      new IntegrationTests.Named("verify_proves_every_edge", WalkerTests::verifyProvesEveryEdge));
}
