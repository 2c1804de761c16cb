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

#endif
