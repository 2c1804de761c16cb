import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * OpenTelemetry profiles (.otlp): what the agent writes is a valid protobuf message by Debian's
 * protoc (--decode_raw, which knows no schema and so trusts nothing of ours), holds one Profile per
 * event, and reads back through fgprof's own reader to exactly the stacks and counts of the
 * collapsed files the same run wrote. Run by IntegrationTests.
 */
final class OtlpTests {
  private OtlpTests() {}

  /** protoc --decode_raw's text of file: how many messages stand at each field path ("1/2/2"). */
  static Map<String, Integer> decodeRaw(Path dir, Path file) throws Exception {
    Path text = dir.resolve(file.getFileName() + ".raw.txt");
    Process p = new ProcessBuilder("protoc", "--decode_raw").redirectInput(file.toFile())
        .redirectOutput(text.toFile()).redirectError(ProcessBuilder.Redirect.INHERIT).start();
    IntegrationTests.check(p.waitFor(60, TimeUnit.SECONDS), "protoc --decode_raw did not end");
    IntegrationTests.check(p.exitValue() == 0, "protoc --decode_raw refused " + file + ": exit " + p.exitValue());
    Map<String, Integer> paths = new HashMap<>();
    Deque<String> stack = new ArrayDeque<>();
    for (String line : Files.readAllLines(text)) {
      String t = line.trim();
      if (t.endsWith("{")) {
        String path = (stack.isEmpty() ? "" : stack.peek() + "/") + t.substring(0, t.length() - 1).trim();
        stack.push(path);
        paths.merge(path, 1, Integer::sum);
      } else if (t.equals("}")) {
        stack.pop();
      }
    }
    IntegrationTests.check(stack.isEmpty(), "protoc's text of " + file + " does not close its messages");
    return paths;
  }

  static boolean hasProtoc() throws IOException {
    for (String dir : System.getenv().getOrDefault("PATH", "/usr/bin").split(":"))
      if (Files.isExecutable(Path.of(dir, "protoc")))
        return true;
    return false;
  }

  /**
   * cpu, alloc and lock in one run: the .otlp holds three Profiles (protoc's count of
   * ProfilesData.resource_profiles.scope_profiles.profiles), each with samples, and fgprof convert
   * reads each back to exactly the agent's collapsed stacks of that event.
   */
  static void otlpReadsBackAsCollapsed(IntegrationTests.Jdk jdk) throws Exception {
    IntegrationTests.check(hasProtoc(), "protoc is missing: scripts/install-deps.sh installs protobuf-compiler");
    IntegrationTests.Run r = IntegrationTests.run(jdk,
        "event=cpu,interval=1ms,alloc=64k,lock,file={dir}/p-%e.collapsed,file={dir}/p.otlp", List.of(), "Locks", "3",
        "2", "2", "alloc");
    r.expectCleanRun();
    Map<String, Integer> raw = decodeRaw(r.dir(), r.file("p.otlp"));
    IntegrationTests.check(raw.getOrDefault("1/2/2", 0) == 3, "protoc finds " + raw.get("1/2/2")
        + " profiles in p.otlp, not 3 (cpu, alloc, lock): " + raw);
    IntegrationTests.check(raw.getOrDefault("1/2/2/2", 0) >= 3, "protoc finds no samples: " + raw);
    IntegrationTests.check(raw.getOrDefault("2/7", 0) > 1 && raw.getOrDefault("2/2", 0) > 1,
        "protoc finds no stacks or locations in the dictionary: " + raw);
    for (String e : new String[] {"cpu", "alloc", "lock"}) {
      Map<String, Long> want = IntegrationTests.collapsed(r.file("p-" + e + ".collapsed"));
      Map<String, Long> got = JfrReadTests.convert(r.dir(), e, false, r.file("p.otlp"), "q-" + e + ".collapsed");
      String diff = JfrTests.differences(want, got);
      IntegrationTests.check(!want.isEmpty() && diff.isEmpty(),
          e + ": the .otlp read back differs from the agent's collapsed stacks: " + diff);
      System.out.printf("    %s: %d stacks, %d in all, read back exactly%n", e, want.size(),
          want.values().stream().mapToLong(Long::longValue).sum());
    }
  }

  /**
   * loop=1s: an .otlp a interval (%n), as a fleet's collector picks files up; each a message of its
   * own whose CPU samples are that interval's collapsed stacks.
   */
  static void otlpIntervalsAreFilesOfTheirOwn(IntegrationTests.Jdk jdk) throws Exception {
    IntegrationTests.check(hasProtoc(), "protoc is missing: scripts/install-deps.sh installs protobuf-compiler");
    IntegrationTests.Run r = IntegrationTests.run(jdk,
        "loop=1s,interval=1ms,file={dir}/p-%n.collapsed,file={dir}/p-%n.otlp", List.of(), "HotMethods", "3.5");
    r.expectCleanRun();
    List<Integer> checked = new ArrayList<>();
    for (int n = 1; Files.exists(r.file("p-" + n + ".otlp")); n++) {
      Map<String, Integer> raw = decodeRaw(r.dir(), r.file("p-" + n + ".otlp"));
      IntegrationTests.check(raw.getOrDefault("1/2/2", 0) == 1, "interval " + n + ": " + raw.get("1/2/2")
          + " profiles, not 1");
      Map<String, Long> want = IntegrationTests.collapsed(r.file("p-" + n + ".collapsed"));
      Map<String, Long> got = JfrReadTests.convert(r.dir(), "cpu", false, r.file("p-" + n + ".otlp"),
          "q-" + n + ".collapsed");
      String diff = JfrTests.differences(want, got);
      IntegrationTests.check(diff.isEmpty(), "interval " + n + ": the .otlp differs from its collapsed stacks: " + diff);
      checked.add(n);
    }
    IntegrationTests.check(checked.size() >= 3, "only " + checked.size() + " interval files for a 3.5 s run at loop=1s");
    System.out.printf("    %d intervals, each its own message, read back exactly%n", checked.size());
  }

  static final List<IntegrationTests.Named> TESTS = List.of(
      new IntegrationTests.Named("otlp_reads_back_as_collapsed", OtlpTests::otlpReadsBackAsCollapsed),
      new IntegrationTests.Named("otlp_intervals_are_files_of_their_own", OtlpTests::otlpIntervalsAreFilesOfTheirOwn));
}
