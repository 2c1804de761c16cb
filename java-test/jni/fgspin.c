/* A JNI library for UnloadedJni: its entry calls a leaf of its own built
 * without unwind tables (fgspin_leaf.c: the walker reads the code before
 * the leaf's return address to step out of it), and it is unloaded with
 * the class loader that loaded it. */
#include <jni.h>
#include <time.h>

static long long now_ns(void)
{
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1000000000LL + t.tv_nsec;
}

unsigned long fg_spin_leaf(unsigned long x, long long end_ns) __attribute__((visibility("hidden")));

JNIEXPORT jlong JNICALL Java_JniSpinner_spin(JNIEnv *env, jclass cls, jlong nanos)
{
  (void)env;
  (void)cls;
  return (jlong)fg_spin_leaf((unsigned long)nanos, now_ns() + nanos) + 1;
}
