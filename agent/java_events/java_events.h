/* Allocation and lock profiling (options alloc and lock): what the JVM
 * reports through JVMTI on the thread that allocated or waited, into the
 * session's event log (java_events/event_log.h).
 *
 *  - alloc: SampledObjectAlloc with SetHeapSamplingInterval(alloc=). HotSpot
 *    samples a thread's allocations at byte distances drawn from an
 *    exponential distribution of that mean, so an object of s bytes is
 *    sampled with probability 1 - exp(-s / interval): each sample stands for
 *    s / that bytes and 1 / that objects, which makes every site's estimate
 *    unbiased whatever its objects' sizes. The JVM does not say whether an
 *    object went into a new TLAB or outside one: the class frame says only
 *    the class.
 *  - lock: MonitorContendedEnter / Entered (synchronized), and Unsafe.park
 *    while the thread's parkBlocker is the Sync of a ReentrantLock,
 *    ReentrantReadWriteLock or Semaphore (fg/lock_kinds.h: a latch's await,
 *    a Condition's or a thread pool's idle wait is no lock contention). The park is
 *    reached by binding Unsafe.park to fgagent's own native, which times the
 *    JVM's (Unsafe_Park, found in libjvm's symbol table) around the wait. The
 *    binding is made once and stays (a second RegisterNatives of a method
 *    with a compiled native wrapper races with running callers); a session
 *    without lock passes straight through.
 *
 * Stacks are walked on the thread itself, in the callback, where the stack
 * stands still: by fgagent's walker from the thread's frame anchor, or by
 * JVMTI GetStackTrace where it cannot (java_events/event_stack.c). */
#ifndef FG_JAVA_EVENTS_H
#define FG_JAVA_EVENTS_H

#include <jvmti.h>
#include <stddef.h>
#include <stdint.h>

#include "fg/profile.h"

struct fg_agent;

/* Adds the capabilities and callbacks the events need (at setup, once). */
void fg_java_events_callbacks(jvmtiEventCallbacks *cb);

/* Turns on what a->opts asks (alloc, lock) for a new session: 0, or -1
 * with a line in msg saying what is not recorded and why (the session goes
 * on without it). */
int fg_java_events_start(struct fg_agent *a, JNIEnv *jni, char *msg, size_t len);
/* Turns them off and waits for callbacks under way: after it no event is
 * logged, so that the drainer's last pass takes them all. */
void fg_java_events_stop(struct fg_agent *a);

/* Internal to java_events/: the calling thread's record, or NULL. */
struct fg_thread *fg_java_events_thread(struct fg_agent *a, JNIEnv *jni);
/* How an event's stack was walked (the summary counts each). */
enum fg_event_walk {
  FG_EVENT_WALK_JVM = 0,       /* JVMTI GetStackTrace */
  FG_EVENT_WALK_OWN = 1,       /* fgagent's walker from the thread's frame anchor */
  FG_EVENT_WALK_DIFFERS = 2,   /* fgagent's, and verify found GetStackTrace's different */
};
/* The calling thread's Java stack (t: its record, or NULL) under the class frame class_id into the
 * trace table (flags: FG_SAMPLE_ALLOC or FG_SAMPLE_LOCK), walked as *walk
 * says (java_events/event_stack.c); NULL when the table refused it. A stack
 * with no Java frame is the class alone. */
const struct fg_trace *fg_java_events_stack(struct fg_agent *a, struct fg_thread *t, uint32_t class_id,
                                            uint32_t flags, enum fg_event_walk *walk);
/* The event log's id of klass's class (through t's cache of the classes it
 * met, t may be NULL); -1 when JVMTI does not say. */
int64_t fg_java_events_class(struct fg_agent *a, struct fg_thread *t, jclass klass);
/* Logs an event of the calling thread (t: its record, or NULL: kept under
 * its tid), its stack taken now, under class cls. */
void fg_java_events_log(struct fg_agent *a, struct fg_thread *t, int64_t cls, enum fg_stack_event e, uint64_t weight,
                        uint64_t events, int park);
/* alloc,live: keeps a weak reference to object (its class cls) with the
 * calling thread's stack taken now, for the report (live_objects.h); a class
 * JVMTI did not name, or a stack the table refused, is counted lost. */
void fg_java_events_keep_live(struct fg_agent *a, struct fg_thread *t, JNIEnv *jni, jobject object, int64_t cls,
                              uint64_t weight, uint64_t events);
/* Whether a callback may log now; each such callback ends with fg_java_events_leave. */
int fg_java_events_enter(struct fg_agent *a);
void fg_java_events_leave(struct fg_agent *a);

void JNICALL fg_alloc_sampled(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread, jobject object, jclass klass, jlong size);
void JNICALL fg_lock_monitor_enter(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread, jobject object);
void JNICALL fg_lock_monitor_entered(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread, jobject object);
/* lock: the park hook bound (once) and armed for this session. 0, or -1 with why in msg. */
int fg_lock_park_start(struct fg_agent *a, JNIEnv *jni, char *msg, size_t len);
void fg_lock_park_stop(void);

#endif
