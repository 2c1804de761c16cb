import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

/**
 * Another user's trap: listens on a UNIX socket at PATH (mode 600) for SECONDS and says whether
 * anybody connected and what they sent. Prints "PLANTED" once listening, then "NONE" or
 * "CONNECTED <bytes>". Run: PlantSocket PATH SECONDS
 */
public final class PlantSocket {
  public static void main(String[] args) throws Exception {
    Path path = Path.of(args[0]);
    long end = System.nanoTime() + (long) (Double.parseDouble(args[1]) * 1e9);
    try (ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
      server.bind(UnixDomainSocketAddress.of(path));
      Files.setPosixFilePermissions(path, PosixFilePermissions.fromString("rw-------"));
      server.configureBlocking(false);
      System.out.println("PLANTED");
      System.out.flush();
      while (System.nanoTime() < end) {
        SocketChannel c = server.accept();
        if (c != null) {
          c.configureBlocking(true);
          c.socket().setSoTimeout(1000);
          int n = c.read(ByteBuffer.allocate(8192));
          System.out.println("CONNECTED " + n);
          return;
        }
        Thread.sleep(10);
      }
      System.out.println("NONE");
    } finally {
      Files.deleteIfExists(path);
    }
  }
}
