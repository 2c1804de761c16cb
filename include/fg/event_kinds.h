/* What is known of each kind of stack a profile holds (enum fg_stack_event):
 * one table that every output and reader takes names, units and titles
 * from, so a new kind is added here and in the code that records it. */
#ifndef FG_EVENT_KINDS_H
#define FG_EVENT_KINDS_H

#include <stdbool.h>
#include <stdint.h>

#include "fg/profile.h"
#include "fg/stats.h"

struct fg_event_kind {
  const char *name;          /* "cpu", "alloc", ...: --event, %e in file names */
  const char *unit;          /* of a stack's count: "samples", "bytes", "nanoseconds", "events" */
  const char *html_unit;     /* the flame graph's label of a count: "samples", "bytes", "ns waited" */
  const char *title;         /* the flame graph page's title; NULL: the default (CPU's) */
  const char *events_type;   /* pprof/OTLP: the type of a stack's events value ("alloc_objects"), unit "count" */
  const char *value_type;    /* pprof/OTLP: the type of a stack's count ("alloc_space"); NULL for CPU */
  const char *period_type;   /* pprof: what one sample's period measures ("space"); NULL for CPU */
  const char *period_unit;
  bool class_leaf;           /* the leaf frame is a class (FG_KIND_CLASS): the object's or the lock's */
};

/* The kind e; e past the table is CPU's. */
const struct fg_event_kind *fg_event_kind(enum fg_stack_event e);

/* The accounting of kind e (stats.alloc, stats.lock, ...); NULL for CPU,
 * whose accounting is the whole of struct fg_stats. */
struct fg_event_stats *fg_stats_event(struct fg_stats *s, enum fg_stack_event e);
const struct fg_event_stats *fg_stats_event_c(const struct fg_stats *s, enum fg_stack_event e);

/* The period a pprof/OTLP sample of kind e stands for: alloc's mean bytes
 * between samples, nativemem's too; 1 for a counted wait or event; 0 none. */
uint64_t fg_event_period(const struct fg_stats *s, enum fg_stack_event e);

/* The kernel events s names (stats.kevent[k].name not empty). */
int fg_stats_nkevents(const struct fg_stats *s);

/* A kernel event's name made a file name's part: letters, digits, '-' and
 * '_' kept, anything else (':' of a tracepoint, '/' and '.' of a uprobe's
 * path) '_' (what fgprof profile copies out of a container's directory). */
void fg_kevent_file_name(const char *name, char *out, size_t len);

/* The name %e takes for kind e: the kind's ("cpu", "alloc", ...), and
 * "kernel" for a profile's one kernel event; when s names several, each
 * kernel event's own (fg_kevent_file_name: "page-faults",
 * "sched_sched_switch"). */
void fg_event_file_name(const struct fg_stats *s, enum fg_stack_event e, char *out, size_t len);

/* The name a title or a sample type gives kind e: a kernel event's own
 * ("sched:sched_switch"), else the kind's. */
const char *fg_event_title_name(const struct fg_stats *s, enum fg_stack_event e);

/* The kind of the events present (a bit a kind) that name asks for: a
 * kind's name, %e's (fg_event_file_name), or a kernel event's own; "kernel"
 * is the first kernel event present. -1 when none. */
int fg_event_by_name(const struct fg_stats *s, unsigned present, const char *name);

/* A reader's: the kernel event named name in s (its first 319 bytes), or
 * the next one not on made so (on, named); -1 when s holds
 * FG_KERNEL_EVENTS_MAX others already. */
int fg_stats_kevent_index(struct fg_stats *s, const char *name);

#endif
