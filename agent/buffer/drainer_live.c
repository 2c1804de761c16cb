/* alloc,live: the sampled objects still alive, into the profile as live
 * stacks (java_events/live_objects.h), each under the thread that allocated
 * it. A report replaces the last one's counts: live is what is alive now,
 * not a sum over dumps. Its accounting (stats.live, the summary's live
 * section):
 *   tracked == collected + alive, alive == stored + lost at the report,
 *   taken == stored + no_memory + no_class (the samples not kept for want
 *   of a class or a stack among them). */
#include "buffer/drainer_internal.h"
#include "fg/trace_stacks.h"
#include "java_events/live_objects.h"
#include "jvmti/threads.h"

static void add_alive(void *ctx, const struct fg_live_entry *e)
{
  struct fg_drainer *d = ctx;
  struct fg_event_stats *st = &d->profile->stats.live;
  /* a thread that ended since (its record taken by a new one): kept under its tid */
  uint32_t thread = e->thread && e->thread->serial == e->serial ? fg_drainer_profile_thread(d, e->thread)
                                                                 : fg_drainer_unregistered_thread(d, e->tid);
  int64_t idx = fg_trace_stack_as(&d->stacks, d->profile, thread, e->trace, FG_STACK_LIVE);
  if (idx < 0) {
    st->no_memory++;
    st->lost_weight += e->weight;
    return;
  }
  fg_profile_count(d->profile, (uint32_t)idx, e->weight, 0, 0);   /* no time: a state at the report, not an event */
  d->profile->stacks[idx].events += e->events;
  st->stored++;
  st->weight += e->weight;
  st->events += e->events;
  st->no_stack += e->trace->n == 1;   /* the class frame alone */
}

void fg_drainer_report_live(struct fg_drainer *d, struct fg_live_objects *l, JNIEnv *jni)
{
  struct fg_profile *p = d->profile;
  for (uint32_t i = 0; i < p->nstacks; i++)
    if (p->stacks[i].event == FG_STACK_LIVE)
      p->stacks[i].count = p->stacks[i].events = 0;   /* the last report's: left out of every output */
  struct fg_event_stats *st = &p->stats.live;
  *st = (struct fg_event_stats){.on = 1, .interval = st->interval};
  pthread_mutex_lock(&d->registry->lock);   /* the threads' records stay theirs while looked at */
  struct fg_live_counts c = fg_live_objects_each(l, jni, add_alive, d);
  pthread_mutex_unlock(&d->registry->lock);
  st->no_memory += c.unreported + c.no_stack;   /* at the report, or at the sample */
  st->no_class = c.no_class;
  st->lost_weight += c.unreported_weight;
  st->taken = st->stored + st->no_memory + st->no_class;
  st->tracked = c.tracked;
  st->collected = c.collected;
  st->untracked = c.untracked;
}
