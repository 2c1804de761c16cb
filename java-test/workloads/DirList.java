import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * One thread, "lister", lists a directory of 2000 files over and over until it
 * has used SECONDS of CPU (File.list: opendir, then getdents64 until the end;
 * CPU, not wall time, so a busy machine does not shorten it), and prints its
 * own user and system CPU time from /proc/thread-self/stat, in clock ticks:
 *   THREAD_TICKS lister USER SYSTEM
 * Run: DirList SECONDS
 */
public final class DirList {
  public static void main(String[] args) throws Exception {
    double seconds = Double.parseDouble(args[0]);
    Path dir = Files.createTempDirectory("dirlist");
    for (int i = 0; i < 2000; i++)
      Files.createFile(dir.resolve("entry-with-a-longish-name-" + i));
    String[] ticks = new String[1];
    Thread t = new Thread(() -> {
      long end = Work.threadCpuNanos() + (long) (seconds * 1e9);
      long n = 0;
      File f = dir.toFile();
      while (Work.threadCpuNanos() < end)
        n += f.list().length;
      Work.sink = n;
      try {
        String stat = Files.readString(Path.of("/proc/thread-self/stat"));
        String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        ticks[0] = fields[11] + " " + fields[12];   /* utime, stime: fields 14 and 15 of the line */
      } catch (Exception e) {
        throw new RuntimeException(e);
      }
    }, "lister");
    t.start();
    t.join();
    System.out.println("THREAD_TICKS lister " + ticks[0]);
    try (var s = Files.list(dir)) {
      for (Path p : (Iterable<Path>) s::iterator)
        Files.delete(p);
    }
    Files.delete(dir);
  }
}
