import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.security.Permission;
import java.util.Map;
import java.util.TreeMap;

/**
 * An application with a SecurityManager of its own (Counting) that counts the calls a Thread's
 * construction makes of it: getThreadGroup, checkAccess(Thread), checkAccess(ThreadGroup) and
 * checkPermission, each while java.lang.Thread's constructor is on the stack, by the name of the
 * thread that constructs. It permits everything. The workload itself constructs no thread once it
 * is installed; HotSpot does (its Attach Listener, made on its Signal Dispatcher), and so does
 * whatever agent constructs one.
 *
 * Installs Counting (JDK 17 as it is, JDK 18 to 23 with -Djava.security.manager=allow; JDK 24
 * and later refuse any: then prints NO_SECURITY_MANAGER), prints READY, works until a file named
 * go appears in the working directory (SECONDS at most), then prints one line
 * THREAD_CHECKS name=n ... (THREAD_CHECKS alone when there were none) and DONE.
 * Run: SecurityManaged SECONDS
 */
@SuppressWarnings("removal")
public final class SecurityManaged {
  static final class Counting extends SecurityManager {
    final Map<String, Integer> calls = new TreeMap<>();
    final ThreadLocal<Boolean> counting = new ThreadLocal<>();   /* its own look at the stack asks again */

    private void count() {
      if (counting.get() != null)
        return;
      counting.set(Boolean.TRUE);
      try {
        for (StackTraceElement e : new Throwable().getStackTrace())
          if (e.getClassName().equals("java.lang.Thread") && e.getMethodName().equals("<init>")) {
            synchronized (calls) {
              calls.merge(Thread.currentThread().getName(), 1, Integer::sum);
            }
            return;
          }
      } finally {
        counting.remove();
      }
    }

    @Override public ThreadGroup getThreadGroup() { count(); return null; }
    @Override public void checkAccess(Thread t) { count(); }
    @Override public void checkAccess(ThreadGroup g) { count(); }
    @Override public void checkPermission(Permission p) { count(); }
    @Override public void checkPermission(Permission p, Object context) { count(); }
  }

  static volatile long sink;

  public static void main(String[] args) throws Exception {
    long until = System.nanoTime() + Long.parseLong(args[0]) * 1_000_000_000L;
    Counting sm = new Counting();
    try {
      System.setSecurityManager(sm);
    } catch (UnsupportedOperationException e) {
      System.out.println("NO_SECURITY_MANAGER");
      sm = null;
    }
    System.out.println("READY");
    System.out.flush();
    Path go = Paths.get("go");
    while (System.nanoTime() < until && !Files.exists(go))
      for (int i = 0; i < 1_000_000; i++)
        sink += i * 31L ^ sink;
    StringBuilder line = new StringBuilder("THREAD_CHECKS");
    if (sm != null)
      synchronized (sm.calls) {
        sm.calls.forEach((name, n) -> line.append(' ').append(name.replace(' ', '_')).append('=').append(n));
      }
    System.out.println(line);
    System.out.println("DONE");
  }
}
