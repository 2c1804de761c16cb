import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Comparator;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * fgprof attach against files that lie: a container whose /tmp is an absolute link (resolved
 * inside its root, never on the host), and an attach trigger file planted by another user
 * (reported, never answered with a signal). Registered in AttachTrustTests.TESTS.
 */
final class AttachRootTests {
  private AttachRootTests() {}

  /** The thread dumps a JVM printed (each SIGQUIT that started no attach listener prints one). */
  static long threadDumps(Path log) throws Exception {
    try (Stream<String> lines = Files.lines(log)) {
      return lines.filter(l -> l.startsWith("Full thread dump")).count();
    }
  }

  /**
   * A root for chroot at root, made of bind mounts of /usr (and its lib, lib64 and bin links),
   * /etc, /dev, the JDK and the test classes (at /classes), and a proc; its /tmp left to the
   * caller. Returns the shell commands that mount them, to run in a mount namespace of its own.
   */
  static String fakeRoot(Path root, IntegrationTests.Jdk jdk) throws Exception {
    Path home = jdk.home().toRealPath();
    for (Path p : List.of(root.resolve("usr"), root.resolve("etc"), root.resolve("dev"), root.resolve("proc"),
        root.resolve("classes"), Paths.get(root + home.toString())))
      Files.createDirectories(p);
    for (String[] link : new String[][] {{"lib", "usr/lib"}, {"lib64", "usr/lib64"}, {"bin", "usr/bin"}})
      Files.createSymbolicLink(root.resolve(link[0]), Paths.get(link[1]));
    return "r=" + root + "; mount --rbind /usr $r/usr; mount --rbind /etc $r/etc; mount --rbind /dev $r/dev; "
        + "mount --bind " + home + " $r" + home + "; mount --bind " + IntegrationTests.classes + " $r/classes; "
        + "mount -t proc proc $r/proc; ";
  }

