/* A walked sample into its thread's ring; see sample_store.h. */
#include "sampling/sample_store.h"

#include <unistd.h>

#include "fg/sample_record.h"

/* A full ring: the sample is counted in an overflow slot of its trace and
 * state, if one is (or can be) its. */
static int overflow(struct fg_thread *t, const struct fg_trace *trace, uint32_t state, uint32_t weight)
{
  uint64_t key = (uint64_t)(uintptr_t)trace | state;
  for (int i = 0; i < FG_OVERFLOW_SLOTS; i++) {
    struct fg_overflow *o = &t->overflow[i];
    uint64_t k = atomic_load_explicit(&o->key, memory_order_relaxed);
    if (k == 0)
      atomic_store_explicit(&o->key, k = key, memory_order_release);
    if (k == key) {
      atomic_fetch_add_explicit(&o->weight, weight, memory_order_release);
      return 1;
    }
  }
  return 0;
}

void fg_store_wake(struct fg_sampler *s)
{
  if (s->wake_fd < 0 || atomic_exchange_explicit(&s->wake_pending, 1, memory_order_relaxed))
    return;
  uint64_t one = 1;
  ssize_t rc = write(s->wake_fd, &one, sizeof one);
  (void)rc;   /* a full counter still wakes it */
}

/* Wakes the drainer once its ring is half full. */
static void wake_drainer(struct fg_sampler *s, struct fg_ring *r)
{
  if (fg_ring_used(r) >= r->capacity / 2)
    fg_store_wake(s);
}

int fg_store_sample(struct fg_sampler *s, struct fg_thread *t, const struct fg_trace *trace, uint64_t time,
                    uint32_t weight, int cpu, uint32_t state)
{
  if (!trace) {
    fg_store_add(&t->refused, weight);   /* a new stack over memlimit */
    return 0;
  }
  uint64_t *w = fg_ring_reserve(&t->ring, FG_SAMPLE_WORDS);
  if (w) {
    fg_sample_encode(w, t->serial, trace, time, weight, cpu, state);
    fg_ring_commit(&t->ring, FG_SAMPLE_WORDS);
    wake_drainer(s, &t->ring);
    return 1;
  }
  if (!overflow(t, trace, state, weight))
    fg_store_add(&t->overruns, weight);   /* the sample, and the skipped intervals it carried */
  return 0;
}

void fg_store_event_sample(struct fg_sampler *s, struct fg_thread *t, const struct fg_trace *trace, uint64_t time,
                           int cpu, _Atomic uint64_t *lost)
{
  uint64_t *w = trace ? fg_ring_reserve(&t->ring, FG_SAMPLE_WORDS) : NULL;
  if (w) {
    fg_sample_encode(w, t->serial, trace, time, 1, cpu, 0);
    fg_ring_commit(&t->ring, FG_SAMPLE_WORDS);
    wake_drainer(s, &t->ring);
  } else if (!trace || !overflow(t, trace, 0, 1)) {
    atomic_fetch_add_explicit(lost, 1, memory_order_relaxed);
  }
}
