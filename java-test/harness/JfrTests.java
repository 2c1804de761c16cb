import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import jdk.jfr.EventType;
import jdk.jfr.ValueDescriptor;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordedThread;
import jdk.jfr.consumer.RecordingFile;

/**
 * The .jfr output read by the JDK itself: the JDK's RecordingFile (what JMC and the jfr tool
 * are built on) and the run's own JDK's `jfr summary`. Run by IntegrationTests.
 */
final class JfrTests {
  private JfrTests() {}

  /**
   * One JVM records itself (-XX:StartFlightRecording) while fgagent records CPU, allocations and
   * locks into a .jfr of its own. Every field fgagent declares that the JDK's event of the same
   * name has carries the JDK's type and content type (a timestamp, a duration, bytes, an unsigned
   * memory address): the jfr tool formats a field, and JMC types and groups it, by its content
   * type alone. And fgagent's file says, as the JDK's recordings do with jdk.ActiveSetting, that
   * each event type it holds was enabled with its stack traces, CPU at the interval asked and
   * locks at the threshold asked: JMC's method profiling and lock analyses read those settings.
   */
  /** async-profiler 4.5's own event types fgagent writes, their fields in its order (src/jfrMetadata.cpp). */
  static final Map<String, List<String>> ASYNC_PROFILER_FIELDS = Map.of("profiler.LiveObject",
      List.of("startTime", "eventThread", "stackTrace", "objectClass", "allocationSize", "allocationTime"),
      "profiler.Malloc", List.of("startTime", "eventThread", "stackTrace", "address", "size"),
      "profiler.Free", List.of("startTime", "eventThread", "stackTrace", "address"),
      "profiler.NativeLock", List.of("startTime", "duration", "eventThread", "stackTrace", "address"));

  /** fgagent's own event types, their fields in the order it writes them (agent/output/jfr.c). */
  static final Map<String, List<String>> FGAGENT_FIELDS = Map.of("fgagent.GCPause",
      List.of("startTime", "duration", "name"),
      "fgagent.KernelEvent", List.of("startTime", "eventThread", "stackTrace", "event", "count"));

  static void jfrTypesAreTheJdks(IntegrationTests.Jdk jdk) throws Exception {
    IntegrationTests.Run r = IntegrationTests.run(jdk, "event=cpu,interval=2ms,alloc=64k,lock=20us,file={dir}/p.jfr",
        List.of("-XX:StartFlightRecording=filename=rec.jfr,settings=profile"), "Locks", "2", "2", "1", "alloc");
    r.expectCleanRun();
    Map<String, EventType> theirs = new HashMap<>();
    try (RecordingFile f = new RecordingFile(r.file("rec.jfr"))) {
      for (EventType t : f.readEventTypes())
        theirs.put(t.getName(), t);
    }
    Map<Long, String> ours = new HashMap<>();
    int compared = 0;
    try (RecordingFile f = new RecordingFile(r.file("p.jfr"))) {
      for (EventType t : f.readEventTypes()) {
        ours.put(t.getId(), t.getName());
        if (t.getName().startsWith("profiler.") || t.getName().startsWith("fgagent.")) {
          /* async-profiler's (live's LiveObject): its shape, jfrMetadata.cpp; fgagent's own (the JVMTI GC pauses) */
          Map<String, List<String>> shapes = t.getName().startsWith("profiler.") ? ASYNC_PROFILER_FIELDS : FGAGENT_FIELDS;
          List<String> names = t.getFields().stream().map(ValueDescriptor::getName).toList();
          IntegrationTests.check(names.equals(shapes.get(t.getName())), t.getName() + "'s fields "
              + names + ", expected " + shapes.get(t.getName()));
          compared += names.size();
          continue;
        }
        EventType jdks = theirs.get(t.getName());
        IntegrationTests.check(jdks != null, "the JDK has no event " + t.getName());
        for (ValueDescriptor v : t.getFields()) {
          ValueDescriptor w = jdks.getField(v.getName());
          IntegrationTests.check(w != null, t.getName() + "." + v.getName() + ": the JDK's event has no such field");
          IntegrationTests.check(v.getTypeName().equals(w.getTypeName()) && java.util.Objects.equals(
              v.getContentType(), w.getContentType()), t.getName() + "." + v.getName() + " is a " + v.getTypeName()
              + " of content " + v.getContentType() + ", the JDK's a " + w.getTypeName() + " of content "
              + w.getContentType());
          compared++;
        }
      }
    }
    Map<String, String> settings = new HashMap<>();
    Map<String, Long> events = new HashMap<>();
    for (RecordedEvent e : RecordingFile.readAllEvents(r.file("p.jfr"))) {
      String type = e.getEventType().getName();
      if (type.equals("jdk.ActiveSetting"))
        settings.put(ours.get(e.getLong("id")) + "#" + e.getString("name"), e.getString("value"));
      else
        events.merge(type, 1L, Long::sum);
    }
    System.out.printf("    %d fields compared with the JDK's; events %s; settings %s%n", compared, events, settings);
    IntegrationTests.check(events.keySet().containsAll(List.of("jdk.ExecutionSample", "jdk.ObjectAllocationSample",
        "jdk.JavaMonitorEnter", "jdk.ThreadPark")), "an event type is missing: " + events);
    for (String type : events.keySet()) {
      IntegrationTests.check("true".equals(settings.get(type + "#enabled")), type + " is not said enabled: " + settings);
      IntegrationTests.check(type.equals("jdk.ExecutionSample") || type.equals("fgagent.GCPause")
          || "true".equals(settings.get(type + "#stackTrace")), type + "'s stack traces are not said recorded: " + settings);
    }
    IntegrationTests.check("2 ms".equals(settings.get("jdk.ExecutionSample#period")), "the period: " + settings);
    for (String type : List.of("jdk.JavaMonitorEnter", "jdk.ThreadPark"))
      IntegrationTests.check("20 us".equals(settings.get(type + "#threshold")), type + "'s threshold: " + settings);
  }

