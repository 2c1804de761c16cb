/* The table of stack kinds (fg/event_kinds.h). */
#include "fg/event_kinds.h"

#include <stddef.h>

static const struct fg_event_kind kinds[FG_STACK_EVENTS] = {
  [FG_STACK_CPU] = {"cpu", "samples", "samples", NULL, "samples", NULL, NULL, NULL, false},
  [FG_STACK_ALLOC] = {"alloc", "bytes", "bytes", "fgagent allocation flame graph: bytes allocated", "alloc_objects",
                      "alloc_space", "space", "bytes", true},
  [FG_STACK_LOCK] = {"lock", "nanoseconds", "ns waited",
                     "fgagent lock flame graph: nanoseconds waited for contended locks", "contentions", "delay",
                     "contentions", "count", true},
  [FG_STACK_NATIVEMEM] = {"nativemem", "bytes", "bytes", "fgagent native memory flame graph: bytes allocated by malloc",
                          "malloc_calls", "malloc_space", "space", "bytes", false},
  [FG_STACK_NATIVELOCK] = {"nativelock", "nanoseconds", "ns waited",
                           "fgagent native lock flame graph: nanoseconds waited for contended pthread locks",
                           "contentions", "delay", "contentions", "count", false},
  [FG_STACK_LIVE] = {"live", "bytes", "bytes", "fgagent live objects flame graph: bytes of sampled objects still alive",
                     "live_objects", "live_space", "space", "bytes", true},
  [FG_STACK_KERNEL] = {"kernel", "events", "events", "fgagent kernel event flame graph: occurrences of the event",
                       "samples", "events", "events", "count", false},
};

const struct fg_event_kind *fg_event_kind(enum fg_stack_event e)
{
  return (unsigned)e < FG_STACK_EVENTS ? &kinds[e] : &kinds[FG_STACK_CPU];
}

struct fg_event_stats *fg_stats_event(struct fg_stats *s, enum fg_stack_event e)
{
  switch (e) {
  case FG_STACK_ALLOC: return &s->alloc;
  case FG_STACK_LOCK: return &s->lock;
  case FG_STACK_NATIVEMEM: return &s->nativemem;
  case FG_STACK_NATIVELOCK: return &s->nativelock;
  case FG_STACK_LIVE: return &s->live;
  case FG_STACK_KERNEL: return &s->kernel;
  default: return NULL;
  }
}

const struct fg_event_stats *fg_stats_event_c(const struct fg_stats *s, enum fg_stack_event e)
{
  return fg_stats_event((struct fg_stats *)s, e);
}

uint64_t fg_event_period(const struct fg_stats *s, enum fg_stack_event e)
{
  switch (e) {
  case FG_STACK_ALLOC: return s->alloc.interval;
  case FG_STACK_NATIVEMEM: return s->nativemem.interval;
  case FG_STACK_LIVE: return s->live.interval;
  case FG_STACK_KERNEL: return s->kernel.interval ? s->kernel.interval : 1;   /* events a sample stands for */
  case FG_STACK_CPU: return 0;
  default: return 1;
  }
}
