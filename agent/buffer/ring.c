/* Single-producer single-consumer ring; see fg/ring.h.
 * The producer side runs in the SIGPROF handler: atomics and plain stores only. */
#include "fg/ring.h"

#include <string.h>
#include <sys/mman.h>

int fg_ring_init(struct fg_ring *r, size_t bytes)
{
  memset(r, 0, sizeof *r);
  if (bytes < 64 || (bytes & (bytes - 1)) != 0)
    return -1;
  /* mapped, not malloc'd: a page costs memory only once a sample is
   * written into it, so a thread that never runs costs none */
  void *words = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (words == MAP_FAILED)
    return -1;
  r->words = words;
  r->capacity = bytes / sizeof(uint64_t);
  return 0;
}

void fg_ring_destroy(struct fg_ring *r)
{
  if (r->words)
    munmap(r->words, r->capacity * sizeof(uint64_t));
  r->words = NULL;
}

void fg_ring_reset(struct fg_ring *r)
{
  atomic_store(&r->head, 0);
  atomic_store(&r->tail, 0);
}

uint64_t *fg_ring_reserve(struct fg_ring *r, uint32_t nwords)
{
  uint64_t head = atomic_load_explicit(&r->head, memory_order_relaxed);
  uint64_t tail = atomic_load_explicit(&r->tail, memory_order_acquire);
  uint64_t free_words = r->capacity - (head - tail);
  uint64_t offset = head & (r->capacity - 1);
  uint64_t to_end = r->capacity - offset;

  if (nwords == 0 || nwords > r->capacity)
    return NULL;
  if (nwords <= to_end)
    return nwords <= free_words ? &r->words[offset] : NULL;
  /* The record would straddle the end: pad to the end, start again at 0. */
  if (to_end + nwords > free_words)
    return NULL;
  r->words[offset] = fg_ring_header((uint32_t)to_end, FG_RING_TAG_PAD);
  atomic_store_explicit(&r->head, head + to_end, memory_order_release);
  return &r->words[0];
}

void fg_ring_commit(struct fg_ring *r, uint32_t nwords)
{
  uint64_t head = atomic_load_explicit(&r->head, memory_order_relaxed);
  atomic_store_explicit(&r->head, head + nwords, memory_order_release);
}

const uint64_t *fg_ring_peek(struct fg_ring *r)
{
  for (;;) {
    uint64_t tail = atomic_load_explicit(&r->tail, memory_order_relaxed);
    uint64_t head = atomic_load_explicit(&r->head, memory_order_acquire);
    if (tail == head)
      return NULL;
    const uint64_t *rec = &r->words[tail & (r->capacity - 1)];
    if (fg_ring_header_tag(*rec) != FG_RING_TAG_PAD)
      return rec;
    atomic_store_explicit(&r->tail, tail + fg_ring_header_words(*rec), memory_order_release);
  }
}

void fg_ring_release(struct fg_ring *r, const uint64_t *record)
{
  uint64_t tail = atomic_load_explicit(&r->tail, memory_order_relaxed);
  atomic_store_explicit(&r->tail, tail + fg_ring_header_words(*record), memory_order_release);
}
