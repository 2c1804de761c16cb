/* The table of stack kinds (fg/event_kinds.h). */
#include "fg/event_kinds.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

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
#define KERNEL_KIND {"kernel", "events", "events", "fgagent kernel event flame graph: occurrences of the event", \
                     "samples", "events", "events", "count", false}
  [FG_STACK_KERNEL] = KERNEL_KIND, [FG_STACK_KERNEL + 1] = KERNEL_KIND, [FG_STACK_KERNEL + 2] = KERNEL_KIND,
  [FG_STACK_KERNEL + 3] = KERNEL_KIND,
#undef KERNEL_KIND
};
_Static_assert(FG_KERNEL_EVENTS_MAX == 4, "a row above for each kernel event kind");

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
  default: return fg_stack_kernel_index(e) >= 0 ? &s->kernel[fg_stack_kernel_index(e)] : NULL;
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
  case FG_STACK_CPU: return 0;
  default: break;
  }
  int k = fg_stack_kernel_index(e);   /* a kernel event's: the events a sample stands for */
  return k >= 0 && s->kernel[k].interval ? s->kernel[k].interval : 1;
}

int fg_stats_nkevents(const struct fg_stats *s)
{
  int n = 0;
  for (int k = 0; k < FG_KERNEL_EVENTS_MAX; k++)
    n += s->kevent[k].name[0] != '\0';
  return n;
}

void fg_kevent_file_name(const char *name, char *out, size_t len)
{
  size_t n = 0;
  for (; name[n] && n + 1 < len; n++) {
    char c = name[n];
    int safe = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_';
    out[n] = safe ? c : '_';
  }
  if (len)
    out[n] = '\0';
}

void fg_event_file_name(const struct fg_stats *s, enum fg_stack_event e, char *out, size_t len)
{
  int k = fg_stack_kernel_index(e);
  if (k >= 0 && fg_stats_nkevents(s) > 1 && s->kevent[k].name[0])
    fg_kevent_file_name(s->kevent[k].name, out, len);
  else
    snprintf(out, len, "%s", fg_event_kind(e)->name);
}

const char *fg_event_title_name(const struct fg_stats *s, enum fg_stack_event e)
{
  int k = fg_stack_kernel_index(e);
  return k >= 0 && s->kevent[k].name[0] ? s->kevent[k].name : fg_event_kind(e)->name;
}

int fg_event_by_name(const struct fg_stats *s, unsigned present, const char *name)
{
  for (int e = 0; e < FG_STACK_EVENTS; e++) {
    if (!(present & 1u << e))
      continue;
    char file[320];
    fg_event_file_name(s, (enum fg_stack_event)e, file, sizeof file);
    int k = fg_stack_kernel_index(e);
    if (strcmp(file, name) == 0 || (k >= 0 && strcmp(s->kevent[k].name, name) == 0) ||
        (k >= 0 && strcmp(name, "kernel") == 0))
      return e;
  }
  return -1;
}

int fg_stats_kevent_index(struct fg_stats *s, const char *name)
{
  for (int k = 0; k < FG_KERNEL_EVENTS_MAX; k++)
    if (s->kernel[k].on && strncmp(s->kevent[k].name, name, sizeof s->kevent[k].name - 1) == 0)
      return k;
  for (int k = 0; k < FG_KERNEL_EVENTS_MAX; k++)
    if (!s->kernel[k].on) {
      s->kernel[k].on = 1;
      snprintf(s->kevent[k].name, sizeof s->kevent[k].name, "%s", name);
      return k;
    }
  return -1;
}
