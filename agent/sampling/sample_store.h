/* A walked sample into its thread's ring: what the SIGPROF handler does
 * with each walk, and walker=copy's engine with each copy it walks (the
 * one producer of a thread's ring either way). Async-signal-safe: atomics,
 * the ring's producer calls, one write on the drainer's eventfd. */
#ifndef FG_SAMPLE_STORE_H
#define FG_SAMPLE_STORE_H

#include <stdatomic.h>
#include <stdint.h>

#include "sampling/sampler.h"

/* Adds n to a counter with a single writer (the thread's handler, or the
 * copy engine for its threads). */
static inline void fg_store_add(_Atomic uint64_t *counter, uint64_t n)
{
  atomic_store_explicit(counter, atomic_load_explicit(counter, memory_order_relaxed) + n, memory_order_relaxed);
}

/* A sample of thread tid, which has no record: counted under its thread,
 * with no stack. */
static inline void fg_store_unregistered(struct fg_sampler *s, int tid)
{
  atomic_fetch_add_explicit(&s->unregistered_taken, 1, memory_order_relaxed);
  fg_unregistered_add(s->unregistered, tid);
}

/* Wakes the drainer now rather than at its next pass: one write per
 * wake-up, whichever thread gets there first. */
void fg_store_wake(struct fg_sampler *s);

/* Stores the sample of trace (NULL: refused over memlimit, counted so) in
 * t's ring, or in an overflow slot when the ring is full, else counts it
 * overrun. 1 when it went into the ring. */
int fg_store_sample(struct fg_sampler *s, struct fg_thread *t, const struct fg_trace *trace, uint64_t time,
                    uint32_t weight, int cpu, uint32_t state);

/* A kernel event's sample of trace into t's ring (weight 1), or its
 * overflow slot; else counted in lost, never in the CPU's counts. */
void fg_store_event_sample(struct fg_sampler *s, struct fg_thread *t, const struct fg_trace *trace, uint64_t time,
                           int cpu, _Atomic uint64_t *lost);

#endif
