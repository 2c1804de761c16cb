/**
 * A JVM that, started, works for a while in its perf data directory (/tmp/hsperfdata_USER) and
 * comes back, as HotSpot itself does at start-up while it makes its perf data file; then runs
 * HotMethods. Prints "VISITING" once there and "BACK MILLIS" (System.currentTimeMillis) once
 * back. Run: PerfDirVisit LIB VISIT_MS SECONDS (LIB: java-test/jni/fgcwd.c built).
 */
public final class PerfDirVisit {
  static native int enter(String dir);

  static native int leave(int back);

  public static void main(String[] args) throws Exception {
    System.load(args[0]);
    String dir = "/tmp/hsperfdata_" + System.getProperty("user.name");
    int back = enter(dir);
    if (back < 0) {
      System.out.println("PerfDirVisit: cannot enter " + dir);
      System.exit(2);
    }
    System.out.println("VISITING " + dir);
    Thread.sleep(Long.parseLong(args[1]));
    if (leave(back) != 0) {
      System.out.println("PerfDirVisit: cannot come back from " + dir);
      System.exit(2);
    }
    System.out.println("BACK " + System.currentTimeMillis());
    HotMethods.main(new String[] {args[2]});
  }
}
