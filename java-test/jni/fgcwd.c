/* PerfDirVisit.enter/leave: the JVM works in another directory for a while
 * and comes back, as HotSpot does at start-up while it makes its perf data
 * file in /tmp/hsperfdata_USER (perfMemory_posix.cpp fchdir's in and back). */
#include <fcntl.h>
#include <jni.h>
#include <unistd.h>

/* The directory the JVM works in until now, as a descriptor to come back
 * to; -1 when dir cannot be entered. */
JNIEXPORT jint JNICALL Java_PerfDirVisit_enter(JNIEnv *env, jclass cls, jstring dir)
{
  (void)cls;
  const char *path = (*env)->GetStringUTFChars(env, dir, NULL);
  int back = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (back >= 0 && (!path || chdir(path) != 0)) {
    close(back);
    back = -1;
  }
  if (path)
    (*env)->ReleaseStringUTFChars(env, dir, path);
  return back;
}

JNIEXPORT jint JNICALL Java_PerfDirVisit_leave(JNIEnv *env, jclass cls, jint back)
{
  (void)env, (void)cls;
  int rc = fchdir(back);
  close(back);
  return rc;
}
