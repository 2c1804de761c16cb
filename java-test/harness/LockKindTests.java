import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import jdk.jfr.consumer.RecordedClass;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordingFile;

/**
 * What lock counts: waits for owned locks (monitors, ReentrantLock, ReentrantReadWriteLock,
 * Semaphore), never waits for events (a CountDownLatch, a Condition, an idle pool); in the agent's
 * profile and in a JDK recording read by fgprof convert alike (java-test/workloads/LockKinds.java).
 * And the agent never runs the application's code: a Thread subclass overriding what it may
 * counts no call (java-test/workloads/OverridingThreads.java). Run by IntegrationTests.
 */
final class LockKindTests {
  private LockKindTests() {}

  static final String[][] OWNED = {   /* the workload's method and key, the lock's class as the leaf frame */
    {"onMonitor", "MONITOR_NS", "java/lang/Object"},
    {"onReentrant", "REENTRANT_NS", "java/util/concurrent/locks/ReentrantLock$NonfairSync"},
    {"onWriteLock", "WRITE_LOCK_NS", "java/util/concurrent/locks/ReentrantReadWriteLock$NonfairSync"},
    {"onSemaphore", "SEMAPHORE_NS", "java/util/concurrent/Semaphore$NonfairSync"},
  };

  /** The waits for events: the workload's methods, and the pool worker's idle wait. */
  static final String[] EVENTS = {"LockKinds.onLatch", "LockKinds.onCondition", "java.util.concurrent.ThreadPoolExecutor.getTask"};

  /** Whether stack holds frame, its frames as the agent or fgprof convert name them (a kind suffix such as _[0]
   * aside, a package with slashes or dots). */
  static boolean has(String stack, String frame) {
    for (String f : stack.split(";"))
      if (f.replaceAll("_\\[.\\]$", "").replace('/', '.').equals(frame))
        return true;
    return false;
  }

  /** Whether stack holds a wait for an event. */
  static boolean eventWait(String stack) {
    for (String e : EVENTS)
      if (has(stack, e))
        return true;
    return false;
  }

  /**
   * Two threads on each owned lock, about 1 ms held a turn, for 2 s: each lock's waits in the
   * profile within 3% (and 2 ms, ThreadMXBean's whole milliseconds) of the JVM's own accounting
   * (ThreadMXBean: the monitor's threads' blocked time, the others' waited time) and no more than its threads timed around their acquisitions
   * (which adds the spinning and preemption between parks), under the lock's class.
   * Three threads waiting 2 s on a CountDownLatch, one in a Condition's awaitNanos and an idle
   * pool's worker: none of it in the profile.
   */
  static void lockCountsOwnedLocksOnly(IntegrationTests.Jdk jdk) throws Exception {
    IntegrationTests.Run r = IntegrationTests.run(jdk, "lock,file={dir}/l.collapsed", List.of(), "LockKinds", "2");
    r.expectCleanRun();
    Map<String, Long> s = IntegrationTests.collapsed(r.file("l.collapsed"));
    for (String[] k : OWNED) {
      long timed = AllocLockTests.value(r, k[1]), jvm = AllocLockTests.value(r, "JVM_" + k[1]);
      long got = IntegrationTests.sum(s, x -> IntegrationTests.hasFrame(x, "LockKinds." + k[0]));
      long leaf = IntegrationTests.sum(s, x -> IntegrationTests.hasFrame(x, "LockKinds." + k[0])
          && x.endsWith(";" + k[2]));
      System.out.printf("    %s: %.0f ms profiled, %.0f ms blocked or parked (ThreadMXBean), %.0f ms timed around "
          + "the acquisitions%n", k[0], got / 1e6, jvm / 1e6, timed / 1e6);
      IntegrationTests.check(jvm >= 20_000_000L, k[0] + ": too little contention to judge: " + jvm + " ns");
      /* ThreadMXBean counts whole milliseconds a thread: up to 1 ms short for each of the two */
      IntegrationTests.check(Math.abs(got - jvm) <= 0.03 * jvm + 2_000_000L, k[0] + ": " + got + " ns profiled, the "
          + "JVM says " + jvm);
      IntegrationTests.check(got <= timed, k[0] + ": " + got + " ns profiled, more than the " + timed
          + " ns its threads spent acquiring it");
      IntegrationTests.check(leaf == got, k[0] + "'s waits do not all end in " + k[2] + ": " + s.keySet());
    }
    long latch = AllocLockTests.value(r, "LATCH_NS"), condition = AllocLockTests.value(r, "CONDITION_NS");
    long events = IntegrationTests.sum(s, LockKindTests::eventWait);
    System.out.printf("    latch %.0f ms and condition %.0f ms waited, %.0f ms of it profiled%n", latch / 1e6,
        condition / 1e6, events / 1e6);
    IntegrationTests.check(latch > 3_000_000_000L && condition > 1_500_000_000L, "the workload waited too little: "
        + latch + " ns on the latch, " + condition + " ns on the condition");
    IntegrationTests.check(events == 0, "waits for events profiled as lock contention: " + s);
  }

