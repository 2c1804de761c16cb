import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Kernel frames with event=cpu: the kernel's part of each sample, from the perf counter's own
 * callchain record. Run by IntegrationTests.
 */
final class KernelFrameTests {
  private KernelFrameTests() {}

  /** Whether a collapsed stack has the kernel's getdents64 path, in its order (root first). */
  static boolean getdentsPath(String stack) {
    return stack.matches(".*;__x64_sys_getdents64_\\[k\\];iterate_dir_\\[k\\];[^;]*readdir_\\[k\\](;.*)?");
  }

  /**
   * A thread listing a 2000-entry directory over and over: the share of its samples with kernel
   * frames is within noise of the share of its CPU time the kernel accounted as system time
   * (/proc/thread-self/stat, read by the thread itself; the bound is 4 standard deviations of
   * both proportions, the ticks' and the samples', plus a point); most of those kernel samples
   * are in getdents64's path down to the file system's readdir, under the JDK's native
   * UnixFileSystem.list, with every sample accounted for. With kernel=no: no kernel frame.
   * At 5 ms, not 1 ms: the timer interrupt, the signal's delivery and its return are system time
   * that no sample can see (each sample is taken where that interrupt landed); at 1 ms on this VM
   * they add 5-10 points of system time, at 5 ms about one.
   * Skipped where perf_event_paranoid refuses kernel samples or kallsyms hides addresses.
   */
  static void kernelFramesUnderDirectoryListing(IntegrationTests.Jdk jdk) throws Exception {
    IntegrationTests.Run r = IntegrationTests.run(jdk, "event=cpu,interval=5ms,threads,file={dir}/p.collapsed",
        List.of(), "DirList", "5");
    r.expectCleanRun();
    if (r.stderr().contains("kernel frames off") || r.stderr().contains("kernel frames are named [kernel]")) {
      System.out.println("    SKIP: " + r.stderr().lines().filter(l -> l.contains("kernel frames")).findFirst().orElse(""));
      return;
    }
    IntegrationTests.check(r.stderr().contains("with kernel frames"), "the timer does not record kernel frames:\n" + r.stderr());
    Matcher m = Pattern.compile("THREAD_TICKS lister (\\d+) (\\d+)").matcher(r.stdout());
    IntegrationTests.check(m.find(), "workload printed no CPU ticks");
    double user = Double.parseDouble(m.group(1)), system = Double.parseDouble(m.group(2));
    double truth = system / (user + system);
    Map<String, Long> s = IntegrationTests.collapsed(r.file("p.collapsed"));
    long all = IntegrationTests.sum(s, k -> k.startsWith("[lister tid="));
    long kernel = IntegrationTests.sum(s, k -> k.startsWith("[lister tid=") && k.contains("_[k]"));
    long getdents = IntegrationTests.sum(s, k -> k.startsWith("[lister tid=") && getdentsPath(k)
        && k.contains(";java/io/UnixFileSystem.list;"));
    double seen = (double) kernel / all;
    double sd = Math.sqrt(truth * (1 - truth) / (user + system) + seen * (1 - seen) / all);
    System.out.printf("    lister: %d samples, %.1f%% with kernel frames vs %.1f%% system time (%d ticks, bound %.1f "
        + "points); %d in getdents64 -> iterate_dir -> readdir under UnixFileSystem.list (%.0f%% of the kernel ones)%n",
        all, 100 * seen, 100 * truth, (long) (user + system), 100 * (4 * sd + 0.01), getdents, 100.0 * getdents / kernel);
    IntegrationTests.check(all > 800, "too few lister samples: " + all);
    IntegrationTests.check(Math.abs(seen - truth) <= 4 * sd + 0.01, "kernel share " + seen + " vs system time " + truth);
    IntegrationTests.check(getdents * 2 >= kernel, "only " + getdents + " of " + kernel + " kernel samples in getdents64's path");

    IntegrationTests.Run off = IntegrationTests.run(jdk, "event=cpu,interval=1ms,kernel=no,threads,file={dir}/p.collapsed",
        List.of(), "DirList", "1");
    off.expectCleanRun();
    Map<String, Long> o = IntegrationTests.collapsed(off.file("p.collapsed"));
    long offKernel = IntegrationTests.sum(o, k -> k.contains("_[k]"));
    IntegrationTests.check(offKernel == 0 && !off.stderr().contains("with kernel frames"),
        "kernel=no still has " + offKernel + " samples with kernel frames");
    refusedToAnotherUser(jdk);
  }

  /**
   * The same JVM run as nobody, whom perf_event_paranoid (2 or more) refuses kernel samples:
   * one line says kernel frames are off and why (or, where perf_events is refused altogether,
   * that event=cpu fell back to itimer), every sample is accounted for, none has a kernel frame.
   * Skipped when not root or perf_event_paranoid lets every user sample the kernel.
   */
  static void refusedToAnotherUser(IntegrationTests.Jdk jdk) throws Exception {
    int paranoid = Integer.parseInt(Files.readString(Path.of("/proc/sys/kernel/perf_event_paranoid")).trim());
    if (!System.getProperty("user.name").equals("root") || paranoid < 2) {
      System.out.println("    as nobody: SKIP (not root, or perf_event_paranoid " + paranoid + " < 2)");
      return;
    }
    /* the agent and the classes where nobody may read them: the build tree may be in a private directory */
    Path dir = Files.createTempDirectory(Path.of("/tmp"), "fg-nobody-");
    Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxrwxrwx"));
    List<Path> copies = new ArrayList<>();
    for (Path f : List.of(IntegrationTests.agent, IntegrationTests.classes.resolve("DirList.class"),
        IntegrationTests.classes.resolve("Work.class"))) {
      Path to = dir.resolve(f.getFileName());
      Files.copy(f, to);
      Files.setPosixFilePermissions(to, PosixFilePermissions.fromString("rwxr-xr-x"));
      copies.add(to);
    }
    List<String> cmd = new ArrayList<>(List.of("runuser", "-u", "nobody", "--", jdk.java().toString(),
        "-agentpath:" + dir.resolve(IntegrationTests.agent.getFileName()) + "=event=cpu,interval=5ms,file=" + dir
            + "/p.collapsed", "-cp", dir.toString(), "DirList", "1"));
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).directory(dir.toFile()).start();
    String out = new String(p.getInputStream().readAllBytes());
    IntegrationTests.check(p.waitFor(120, TimeUnit.SECONDS) && p.exitValue() == 0, "as nobody:\n" + out);
    Path collapsed = dir.resolve("p.collapsed");
    long kernel = IntegrationTests.sum(IntegrationTests.collapsed(collapsed), k -> k.contains("_[k]"));
    String notice = out.lines().filter(l -> l.contains("kernel frames off") || l.contains("event=cpu unavailable"))
        .findFirst().orElse("");
    Files.delete(collapsed);
    for (Path f : copies)
      Files.delete(f);
    Files.delete(dir);
    System.out.println("    as nobody (perf_event_paranoid " + paranoid + "): " + notice);
    IntegrationTests.check(notice.contains("perf_event_paranoid=" + paranoid) || notice.contains("event=cpu unavailable"),
        "no notice that kernel frames are off:\n" + out);
    IntegrationTests.check(out.matches("(?s).*accounting:[^\n]*: OK\n.*"), "accounting does not close:\n" + out);
    IntegrationTests.check(kernel == 0, kernel + " samples with kernel frames as nobody");
  }
}
