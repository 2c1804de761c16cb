/* Allocation and lock profiling: a session's start and stop, and what the
 * callbacks share (the thread's record, its stack); see java_events.h. */
#include "java_events/java_events.h"

#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fg/clock.h"
#include "fg/sample_record.h"
#include "jvmti/agent.h"
#include "jvmti/threads.h"

void fg_java_events_callbacks(jvmtiEventCallbacks *cb)
{
  cb->SampledObjectAlloc = fg_alloc_sampled;
  cb->MonitorContendedEnter = fg_lock_monitor_enter;
  cb->MonitorContendedEntered = fg_lock_monitor_entered;
}

int fg_java_events_enter(struct fg_agent *a)
{
  atomic_fetch_add(&a->events_inflight, 1);
  if (atomic_load(&a->events_on))
    return 1;
  atomic_fetch_sub(&a->events_inflight, 1);
  return 0;
}

void fg_java_events_leave(struct fg_agent *a)
{
  atomic_fetch_sub(&a->events_inflight, 1);
}

struct fg_thread *fg_java_events_thread(struct fg_agent *a, JNIEnv *jni)
{
  struct fg_thread *t = fg_current_thread;
  if (t && t->env == jni)
    return t;
  t = a->sampler.prior ? fg_prior_threads_find(&a->prior) : NULL;   /* running before an attach */
  return t && t->env == jni ? t : NULL;
}

int64_t fg_java_events_class(struct fg_agent *a, struct fg_thread *t, jclass klass)
{
  char *sig = NULL;
  if (!klass || (*a->jvmti)->GetClassSignature(a->jvmti, klass, &sig, NULL) != JVMTI_ERROR_NONE || !sig)
    return -1;
  int64_t id = fg_event_log_class_cached(&a->events, t ? &t->classes : NULL, sig);
  (*a->jvmti)->Deallocate(a->jvmti, (unsigned char *)sig);
  return id;
}

void fg_java_events_log(struct fg_agent *a, struct fg_thread *t, int64_t cls, enum fg_stack_event e, uint64_t weight,
                        uint64_t events, int park)
{
  /* a thread with no record (attaching, in its Thread's constructor) goes under its tid */
  int tid = t ? t->tid : (int)syscall(SYS_gettid);
  uint64_t key = t ? t->serial : (uint64_t)tid;
  if (cls < 0) {
    fg_event_log_lost(&a->events, key, e, weight, events);
    return;
  }
  struct fg_event_record r = {
    .thread = t, .serial = t ? t->serial : 0, .tid = tid, .time_ns = fg_clock_ns(CLOCK_MONOTONIC),
    .event = (uint8_t)e, .weight = weight, .events = events, .park = (uint8_t)park,
  };
  enum fg_event_walk walk;
  r.trace = fg_java_events_stack(a, t, (uint32_t)cls, e == FG_STACK_ALLOC ? FG_SAMPLE_ALLOC : FG_SAMPLE_LOCK, &walk);
  r.walk = (uint8_t)walk;
  fg_event_log_add(&a->events, key, &r);
}

void fg_java_events_keep_live(struct fg_agent *a, struct fg_thread *t, JNIEnv *jni, jobject object, int64_t cls,
                              uint64_t weight, uint64_t events)
{
  enum fg_event_walk walk;
  const struct fg_trace *tr = cls < 0 ? NULL : fg_java_events_stack(a, t, (uint32_t)cls, FG_SAMPLE_ALLOC, &walk);
  if (!tr) {
    fg_live_objects_refused(&a->live_objects, cls < 0);
    return;
  }
  int tid = t ? t->tid : (int)syscall(SYS_gettid);
  fg_live_objects_add(&a->live_objects, jni, object, tr, t, t ? t->serial : 0, tid, weight, events);
}