  /** fgprof convert's rule for a jdk.ThreadPark (the parked blocker's class), written again here as the oracle. */
  static boolean ownedPark(RecordedClass c) {
    if (c == null)
      return false;
    String n = c.getName();
    return n.startsWith("java.util.concurrent.locks.ReentrantLock$")
        || n.startsWith("java.util.concurrent.locks.ReentrantReadWriteLock$")
        || n.startsWith("java.util.concurrent.Semaphore$");
  }

  static boolean inLatch(RecordedEvent e) {
    if (e.getStackTrace() == null)
      return false;
    for (RecordedFrame f : e.getStackTrace().getFrames())
      if (f.getMethod().getName().equals("onLatch"))
        return true;
    return false;
  }

  /**
   * The JDK's own recording of LockKinds (settings=profile): fgprof convert --event lock keeps
   * every jdk.JavaMonitorEnter and the jdk.ThreadPark events whose parked class is an owned lock's,
   * as the JDK's reader sums them, and none of the latch's parks, which the recording holds.
   */
  static void convertCountsOwnedLocksOnly(IntegrationTests.Jdk jdk) throws Exception {
    IntegrationTests.Run r = IntegrationTests.run(jdk, null, List.of("-XX:StartFlightRecording=filename=rec.jfr,"
        + "settings=profile"), "LockKinds", "2");
    IntegrationTests.check(r.exit() == 0, "the recorded run failed:\n" + r.stderr());
    Path rec = r.file("rec.jfr");
    long want = 0, kept = 0, latchParks = 0, latchNs = 0;
    for (RecordedEvent e : RecordingFile.readAllEvents(rec)) {
      String type = e.getEventType().getName();
      boolean park = type.equals("jdk.ThreadPark");
      if (park && inLatch(e)) {
        latchParks++;
        latchNs += e.getDuration().toNanos();
      }
      if (type.equals("jdk.JavaMonitorEnter") || park && ownedPark(e.getClass("parkedClass"))) {
        want += e.getDuration().toNanos();
        kept++;
      }
    }
    Map<String, Long> s = JfrReadTests.convert(r.dir(), "lock", false, rec, "lock.collapsed");
    long got = IntegrationTests.sum(s, k -> true), events = IntegrationTests.sum(s, LockKindTests::eventWait);
    System.out.printf("    convert: %.0f ms of lock waits, the JDK's reader %.0f ms in %d owned-lock events; the "
        + "recording's %d latch parks (%.0f ms): %.0f ms converted%n", got / 1e6, want / 1e6, kept, latchParks,
        latchNs / 1e6, events / 1e6);
    IntegrationTests.check(latchParks >= 3, "the recording holds " + latchParks + " parks on the latch: nothing to judge");
    IntegrationTests.check(events == 0, "waits for events converted as lock contention: " + s);
    IntegrationTests.check(Math.abs(got - want) <= kept, "fgprof's lock waits " + got + " ns, the JDK's " + want);
    for (String[] k : OWNED)
      IntegrationTests.check(IntegrationTests.sum(s, x -> has(x, "LockKinds." + k[0]) && x.endsWith(";" + k[2])) > 0, "no " + k[0] + " wait on " + k[2] + " converted: " + s.keySet());
  }

