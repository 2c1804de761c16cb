package fgagent;

/**
 * Binds Unsafe.park to fgagent's native (agent/java_events/locks.c). Defined by the agent in the
 * boot class loader, so that its RegisterNatives of a java.base method comes from a class of the
 * same loader and HotSpot prints no "Re-registering of platform native method" warning
 * (jni_RegisterNatives looks at the caller two frames up: bind, then bind0).
 */
final class ParkBinder {
  private ParkBinder() {}

  static void bind(long entry) {
    bind0(entry);
  }

  private static native void bind0(long entry);
}
