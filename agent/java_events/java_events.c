/* Allocation and lock profiling: a session's start and stop, and what the
 * callbacks share (the thread's record, its stack); see java_events.h. */
#include "java_events/java_events.h"

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fg/clock.h"
#include "fg/sample_record.h"
#include "jvmti/agent.h"

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

/* Frames asked of GetStackTrace without the heap: deeper stacks take a second call. */
#define ON_STACK_FRAMES 128

const struct fg_trace *fg_java_events_stack(struct fg_agent *a, uint32_t class_id, uint32_t flags)
{
  jvmtiFrameInfo local[ON_STACK_FRAMES];
  ASGCT_CallFrame frames_local[ON_STACK_FRAMES + 1];
  uint8_t types_local[ON_STACK_FRAMES + 1];
  int want = a->opts.depth + 1;   /* one more than depth tells a cut stack */
  jvmtiFrameInfo *info = local;
  ASGCT_CallFrame *frames = frames_local;
  uint8_t *types = types_local;
  jint count = 0;
  jvmtiError e = (*a->jvmti)->GetStackTrace(a->jvmti, NULL, 0, want < ON_STACK_FRAMES ? want : ON_STACK_FRAMES,
                                            info, &count);
  if (e == JVMTI_ERROR_NONE && count == ON_STACK_FRAMES && want > ON_STACK_FRAMES) {   /* deeper: all of it */
    jvmtiFrameInfo *all_info = malloc((size_t)want * sizeof *all_info);
    ASGCT_CallFrame *all_frames = malloc((size_t)(want + 1) * sizeof *all_frames);
    uint8_t *all_types = malloc((size_t)want + 1);
    jint all = 0;
    if (all_info && all_frames && all_types &&
        (*a->jvmti)->GetStackTrace(a->jvmti, NULL, 0, want, all_info, &all) == JVMTI_ERROR_NONE) {
      info = all_info;
      frames = all_frames;
      types = all_types;
      count = all;
    } else {   /* the first ON_STACK_FRAMES, cut */
      free(all_info);
      free(all_frames);
      free(all_types);
    }
  }
  if (e != JVMTI_ERROR_NONE || count < 0)
    count = 0;
  int n = count > a->opts.depth ? a->opts.depth : count;
  if (count > a->opts.depth || (info == local && count == ON_STACK_FRAMES && want > ON_STACK_FRAMES))
    flags |= FG_SAMPLE_TRUNCATED;   /* deeper than depth, or than the first call's room when memory ran out */
  frames[0] = (ASGCT_CallFrame){.lineno = 0, .method_id = (jmethodID)(uintptr_t)class_id};
  types[0] = FG_FRAME_CLASS;
  for (int i = 0; i < n; i++) {
    frames[i + 1] = (ASGCT_CallFrame){.lineno = (jint)info[i].location, .method_id = info[i].method};
    types[i + 1] = FG_FRAME_JAVA;
  }
  const struct fg_trace *tr = fg_trace_table_put(&a->traces, frames, types, (uint32_t)n + 1, flags);
  if (info != local) {
    free(info);
    free(frames);
    free(types);
  }
  return tr;
}

int64_t fg_java_events_class(struct fg_agent *a, jclass klass)
{
  char *sig = NULL;
  if (!klass || (*a->jvmti)->GetClassSignature(a->jvmti, klass, &sig, NULL) != JVMTI_ERROR_NONE || !sig)
    return -1;
  int64_t id = fg_event_log_class(&a->events, sig);
  (*a->jvmti)->Deallocate(a->jvmti, (unsigned char *)sig);
  return id;
}

void fg_java_events_log(struct fg_agent *a, struct fg_thread *t, int64_t cls, enum fg_stack_event e, uint64_t weight,
                        uint64_t events, int park)
{
  if (!t || cls < 0) {
    fg_event_log_lost(&a->events, e, !t);
    return;
  }
  struct fg_event_record r = {
    .thread = t, .serial = t->serial, .time_ns = fg_clock_ns(CLOCK_MONOTONIC), .event = (uint8_t)e,
    .weight = weight, .events = events, .park = (uint8_t)park,
  };
  r.trace = fg_java_events_stack(a, (uint32_t)cls, e == FG_STACK_ALLOC ? FG_SAMPLE_ALLOC : FG_SAMPLE_LOCK);
  fg_event_log_add(&a->events, &r);
}

int fg_java_events_start(struct fg_agent *a, JNIEnv *jni, char *msg, size_t len)
{
  jvmtiEnv *jvmti = a->jvmti;
  int failed = 0;
  size_t at = 0;
  msg[0] = '\0';
  fg_event_log_reset(&a->events);
  a->events_since_ns = fg_clock_ns(CLOCK_MONOTONIC);
  a->alloc_on = a->lock_on = 0;
  if (a->opts.alloc) {
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
  atomic_store(&a->events_on, a->alloc_on || a->lock_on);
  return failed ? -1 : 0;
}

void fg_java_events_stop(struct fg_agent *a)
{
  jvmtiEnv *jvmti = a->jvmti;
  atomic_store(&a->events_on, 0);
  fg_lock_park_stop();
  if (a->alloc_on)
    (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_DISABLE, JVMTI_EVENT_SAMPLED_OBJECT_ALLOC, NULL);
  if (a->lock_on) {
    (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_DISABLE, JVMTI_EVENT_MONITOR_CONTENDED_ENTER, NULL);
    (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_DISABLE, JVMTI_EVENT_MONITOR_CONTENDED_ENTERED, NULL);
  }
  while (atomic_load(&a->events_inflight) > 0)   /* a callback between its check and its log */
    sched_yield();
}