  /**
   * Four threads of a Thread subclass overriding getId, getContextClassLoader, toString, hashCode
   * and more, contending for a monitor and a lock whose classes override their Object methods,
   * allocating, for 2 s under interval=1ms, alloc, lock and threads: the overrides are called 0
   * times (the workload's own call after the run counts 1), and the application's own system class
   * loader (CountingLoader) is asked for no JDK class; the same when fgprof attaches to a running
   * JVM, which registers the threads already running.
   */
  static void agentRunsNoApplicationCode(IntegrationTests.Jdk jdk) throws Exception {
    IntegrationTests.Run r = IntegrationTests.run(jdk, "event=cpu,interval=1ms,alloc,lock=0,threads,file={dir}/o-%e.collapsed",
        List.of(LOADER), "OverridingThreads", "4", "2");
    r.expectCleanRun();
    long calls = AllocLockTests.value(r, "OVERRIDE_CALLS"), after = AllocLockTests.value(r, "AFTER_ONE_CALL");
    long loads = AllocLockTests.value(r, "LOADER_CALLS");
    long lock = IntegrationTests.sum(IntegrationTests.collapsed(r.file("o-lock.collapsed")), k -> true);
    long alloc = IntegrationTests.sum(IntegrationTests.collapsed(r.file("o-alloc.collapsed")), k -> true);
    long cpu = IntegrationTests.sum(IntegrationTests.collapsed(r.file("o-cpu.collapsed")), k -> true);
    System.out.printf("    agentpath: %d calls of the overrides (%d with the workload's own); %d CPU samples, %.0f MB "
        + "allocated, %.0f ms of lock waits profiled%n", calls, after, cpu, alloc / 1e6, lock / 1e6);
    IntegrationTests.check(after == calls + 1, "the workload's counter missed its own call: " + calls + ", " + after);
    IntegrationTests.check(cpu > 100 && alloc > 0 && lock > 100_000_000L, "too little profiled to judge: " + cpu
        + " samples, " + alloc + " bytes, " + lock + " ns");
    System.out.printf("    agentpath: the application's system class loader asked for %d JDK classes%n", loads);
    IntegrationTests.check(calls == 0, "the agent called the application's overrides " + calls + " times");
    IntegrationTests.check(loads == 0, "the agent asked the application's class loader for " + loads + " classes");

    Path dir = Files.createTempDirectory(IntegrationTests.runs, "override-attach-");
    Process jvm = AttachTests.startJvm(jdk, dir, List.of(LOADER), "OverridingThreads", "4", "8");
    AttachTests.Result a;
    try {
      Path stdout = dir.resolve("jvm-stdout.log");
      for (int i = 0; i < 300 && !(Files.exists(stdout) && Files.readString(stdout).contains("STARTED")); i++)
        Thread.sleep(100);
      Thread.sleep(500);
      a = AttachTests.fgprof(dir, "profile", "--duration", "1s", "--interval", "1ms", "--event", "cpu,alloc,lock",
          "--threads", "--file", dir.resolve("p-%e.collapsed").toString(), Long.toString(jvm.pid()));
    } finally {
      jvm.getOutputStream().close();
    }
    int exit = AttachTests.exitOf(jvm);
    String out = Files.readString(dir.resolve("jvm-stdout.log"));
    IntegrationTests.check(exit == 0 && a.exit() == 0, "the JVM exited " + exit + ", fgprof: " + a);
    long attached = Long.parseLong(out.replaceAll("(?s).*OVERRIDE_CALLS (\\d+).*", "$1"));
    long attachedLoads = Long.parseLong(out.replaceAll("(?s).*LOADER_CALLS (\\d+).*", "$1"));
    long attachedCpu = IntegrationTests.sum(IntegrationTests.collapsed(dir.resolve("p-cpu.collapsed")), k -> true);
    System.out.printf("    attach: %d calls of the overrides, %d JDK classes asked of the application's loader; %d CPU "
        + "samples%n", attached, attachedLoads, attachedCpu);
    IntegrationTests.check(attachedLoads == 0, "attached, the agent asked the application's class loader for "
        + attachedLoads + " classes");
    IntegrationTests.check(attachedCpu > 50, "the attached session has " + attachedCpu + " CPU samples");
    IntegrationTests.check(attached == 0, "attached, the agent called the application's overrides " + attached
        + " times");
  }

