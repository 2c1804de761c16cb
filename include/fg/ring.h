/* A single-producer single-consumer ring of variable-length records.
 * The producer (a signal handler) never blocks and never allocates: when a
 * record does not fit, fg_ring_reserve returns NULL and the caller counts an
 * overrun. Records are whole 64-bit words; the first word of each is its
 * header (length in words in the low 32 bits, a caller tag in the high 32). */
#ifndef FG_RING_H
#define FG_RING_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

struct fg_ring {
  _Atomic uint64_t head;        /* words ever written; the producer's */
  char pad0[64 - sizeof(uint64_t)];
  _Atomic uint64_t tail;        /* words ever consumed; the consumer's */
  char pad1[64 - sizeof(uint64_t)];
  uint64_t capacity;            /* in words, a power of two */
  uint64_t *words;
};

#define FG_RING_TAG_PAD 0xffffffffu

static inline uint64_t fg_ring_header(uint32_t nwords, uint32_t tag)
{
  return (uint64_t)tag << 32 | nwords;
}
static inline uint32_t fg_ring_header_words(uint64_t h) { return (uint32_t)h; }
static inline uint32_t fg_ring_header_tag(uint64_t h) { return (uint32_t)(h >> 32); }

/* bytes: a power of two, at least 64. Returns -1 if it cannot allocate. */
int fg_ring_init(struct fg_ring *r, size_t bytes);
void fg_ring_destroy(struct fg_ring *r);
/* Empties the ring; only while neither side is using it. */
void fg_ring_reset(struct fg_ring *r);

/* Producer: room for nwords contiguous words (header included), or NULL.
 * Async-signal-safe. The caller fills the words, header first, then commits. */
uint64_t *fg_ring_reserve(struct fg_ring *r, uint32_t nwords);
void fg_ring_commit(struct fg_ring *r, uint32_t nwords);

/* Words written and not yet released: from either side, a moment's view. */
static inline uint64_t fg_ring_used(struct fg_ring *r)
{
  return atomic_load_explicit(&r->head, memory_order_relaxed) - atomic_load_explicit(&r->tail, memory_order_relaxed);
}

/* Consumer: the oldest record (its header word first), or NULL if none. */
const uint64_t *fg_ring_peek(struct fg_ring *r);
void fg_ring_release(struct fg_ring *r, const uint64_t *record);

#endif