  /** A .jfr file's events that hold a stack: every one but the recording's settings (jdk.ActiveSetting). */
  static List<RecordedEvent> samples(Path file) throws Exception {
    List<RecordedEvent> events = new ArrayList<>(RecordingFile.readAllEvents(file));
    events.removeIf(e -> e.getEventType().getName().equals("jdk.ActiveSetting")
        || e.getEventType().getName().equals("fgagent.GCPause"));   /* the JVM's GC pauses: no stack */
    return events;
  }

  /** A JFR stack as collapsed stacks write it: "[thread tid=N];root;...;leaf", '/' as '.', with their kind marks. */
  static String stackKey(RecordedEvent e) {
    RecordedThread t = e.getThread("sampledThread");
    List<RecordedFrame> frames = e.getStackTrace().getFrames();
    /* as fgprof names a thread: its Java name, else its OS name; a sample JFR gives no thread (the
     * JDK's own recordings have some, of a thread gone before its constant was written) under
     * "[unknown thread]" with tid 0 */
    String name = t == null ? null : t.getJavaName() != null && !t.getJavaName().isEmpty() ? t.getJavaName()
        : t.getOSName();
    StringBuilder b = new StringBuilder("[" + (name != null ? name : "[unknown thread]") + " tid="
        + (t == null ? 0 : t.getOSThreadId()) + "]");
    for (int i = frames.size() - 1; i >= 0; i--) {
      RecordedFrame f = frames.get(i);
      String cls = f.getMethod().getType().getName();
      b.append(';').append(cls.isEmpty() ? "" : cls + ".").append(f.getMethod().getName());
      if (f.getLineNumber() >= 0)
        b.append(':').append(f.getLineNumber());
      b.append(switch (f.getType()) {   /* the kinds collapsed stacks mark */
        case "Kernel" -> "_[k]";
        case "JIT compiled" -> "_[j]";
        case "Inlined" -> "_[i]";
        case "Interpreted" -> "_[0]";
        default -> "";
      });
    }
    return b.toString().replace('/', '.');
  }

