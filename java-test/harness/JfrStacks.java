import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordedStackTrace;
import jdk.jfr.consumer.RecordedThread;
import jdk.jfr.consumer.RecordingFile;

/**
 * HotSpot's own sampler as an oracle: prints the jdk.ExecutionSample events of a recording as
 * collapsed stacks, named as fgagent names them ("[thread]" root, then "pkg/Cls.method" frames,
 * root first), one "stack count" line each; with --frames, each Java frame's place once,
 * "pkg/Cls.method(descriptor) bci line". Run with the JDK that made the recording.
 * Run: JfrStacks [--frames] RECORDING.jfr
 */
public final class JfrStacks {
  public static void main(String[] args) throws Exception {
    if (args[0].equals("--frames")) {
      java.util.Set<String> places = new java.util.TreeSet<>();
      for (RecordedEvent e : RecordingFile.readAllEvents(Path.of(args[1])))
        if (e.getEventType().getName().equals("jdk.ExecutionSample") && e.getStackTrace() != null)
          for (RecordedFrame f : e.getStackTrace().getFrames())
            places.add(f.getMethod().getType().getName().replace('.', '/') + "." + f.getMethod().getName()
                + f.getMethod().getDescriptor() + " " + f.getBytecodeIndex() + " " + f.getLineNumber());
      places.forEach(System.out::println);
      return;
    }
    Map<String, Long> stacks = new TreeMap<>();
    for (RecordedEvent e : RecordingFile.readAllEvents(Path.of(args[0]))) {
      if (!e.getEventType().getName().equals("jdk.ExecutionSample") || e.getStackTrace() == null)
        continue;
      RecordedThread t = e.getThread("sampledThread");
      RecordedStackTrace st = e.getStackTrace();
      List<RecordedFrame> frames = st.getFrames();
      StringBuilder line = new StringBuilder("[" + (t == null ? "?" : t.getJavaName()) + "]");
      if (st.isTruncated())
        line.append(";[truncated]");
      for (int i = frames.size() - 1; i >= 0; i--) {
        RecordedFrame f = frames.get(i);
        if (!f.isJavaFrame())
          continue;
        line.append(';').append(f.getMethod().getType().getName().replace('.', '/')).append('.')
            .append(f.getMethod().getName());
      }
      stacks.merge(line.toString(), 1L, Long::sum);
    }
    for (Map.Entry<String, Long> s : stacks.entrySet())
      System.out.println(s.getKey() + " " + s.getValue());
  }
}