  /**
   * A fake container made with unshare (mount and pid namespaces) and chroot: a root holding
   * bind mounts of /usr, /etc, /dev, the JDK and the test classes, whose /tmp is the absolute
   * link /tmp -> /var/tmp/X; the JVM runs in it as nobody. The same /var/tmp/X exists on the
   * host, empty and open to all, so a path resolved on the host lands there. fgprof profile from
   * the host brings out a profile of the hot thread; the host's /var/tmp/X stays empty; fgprof's
   * directory is in the container's /var/tmp/X; the JVM printed no thread dump.
   */
  static void containerTmpIsALink(IntegrationTests.Jdk jdk) throws Exception {
    if (!AttachTrustTests.root()) {
      System.out.println("    skipped: needs root, to make the namespaces and the chroot");
      return;
    }
    Path dir = Files.createTempDirectory(IntegrationTests.runs, "attach-root-");
    Path root = dir.resolve("root");
    String x = "/var/tmp/fgagent-test-" + UUID.randomUUID().toString().substring(0, 8);
    Path hostX = Paths.get(x), innerX = Paths.get(root + x);
    Files.createDirectories(innerX);
    Files.createDirectories(hostX);
    for (Path p : List.of(innerX, hostX))
      Files.setPosixFilePermissions(p, java.nio.file.attribute.PosixFilePermissions.fromString("rwxrwxrwx"));
    IntegrationTests.check(AttachTests.exec(dir, "chmod", "+t", innerX.toString(), hostX.toString()).exit() == 0,
        "chmod +t");
    Files.createSymbolicLink(root.resolve("tmp"), Paths.get(x));
    String inner = "set -e; " + fakeRoot(root, jdk) + "exec chroot --userspec=65534:65534 " + root + " "
        + jdk.home().toRealPath().resolve("bin/java") + " -cp /classes HotMethods 8";
    Path log = dir.resolve("ns.log");
    Process ns = new ProcessBuilder("unshare", "--mount", "--pid", "--fork", "--mount-proc", "sh", "-c", inner)
        .directory(dir.toFile()).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    try {
      long pid = 0;
      for (int i = 0; i < 100 && pid == 0; i++) {   /* unshare -> java (pid 1 inside, after sh's exec) */
        Thread.sleep(50);
        pid = AttachTrustTests.javaUnder(ns.pid());
      }
      if (pid == 0) {
        ns.waitFor(5, TimeUnit.SECONDS);
        System.out.println("    skipped: no JVM in the fake container (" + Files.readString(log).strip() + ")");
        return;
      }
      IntegrationTests.check(Files.isSymbolicLink(Paths.get("/proc/" + pid + "/root/tmp")),
          "the container's /tmp is no link");
      Thread.sleep(700);
      AttachTests.Result r = AttachTests.fgprof(dir, "profile", "--duration", "2s", "--threads", "--file",
          "c.collapsed", Long.toString(pid));
      /* a file an event (%e): the agent writes each in fgprof's directory there, fgprof copies each out */
      AttachTests.Result each = AttachTests.fgprof(dir, "profile", "--duration", "1s", "--threads", "--event",
          "cpu,alloc", "--file", "e-%e.collapsed", Long.toString(pid));
      List<String> left;
      try (Stream<Path> s = Files.list(innerX.resolve(".fgagent-65534"))) {
        left = s.map(p -> p.getFileName().toString()).filter(n -> n.startsWith("profile-")).toList();
      }
      List<String> onHost, inside;
      try (Stream<Path> s = Files.list(hostX)) {
        onHost = s.map(p -> p.getFileName().toString()).toList();
      }
      try (Stream<Path> s = Files.list(innerX)) {
        inside = s.map(p -> p.getFileName().toString()).toList();
      }
      IntegrationTests.check(ns.waitFor(60, TimeUnit.SECONDS), "the JVM in the fake container did not end");
      long dumps = threadDumps(log);
      IntegrationTests.check(onHost.isEmpty(), "fgprof made " + onHost + " in the host's " + hostX + ": " + r);
      IntegrationTests.check(r.exit() == 0 && r.err().contains("copied the profile out"),
          "profile into the container whose /tmp is a link: " + r + "\n" + Files.readString(log));
      IntegrationTests.check(inside.contains(".fgagent-65534"), "no .fgagent-65534 in the container's " + x + ": "
          + inside);
      IntegrationTests.check(dumps == 0, "the JVM printed " + dumps + " thread dumps");
      long hot = IntegrationTests.sum(IntegrationTests.collapsed(dir.resolve("c.collapsed")),
          k -> k.startsWith("[hot tid="));
      IntegrationTests.check(hot >= 100, "the container's profile has " + hot + " hot samples for 2 s");
      IntegrationTests.check(each.exit() == 0 && Files.exists(dir.resolve("e-cpu.collapsed"))
          && Files.exists(dir.resolve("e-alloc.collapsed")), "profile --event cpu,alloc --file e-%e.collapsed into "
          + "the container: " + each);
      long eachHot = IntegrationTests.sum(IntegrationTests.collapsed(dir.resolve("e-cpu.collapsed")),
          k -> k.startsWith("[hot tid="));
      IntegrationTests.check(eachHot >= 50, "the container's cpu profile by %e has " + eachHot + " hot samples for 1 s");
      IntegrationTests.check(left.isEmpty(), "profiles left in fgprof's directory in the container: " + left);
      System.out.println("    /tmp -> " + x + " inside the root: " + hot + " hot samples brought out, host's " + x
          + " empty, container's holds " + inside + ", 0 thread dumps");
    } finally {
      ns.destroyForcibly();
      ns.waitFor(10, TimeUnit.SECONDS);
      removeTree(hostX);
      removeTree(innerX);   /* the mount points above it are left: emptied by the namespace's end, never walked */
    }
  }

  static void removeTree(Path p) throws Exception {
    if (!Files.exists(p, LinkOption.NOFOLLOW_LINKS))
      return;
    try (Stream<Path> s = Files.walk(p)) {
      for (Path q : s.sorted(Comparator.reverseOrder()).toList())
        Files.deleteIfExists(q);
    }
  }

