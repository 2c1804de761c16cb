import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardWatchEventKinds;
import java.nio.file.WatchEvent;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * fgprof attach to a process on its way to being a running JVM: a fork yet to exec it, a JVM
 * working for a while in its perf data directory as HotSpot does at start-up. fgprof must judge
 * the JVM where it will be when it takes the signal. Run by IntegrationTests.
 */
final class AttachStartingTests {
  private AttachStartingTests() {}

  static final List<IntegrationTests.Named> TESTS = List.of(
      new IntegrationTests.Named("attach_waits_for_a_fork_to_become_the_jvm", AttachStartingTests::forkBecomesTheJvm),
      new IntegrationTests.Named("attach_waits_out_the_perf_data_directory", AttachStartingTests::perfDataDirectory));

  /**
   * The pid given is a fork yet to exec the JVM that changes, on its way, what HotSpot's attach
   * depends on (`... & fgprof profile $!` in a script): a shell that sleeps, enters another
   * directory and execs java; as root, also one that becomes user nobody first (setpriv), and one
   * in a mount namespace of its own that enters another root (chroot, a container's shape).
   * fgprof waits for the JVM and judges it as it is then: the trigger goes where the JVM works or
   * in its /tmp, the socket is taken as the JVM user's in the JVM's root. No thread dump; the
   * profile holds the hot thread.
   */
  static void forkBecomesTheJvm(IntegrationTests.Jdk jdk) throws Exception {
    Path dir = Files.createTempDirectory(IntegrationTests.runs, "attach-fork-");
    Path app = Files.createDirectory(dir.resolve("app"));
    for (Path p : List.of(dir, app)) {   /* nobody's JVM works in app and writes its profile in dir */
      p.toFile().setWritable(true, false);
      p.toFile().setExecutable(true, false);
    }
    String java = jdk.java() + " -cp " + IntegrationTests.classes + " HotMethods 4";
    Map<String, List<String>> ways = new LinkedHashMap<>();
    ways.put("cd", List.of("sh", "-c", "sleep 0.5; cd app && exec " + java));
    if (AttachTrustTests.root()) {
      ways.put("cd and setpriv", List.of("sh", "-c", "sleep 0.5; cd app && exec setpriv --reuid=65534 "
          + "--regid=65534 --clear-groups " + java));
      AttachTests.Result ns = AttachTests.exec(dir, "unshare", "--mount", "true");
      if (ns.exit() != 0) {
        System.out.println("    unshare and chroot skipped: no mount namespace here (" + ns.err().strip() + ")");
      } else {
        Path root = dir.resolve("root");
        String mounts = AttachRootTests.fakeRoot(root, jdk);
        Path tmp = Files.createDirectories(root.resolve("tmp"));
        Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rwxrwxrwx"));
        ways.put("unshare and chroot", List.of("unshare", "--mount", "sh", "-c", "set -e; " + mounts + "sleep 0.5; "
            + "exec chroot --userspec=65534:65534 " + root + " " + jdk.home().toRealPath().resolve("bin/java")
            + " -cp /classes HotMethods 4"));
      }
    }
    StringBuilder said = new StringBuilder();
    int i = 0;
    for (Map.Entry<String, List<String>> way : ways.entrySet()) {
      String how = way.getKey();
      Path log = dir.resolve("jvm-" + i + ".log");
      Process p = new ProcessBuilder(way.getValue()).directory(dir.toFile()).redirectErrorStream(true)
          .redirectOutput(log.toFile()).start();
      AttachTests.Result r = AttachTests.fgprof(dir, "profile", "--duration", "2s", "--threads", "--file",
          "fork" + i + ".collapsed", Long.toString(p.pid()));
      int exit = AttachTests.exitOf(p);
      long dumps = AttachRootTests.threadDumps(log);
      IntegrationTests.check(r.exit() == 0, "a fork that does " + how + " before java: " + r + "\n"
          + Files.readString(log));
      IntegrationTests.check(dumps == 0 && exit == 0, "the JVM (" + how + ") printed " + dumps
          + " thread dumps and exited " + exit);
      long hot = IntegrationTests.sum(IntegrationTests.collapsed(dir.resolve("fork" + i + ".collapsed")),
          k -> k.startsWith("[hot tid="));
      IntegrationTests.check(hot >= 100, "the profile of the JVM (" + how + ") has " + hot + " hot samples for 2 s");
      said.append(i++ == 0 ? "" : "; ").append(how).append(": ").append(hot).append(" hot samples, 0 thread dumps");
    }
    System.out.println("    " + said);
  }

