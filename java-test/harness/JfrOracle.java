import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

/**
 * fgagent's stacks held to HotSpot's own sampler in the same JVM: JFR's jdk.ExecutionSample,
 * recorded beside fgagent at 1 ms. The truth travels with the JVM and the CPU it runs on, where a
 * stack shape written into a test holds on one machine's compiler only. Compared: which Java
 * method is on top (the thread was running Java there) and, for each such method, who called
 * it; each share within the noise of the two sample counts. Run by the walker-truth tests.
 */
final class JfrOracle {
  private JfrOracle() {}

  static final String RECORDING = "oracle.jfr";

  /** JVM options for the recording, into the run's own directory (its working directory). */
  static final List<String> JVM_ARGS = List.of("-XX:StartFlightRecording:jdk.ExecutionSample#period=1ms,filename="
      + RECORDING);

  /** Fewer samples in scope than this and JFR is taken as blind there (inside stubs, say). */
  static final int MIN_SAMPLES = 300;

  private static final Pattern JAVA_FRAME = Pattern.compile("[A-Za-z_$][\\w$/]*\\.[\\w$<>]+");

  /** The recording's samples as collapsed stacks, read by the JDK that made it. */
  static Map<String, Long> jfrStacks(IntegrationTests.Jdk jdk, Path dir) throws Exception {
    Path out = dir.resolve("oracle.collapsed");
    Process p = new ProcessBuilder(jdk.java().toString(), "-cp", IntegrationTests.classes.toString(), "JfrStacks",
        dir.resolve(RECORDING).toString()).redirectOutput(out.toFile()).redirectError(ProcessBuilder.Redirect.INHERIT)
        .start();
    IntegrationTests.check(p.waitFor(60, TimeUnit.SECONDS) && p.exitValue() == 0, "JfrStacks failed on " + RECORDING);
    return IntegrationTests.collapsed(out);
  }

  /**
   * A stack's Java frames, root first, when its leaf is Java (kernel frames a timer interrupt
   * put on top of Java code left out); null when the thread was in native, stub or VM code,
   * which JFR's execution samples do not hold.
   */
  static List<String> javaStack(String stack) {
    String[] f = stack.replaceAll("_\\[[ji01]\\](?=;|$)", "").split(";");   /* option ann's frame kinds */
    int leaf = f.length - 1;
    while (leaf > 0 && f[leaf].endsWith("_[k]"))
      leaf--;
    if (leaf < 0 || !JAVA_FRAME.matcher(f[leaf]).matches())
      return null;
    List<String> java = new ArrayList<>();
    for (int i = f[0].startsWith("[") ? 1 : 0; i <= leaf; i++)   /* after the thread's root, if any */
      if (JAVA_FRAME.matcher(f[i]).matches())
        java.add(f[i]);
    return java;
  }

  /** Counts of key(stack) over the stacks with a Java frame whose name starts with scope. */
  static Map<String, Long> tally(Map<String, Long> stacks, String scope, java.util.function.Function<List<String>, String> key) {
    Map<String, Long> t = new HashMap<>();
    for (Map.Entry<String, Long> e : stacks.entrySet()) {
      List<String> java = javaStack(e.getKey());
      if (java != null && java.stream().anyMatch(f -> f.startsWith(scope))) {
        String k = key.apply(java);
        if (k != null)
          t.merge(k, e.getValue(), Long::sum);
      }
    }
    return t;
  }

  static long total(Map<String, Long> t) {
    return t.values().stream().mapToLong(Long::longValue).sum();
  }

  /** The shares the workload measured of itself with its own clocks: "GROUND_TRUTH METHOD SHARE" lines. */
  static Map<String, Double> groundTruth(String stdout) {
    Map<String, Double> t = new java.util.HashMap<>();
    java.util.regex.Matcher m = Pattern.compile("(?m)^GROUND_TRUTH (\\S+) ([0-9.]+)$").matcher(stdout);
    while (m.find())
      t.put(m.group(1), Double.parseDouble(m.group(2)));
    return t;
  }