int fg_java_events_start(struct fg_agent *a, JNIEnv *jni, char *msg, size_t len)
{
  jvmtiEnv *jvmti = a->jvmti;
  int failed = 0;
  size_t at = 0;
  msg[0] = '\0';
  fg_event_log_reset(&a->events);
  fg_event_log_wake_with(&a->events, a->sampler.wake_fd, &a->sampler.wake_pending);
  a->events_since_ns = fg_clock_ns(CLOCK_MONOTONIC);
  a->alloc_on = a->lock_on = a->live_on = 0;
  fg_live_objects_stop(&a->live_objects, jni);   /* a session that never stopped: its references go */
  if (a->opts.live && fg_live_objects_start(&a->live_objects) != 0) {
    at += (size_t)snprintf(msg + at, len - at, "fgagent: live is not recorded: out of memory for its table of %u "
                           "weak references", FG_LIVE_MAX);
    failed = 1;
  } else if (a->opts.alloc) {
    jvmtiCapabilities caps = {0};
    caps.can_generate_sampled_object_alloc_events = 1;
    jvmtiError e = (*jvmti)->AddCapabilities(jvmti, &caps);
    if (e == JVMTI_ERROR_NONE)
      e = (*jvmti)->SetHeapSamplingInterval(jvmti, (jint)a->opts.alloc_bytes);
    if (e == JVMTI_ERROR_NONE)
      e = (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, JVMTI_EVENT_SAMPLED_OBJECT_ALLOC, NULL);
    if (e != JVMTI_ERROR_NONE) {
      at += (size_t)snprintf(msg + at, len - at, "fgagent: alloc is not recorded: this JVM refused heap sampling "
                             "(JVMTI error %d; it needs JDK 11 or later)", (int)e);
      failed = 1;
    } else if (a->opts.live) {
      a->live_on = 1;   /* the samples go to live_objects, reported at the dump */
    } else {
      a->alloc_on = 1;
    }
  }
  if (a->opts.lock && at < len) {
    jvmtiCapabilities caps = {0};
    caps.can_generate_monitor_events = 1;
    jvmtiError e = (*jvmti)->AddCapabilities(jvmti, &caps);
    if (e == JVMTI_ERROR_NONE)
      e = (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, JVMTI_EVENT_MONITOR_CONTENDED_ENTER, NULL);
    if (e == JVMTI_ERROR_NONE)
      e = (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, JVMTI_EVENT_MONITOR_CONTENDED_ENTERED, NULL);
    if (e != JVMTI_ERROR_NONE) {
      at += (size_t)snprintf(msg + at, len - at, "%sfgagent: lock is not recorded: this JVM refused monitor "
                             "events (JVMTI error %d)", at ? "\n" : "", (int)e);
      failed = 1;
    } else {
      a->lock_on = 1;
      char why[300];
      if (fg_lock_park_start(a, jni, why, sizeof why) != 0 && at < len) {
        at += (size_t)snprintf(msg + at, len - at, "%sfgagent: lock records synchronized monitors only, not "
                               "java.util.concurrent locks: %s", at ? "\n" : "", why);
        failed = 1;
      }
    }
  }
  atomic_store(&a->events_on, a->alloc_on || a->lock_on || a->live_on);
  return failed ? -1 : 0;
}

void fg_java_events_stop(struct fg_agent *a)
{
  jvmtiEnv *jvmti = a->jvmti;
  atomic_store(&a->events_on, 0);
  fg_lock_park_stop();
  if (a->alloc_on || a->live_on)
    (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_DISABLE, JVMTI_EVENT_SAMPLED_OBJECT_ALLOC, NULL);
  if (a->lock_on) {
    (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_DISABLE, JVMTI_EVENT_MONITOR_CONTENDED_ENTER, NULL);
    (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_DISABLE, JVMTI_EVENT_MONITOR_CONTENDED_ENTERED, NULL);
  }
  while (atomic_load(&a->events_inflight) > 0)   /* a callback between its check and its log */
    sched_yield();
}
