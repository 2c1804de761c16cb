/* alloc: JVMTI SampledObjectAlloc, each sample weighted by what it stands
 * for; see java_events.h. */
#include <math.h>

#include "java_events/java_events.h"
#include "jvmti/agent.h"

void JNICALL fg_alloc_sampled(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread, jobject object, jclass klass, jlong size)
{
  (void)jvmti;
  (void)thread;
  struct fg_agent *a = fg_agent_instance();
  if (!fg_java_events_enter(a))
    return;
  struct fg_thread *t = fg_java_events_thread(a, jni);
  /* sampled with probability p = 1 - exp(-size / interval): it stands for size / p bytes, 1 / p objects */
  double s = size > 0 ? (double)size : 1.0, interval = (double)a->opts.alloc_bytes;
  double p = interval > 0 ? -expm1(-s / interval) : 1.0;
  uint64_t bytes = (uint64_t)llround(s / p), objects = (uint64_t)llround(1.0 / p);
  if (a->live_on)
    fg_java_events_keep_live(a, t, jni, object, fg_java_events_class(a, t, klass), bytes, objects);
  else
    fg_java_events_log(a, t, fg_java_events_class(a, t, klass), FG_STACK_ALLOC, bytes, objects, 0);
  fg_java_events_leave(a);
}
