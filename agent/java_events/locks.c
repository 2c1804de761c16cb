/* lock: contended monitors (MonitorContendedEnter / Entered) and parks on
 * the java.util.concurrent locks a thread owns once it has them
 * (Unsafe.park bound to park_hook; which ones: fg/lock_kinds.h); see
 * java_events.h. Nothing here calls a Java method: fields, JNI's class
 * checks and JVMTI only. */
#include <stdio.h>
#include <string.h>

#include "fg/clock.h"
#include "fg/lock_kinds.h"
#include "fg/sample_record.h"
#include "hotspot/vm_structs.h"
#include "java_events/java_events.h"
#include "jvmti/agent.h"

typedef void(JNICALL *park_fn)(JNIEnv *jni, jobject unsafe, jboolean absolute, jlong time);

/* Set once, by the first session with lock, and kept: the binding stays. */
static park_fn jvm_park;                 /* HotSpot's Unsafe_Park */
static jfieldID park_blocker;            /* java.lang.Thread.parkBlocker */
static jclass owned_synchronizer;        /* java.util.concurrent.locks.AbstractOwnableSynchronizer */
static struct fg_agent *park_agent;
static _Atomic int park_armed;           /* this session records parks */
/* When this thread began to wait for a contended monitor (MonitorContendedEnter),
 * read at MonitorContendedEntered: a thread's own, record or not. */
static __thread uint64_t monitor_wait_ns;

/* A wait of ns on a lock whose class has JVM signature sig (NULL: not
 * known) that just ended on the calling thread, logged when it lasted lock=
 * or longer. */
static void waited(struct fg_agent *a, JNIEnv *jni, const char *sig, uint64_t ns, int park)
{
  if (ns < a->opts.lock_ns) {
    atomic_fetch_add_explicit(&a->events.below, 1, memory_order_relaxed);
    return;
  }
  struct fg_thread *t = fg_java_events_thread(a, jni);
  int64_t cls = sig ? fg_event_log_class_cached(&a->events, t ? &t->classes : NULL, sig) : -1;
  fg_java_events_log(a, t, cls, FG_STACK_LOCK, ns, 1, park);
}

/* The JVM signature of object's class (JVMTI memory, Deallocate'd by the
 * caller), or NULL. */
static char *class_signature(struct fg_agent *a, JNIEnv *jni, jobject object)
{
  char *sig = NULL;
  jclass klass = (*jni)->GetObjectClass(jni, object);
  if (klass && (*a->jvmti)->GetClassSignature(a->jvmti, klass, &sig, NULL) != JVMTI_ERROR_NONE)
    sig = NULL;
  if (klass)
    (*jni)->DeleteLocalRef(jni, klass);
  return sig;
}

void JNICALL fg_lock_monitor_enter(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread, jobject object)
{
  (void)jvmti;
  (void)thread;
  (void)object;
  struct fg_agent *a = fg_agent_instance();
  if (!fg_java_events_enter(a))
    return;
  (void)jni;
  monitor_wait_ns = fg_clock_ns(CLOCK_MONOTONIC);
  fg_java_events_leave(a);
}

void JNICALL fg_lock_monitor_entered(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread, jobject object)
{
  (void)jvmti;
  (void)thread;
  struct fg_agent *a = fg_agent_instance();
  if (!fg_java_events_enter(a))
    return;
  uint64_t began = monitor_wait_ns, now = fg_clock_ns(CLOCK_MONOTONIC);
  monitor_wait_ns = 0;
  if (began >= a->events_since_ns && began <= now) {   /* not a wait begun before this session */
    char *sig = class_signature(a, jni, object);
    waited(a, jni, sig, now - began, 0);   /* a monitor: always an owned lock */
    if (sig)
      (*a->jvmti)->Deallocate(a->jvmti, (unsigned char *)sig);
  }
  fg_java_events_leave(a);
}

/* Unsafe.park while fgagent is bound: a park whose blocker is an owned lock
 * (fg_lock_owned_blocker of its class) is timed. Every owned lock's Sync is an
 * AbstractOwnableSynchronizer: that check, without a lookup of the class's
 * name, lets a Condition's or a pool's park through untouched. */
static void JNICALL park_hook(JNIEnv *jni, jobject unsafe, jboolean absolute, jlong time)
{
  struct fg_agent *a = park_agent;
  char *sig = NULL;
  jthread thread = NULL;
  if (atomic_load_explicit(&park_armed, memory_order_acquire) &&
      (*a->jvmti)->GetCurrentThread(a->jvmti, &thread) == JVMTI_ERROR_NONE && thread) {
    jobject blocker = (*jni)->GetObjectField(jni, thread, park_blocker);
    (*jni)->DeleteLocalRef(jni, thread);
    if (blocker && (*jni)->IsInstanceOf(jni, blocker, owned_synchronizer))
      sig = class_signature(a, jni, blocker);
    if (sig && !fg_lock_owned_blocker(sig)) {   /* a CountDownLatch's await: a wait for an event */
      (*a->jvmti)->Deallocate(a->jvmti, (unsigned char *)sig);
      sig = NULL;
    }
    if (blocker)
      (*jni)->DeleteLocalRef(jni, blocker);
  }
  if (!sig) {
    jvm_park(jni, unsafe, absolute, time);
    return;
  }
  uint64_t began = fg_clock_ns(CLOCK_MONOTONIC);
  jvm_park(jni, unsafe, absolute, time);   /* never inside enter/leave: a park may last for hours */
  uint64_t ns = fg_clock_ns(CLOCK_MONOTONIC) - began;
  if (fg_java_events_enter(a)) {
    /* not a park begun before this session (it began under a stop, or the last session) */
    if (atomic_load_explicit(&park_armed, memory_order_acquire) && began >= a->events_since_ns)
      waited(a, jni, sig, ns, 1);
    fg_java_events_leave(a);
  }
  (*a->jvmti)->Deallocate(a->jvmti, (unsigned char *)sig);
}

