import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Integration tests of event=wall (and sched): each thread's share of time off the CPU, and
 * threads waiting at a monitor, against what the workload and the JVM measured themselves.
 * Run by IntegrationTests.
 */
final class WallTests {
  private WallTests() {}

  /**
   * 100 x the share of its wall time one of the workload's threads spent off a CPU as its kernel
   * saw it: asleep, or waiting in a run queue. Without a schedstat to read, 100 x (1 - CPU time /
   * wall time), which also counts time a hypervisor took the CPU from a running thread.
   */
  static double offCpuTruth(IntegrationTests.Run r, String thread) {
    Matcher m = Pattern.compile("OFF_CPU " + thread + " (\\d+) (\\d+)").matcher(r.stdout());
    if (m.find())
      return 100.0 * Double.parseDouble(m.group(1)) / Double.parseDouble(m.group(2));
    return cpuClockOffPercent(r, thread);
  }

  /** 100 x (1 - CPU time / wall time) as the workload measured it for one of its threads. */
  static double cpuClockOffPercent(IntegrationTests.Run r, String thread) {
    Matcher m = Pattern.compile("THREAD_TIMES " + thread + " (\\d+) (\\d+)").matcher(r.stdout());
    IntegrationTests.check(m.find(), "no ground truth printed for " + thread);
    return 100.0 * (1 - Double.parseDouble(m.group(1)) / Double.parseDouble(m.group(2)));
  }

  static double schedOffPercent(IntegrationTests.Run r, String thread) {
    Matcher m = Pattern.compile("(?m)^\\s+" + Pattern.quote(thread) + "\\s+\\d+\\s+[0-9.]+\\s+[0-9.]+\\s+([0-9.]+)%")
        .matcher(r.stderr());
    IntegrationTests.check(m.find(), "no sched line for " + thread + ":\n" + r.stderr());
    return Double.parseDouble(m.group(1));
  }

  /**
   * event=wall and sched on one thread that computes half the time and sleeps half, one that
   * only computes and one parked throughout: each thread's off-CPU share is within 5 points of
   * what the thread measured itself (sleeping, and on a busy machine also waiting for a CPU,
   * which wall mode reports as [state=runnable] and sched as off-CPU); the parked thread is
   * counted without being woken. Time a hypervisor takes from a running thread is not off-CPU
   * to its kernel, so not to fgagent either: the truth leaves it out (the CI host has taken
   * 8 points of spin's time and 18 of half's), and the line printed shows it.
   */
  static void wallAndSchedSeeOffCpuTime(IntegrationTests.Jdk jdk) throws Exception {
    IntegrationTests.Run r = IntegrationTests.run(jdk,
        "event=wall,interval=5ms,threads,sched,file={dir}/p.collapsed,file={dir}/p.jfr", List.of(), "ComputeSleep", "4");
    r.expectCleanRun();
    double truth = offCpuTruth(r, "half"), spinTruth = offCpuTruth(r, "spin");
    double taken = cpuClockOffPercent(r, "half") - truth, spinTaken = cpuClockOffPercent(r, "spin") - spinTruth;
    Map<String, Long> s = IntegrationTests.collapsed(r.file("p.collapsed"));
    long half = IntegrationTests.sum(s, k -> k.startsWith("[half tid="));
    long halfOff = IntegrationTests.sum(s, k -> k.startsWith("[half tid=") && !k.endsWith(";[state=running]"));
    long spin = IntegrationTests.sum(s, k -> k.startsWith("[spin tid="));
    long spinOff = IntegrationTests.sum(s, k -> k.startsWith("[spin tid=") && !k.endsWith(";[state=running]"));
    long parked = IntegrationTests.sum(s, k -> k.startsWith("[parked tid=") && k.endsWith(";[state=sleeping]"));
    double wallHalf = 100.0 * halfOff / half, wallSpin = 100.0 * spinOff / spin;
    double schedHalf = schedOffPercent(r, "half"), schedSpin = schedOffPercent(r, "spin");
    long repeats = r.numberBefore("idle threads counted again");
    System.out.printf("    half off-CPU: truth %.1f%%, wall %.1f%% (%d samples), sched %.1f%%; spin: truth %.1f%%, wall "
        + "%.1f%% (%d samples), sched %.1f%%; parked: %d samples; idle repeats %d, signals %d; running but not on a "
        + "CPU by the CPU clock: half %.1f%%, spin %.1f%%%n", truth, wallHalf, half, schedHalf, spinTruth, wallSpin, spin,
        schedSpin, parked, repeats, r.stat("wall sampling"), taken, spinTaken);
    IntegrationTests.check(half > 400 && Math.abs(wallHalf - truth) <= 5,
        "wall mode: half is " + wallHalf + "% off-CPU, truth " + truth);
    IntegrationTests.check(Math.abs(schedHalf - truth) <= 5, "sched: half is " + schedHalf + "% off-CPU, truth " + truth);
    IntegrationTests.check(spin > 400 && Math.abs(wallSpin - spinTruth) <= 5 && Math.abs(schedSpin - spinTruth) <= 5,
        "the spinning thread is " + spinTruth + "% off-CPU by its own clock: wall " + wallSpin + "%, sched " + schedSpin + "%");
    IntegrationTests.check(parked > 400 && repeats >= parked * 0.95, "the parked thread was woken: " + parked + " samples, "
        + repeats + " repeats in all");
    jfrStatesAreTheStacks(s, r.file("p.jfr"));
  }