  /**
   * One run writes collapsed stacks and a .jfr file: the JFR's events, read by the JDK, hold
   * exactly the collapsed stacks' samples (every stack of every thread, with its count); the
   * JDK's `jfr summary` counts them all; each event's time lies within the JVM's life, each
   * thread's events are in time order, and the burner thread's events span at least 90% of
   * the CPU time it measured itself (they are spread over the run, not stamped at one moment)
   * and carry its Java thread id (Thread.getId(), as the JDK's own recordings do).
   */
  static void jfrHoldsTheCollapsedSamples(IntegrationTests.Jdk jdk) throws Exception {
    Instant launched = Instant.now();
    IntegrationTests.Run r = IntegrationTests.run(jdk,
        "event=cpu,interval=1ms,threads,lines,file={dir}/p.collapsed,file={dir}/p.jfr", JfrOracle.JVM_ARGS, "CpuBurn",
        "3", "overloads");
    Instant exited = Instant.now();
    r.expectCleanRun();
    Map<String, Long> collapsed = collapsedDotted(r.file("p.collapsed"));
    Map<String, Long> fromJfr = new LinkedHashMap<>();
    Map<Long, Instant> lastByThread = new HashMap<>();
    Instant burnerFirst = null, burnerLast = null;
    long events = 0, outOfOrder = 0, outside = 0, burnerIdWrong = 0;
    Matcher idLine = Pattern.compile("JAVA_THREAD_ID burner (\\d+)").matcher(r.stdout());
    IntegrationTests.check(idLine.find(), "workload printed no thread id");
    long burnerId = Long.parseLong(idLine.group(1));
    for (RecordedEvent e : samples(r.file("p.jfr"))) {
      IntegrationTests.check(e.getEventType().getName().equals("jdk.ExecutionSample"),
          "unexpected event " + e.getEventType().getName());
      events++;
      fromJfr.merge(stackKey(e), 1L, Long::sum);
      Instant t = e.getStartTime();
      if (t.isBefore(launched) || t.isAfter(exited))
        outside++;
      RecordedThread th = e.getThread("sampledThread");
      Instant last = lastByThread.put(th.getOSThreadId(), t);
      if (last != null && t.isBefore(last))
        outOfOrder++;
      if (th.getJavaName().equals("burner")) {
        burnerFirst = burnerFirst == null ? t : burnerFirst;
        burnerLast = t;
        if (th.getJavaThreadId() != burnerId)
          burnerIdWrong++;
      }
    }
    long total = collapsed.values().stream().mapToLong(Long::longValue).sum();
    String differ = differences(collapsed, fromJfr);
    Matcher cpu = Pattern.compile("THREAD_CPU_NS burner (\\d+)").matcher(r.stdout());
    IntegrationTests.check(cpu.find(), "workload printed no CPU time");
    double cpuMs = Long.parseLong(cpu.group(1)) / 1e6;
    double spanMs = burnerFirst == null ? 0 : (burnerLast.toEpochMilli() - burnerFirst.toEpochMilli());
    String summary = jfrSummary(jdk, r.file("p.jfr"));
    Matcher m = Pattern.compile("(?m)^ jdk\\.ExecutionSample +(\\d+) ").matcher(summary);
    long summaryCount = m.find() ? Long.parseLong(m.group(1)) : -1;
    System.out.printf("    %d events, %d samples in p.collapsed (%d stacks), jfr summary %d; burner events span "
        + "%.0f ms for %.0f ms of its CPU; %d outside the JVM's life, %d out of order%n",
        events, total, collapsed.size(), summaryCount, spanMs, cpuMs, outside, outOfOrder);
    IntegrationTests.check(total > 1000, "too few samples: " + total);
    IntegrationTests.check(differ.isEmpty(), differ);
    IntegrationTests.check(events == total && summaryCount == total,
        "events " + events + ", jfr summary " + summaryCount + ", collapsed " + total + "\n" + summary);
    IntegrationTests.check(outside == 0 && outOfOrder == 0, outside + " events outside the run, " + outOfOrder + " out of order");
    IntegrationTests.check(spanMs >= 0.9 * cpuMs, "burner's events span " + spanMs + " ms for " + cpuMs + " ms of CPU");
    System.out.printf("    burner's Java thread id %d: %d of its events with another%n", burnerId, burnerIdWrong);
    IntegrationTests.check(burnerIdWrong == 0, burnerIdWrong + " of burner's events do not carry its Java thread id "
        + burnerId);
    descriptorsAreTheMethods(jdk, r.file("p.jfr"));
    bytecodeIndexesAreTheJdks(jdk, r);
  }

