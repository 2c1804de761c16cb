/**
 * Loaded by a class loader of its own (UnloadedJni): loads libfgspin.so from its own directory
 * and spins in it. Kept out of the workloads' class path so that its loader can be collected.
 */
public final class JniSpinner {
  static {
    System.load(System.getProperty("fgspin.dir") + "/libfgspin.so");
  }

  static native long spin(long nanos);

  public static long run(long nanos) {
    return spin(nanos);
  }
}