  /** 3.5 standard deviations of a share p's sampling noise over n samples, plus one point. */
  static double bound(double p, long n) {
    return 3.5 * Math.sqrt(p * (1 - p) / n) + 0.01;
  }

  /**
   * Each key holding at least 5% of JFR's samples has fgagent's share within 3.5 standard
   * deviations of the two counts' sampling noise, plus one point; the lines compared are added
   * to report, the disagreements to failures. Where the workload timed that key itself (truth),
   * its clock is the truth and JFR only another sampler of it, one whose shares stray from the
   * clock further than binomial noise allows: fgagent is held to the clock instead, within 3.5
   * standard deviations of its own count plus one point, tighter than the two samplers' bound.
   */
  static void compare(String what, Map<String, Long> fg, Map<String, Long> jfr, Map<String, Double> truth,
                      StringBuilder report, List<String> failures) {
    long nf = total(fg), nj = total(jfr);
    if (nj < MIN_SAMPLES / 3 || nf == 0)
      return;
    jfr.entrySet().stream().sorted((a, b) -> Long.compare(b.getValue(), a.getValue())).forEach(e -> {
      double pj = (double) e.getValue() / nj, pf = (double) fg.getOrDefault(e.getKey(), 0L) / nf;
      if (pj < 0.05)
        return;
      double p = (pj * nj + pf * nf) / (nj + nf);
      double bound = 3.5 * Math.sqrt(p * (1 - p) * (1.0 / nj + 1.0 / nf)) + 0.01;
      String line = String.format("%s %s: fgagent %.1f%% of %d, JFR %.1f%% of %d (bound %.1f)", what, e.getKey(),
          100 * pf, nf, 100 * pj, nj, 100 * bound);
      Double pt = truth.get(e.getKey());
      if (pt != null) {
        bound = bound(pt, nf);
        line += String.format("; the workload's own clock %.1f%%, fgagent held to it (bound %.1f)", 100 * pt,
            100 * bound);
        pj = pt;
      }
      report.append("      ").append(line).append('\n');
      if (Math.abs(pf - pj) > bound)
        failures.add(line);
    });
  }

  /**
   * Holds fgagent's collapsed stacks of run r to its recording, over the samples with a frame
   * whose name starts with scope (a method or class of the workload): the top Java method's shares, then for
   * each top method its caller's. Returns JFR's sample count in scope; fewer than MIN_SAMPLES
   * is not judged (JFR cannot walk there), which the caller must then cover otherwise.
   */
  static long check(IntegrationTests.Jdk jdk, IntegrationTests.Run r, Map<String, Long> fg, String scope)
      throws Exception {
    Map<String, Long> jfr = jfrStacks(jdk, r.dir());
    java.util.function.Function<List<String>, String> top = s -> s.get(s.size() - 1);
    Map<String, Long> fgTop = tally(fg, scope, top), jfrTop = tally(jfr, scope, top);
    long n = total(jfrTop);
    if (n < MIN_SAMPLES) {
      System.out.printf("      JFR: %d samples under %s, too few to judge (fgagent %d)%n", n, scope, total(fgTop));
      return n;
    }
    StringBuilder report = new StringBuilder();
    List<String> failures = new ArrayList<>();
    Map<String, Double> truth = groundTruth(r.stdout());
    compare("top", fgTop, jfrTop, truth, report, failures);
    for (String m : jfrTop.keySet()) {
      if ((double) jfrTop.get(m) / n < 0.05)
        continue;
      java.util.function.Function<List<String>, String> caller = s -> s.get(s.size() - 1).equals(m)
          ? (s.size() > 1 ? s.get(s.size() - 2) : "(root)") : null;
      compare("caller of " + m, tally(fg, scope, caller), tally(jfr, scope, caller), truth, report, failures);
    }
    System.out.print(report);
    Files.writeString(r.dir().resolve("oracle.txt"), report);
    IntegrationTests.check(failures.isEmpty(), "fgagent and JFR (or the workload's clock) disagree under " + scope
        + ":\n  " + String.join("\n  ", failures));
    return n;
  }
}
