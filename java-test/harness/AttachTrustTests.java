import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * fgprof attach run as root beside other users, and on JVMs it must find or wait for: a socket
 * planted by another user, a trigger link, a JVM still starting, a second client, a JVM in
 * another mount and pid namespace (a container). Run by IntegrationTests.
 */
final class AttachTrustTests {
  private AttachTrustTests() {}

  static final List<IntegrationTests.Named> TESTS = List.of(
      new IntegrationTests.Named("attach_talks_only_to_the_jvm", AttachTrustTests::talksOnlyToTheJvm),
      new IntegrationTests.Named("attach_early_and_second_client", AttachTrustTests::earlyAndSecondClient),
      new IntegrationTests.Named("attach_into_a_container", AttachTrustTests::intoAContainer),
      new IntegrationTests.Named("attach_container_tmp_is_a_link", AttachRootTests::containerTmpIsALink),
      new IntegrationTests.Named("attach_planted_trigger_not_answered", AttachRootTests::plantedTrigger));

  static boolean root() throws Exception {
    return ((Integer) Files.getAttribute(Paths.get("/proc/self"), "unix:uid")) == 0;
  }

  /** A process of user nobody, running a java-test class; its output read line by line. */
  static Process asNobody(IntegrationTests.Jdk jdk, Path dir, String... mainAndArgs) throws Exception {
    List<String> cmd = new ArrayList<>(List.of("runuser", "-u", "nobody", "--", jdk.java().toString(), "-cp",
        IntegrationTests.classes.toString()));
    cmd.addAll(List.of(mainAndArgs));
    return new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true).start();
  }

  /**
   * As root, beside another user: a listening socket user nobody planted at /tmp/.java_pid<PID>
   * for a JVM whose attach listener has not started is refused by its owner, with nothing
   * connected to it (the planter sees no connection); a link nobody planted as the trigger file
   * in the JVM's working directory is reported and not followed (its target is never created,
   * the JVM not signalled: HotSpot would follow it). With the planted socket and link gone, the
   * same attach works and the JVM exits 0.
   */
  static void talksOnlyToTheJvm(IntegrationTests.Jdk jdk) throws Exception {
    if (!root()) {
      System.out.println("    skipped: needs root, to be another user beside nobody");
      return;
    }
    Path dir = Files.createTempDirectory(IntegrationTests.runs, "attach-trust-");
    dir.toFile().setWritable(true, false);   /* nobody plants its link in the JVM's working directory */
    dir.toFile().setExecutable(true, false);
    Process jvm = AttachTests.startJvm(jdk, dir, List.of(), "HotMethods", "6");
    String pid = Long.toString(jvm.pid());
    Path socket = Paths.get("/tmp/.java_pid" + pid);
    Process planter = asNobody(jdk, dir, "PlantSocket", socket.toString(), "3");
    BufferedReader said = new BufferedReader(new InputStreamReader(planter.getInputStream()));
    String first = said.readLine();
    IntegrationTests.check("PLANTED".equals(first), "the planter did not start: " + first);
    AttachTests.Result spoofed = AttachTests.fgprof(dir, "attach", "--timeout", "2s", pid, "status");
    String verdict = said.readLine();   /* at the end of its 3 s */
    planter.waitFor(10, TimeUnit.SECONDS);
    Files.deleteIfExists(socket);
    IntegrationTests.check(spoofed.exit() == 2 && spoofed.err().contains("belongs to uid 65534")
        && spoofed.err().contains("not to the JVM's user"), "planted socket: " + spoofed);
    IntegrationTests.check(verdict == null || verdict.equals("NONE"), "the planted socket was talked to: " + verdict);

    Path victim = dir.resolve("victim");
    Path trigger = dir.resolve(".attach_pid" + pid);
    IntegrationTests.check(AttachTests.exec(dir, "runuser", "-u", "nobody", "--", "ln", "-s", victim.toString(),
        trigger.toString()).exit() == 0, "cannot plant the trigger link");
    AttachTests.Result linked = AttachTests.fgprof(dir, "attach", pid, "status");
    IntegrationTests.check(linked.exit() == 2 && linked.err().contains("symbolic link of uid 65534"),
        "attach beside the planted link: " + linked);
    IntegrationTests.check(!Files.exists(victim, java.nio.file.LinkOption.NOFOLLOW_LINKS),
        "the trigger link was followed: " + victim + " exists");
    Files.delete(trigger);
    AttachTests.Result real = AttachTests.fgprof(dir, "attach", pid, "status");
    IntegrationTests.check(real.exit() == 0 && real.out().contains("idle"), "attach with the link gone: " + real);
    int exit = AttachTests.exitOf(jvm);
    IntegrationTests.check(exit == 0, "the JVM exited " + exit);
    System.out.println("    planted socket refused (" + spoofed.err().strip() + "), planter saw " + verdict
        + "; planted trigger link refused, not followed; the real attach answered");
  }

  /**
   * An attach right after the JVM is started (no pause: its launcher may not have loaded the
   * JVM yet, its JVMTI may not be live) starts profiling, 3 of 3 times, the client waiting and
   * asking again within --timeout. Then, on one JVM, fgprof profile for 3 s, and a second
   * fgprof profile 1 s into it: the second is refused (exit 1) saying another session runs,
   * writes nothing and stops nothing; the first writes its profile of the hot thread.
   */
  static void earlyAndSecondClient(IntegrationTests.Jdk jdk) throws Exception {
    Path dir = Files.createTempDirectory(IntegrationTests.runs, "attach-early-");
    for (int i = 0; i < 3; i++) {
      Process jvm = AttachTests.startJvm(jdk, dir, List.of(), "HotMethods", "2");
      AttachTests.Result early = AttachTests.fgprof(dir, "attach", Long.toString(jvm.pid()),
          "start,file=early" + i + ".collapsed");
      int exit = AttachTests.exitOf(jvm);
      IntegrationTests.check(early.exit() == 0 && early.out().contains("started ("), "early attach " + i + ": " + early);
      IntegrationTests.check(exit == 0, "the JVM exited " + exit + " after an early attach");
    }
    Process jvm = AttachTests.startJvm(jdk, dir, List.of(), "HotMethods", "9");
    String pid = Long.toString(jvm.pid());
    Thread.sleep(1000);
    List<String> cmd = List.of(AttachTests.fgprof().toString(), "profile", "--duration", "3s", "--threads", "--file",
        "first.collapsed", pid);
    Process first = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true).start();
    Thread.sleep(1000);
    AttachTests.Result second = AttachTests.fgprof(dir, "profile", "--duration", "1s", "--file", "second.collapsed",
        pid);
    IntegrationTests.check(first.waitFor(30, TimeUnit.SECONDS), "the first client did not finish");
    String firstSaid = new String(first.getInputStream().readAllBytes());
    IntegrationTests.check(second.exit() == 1 && second.err().contains("another session is running")
        && !Files.exists(dir.resolve("second.collapsed")), "the second client: " + second);
    IntegrationTests.check(first.exitValue() == 0, "the first client: exit " + first.exitValue() + "\n" + firstSaid);
    Map<String, Long> p = IntegrationTests.collapsed(dir.resolve("first.collapsed"));
    long hot = IntegrationTests.sum(p, k -> k.startsWith("[hot tid="));
    IntegrationTests.check(hot >= 200, "the first session has " + hot + " samples of the hot thread for 3 s");
    int exit = AttachTests.exitOf(jvm);
    IntegrationTests.check(exit == 0, "the JVM exited " + exit);
    System.out.println("    3 of 3 early attaches started; second client refused (" + second.err().lines()
        .filter(l -> l.contains("another session")).findFirst().orElse("").substring(0, 60) + "...); first: " + hot
        + " hot samples");
  }

  /**
   * A JVM in its own mount and pid namespaces with a private /tmp (a container's shape, made with
   * unshare): fgprof reaches it through /proc/PID/root and its namespace pid, copies the agent
   * into its /tmp (the library given lives in a /tmp the JVM cannot see), and fgprof profile
   * brings the profile out to the path asked here, holding the hot thread. Skipped where
   * namespaces cannot be made.
   */
  static void intoAContainer(IntegrationTests.Jdk jdk) throws Exception {
    Path dir = Files.createTempDirectory(IntegrationTests.runs, "attach-container-");
    /* the classes may live under /tmp (a clone there): bound to a place the new /tmp does not hide */
    String inner = "d=/run/fgagent-test-$$; mkdir -p $d && mount --bind " + IntegrationTests.classes
        + " $d && mount -t tmpfs tmpfs /tmp && " + jdk.java() + " -cp $d HotMethods 8; umount $d; rmdir $d; true";
    Process ns = new ProcessBuilder("unshare", "--mount", "--pid", "--fork", "--mount-proc", "sh", "-c", inner)
        .directory(dir.toFile()).redirectErrorStream(true).redirectOutput(dir.resolve("ns.log").toFile()).start();
    long pid = 0;
    for (int i = 0; i < 100 && pid == 0; i++) {   /* unshare -> sh (pid 1 inside) -> java */
      Thread.sleep(50);
      pid = javaUnder(ns.pid());
    }
    if (pid == 0) {
      ns.waitFor(5, TimeUnit.SECONDS);
      System.out.println("    skipped: no JVM in new namespaces (" + Files.readString(dir.resolve("ns.log")).strip()
          + ")");
      ns.destroyForcibly();
      return;
    }
    String status = Files.readString(Paths.get("/proc/" + pid + "/status"));
    String nspid = status.lines().filter(l -> l.startsWith("NSpid:")).findFirst().orElse("NSpid: ?").strip();
    Path lib = Files.createTempDirectory("fgagent-lib-").resolve("libfgagent.so");
    Files.copy(IntegrationTests.agent, lib);
    Thread.sleep(700);
    AttachTests.Result r = AttachTests.fgprof(dir, "profile", "--agent", lib.toString(), "--duration", "2s",
        "--threads", "--file", "c.collapsed", Long.toString(pid));
    Files.delete(lib);
    Files.delete(lib.getParent());
    IntegrationTests.check(ns.waitFor(60, TimeUnit.SECONDS), "the namespaced JVM did not end");
    IntegrationTests.check(r.exit() == 0 && r.err().contains("copied the profile out"), "profile into the container ("
        + nspid + "): " + r);
    long hot = IntegrationTests.sum(IntegrationTests.collapsed(dir.resolve("c.collapsed")),
        k -> k.startsWith("[hot tid="));
    IntegrationTests.check(hot >= 100, "the container's profile has " + hot + " hot samples for 2 s");
    System.out.println("    JVM " + pid + " (" + nspid + ") in its own namespaces: " + hot + " hot samples brought out");
  }

  /** The java process among the descendants of pid, 0 when none yet. */
  static long javaUnder(long pid) {
    return ProcessHandle.of(pid).map(h -> h.descendants().filter(d -> d.info().command().orElse("").endsWith("/java"))
        .mapToLong(ProcessHandle::pid).findFirst().orElse(0)).orElse(0L);
  }
}
