/* Per-tid sample counts for threads without a JNIEnv; see fg/unregistered_threads.h.
 * fg_unregistered_add runs in the signal handler: atomics only. */
#include "fg/unregistered_threads.h"

static uint32_t slot_of(int tid)
{
  return ((uint32_t)tid * 2654435761u) & (FG_UNREGISTERED_SLOTS - 1);
}

int fg_unregistered_add(struct fg_unregistered_threads *ft, int tid)
{
  uint32_t i = slot_of(tid);
  for (uint32_t probes = 0; probes < FG_UNREGISTERED_SLOTS; probes++, i = (i + 1) & (FG_UNREGISTERED_SLOTS - 1)) {
    struct fg_unregistered_slot *s = &ft->slots[i];
    int owner = atomic_load_explicit(&s->tid, memory_order_acquire);
    if (owner == 0) {
      int expected = 0;
      if (atomic_compare_exchange_strong(&s->tid, &expected, tid))
        owner = tid;
      else
        owner = expected;
    }
    if (owner == tid) {
      atomic_fetch_add_explicit(&s->count, 1, memory_order_release);
      return 0;
    }
  }
  atomic_fetch_add_explicit(&ft->no_slot, 1, memory_order_relaxed);
  return -1;
}

void fg_unregistered_drain(struct fg_unregistered_threads *ft,
                      void (*visit)(void *ctx, int tid, uint64_t samples), void *ctx)
{
  for (uint32_t i = 0; i < FG_UNREGISTERED_SLOTS; i++) {
    struct fg_unregistered_slot *s = &ft->slots[i];
    int tid = atomic_load_explicit(&s->tid, memory_order_acquire);
    if (tid == 0)
      continue;
    uint64_t count = atomic_load_explicit(&s->count, memory_order_acquire);
    if (count > s->drained) {
      visit(ctx, tid, count - s->drained);
      s->drained = count;
    }
  }
}

void fg_unregistered_reclaim(struct fg_unregistered_threads *ft, int (*alive)(int tid))
{
  for (uint32_t i = 0; i < FG_UNREGISTERED_SLOTS; i++) {
    struct fg_unregistered_slot *s = &ft->slots[i];
    int tid = atomic_load_explicit(&s->tid, memory_order_acquire);
    if (tid == 0 || alive(tid))
      continue;
    /* Only if nothing arrived since the last drain: the CAS fails otherwise. */
    uint64_t expected = s->drained;
    if (!atomic_compare_exchange_strong(&s->count, &expected, 0))
      continue;
    s->drained = 0;
    atomic_store_explicit(&s->tid, 0, memory_order_release);
  }
}
