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
   * samples to their caller, with the stub as the leaf frame and the recoveries counted: at
   * least 80% of main's samples under deleteLoop, under 0.5% failure frames, at least 99% of
   * the stub's samples under deleteLoop, and verify finds at most 1% of the stubs under a call
   * that cannot reach a copy.
   */
  static void arraycopyIsAttributedToItsCaller(IntegrationTests.Jdk jdk) throws Exception {
    IntegrationTests.Run r = IntegrationTests.run(jdk, "interval=1ms,threads,ann,walker=asgct,verify,file={dir}/p.collapsed",
        List.of(), "ArrayCopy", "3");
    r.expectCleanRun();
    Map<String, Long> s = IntegrationTests.collapsed(r.file("p.collapsed"));
    long all = IntegrationTests.sum(s, k -> k.startsWith("[main tid="));
    long loop = IntegrationTests.sum(s, k -> k.startsWith("[main tid=") && k.contains(";ArrayCopy.deleteLoop"));
    long failed = IntegrationTests.sum(s, k -> k.startsWith("[main tid=") && k.split(";").length > 1
        && k.split(";")[1].matches("\\[(unknown|not_walkable)_.*\\]"));
    long stub = IntegrationTests.sum(s, k -> k.startsWith("[main tid=") && k.matches(".*;j\\w*arraycopy\\w*$"));
    System.out.printf("    main: %d samples, %.1f%% under deleteLoop, %.2f%% failed, %d end in an arraycopy stub; "
        + "summary recovered=%d%n", all, 100.0 * loop / all, 100.0 * failed / all, stub, r.stat("recovered"));
    IntegrationTests.check(all > 1500, "too few samples: " + all);
    IntegrationTests.check(loop >= all * 0.80, "only " + loop + " of " + all + " samples under ArrayCopy.deleteLoop");
    IntegrationTests.check(failed < all * 0.005, failed + " of " + all + " samples are failure frames");
    IntegrationTests.check(stub > all / 2 && r.stat("recovered") >= stub, "recovered samples not counted or the stub not shown");
    /* a recovered stack's frames come from AsyncGetCallTrace, without their kinds: under deleteLoop, at a call that can copy */
    long underLoop = IntegrationTests.sum(s, k -> k.startsWith("[main tid=") && k.matches(".*;j\\w*arraycopy\\w*$")
        && k.contains(";ArrayCopy.deleteLoop"));
    System.out.printf("    %d of the stub's samples under deleteLoop%n", underLoop);
    IntegrationTests.check(underLoop >= stub * 0.99, "only " + underLoop + " of " + stub + " stub samples under deleteLoop");
    checkStubEdges(r);
  }

  /**
   * verify's arraycopy stubs (the summary's "copy stubs" line): over 1000 under a Java caller,
   * at most 1% of those with a bci at no call that can reach a copy; the others under a
   * compiled method named alone, where no debug record names the stub's call (HotSpot has none
   * at a leaf call, and where padding ends the call's block the next record is the next
   * block's).
   */
  static void checkStubEdges(IntegrationTests.Run r) {
    long copies = r.numberBefore("arraycopy stubs under a Java caller"), unreached = r.numberBefore("of them at no call"),
        alone = r.numberBefore("under a compiled method named alone");
    System.out.printf("    verify: %d arraycopy stubs under a Java caller, %d at no call that can reach a copy, %d under "
        + "a compiled method named alone%n", copies, unreached, alone);
    IntegrationTests.check(copies + alone > 1000 && unreached * 100 <= copies, unreached + " of " + copies
        + " arraycopy stubs at no call that can reach a copy (" + alone + " more named alone)");
  }

  /**
   * verify: every Java caller->callee edge is checked against the caller's bytecode at its bci
   * (the rules are unit-tested in tests/unit/test_call_site.c). On a workload whose stacks are
   * mostly recovered by fgagent's walker (an arraycopy stub under inlined frames) and on one of
   * inlined calls, at least 99.9% of the edges checked are calls the bytecode can make, and
   * none of the wrong ones is in a stack fgagent recovered. ArrayCopy runs 3 s: where no record
   * names the stub's call its stacks hold one edge, main's call.
   */
  static void verifyProvesEveryEdge(IntegrationTests.Jdk jdk) throws Exception {
    for (String[] w : new String[][] {{"ArrayCopy", "3"}, {"Inlining", "2"}}) {
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
      if (w[0].equals("ArrayCopy"))   /* the stub sits at a call that can reach a copy */
        checkStubEdges(r);
    }
    IntegrationTests.Run off = IntegrationTests.run(jdk, "interval=1ms,file={dir}/p.collapsed", List.of(), "Inlining", "0.5");
    IntegrationTests.check(!off.stderr().contains("verify:"), "verify reported while off:\n" + off.stderr());
  }

  /**
   * walker=vm (the signal's, the default; walker=copy has CopyWalkerTests): fgagent's own walker
   * reads at least 95% of the Java stacks of programs with interpreted, compiled, inlined and
   * stub frames, native calls and deep recursion, and they hold as checkTrueStacks says (failure
   * frames, verify, the arraycopy stub under a compiled caller) and to JFR's samples in the same
   * JVM (checkAgainstJfr).
   */
  static void vmWalkerReadsTrueStacks(IntegrationTests.Jdk jdk) throws Exception {
    for (String[] w : TRUE_STACK_WORKS) {
      IntegrationTests.Run r = IntegrationTests.run(jdk, "interval=1ms,walker=vm,verify,ann,file={dir}/p.collapsed", List.of(), w);
      r.expectCleanRun();
      long java = r.stat("Java stacks"), own = ownWalks(r);
      System.out.printf("    %s: %d Java stacks, %d read by the vm walker%n", w[0], java, own);
      IntegrationTests.check(own >= java * 0.95, "the vm walker read only " + own + " of " + java + " Java stacks:\n" + r.stderr());
      checkTrueStacks(jdk, w[0], r);
      checkAgainstJfr(jdk, "interval=1ms,walker=vm,file={dir}/p.collapsed", List.of(), w);
    }
    IntegrationTests.Run asgct = IntegrationTests.run(jdk, "interval=1ms,walker=asgct,file={dir}/p.collapsed", List.of(), "Inlining", "0.5");
    asgct.expectCleanRun();
    IntegrationTests.check(asgct.stderr().contains("walker:        asgct; AsyncGetCallTrace walks every stack"),
        "walker=asgct not said in the summary:\n" + asgct.stderr());
  }

  /**
   * Loops whose time goes to stubs and the VM (StubLoops): megamorphic vtable and itable
   * calls, intrinsics, System.nanoTime and C2's allocation slow path, where AsyncGetCallTrace
   * alone fails on up to a third of the samples. With the default walker and walker=copy each loop's samples
   * keep the loop's own method: failure frames under 0.5% of the vtable/itable loops' samples
   * and under 1% of the others', and under 1% of any loop's samples lack the loop method.
   */
  static void stubLoopsKeepTheirMethods(IntegrationTests.Jdk jdk) throws Exception {
    String[] loops = {"megamorphic", "lambdas", "intrinsics", "nanotime", "alloc"};
    String[] args = new String[loops.length + 2];
    args[0] = "StubLoops";
    args[1] = "3";
    System.arraycopy(loops, 0, args, 2, loops.length);
    for (String walker : List.of("", "walker=copy,")) {
      System.out.println("    " + (walker.isEmpty() ? "default walker" : "walker=copy"));
      IntegrationTests.Run r = IntegrationTests.run(jdk, walker + "interval=1ms,threads,file={dir}/p.collapsed", List.of(),
          args);
      r.expectCleanRun();
      checkStubLoops(loops, IntegrationTests.collapsed(r.file("p.collapsed")));
    }
  }

  private static void checkStubLoops(String[] loops, Map<String, Long> s) {
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
    IntegrationTests.Run r = IntegrationTests.run(jdk, "interval=200us,threads,lines,file={dir}/p.collapsed", List.of(),
        "DeoptStorm", "300");
    r.expectCleanRun();
    Map<String, Long> s = IntegrationTests.collapsed(r.file("p.collapsed"));
    String deopt = "Deoptimization::fetch_unroll_info";
    long under = IntegrationTests.sum(s, k -> IntegrationTests.hasFrame(k, deopt));
    long lacking = IntegrationTests.sum(s, k -> IntegrationTests.hasFrame(k, deopt) && !k.contains(";DeoptTemplate."));
    /* the method's frame named from the pc the handler replaced, so with its line (a frame
     * named at the handler itself has none) */
    java.util.regex.Pattern lineless = java.util.regex.Pattern.compile(";DeoptTemplate\\.[^;:]*;");
    long noLine = IntegrationTests.sum(s, k -> IntegrationTests.hasFrame(k, deopt) && lineless.matcher(k).find());
    System.out.printf("    %d samples under %s, %d of them without the method deoptimized, %d with it but not its line%n",
        under, deopt, lacking, noLine);
    if (under < 20) {
      System.out.println("    too few to judge on this JDK");
      return;
    }
    IntegrationTests.check(lacking <= under / 50 + 1, lacking + " of " + under + " samples under " + deopt
        + " lack DeoptTemplate's frame, the first of them by count:\n" + s.entrySet().stream()
            .filter(e -> IntegrationTests.hasFrame(e.getKey(), deopt) && !e.getKey().contains(";DeoptTemplate."))
            .sorted((a, b) -> Long.compare(b.getValue(), a.getValue())).limit(8)
            .map(e -> "  " + e.getValue() + " " + e.getKey()).collect(java.util.stream.Collectors.joining("\n")));
    IntegrationTests.check(noLine == 0, noLine + " of " + under + " samples under " + deopt
        + " name DeoptTemplate's frame without its line, the first of them by count:\n" + s.entrySet().stream()
            .filter(e -> IntegrationTests.hasFrame(e.getKey(), deopt) && lineless.matcher(e.getKey()).find())
            .sorted((a, b) -> Long.compare(b.getValue(), a.getValue())).limit(8)
            .map(e -> "  " + e.getValue() + " " + e.getKey()).collect(java.util.stream.Collectors.joining("\n")));
  }

  /**
   * The programs whose stacks vmWalkerReadsTrueStacks and CopyWalkerTests check, with their
   * arguments; the first element of each is the class, SCOPES the prefix of the frames each
   * one's work runs under (a class or a method), where JFR's samples are compared with fgagent's.
   */
  static final String[][] TRUE_STACK_WORKS = {{"ArrayCopy", "3"}, {"HotMethods", "3"}, {"Deflate", "3"}, {"DeepRecursion", "200", "3"}};
  static final Map<String, String> SCOPES = Map.of("HotMethods", "HotMethods.", "DeepRecursion", "DeepRecursion.leaf");

  /**
   * One of TRUE_STACK_WORKS again with JFR's sampler beside fgagent (JfrOracle), where JFR can
   * walk the work's stacks (SCOPES; not ArrayCopy's stub nor Deflate's zlib, where it drops or
   * does not take its samples): fgagent's stacks held to JFR's, the run clean. A run of its
   * own, as JFR's start-up puts Java code of its own into the JVM (its class loading and method
   * handle linkage) that the first run's bounds were not set for.
   */
  static void checkAgainstJfr(IntegrationTests.Jdk jdk, String options, List<String> jvmArgs, String[] work)
      throws Exception {
    if (!SCOPES.containsKey(work[0]))
      return;
    List<String> args = new java.util.ArrayList<>(JfrOracle.JVM_ARGS);
    args.addAll(jvmArgs);
    IntegrationTests.Run r = IntegrationTests.run(jdk, options, args, work);
    r.expectCleanRun();
    long seen = JfrOracle.check(jdk, r, IntegrationTests.collapsed(r.file("p.collapsed")), SCOPES.get(work[0]));
    IntegrationTests.check(seen >= JfrOracle.MIN_SAMPLES, "JFR saw only " + seen + " samples of " + work[0]
        + ": nothing to hold fgagent to");
  }

  /**
   * A clean run of one of TRUE_STACK_WORKS with verify: over 1000 samples, under 0.5% of them
   * failure frames, at most 0.1% of the edges wrong (checkAgainstJfr holds the stacks to JFR's
   * where JFR can walk them). Where it cannot (ArrayCopy's time is in the arraycopy stub, where
   * JFR drops its samples), what holds on every CPU: over half the samples end in an arraycopy stub, at least
   * 99% of them called from a compiled body under deleteLoop (the stub's nearest compiled
   * frame, with only frames inlined into it after it: which callees C2 inlined and which call
   * record it gave the stub is the JIT's, and differs between CPUs), and verify finds at most
   * 1% of them under a call that cannot reach a copy.
   */
  /**
   * With verify the code map reads compiled methods from the code heap, and HotSpot's own
   * CompiledMethodLoad records of the same methods are the oracle: every method the JVM reported
   * (all it compiled, not only the sampled ones) has the same pcs, frames, methods and bcis, and
   * the same code bounds, as fgagent read them. The summary says how many it compared.
   */
  static void checkCodeRecords(IntegrationTests.Run r) {
    long compared = r.numberBefore("compiled methods read from the code heap as well as reported");
    long differ = r.numberBefore("differ"), unread = r.numberBefore("not read");
    System.out.printf("    code records: %d compared with CompiledMethodLoad's, %d differ, %d not read%n", compared,
        differ, unread);
    IntegrationTests.check(r.stderr().contains("compiled methods read from the code heap as samples met them"),
        "the code map does not say it read the code heap:\n" + r.stderr());
    IntegrationTests.check(compared >= 10 && differ == 0 && unread * 20 <= compared,
        differ + " of " + compared + " methods' records differ, " + unread + " not read:\n" + r.stderr());
  }

  static void checkTrueStacks(IntegrationTests.Jdk jdk, String work, IntegrationTests.Run r) throws Exception {
    r.expectCleanRun();
    Map<String, Long> s = IntegrationTests.collapsed(r.file("p.collapsed"));
    long all = IntegrationTests.sum(s, k -> true);
    java.util.function.Predicate<String> failure = k -> k.matches("(.*;)?\\[(unknown|not_walkable)_\\w+\\](;.*)?");
    long failed = IntegrationTests.sum(s, failure);
    long checked = r.numberBefore("checked against the caller's bytecode"), wrong = r.stat("wrong edges");
    System.out.printf("    %s: %d samples, %d failure frames, %d edges checked, %d wrong%n", work, all, failed, checked, wrong);
    IntegrationTests.check(all > 1000, "too few samples: " + all);
    checkCodeRecords(r);
    IntegrationTests.check(failed * 200 < all, failed + " of " + all + " samples are failure frames, the first of them:\n"
        + s.entrySet().stream().filter(e -> failure.test(e.getKey())).sorted((a, b) -> Long.compare(b.getValue(), a.getValue()))
            .limit(8).map(e -> "  " + e.getValue() + " " + e.getKey()).collect(java.util.stream.Collectors.joining("\n")));
    IntegrationTests.check(checked > 1000 && wrong * 1000 <= checked, wrong + " wrong edges of " + checked + ":\n" + r.stderr());
    if (work.equals("ArrayCopy"))
      checkStubUnderItsCompiledCaller(s, r, all);
  }

  /** ArrayCopy (ann frames): the arraycopy stub's samples from a compiled body under deleteLoop, as checkTrueStacks says. */
  static void checkStubUnderItsCompiledCaller(Map<String, Long> s, IntegrationTests.Run r, long all) {
    java.util.function.Predicate<String> stub = k -> k.matches(".*;j\\w*arraycopy\\w*(_\\[\\w\\])?$");
    long stubs = IntegrationTests.sum(s, stub);
    long underBody = IntegrationTests.sum(s, k -> stub.test(k) && underCompiledBody(k, "ArrayCopy.deleteLoop"));
    System.out.printf("    %d samples end in an arraycopy stub, %d of them from a compiled body under deleteLoop%n",
        stubs, underBody);
    IntegrationTests.check(stubs > all / 2 && underBody >= stubs * 0.99, "only " + underBody + " of " + stubs
        + " arraycopy samples from a compiled body under deleteLoop, the first others:\n" + s.entrySet().stream()
            .filter(e -> stub.test(e.getKey()) && !underCompiledBody(e.getKey(), "ArrayCopy.deleteLoop"))
            .sorted((a, b) -> Long.compare(b.getValue(), a.getValue())).limit(6)
            .map(e -> "  " + e.getValue() + " " + e.getKey()).collect(java.util.stream.Collectors.joining("\n")));
    checkStubEdges(r);
  }

  /**
   * Whether the stack's leaf frame (a stub) is called from a compiled method's body under
   * method: the nearest compiled frame (_[j]) to the stub has only frames inlined into it
   * (_[i]) after it, and method is that frame or one of its callers.
   */
  static boolean underCompiledBody(String stack, String method) {
    String[] f = stack.split(";");
    int body = f.length - 2;
    while (body >= 0 && f[body].endsWith("_[i]"))
      body--;
    if (body < 0 || !f[body].endsWith("_[j]"))
      return false;
    for (int i = 0; i <= body; i++)
      if (f[i].startsWith(method + "_["))
        return true;
    return false;
  }

  /**
   * A storm of 20 000 proxy classes, each in a class loader of its own and unloaded (the JVM's
   * own log counts them): the Method* map lets go of their methods with them, at least five a
   * class for 90% of the classes the JVM says it unloaded (equals, hashCode, toString, run and
   * the constructor), so that its memory follows the classes loaded, with the default walker
   * and with walker=copy; the run is clean.
   */
  static void methodMapFollowsClassUnloading(IntegrationTests.Jdk jdk) throws Exception {
    for (String walker : List.of("", "walker=copy,")) {
      IntegrationTests.Run r = IntegrationTests.run(jdk, walker + "interval=1ms,file={dir}/p.collapsed",
          List.of("-Xlog:class+unload=info:file=unload.log"), "ClassLoadStorm", "20000");
      r.expectCleanRun();
      long unloaded = java.nio.file.Files.readAllLines(r.file("unload.log")).stream()
          .filter(l -> l.contains("$Proxy")).count();
      java.util.regex.Matcher m = java.util.regex.Pattern.compile("method map:\\s+(\\d+) methods of the classes "
          + "loaded, (\\d+) let go").matcher(r.stderr());
      IntegrationTests.check(m.find(), "no method map line in the summary:\n" + r.stderr());
      long mapped = Long.parseLong(m.group(1)), gone = Long.parseLong(m.group(2));
      System.out.printf("    %s: the JVM unloaded %d proxy classes; the map let go of %d methods, holds %d%n",
          walker.isEmpty() ? "default" : "walker=copy", unloaded, gone, mapped);
      IntegrationTests.check(unloaded >= 1000, "the JVM unloaded only " + unloaded + " proxy classes: nothing to judge");
      IntegrationTests.check(gone >= unloaded * 5 * 9 / 10, "the map let go of " + gone + " methods for " + unloaded
          + " classes unloaded");
    }
  }

  /**
   * javac compiling this project's Java sources again and again for 6 s (CompileLoop): the JIT
   * compiles, recompiles and frees thousands of methods meanwhile (JDK 17's sweeper: 400-500
   * in the run), and new code takes the place of freed code. The default walker reads at least
   * 97% of its Java stacks itself and under 0.5% of all samples fail. A lookup that took a
   * freed method's entry for the new code's (the freed block's header keeps its compile id)
   * read 91-96% on JDK 17, 98.8-99.6% since (0.05-0.19% failed, both JDKs).
   */
  static void javacIsReadByTheWalker(IntegrationTests.Jdk jdk) throws Exception {
    IntegrationTests.Run r = IntegrationTests.run(jdk, "interval=1ms,threads,file={dir}/p.collapsed", List.of(),
        "CompileLoop", "6", java.nio.file.Path.of("java-test").toAbsolutePath().toString());
    r.expectCleanRun();
    long stacks = r.stat("Java stacks"), own = ownWalks(r), all = r.stat("samples stored"), failed = r.stat("failed walks");
    java.util.regex.Matcher m = java.util.regex.Pattern.compile("code map:\\s+(\\d+) compiled methods read from the "
        + "code heap as samples met them \\(no CompiledMethodLoad\\), (\\d+) swept").matcher(r.stderr());
    IntegrationTests.check(m.find(), "no code map line in the summary:\n" + r.stderr());
    System.out.printf("    %d Java stacks, %d read by the vm walker (%.2f%%); %d of %d samples failed; %s methods read, "
        + "%s swept as freed%n", stacks, own, 100.0 * own / stacks, failed, all, m.group(1), m.group(2));
    IntegrationTests.check(own >= stacks * 0.97, "the vm walker read only " + own + " of " + stacks + " Java stacks:\n"
        + r.stderr());
    IntegrationTests.check(failed * 200 <= all, failed + " of " + all + " samples failed:\n" + r.stderr());
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
      new IntegrationTests.Named("verify_proves_every_edge", WalkerTests::verifyProvesEveryEdge),
      new IntegrationTests.Named("method_map_follows_class_unloading", WalkerTests::methodMapFollowsClassUnloading),
      new IntegrationTests.Named("javac_is_read_by_the_walker", WalkerTests::javacIsReadByTheWalker));
}
