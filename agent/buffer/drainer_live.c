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
#include "fg/u64_map.h"
#include "java_events/live_objects.h"
#include "jvmti/threads.h"

struct report {
  struct fg_drainer *d;
  struct fg_u64_map by_tid;     /* tid + 1 -> the profile's last thread of that tid; built when first needed */
  int by_tid_built;
};

/* The profile thread of an entry whose thread's record went to a new
 * thread since: the profile's thread of its tid (every registered thread
 * gets one at each pass, named, so it is there unless the profile began
 * after the thread ended, a loop= interval's), else one under its tid. A tid
 * the kernel gave again since names the later thread: rare, and the same
 * site's bytes all the same. */
static uint32_t ended_thread(struct report *rp, int tid)
{
  struct fg_profile *p = rp->d->profile;
  if (!rp->by_tid_built) {
    rp->by_tid_built = 1;
    for (uint32_t i = 0; i < p->nthreads; i++)
      fg_u64_map_put(&rp->by_tid, (uint64_t)(uint32_t)p->threads[i].tid + 1, i);   /* out of memory: by tid below */
  }
  uint32_t at;
  if (fg_u64_map_get(&rp->by_tid, (uint64_t)(uint32_t)tid + 1, &at))
    return at;
  return fg_drainer_unregistered_thread(rp->d, tid);
}

static void add_alive(void *ctx, const struct fg_live_entry *e)
{
  struct report *rp = ctx;
  struct fg_drainer *d = rp->d;
  struct fg_event_stats *st = &d->profile->stats.live;
  /* the registry's lock for the look-up alone: a thread starting waits for it */
  pthread_mutex_lock(&d->registry->lock);
  uint32_t thread = e->thread && e->thread->serial == e->serial ? fg_drainer_profile_thread(d, e->thread)
                                                                 : ended_thread(rp, e->tid);
  pthread_mutex_unlock(&d->registry->lock);
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
  struct report rp = {.d = d};
  fg_u64_map_init(&rp.by_tid);
  struct fg_live_counts c = fg_live_objects_each(l, jni, add_alive, &rp);
  fg_u64_map_free(&rp.by_tid);
  st->no_memory += c.unreported + c.no_stack;   /* at the report, or at the sample */
  st->no_class = c.no_class;
  st->lost_weight += c.unreported_weight;
  st->taken = st->stored + st->no_memory + st->no_class;
  st->tracked = c.tracked;
  st->collected = c.collected;
  st->untracked = c.untracked;
}