  /**
   * HotSpot at start-up works for a moment in /tmp/hsperfdata_USER while it makes its perf data
   * file (longer with many stale files to sweep), and takes a SIGQUIT that came meanwhile later,
   * looking for the trigger where it works then: a trigger made in the perf data directory is not
   * found, and the signal prints a thread dump instead (seen on an early attach). Here a JVM stays
   * there 1.5 s, by JNI, and the attach comes while it does: fgprof makes no trigger there
   * (watched), it waits for the JVM to come back, and the attach starts; no thread dump.
   */
  static void perfDataDirectory(IntegrationTests.Jdk jdk) throws Exception {
    Path dir = Files.createTempDirectory(IntegrationTests.runs, "attach-perfdir-");
    Path perf = Paths.get("/tmp/hsperfdata_" + System.getProperty("user.name"));   /* the harness's JVM made it */
    String lib = IntegrationTests.classes.resolveSibling("java-test-jni").resolve("libfgcwd.so").toString();
    List<String> made = new ArrayList<>();
    try (WatchService watch = FileSystems.getDefault().newWatchService()) {
      WatchKey key = perf.register(watch, StandardWatchEventKinds.ENTRY_CREATE);
      Process jvm = new ProcessBuilder(jdk.java().toString(), "-cp", IntegrationTests.classes.toString(),
          "PerfDirVisit", lib, "1500", "2").directory(dir.toFile()).redirectErrorStream(true).start();
      BufferedReader out = new BufferedReader(new InputStreamReader(jvm.getInputStream()));
      StringBuilder before = new StringBuilder();   /* JDK 22+ warns of System.load first */
      String first;
      while ((first = out.readLine()) != null && !first.startsWith("VISITING"))
        before.append(first).append('|');
      IntegrationTests.check(first != null, "the JVM did not visit: " + before);
      AttachTests.Result r = AttachTests.fgprof(dir, "attach", Long.toString(jvm.pid()), "start,file=visit.collapsed");
      long answered = System.currentTimeMillis();
      List<String> rest = new ArrayList<>();
      for (String l; (l = out.readLine()) != null;)
        rest.add(l);
      int exit = AttachTests.exitOf(jvm);
      for (WatchEvent<?> e : key.pollEvents())
        if (e.context().toString().startsWith(".attach_pid"))
          made.add(e.context().toString());
      key.cancel();
      long back = rest.stream().filter(l -> l.startsWith("BACK ")).mapToLong(l -> Long.parseLong(l.substring(5)))
          .findFirst().orElse(-1);
      long dumps = rest.stream().filter(l -> l.startsWith("Full thread dump")).count();
      IntegrationTests.check(r.exit() == 0 && r.out().contains("started ("), "attach while the JVM works in " + perf
          + ": " + r);
      IntegrationTests.check(made.isEmpty(), "fgprof made " + made + " in " + perf);
      IntegrationTests.check(back > 0 && answered >= back, "fgprof was answered " + (back - answered)
          + " ms before the JVM came back from " + perf);
      IntegrationTests.check(dumps == 0 && exit == 0, "the JVM printed " + dumps + " thread dumps and exited " + exit);
      System.out.println("    no trigger in " + perf + "; answered " + (answered - back)
          + " ms after the JVM came back; 0 thread dumps");
    }
  }
}