  /**
   * Without lines, two overloads have one frame name ("Work.mix") at one bytecode index (none):
   * the .jfr file still holds them as two methods, each with its descriptor, and so does the
   * .jfr `fgprof convert` writes from it; the collapsed stacks of the same run name them once
   * (their samples merged, every stack of every thread with its count as the JFR's). With
   * lines and ann, every Java caller's frame still has its bytecode index (a frame's kind is a
   * name of its own, which once lost the index).
   */
  static void jfrKeepsOverloadsApart(IntegrationTests.Jdk jdk) throws Exception {
    IntegrationTests.Run r = IntegrationTests.run(jdk, "interval=1ms,threads,file={dir}/p.collapsed,file={dir}/p.jfr",
        java.util.List.of(), "CpuBurn", "1", "overloads");
    r.expectCleanRun();
    descriptorsAreTheMethods(jdk, r.file("p.jfr"));
    String differ = differences(collapsedDotted(r.file("p.collapsed")), jfrStacks(r.file("p.jfr")));
    IntegrationTests.check(differ.isEmpty(), differ);
    AttachTests.Result c = AttachTests.fgprof(r.dir(), "convert", r.file("p.jfr").toString(),
        r.file("again.jfr").toString());
    IntegrationTests.check(c.exit() == 0, "fgprof convert p.jfr again.jfr: " + c);
    descriptorsAreTheMethods(jdk, r.file("again.jfr"));

    IntegrationTests.Run a = IntegrationTests.run(jdk, "interval=1ms,lines,ann,file={dir}/p.jfr", java.util.List.of(),
        "CpuBurn", "1", "overloads");
    a.expectCleanRun();
    long callers = 0, noBci = 0, interpreted = 0;
    for (RecordedEvent e : samples(a.file("p.jfr"))) {
      List<RecordedFrame> frames = e.getStackTrace().getFrames();
      for (int i = 1; i < frames.size(); i++) {   /* from the leaf's caller */
        RecordedFrame f = frames.get(i);
        if (f.getMethod().getType().getName().isEmpty() || !f.isJavaFrame() || f.getType().equals("Native"))
          continue;
        callers++;
        noBci += f.getBytecodeIndex() < 0 ? 1 : 0;
        interpreted += f.getType().equals("Interpreted") ? 1 : 0;
      }
    }
    System.out.printf("    lines,ann: %d Java callers' frames (%d interpreted), %d without a bytecode index%n", callers,
        interpreted, noBci);
    IntegrationTests.check(callers > 500 && interpreted > 0 && noBci == 0, callers + " Java callers' frames, "
        + interpreted + " interpreted, " + noBci + " without a bytecode index");
  }