extern const unsigned char fg_park_binder_class[];   /* ParkBinder.class (build/gen/park_binder.c) */
extern const unsigned fg_park_binder_class_len;
static int bound_rc = -1;
static const char *bind_why;

/* ParkBinder.bind0: the JDK's classes looked up and Unsafe.park bound, from a
 * native of a boot-loader class. FindClass asks the loader of the Java frame
 * calling it: here the boot loader, never an application's loader, whose
 * loadClass would be its code (a JVMTI callback's caller, or the system
 * loader, may be one). RegisterNatives of a java.base method is what HotSpot
 * wants from a class of the same loader. */
static void JNICALL binder_bind0(JNIEnv *jni, jclass binder, jlong entry)
{
  (void)binder;
  jclass unsafe = (*jni)->FindClass(jni, "jdk/internal/misc/Unsafe");
  jclass thread = unsafe ? (*jni)->FindClass(jni, "java/lang/Thread") : NULL;
  park_blocker = thread ? (*jni)->GetFieldID(jni, thread, "parkBlocker", "Ljava/lang/Object;") : NULL;
  jclass aos = park_blocker ? (*jni)->FindClass(jni, "java/util/concurrent/locks/AbstractOwnableSynchronizer") : NULL;
  owned_synchronizer = aos ? (*jni)->NewGlobalRef(jni, aos) : NULL;
  if (!owned_synchronizer) {
    (*jni)->ExceptionClear(jni);
    bind_why = "this JVM has no jdk.internal.misc.Unsafe, Thread.parkBlocker or AbstractOwnableSynchronizer as "
               "JDK 9 and later have";
    return;
  }
  JNINativeMethod park = {(char *)"park", (char *)"(ZJ)V", (void *)(uintptr_t)entry};
  bound_rc = (*jni)->RegisterNatives(jni, unsafe, &park, 1);
  if (bound_rc != 0)
    bind_why = "JNI refused to bind Unsafe.park to fgagent's native (RegisterNatives failed)";
}

/* Binds Unsafe.park to park_hook, once: 0, or -1 with why. */
static int bind_park(struct fg_agent *a, JNIEnv *jni, char *why, size_t len)
{
  struct fg_symbols *jvm = a->jvm_symbols ? a->jvm_symbols : fg_symbols_new();
  jvm_park = (park_fn)fg_vm_function(jvm, "Unsafe_Park");
  if (jvm != a->jvm_symbols)
    fg_symbols_free(jvm);
  if (!jvm_park) {
    snprintf(why, len, "libjvm's symbol table has no Unsafe_Park");
    return -1;
  }
  jclass binder = (*jni)->DefineClass(jni, "fgagent/ParkBinder", NULL, (const jbyte *)fg_park_binder_class,
                                      (jsize)fg_park_binder_class_len);
  JNINativeMethod bind0 = {(char *)"bind0", (char *)"(J)V", (void *)binder_bind0};
  jmethodID bind = binder && (*jni)->RegisterNatives(jni, binder, &bind0, 1) == 0
                       ? (*jni)->GetStaticMethodID(jni, binder, "bind", "(J)V") : NULL;
  if (bind)   /* our own final class's static method, no application code */
    (*jni)->CallStaticVoidMethod(jni, binder, bind, (jlong)(uintptr_t)park_hook);
  if ((*jni)->ExceptionCheck(jni))
    (*jni)->ExceptionClear(jni);
  if (bound_rc != 0) {
    snprintf(why, len, "%s", bind ? (bind_why ? bind_why : "ParkBinder.bind did not run")
                                  : "JNI refused to bind Unsafe.park to fgagent's native (its helper class could not "
                                    "be defined)");
    return -1;
  }
  return 0;
}

int fg_lock_park_start(struct fg_agent *a, JNIEnv *jni, char *msg, size_t len)
{
  static int bound;   /* 1 bound, -1 refused (said once, not tried again) */
  if (bound == 0)
    bound = bind_park(a, jni, msg, len) == 0 ? 1 : -1;
  else if (bound < 0)
    snprintf(msg, len, "Unsafe.park could not be bound");
  if (bound < 0)
    return -1;
  park_agent = a;
  atomic_store_explicit(&park_armed, 1, memory_order_release);
  return 0;
}

void fg_lock_park_stop(void)
{
  atomic_store_explicit(&park_armed, 0, memory_order_release);
}
