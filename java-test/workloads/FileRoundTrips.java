import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * THREADS threads do a little work and rest 20 ms, over and over, while main writes 4 KB to a new
 * file, reads it back and deletes it, for SECONDS: each round trip needs file descriptors of
 * the application's own. Prints "round trips ok N failed F" and the first failure.
 * Run: FileRoundTrips THREADS SECONDS
 */
public final class FileRoundTrips {
  static boolean roundTrip(byte[] data) throws IOException {
    Path p = Files.createTempFile(Path.of("."), "trip-", ".bin");
    try {
      Files.write(p, data);
      return Files.readAllBytes(p).length == data.length;
    } finally {
      Files.deleteIfExists(p);
    }
  }

  public static void main(String[] args) throws Exception {
    int n = Integer.parseInt(args[0]);
    long end = System.nanoTime() + (long) (Double.parseDouble(args[1]) * 1e9);
    byte[] data = new byte[4096];
    roundTrip(data);   /* the file classes and libnio loaded before the threads come */
    for (int i = 0; i < n; i++) {
      Thread t = new Thread(() -> {
        long s = 1;
        try {
          while (true) {
            s = Work.mix(s, 1);
            Thread.sleep(20);   /* 300 busy threads would starve main on a small host */
          }
        } catch (InterruptedException e) {
          Work.sink = s;
        }
      }, "busy-" + i);
      t.setDaemon(true);
      t.start();
    }
    long ok = 0, failed = 0;
    String first = "";
    while (System.nanoTime() < end) {
      try {
        if (roundTrip(data))
          ok++;
        else
          failed++;
      } catch (IOException | Error e) {
        if (failed++ == 0)
          first = e.toString();
      }
    }
    System.out.println("round trips ok " + ok + " failed " + failed + (first.isEmpty() ? "" : " first: " + first));
  }
}
