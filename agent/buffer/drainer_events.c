/* alloc and lock: the event log's records into the profile, each under its
 * thread like a CPU sample, with the accounting of the summary's alloc and
 * lock sections (fg/stats.h: taken == stored + the lost of each cause). A
 * record stands for 1 + merged events (java_events/event_log.h). */
#include <stdlib.h>

#include "buffer/drainer_internal.h"
#include "fg/sample_record.h"
#include "java_events/java_events.h"
#include "jvmti/threads.h"

void fg_drainer_drain_events(struct fg_drainer *d)
{
  if (!d->events)
    return;
  struct fg_event_record *records;
  uint32_t n;
  struct fg_event_stats counts[FG_STACK_EVENTS];
  fg_event_log_take(d->events, &records, &n, counts);
  struct fg_stats *st = &d->profile->stats;
  fg_event_stats_add_counts(&st->alloc, &counts[FG_STACK_ALLOC]);
  fg_event_stats_add_counts(&st->lock, &counts[FG_STACK_LOCK]);
  st->alloc.classes = st->lock.classes = fg_event_log_classes(d->events);
  for (uint32_t i = 0; i < n; i++) {
    const struct fg_event_record *r = &records[i];
    struct fg_event_stats *es = r->event == FG_STACK_ALLOC ? &st->alloc : &st->lock;
    /* a record is never freed, only taken again by a new thread: then its
     * serial says the event was another registration's */
    uint64_t stands_for = 1 + (uint64_t)r->merged;
    if (r->thread && r->thread->serial != r->serial) {
      es->no_thread += stands_for;
      es->lost_weight += r->weight;
      continue;
    }
    uint32_t thread = r->thread ? fg_drainer_profile_thread(d, r->thread) : fg_drainer_unregistered_thread(d, r->tid);
    int64_t idx = fg_trace_stack(&d->stacks, d->profile, thread, -1, r->trace, 0);
    if (idx < 0) {
      es->no_memory += stands_for;
      es->lost_weight += r->weight;
      continue;
    }
    fg_profile_count(d->profile, (uint32_t)idx, r->weight, r->time_ns, 0);
    d->profile->stacks[idx].events += r->events;
    es->stored += stands_for;
    es->merged += r->merged;
    es->weight += r->weight;
    es->events += r->events;
    es->no_stack += (r->trace->n == 1) * stands_for;   /* the class frame alone */
    es->parks += r->park * stands_for;
    es->walked += (r->walk != FG_EVENT_WALK_JVM) * stands_for;
    es->differ += (r->walk == FG_EVENT_WALK_DIFFERS) * stands_for;
  }
  free(records);
}