  /**
   * With lines, every Java frame of fgagent's .jfr has a bytecode index but a leaf in compiled
   * code past its method's last debug record (the method known, not where in it; a caller's
   * frame always stops at a call, which has its record), and where the JDK's own
   * recording of the same JVM (jdk.ExecutionSample) has a frame of the same method (by its
   * descriptor, so overloads apart) at the same index, both give it the same line: the index is
   * where in the method the thread was, not a stand-in. At least 3 such places, the burner's hottest among them.
   */
  static void bytecodeIndexesAreTheJdks(IntegrationTests.Jdk jdk, IntegrationTests.Run r) throws Exception {
    Map<String, Integer> jdkLines = new HashMap<>();   /* "pkg/C.m(desc) bci" -> line, JFR's own */
    Process p = new ProcessBuilder(jdk.java().toString(), "-cp", IntegrationTests.classes.toString(), "JfrStacks",
        "--frames", r.file(JfrOracle.RECORDING).toString()).redirectError(ProcessBuilder.Redirect.INHERIT).start();
    for (String line : new String(p.getInputStream().readAllBytes()).split("\n")) {
      String[] f = line.split(" ");
      if (f.length == 3)
        jdkLines.put(f[0] + " " + f[1], Integer.parseInt(f[2]));
    }
    IntegrationTests.check(p.waitFor(60, TimeUnit.SECONDS) && p.exitValue() == 0, "JfrStacks --frames failed");
    Map<String, Long> ours = new HashMap<>();   /* "pkg/C.m(desc) bci line" -> frames */
    long frames = 0, leafNoBci = 0;
    String firstNoBci = null;
    for (RecordedEvent e : samples(r.file("p.jfr"))) {
      boolean leaf = true;   /* no Java frame yet, from the leaf */
      for (RecordedFrame f : e.getStackTrace().getFrames()) {
        String cls = f.getMethod().getType().getName();
        if (cls.isEmpty() || f.getType().equals("Native"))
          continue;   /* C, kernel and marker frames; Java methods declared native */
        frames++;
        boolean top = leaf;
        leaf = false;
        String place = cls.replace('.', '/') + "." + f.getMethod().getName() + f.getMethod().getDescriptor();
        if (f.getBytecodeIndex() < 0) {
          leafNoBci += top ? 1 : 0;
          if (!top)
            firstNoBci = firstNoBci == null ? place + " (" + f.getType() + ")" : firstNoBci;
          continue;
        }
        ours.merge(place + " " + f.getBytecodeIndex() + " " + f.getLineNumber(), 1L, Long::sum);
      }
    }
    int shared = 0;
    boolean hottestShared = false;
    String hottest = ours.entrySet().stream().filter(x -> x.getKey().startsWith("Work.mix("))
        .max(Map.Entry.comparingByValue()).map(Map.Entry::getKey).orElse("none");
    List<String> wrong = new ArrayList<>();
    for (String place : ours.keySet()) {
      int cut = place.lastIndexOf(' ');
      Integer line = jdkLines.get(place.substring(0, cut));
      if (line == null)
        continue;
      shared++;
      hottestShared |= place.equals(hottest);
      if (line != Integer.parseInt(place.substring(cut + 1)))
        wrong.add(place + " (the JDK: line " + line + ")");
    }
    System.out.printf("    %d Java frames, %d leaves without a bytecode index; %d places (method, index), %d also "
        + "in the JDK's recording (%d), %d with another line; hottest %s%n", frames, leafNoBci, ours.size(), shared,
        jdkLines.size(), wrong.size(), hottest);
    IntegrationTests.check(frames > 1000 && firstNoBci == null, "a caller's frame without a bytecode index: "
        + firstNoBci);
    IntegrationTests.check(wrong.isEmpty(), "places whose line is not the JDK's: " + wrong);
    IntegrationTests.check(shared >= 3 && hottestShared, shared + " places shared with the JDK's recording; the "
        + "burner's hottest (" + hottest + ") among them: " + hottestShared);
  }

  /**
   * Whether m is signature polymorphic (MethodHandle.linkToStatic, VarHandle.get, ...: native,
   * varargs, of one of those two classes): the JVM links each call site's descriptor to a method
   * of its own, and names it with that descriptor, not the declared (Object[])Object.
   */
  static boolean signaturePolymorphic(java.lang.reflect.Method m) {
    Class<?> c = m.getDeclaringClass();
    return java.lang.reflect.Modifier.isNative(m.getModifiers()) && m.isVarArgs()
        && (c == java.lang.invoke.MethodHandle.class || c == java.lang.invoke.VarHandle.class);
  }

  /** A method's JVM descriptor, "(JJ)J". */
  static String descriptor(Class<?> ret, Class<?>[] params) {
    return java.lang.invoke.MethodType.methodType(ret, params).toMethodDescriptorString();
  }

