/* The ring of GC pauses between the JVMTI GC callbacks and the drainer
 * (fg/gc_pauses.h states its rules). Nothing here may block or allocate:
 * the callbacks run with the VM stopped. */
#include <string.h>

#include "fg/gc_pauses.h"

void fg_gc_pauses_reset(struct fg_gc_pauses *g)
{
  atomic_store(&g->head, 0);
  atomic_store(&g->tail, 0);
  atomic_store(&g->dropped, 0);
  atomic_store(&g->start_ns, 0);
  for (uint32_t i = 0; i < FG_GC_PAUSES_RING; i++)
    atomic_store(&g->slots[i].seq, 0);
}

void fg_gc_pauses_begin(struct fg_gc_pauses *g, uint64_t now_ns)
{
  atomic_store(&g->start_ns, now_ns ? now_ns : 1);
}

void fg_gc_pauses_end(struct fg_gc_pauses *g, uint64_t now_ns)
{
  uint64_t start = atomic_exchange(&g->start_ns, 0);
  if (!start)
    return;
  uint64_t at = atomic_load_explicit(&g->head, memory_order_relaxed);
  do {
    if (at - atomic_load_explicit(&g->tail, memory_order_acquire) >= FG_GC_PAUSES_RING) {
      atomic_fetch_add_explicit(&g->dropped, 1, memory_order_relaxed);
      return;
    }
  } while (!atomic_compare_exchange_weak_explicit(&g->head, &at, at + 1, memory_order_relaxed,
                                                  memory_order_relaxed));
  uint32_t slot = (uint32_t)(at & (FG_GC_PAUSES_RING - 1));
  g->slots[slot].pause = (struct fg_gc_pause){start, now_ns >= start ? now_ns : start};
  atomic_store_explicit(&g->slots[slot].seq, at + 1, memory_order_release);
}

uint32_t fg_gc_pauses_take(struct fg_gc_pauses *g, struct fg_gc_pause *out, uint32_t max)
{
  uint64_t at = atomic_load_explicit(&g->tail, memory_order_relaxed);
  uint32_t n = 0;
  while (n < max) {
    uint32_t slot = (uint32_t)(at & (FG_GC_PAUSES_RING - 1));
    if (atomic_load_explicit(&g->slots[slot].seq, memory_order_acquire) != at + 1)
      break;   /* not published yet (or claimed and still being written) */
    out[n++] = g->slots[slot].pause;
    at++;
    atomic_store_explicit(&g->tail, at, memory_order_release);
  }
  return n;
}
