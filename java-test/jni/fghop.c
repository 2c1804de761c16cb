/* ScaleHop.pin: moves the calling thread to one CPU (Scale's hop mode). */
#define _GNU_SOURCE
#include <jni.h>
#include <sched.h>

JNIEXPORT void JNICALL Java_ScaleHop_pin(JNIEnv *env, jclass cls, jint cpu)
{
  (void)env, (void)cls;
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  sched_setaffinity(0, sizeof set, &set);
}
