/* The JVM's GC pauses, from JVMTI's GarbageCollectionStart and
 * GarbageCollectionFinish, for the heatmap and the .jfr (the profile's
 * marks). The JDK's own recordings mark GC pauses with jdk.GCPhasePause;
 * this is what a session of ours sees without JFR.
 *
 * Both callbacks run with the VM stopped for the collection: the spec
 * allows no JNI and no JVMTI but raw monitors, memory and the environment's
 * local storage, and a lock could be held by a stopped thread. They read
 * CLOCK_MONOTONIC (the samples' clock) and write the lock-free ring of
 * fg/gc_pauses.h; the drainer makes each pause a mark. */
#include <stdio.h>

#include "fg/clock.h"
#include "jvmti/agent.h"

static struct fg_agent *agent_of(jvmtiEnv *jvmti)
{
  void *a = NULL;
  (*jvmti)->GetEnvironmentLocalStorage(jvmti, &a);   /* allowed here by the spec */
  return a;
}

static void JNICALL on_gc_start(jvmtiEnv *jvmti)
{
  struct fg_agent *a = agent_of(jvmti);
  if (a)
    fg_gc_pauses_begin(&a->gc_pauses, fg_clock_ns(CLOCK_MONOTONIC));
}

static void JNICALL on_gc_finish(jvmtiEnv *jvmti)
{
  struct fg_agent *a = agent_of(jvmti);
  if (a)
    fg_gc_pauses_end(&a->gc_pauses, fg_clock_ns(CLOCK_MONOTONIC));
}

void fg_gc_events_callbacks(jvmtiEventCallbacks *cb)
{
  cb->GarbageCollectionStart = on_gc_start;
  cb->GarbageCollectionFinish = on_gc_finish;
}

/* Asked once, at load or the first attach (HotSpot gives it in the live
 * phase too); without it no session marks GC pauses. */
void fg_gc_events_capability(struct fg_agent *a)
{
  jvmtiCapabilities caps = {0};
  caps.can_generate_garbage_collection_events = 1;
  a->gc_capable = (*a->jvmti)->AddCapabilities(a->jvmti, &caps) == JVMTI_ERROR_NONE;
  fg_gc_pauses_reset(&a->gc_pauses);
}

/* A session whose profile keeps marks turns the events on; one that keeps
 * none leaves them off (a session before may have had them: stop turned
 * them off). Pauses left in the ring from before are not this session's. */
void fg_gc_events_start(struct fg_agent *a)
{
  a->gc_on = 0;
  if (!a->profile.marks.max)
    return;
  struct fg_gc_pause old[64];
  while (fg_gc_pauses_take(&a->gc_pauses, old, 64) == 64)
    ;
  atomic_store(&a->gc_pauses.start_ns, 0);
  jvmtiEnv *jvmti = a->jvmti;
  jvmtiError e = a->gc_capable ? JVMTI_ERROR_NONE : JVMTI_ERROR_MUST_POSSESS_CAPABILITY;
  if (e == JVMTI_ERROR_NONE)
    e = (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, JVMTI_EVENT_GARBAGE_COLLECTION_START, NULL);
  if (e == JVMTI_ERROR_NONE)
    e = (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, JVMTI_EVENT_GARBAGE_COLLECTION_FINISH, NULL);
  if (e != JVMTI_ERROR_NONE) {
    (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_DISABLE, JVMTI_EVENT_GARBAGE_COLLECTION_START, NULL);
    fprintf(stderr, "fgagent: GC pauses are not marked: this JVM refused JVMTI's garbage collection events "
                    "(error %d)\n", (int)e);
    return;
  }
  a->gc_on = 1;
}

/* Off before the drainer's final pass, which takes the last pauses. */
void fg_gc_events_stop(struct fg_agent *a)
{
  if (!a->gc_on)
    return;
  (*a->jvmti)->SetEventNotificationMode(a->jvmti, JVMTI_DISABLE, JVMTI_EVENT_GARBAGE_COLLECTION_START, NULL);
  (*a->jvmti)->SetEventNotificationMode(a->jvmti, JVMTI_DISABLE, JVMTI_EVENT_GARBAGE_COLLECTION_FINISH, NULL);
  a->gc_on = 0;
}