  /**
   * Every Java method of the recording whose class the harness can load has the descriptor of a
   * method of that name its class declares (reflection's), never "()L;" (unknown), overloads
   * each with its own: the burner's two Work.mix, which share a frame name in every other
   * output, are two methods here. The JDK's own classes are checked when the run's JDK is the
   * harness's (another JDK's java.lang.invoke declares other methods): then at least 20 methods,
   * else the workload's, at least 3.
   */
  static void descriptorsAreTheMethods(IntegrationTests.Jdk jdk, Path jfr) throws Exception {
    boolean sameJdk = jdk.home().toRealPath().equals(Path.of(System.getProperty("java.home")).toRealPath());
    Map<String, java.util.Set<String>> methods = new HashMap<>();   /* "pkg.C.m" -> descriptors */
    for (RecordedEvent e : samples(jfr))
      for (RecordedFrame f : e.getStackTrace().getFrames())
        if (f.isJavaFrame() && !f.getMethod().getType().getName().isEmpty())
          methods.computeIfAbsent(f.getMethod().getType().getName() + "." + f.getMethod().getName(),
              k -> new TreeSet<>()).add(f.getMethod().getDescriptor());
    int checked = 0, overloaded = 0;
    List<String> wrong = new ArrayList<>();
    for (Map.Entry<String, java.util.Set<String>> m : methods.entrySet()) {
      String full = m.getKey(), cls = full.substring(0, full.lastIndexOf('.')), name = full.substring(cls.length() + 1);
      Class<?> c;
      try {
        c = Class.forName(cls, false, JfrTests.class.getClassLoader());
      } catch (ClassNotFoundException | LinkageError ex) {
        continue;   /* a hidden class (a lambda's), or one of another loader */
      }
      java.util.Set<String> declared = new java.util.HashSet<>();
      if (name.equals("<init>"))
        for (java.lang.reflect.Constructor<?> k : c.getDeclaredConstructors())
          declared.add(descriptor(void.class, k.getParameterTypes()));
      else if (name.equals("<clinit>"))
        declared.add("()V");
      else
        for (java.lang.reflect.Method x : c.getDeclaredMethods())
          if (x.getName().equals(name) && !signaturePolymorphic(x))
            declared.add(descriptor(x.getReturnType(), x.getParameterTypes()));
      if (declared.isEmpty() || (!sameJdk && c.getClassLoader() != JfrTests.class.getClassLoader()))
        continue;   /* a method reflection hides (a JDK-internal intrinsic, say), or another JDK's class */
      checked++;
      overloaded += m.getValue().size() > 1 ? 1 : 0;
      for (String d : m.getValue())
        if (!declared.contains(d))
          wrong.add(full + d + " (declared: " + declared + ")");
    }
    java.util.Set<String> mix = methods.getOrDefault("Work.mix", java.util.Set.of());
    System.out.printf("    %d methods' descriptors checked against reflection, %d with several (overloads); "
        + "Work.mix: %s%n", checked, overloaded, mix);
    IntegrationTests.check(checked >= (sameJdk ? 20 : 3) && wrong.isEmpty(), checked + " methods checked; wrong "
        + "descriptors: " + wrong);
    IntegrationTests.check(mix.equals(java.util.Set.of("(JI)J", "(J)J")), "the burner's two Work.mix are not "
        + "two methods: " + mix);
  }

  /** Collapsed stacks with '/' as '.', as stackKey names JFR's. */
  static Map<String, Long> collapsedDotted(Path file) throws Exception {
    Map<String, Long> m = new HashMap<>();
    IntegrationTests.collapsed(file).forEach((k, v) -> m.merge(k.replace('/', '.'), v, Long::sum));
    return m;
  }

  /** A JFR file's events as stackKey's stacks with their counts, every event a jdk.ExecutionSample. */
  static Map<String, Long> jfrStacks(Path file) throws Exception {
    Map<String, Long> m = new HashMap<>();
    for (RecordedEvent e : samples(file)) {
      IntegrationTests.check(e.getEventType().getName().equals("jdk.ExecutionSample"),
          "unexpected event " + e.getEventType().getName());
      m.merge(stackKey(e), 1L, Long::sum);
    }
    return m;
  }

  /** "" when both hold the same stacks with the same counts, else the first few that differ. */
  static String differences(Map<String, Long> collapsed, Map<String, Long> jfr) {
    TreeSet<String> differ = new TreeSet<>();
    for (String k : collapsed.keySet())
      if (!collapsed.get(k).equals(jfr.get(k)))
        differ.add(k + ": collapsed " + collapsed.get(k) + ", jfr " + jfr.get(k));
    for (String k : jfr.keySet())
      if (!collapsed.containsKey(k))
        differ.add(k + ": collapsed none, jfr " + jfr.get(k));
    if (differ.isEmpty())
      return "";
    return differ.size() + " stacks differ, e.g. " + String.join("\n", new ArrayList<>(differ).subList(0, Math.min(5, differ.size())));
  }

  /** `jfr summary FILE` of the run's own JDK. */
  static String jfrSummary(IntegrationTests.Jdk jdk, Path file) throws Exception {
    Process p = new ProcessBuilder(jdk.home().resolve("bin/jfr").toString(), "summary", file.toString())
        .redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes());
    IntegrationTests.check(p.waitFor(60, TimeUnit.SECONDS) && p.exitValue() == 0, "jfr summary failed:\n" + out);
    return out;
  }
}