  /**
   * The .jfr's jdk.ExecutionSample states, read by the JDK: for each thread as many
   * STATE_RUNNABLE events as samples whose state frame says running or runnable, as many
   * STATE_SLEEPING as sleeping or uninterruptible.
   */
  static void jfrStatesAreTheStacks(Map<String, Long> collapsed, java.nio.file.Path jfr) throws Exception {
    Map<String, Long> fromStacks = new java.util.TreeMap<>(), fromJfr = new java.util.TreeMap<>();
    collapsed.forEach((k, v) -> {
      String thread = k.substring(1, k.indexOf(" tid="));
      String state = k.endsWith(";[state=running]") || k.endsWith(";[state=runnable]") ? "STATE_RUNNABLE"
          : k.endsWith(";[state=sleeping]") || k.endsWith(";[state=uninterruptible]") ? "STATE_SLEEPING" : "STATE_UNKNOWN";
      fromStacks.merge(thread + " " + state, v, Long::sum);
    });
    for (jdk.jfr.consumer.RecordedEvent e : JfrTests.samples(jfr))
      fromJfr.merge(e.getThread("sampledThread").getJavaName() + " " + e.getString("state"), 1L, Long::sum);
    System.out.println("    .jfr states: " + fromJfr);
    IntegrationTests.check(fromJfr.equals(fromStacks), "the .jfr's thread states " + fromJfr + ", the stacks' "
        + fromStacks);
  }

  /** A stack in a monitor's queue: JDK 17's EnterI, JDK 25's enter_internal. */
  static final Pattern QUEUED = Pattern.compile(".*;ObjectMonitor::enter;(.*;)?ObjectMonitor::(EnterI|enter_internal);.*");

  /**
   * event=wall on threads contending for one monitor: the share of their samples waiting in the
   * monitor's queue (under critical(), in any state: parked, spinning, or
   * woken and waiting for a CPU) matches the share of their time the JVM counted them blocked on
   * a monitor (thread contention monitoring), within the sample count's noise. On a busy machine
   * both fall (a thread releasing the monitor waits for a CPU after waking the next one).
   */
  static void lockContentionShowsWaiters(IntegrationTests.Jdk jdk) throws Exception {
    IntegrationTests.Run r = IntegrationTests.run(jdk, "event=wall,interval=5ms,threads,file={dir}/p.collapsed",
        List.of(), "LockContention", "4", "3");
    r.expectCleanRun();
    Matcher m = Pattern.compile("CONTENDERS (\\d+) (\\d+)").matcher(r.stdout());
    IntegrationTests.check(m.find(), "workload did not finish: " + r.stdout());
    double truth = 100.0 * Double.parseDouble(m.group(1)) / Double.parseDouble(m.group(2));
    Map<String, Long> s = IntegrationTests.collapsed(r.file("p.collapsed"));
    long all = IntegrationTests.sum(s, k -> k.startsWith("[contender-"));
    long waiting = IntegrationTests.sum(s, k -> k.startsWith("[contender-") && k.contains("LockContention.critical;")
        && QUEUED.matcher(k).matches());
    long parked = IntegrationTests.sum(s, k -> k.startsWith("[contender-") && QUEUED.matcher(k).matches()
        && k.endsWith(";[state=sleeping]"));
    double share = 100.0 * waiting / all, p = waiting / (double) all, sd = 100 * Math.sqrt(p * (1 - p) / all);
    System.out.printf("    contenders: %d samples, %.1f%% queued at the monitor under critical() (%.1f%% "
        + "parked); the JVM counted them blocked %.1f%% of their time%n", all, share, 100.0 * parked / all, truth);
    IntegrationTests.check(all > 1000, "too few samples: " + all);
    IntegrationTests.check(Math.abs(share - truth) <= 4 * sd + 1, "the contenders wait at the monitor in " + share
        + "% of their samples; the JVM counted them blocked " + truth + "% of their time (+- " + (4 * sd + 1) + ")");
  }
}
