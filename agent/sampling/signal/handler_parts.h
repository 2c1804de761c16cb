/* The handler's parts timed, for `make bench-parts` only: the agent built
 * with -DFG_HANDLER_PARTS (build/libfgagent-parts.so) reads the time stamp
 * counter between the parts of each walk and adds the cycles up; its summary
 * then gives each part's cycles a signal (fg_parts_report). In every other
 * build these are empty and cost nothing.
 *
 * A millisecond apart, the handler finds its code and data cold, so a part's
 * cost depends on the host's state from run to run by more than most changes
 * to it do. So each signal is dealt to one of two arms at random and the
 * arms are counted apart: in one run both arms meet the same states.
 * With the same code both arms read the same, within the run's noise (the
 * report gives both); an experiment makes one arm differ (if fg_parts_arm())
 * and compares them. Async-signal-safe: rdtsc, thread-local and relaxed
 * atomic adds. */
#ifndef FG_HANDLER_PARTS_H
#define FG_HANDLER_PARTS_H

#include <stdio.h>

enum fg_part {
  FG_PART_PERIOD,    /* the entry's clock and counter page, the counter's next period (the ioctl once a run) */
  FG_PART_BEFORE,    /* back-off, clocks, the counter page's sequence, the walk room */
  FG_PART_KERNEL,    /* the sample's kernel frames from the counter's ring */
  FG_PART_WALK,      /* fg_walk_stack on a Java thread */
  FG_PART_WALK_NATIVE,   /* fg_walk_stack on a thread with no Java (GC, JIT, VM threads) */
  FG_PART_TRACE,     /* the trace table, the kept walk's commit */
  FG_PART_RING,      /* the sample into the thread's ring */
  FG_PART_AFTER,     /* clocks again, the back-off's verdict, counters */
  FG_PARTS
};

#ifdef FG_HANDLER_PARTS
#include <stdint.h>
#include <x86intrin.h>

struct fg_parts_clock {
  uint64_t at;       /* the counter when the last part ended */
  uint64_t cycles[FG_PARTS];
};

/* The arm of this thread's signal (0 or 1), dealt by fg_parts_begin. In a
 * file built without FG_HANDLER_PARTS (not in the Makefile's PARTS_SRC) it
 * is always 0: an experiment there changes neither arm. */
int fg_parts_arm(void);

/* A signal's first part begins, and its arm is drawn. */
void fg_parts_begin(struct fg_parts_clock *c);

/* The part that ends now. */
static inline void fg_parts_mark(struct fg_parts_clock *c, enum fg_part p)
{
  uint64_t now = __rdtsc();
  c->cycles[p] = now - c->at;
  c->at = now;
}

/* A walked signal's parts, added to its arm's (or, past a million cycles in
 * all, counted as left out). */
void fg_parts_add(const struct fg_parts_clock *c);

#else
struct fg_parts_clock {
  char none;
};
static inline int fg_parts_arm(void)
{
  return 0;
}
static inline void fg_parts_begin(struct fg_parts_clock *c)
{
  (void)c;
}
static inline void fg_parts_mark(struct fg_parts_clock *c, enum fg_part p)
{
  (void)c;
  (void)p;
}
static inline void fg_parts_add(const struct fg_parts_clock *c)
{
  (void)c;
}
#endif

/* The parts' lines for the summary: nothing unless built to time them. */
void fg_parts_report(FILE *out);

#endif