  /**
   * As root beside another user: user nobody plants .attach_pid<PID> in the working directory of
   * a root JVM (HotSpot ignores a trigger of another user and looks no further, so a signal would
   * only print a thread dump): fgprof says so in one line naming the owner and the place, exit 2,
   * at once. With the planted file in /tmp instead (HotSpot looks in the working directory
   * first), fgprof's own trigger there does the attach. Nothing planted is removed, and the JVM
   * printed no thread dump: no signal answered a planted file. Beside, a second JVM with a
   * trigger of its own user already there (another client's, as jcmd leaves it while it waits)
   * is attached with that file, which is left in place, and prints no thread dump.
   */
  static void plantedTrigger(IntegrationTests.Jdk jdk) throws Exception {
    if (!AttachTrustTests.root()) {
      System.out.println("    skipped: needs root, to be another user beside nobody");
      return;
    }
    Path dir = Files.createTempDirectory(IntegrationTests.runs, "attach-planted-");
    dir.toFile().setWritable(true, false);
    dir.toFile().setExecutable(true, false);
    Process jvm = AttachTests.startJvm(jdk, dir, List.of(), "HotMethods", "6");
    String pid = Long.toString(jvm.pid());
    Path other = Files.createDirectory(dir.resolve("other"));
    Process jvm2 = AttachTests.startJvm(jdk, other, List.of(), "HotMethods", "6");
    String pid2 = Long.toString(jvm2.pid());
    Thread.sleep(1000);
    Path clients = other.resolve(".attach_pid" + pid2);   /* another client's (jcmd's): of the JVM's user */
    Files.createFile(clients);
    AttachTests.Result withClients = AttachTests.fgprof(other, "attach", pid2, "status");
    boolean clientsKept = Files.exists(clients);
    Files.delete(clients);
    Path inCwd = dir.resolve(".attach_pid" + pid), inTmp = Paths.get("/tmp/.attach_pid" + pid);
    IntegrationTests.check(AttachTests.exec(dir, "runuser", "-u", "nobody", "--", "touch", inCwd.toString()).exit()
        == 0, "cannot plant the trigger in the working directory");
    long t0 = System.nanoTime();
    AttachTests.Result planted = AttachTests.fgprof(dir, "attach", "--timeout", "5s", pid, "status");
    long ms = (System.nanoTime() - t0) / 1_000_000;
    boolean kept = Files.exists(inCwd);
    Files.delete(inCwd);
    IntegrationTests.check(AttachTests.exec(dir, "runuser", "-u", "nobody", "--", "touch", inTmp.toString()).exit()
        == 0, "cannot plant the trigger in /tmp");
    AttachTests.Result beside;
    try {
      beside = AttachTests.fgprof(dir, "attach", pid, "status");
      IntegrationTests.check(Files.exists(inTmp), "fgprof removed the trigger planted in /tmp");
    } finally {
      Files.deleteIfExists(inTmp);
    }
    int exit = AttachTests.exitOf(jvm), exit2 = AttachTests.exitOf(jvm2);
    long dumps = threadDumps(dir.resolve("jvm-stdout.log")), dumps2 = threadDumps(other.resolve("jvm-stdout.log"));
    List<String> lines = planted.err().lines().toList();
    IntegrationTests.check(planted.exit() == 2 && lines.size() == 1 && lines.get(0).contains("uid 65534")
        && lines.get(0).contains(inCwd.getFileName() + " in the working directory " + dir)
        && lines.get(0).contains("not signalled"), "trigger planted in the working directory: " + planted);
    IntegrationTests.check(ms < AttachTests.REFUSED_MS, "fgprof took " + ms + " ms to refuse a planted trigger");
    IntegrationTests.check(kept, "fgprof removed the trigger planted in the working directory");
    IntegrationTests.check(beside.exit() == 0 && beside.out().contains("idle"), "beside a trigger planted in /tmp: "
        + beside);
    IntegrationTests.check(!Files.exists(inCwd), "fgprof left its own trigger file");
    IntegrationTests.check(dumps == 0, "the JVM printed " + dumps + " thread dumps");
    IntegrationTests.check(exit == 0, "the JVM exited " + exit);
    IntegrationTests.check(withClients.exit() == 0 && withClients.out().contains("idle") && clientsKept,
        "beside another client's trigger (kept: " + clientsKept + "): " + withClients);
    IntegrationTests.check(dumps2 == 0 && exit2 == 0, "with another client's trigger the JVM printed " + dumps2
        + " thread dumps and exited " + exit2);
    System.out.println("    planted trigger refused in " + ms + " ms (" + lines.get(0).substring(0, 70)
        + "...); the one in /tmp passed by; another client's used and kept; 0 thread dumps");
  }
}