  /**
   * The drainer's java.lang.Thread is made without asking the application's SecurityManager: a
   * JVM whose SecurityManager (SecurityManaged.Counting) counts each of its methods called while a
   * Thread is constructed, and by whom, is attached to and profiled twice (start, stop, start,
   * stop). Required on a JDK that takes a SecurityManager (17): no call from the thread our
   * sessions start on (Attach Listener), while HotSpot's own construction of that thread, made on
   * its Signal Dispatcher, is counted (the counter sees constructions). Before, each session start
   * made 3 calls (getThreadGroup, checkAccess(ThreadGroup), checkAccess(Thread)). On JDK 24 and
   * later no SecurityManager can be installed: the workload must say so.
   */
  static void drainerThreadAsksNoSecurityManager(IntegrationTests.Jdk jdk) throws Exception {
    Path dir = Files.createTempDirectory(IntegrationTests.runs, "security-manager-");
    Process jvm = AttachTests.startJvm(jdk, dir, List.of(), "SecurityManaged", "60");
    Path stdout = dir.resolve("jvm-stdout.log");
    for (int i = 0; i < 300 && !(Files.exists(stdout) && Files.readString(stdout).contains("READY")); i++)
      Thread.sleep(100);
    String pid = Long.toString(jvm.pid());
    List<AttachTests.Result> sent = new java.util.ArrayList<>();
    try {
      for (int round = 0; round < 2; round++) {
        sent.add(AttachTests.fgprof(dir, "attach", pid, "start,file=" + dir.resolve("p" + round + ".collapsed")));
        Thread.sleep(300);
        sent.add(AttachTests.fgprof(dir, "attach", pid, "stop"));
      }
    } finally {
      Files.createFile(dir.resolve("go"));
    }
    int exit = AttachTests.exitOf(jvm);
    String out = Files.readString(stdout);
    IntegrationTests.check(exit == 0 && out.contains("DONE"), "the JVM exited " + exit + ":\n" + out
        + Files.readString(dir.resolve("jvm-stderr.log")));
    for (AttachTests.Result r : sent)
      IntegrationTests.check(r.exit() == 0, "fgprof attach: " + r);
    Map<String, Long> calls = new java.util.TreeMap<>();
    java.util.regex.Matcher line = java.util.regex.Pattern.compile("THREAD_CHECKS(.*)").matcher(out);
    IntegrationTests.check(line.find(), "no THREAD_CHECKS line:\n" + out);
    for (String kv : line.group(1).trim().split(" "))
      if (!kv.isEmpty())
        calls.put(kv.substring(0, kv.indexOf('=')), Long.parseLong(kv.substring(kv.indexOf('=') + 1)));
    if (out.contains("NO_SECURITY_MANAGER")) {
      int feature = Integer.parseInt(AttachTests.exec(dir, jdk.java().toString(), "-version").err()
          .replaceAll("(?s).*version \"(\\d+).*", "$1"));
      IntegrationTests.check(feature >= 24 && calls.isEmpty(), "JDK " + feature + " refused the SecurityManager: "
          + calls);
      System.out.println("    JDK " + feature + " takes no SecurityManager (JEP 486): nothing to ask");
      return;
    }
    long ours = calls.getOrDefault("Attach_Listener", 0L), hotspot = calls.getOrDefault("Signal_Dispatcher", 0L);
    System.out.println("    SecurityManager calls while a Thread was constructed, by thread: " + calls);
    IntegrationTests.check(hotspot > 0, "HotSpot's construction of its Attach Listener was not counted: " + calls);
    IntegrationTests.check(ours == 0 && calls.keySet().stream().allMatch(k -> k.equals("Signal_Dispatcher")),
        "two session starts asked the application's SecurityManager while constructing a thread: " + calls);
  }

  /** The application's own system class loader, which counts what it is asked for. */
  static final String LOADER = "-Djava.system.class.loader=CountingLoader";

  static final List<IntegrationTests.Named> TESTS = List.of(
      new IntegrationTests.Named("lock_counts_owned_locks_only", LockKindTests::lockCountsOwnedLocksOnly),
      new IntegrationTests.Named("convert_counts_owned_locks_only", LockKindTests::convertCountsOwnedLocksOnly),
      new IntegrationTests.Named("agent_runs_no_application_code", LockKindTests::agentRunsNoApplicationCode),
      new IntegrationTests.Named("drainer_thread_asks_no_security_manager",
          LockKindTests::drainerThreadAsksNoSecurityManager));
}
