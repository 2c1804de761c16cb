/* The shared call-trace table; see fg/trace_table.h. fg_trace_table_put and
 * what it calls run in the signal handler: atomics, plain stores,
 * mmap and munmap only. */
#include "fg/trace_table.h"

#include <string.h>
#include <sys/mman.h>

#define PAGE 4096u

static size_t page_up(size_t bytes)
{
  return (bytes + PAGE - 1) & ~(size_t)(PAGE - 1);
}

/* Counts bytes against the limit, or says no. */
static int reserve_bytes(struct fg_trace_table *t, size_t bytes)
{
  uint64_t now = atomic_load_explicit(&t->mapped, memory_order_relaxed);
  do {
    if (t->limit && now + bytes > t->limit)
      return 0;
  } while (!atomic_compare_exchange_weak_explicit(&t->mapped, &now, now + bytes, memory_order_relaxed,
                                                  memory_order_relaxed));
  return 1;
}

/* Who maps memory, and so whether its pages are faulted in at once. */
enum mapper {
  BY_HANDLER,   /* a signal handler that found no spare: a megabyte's faults at once would stall it for
                   milliseconds, so its pages fault in as traces are written */
  AHEAD,        /* fg_trace_table_init or the drainer: faulted in now (MAP_POPULATE). A page fault costs
                   5-10 us on this VM (the host faults it in too): a handler writing a new trace into a
                   fresh page took 2 100-3 100 cycles more per new trace than into a faulted one */
};

static void *map_bytes(struct fg_trace_table *t, size_t bytes, enum mapper by)
{
  if (!reserve_bytes(t, bytes))
    return NULL;
  int populate = by == AHEAD ? MAP_POPULATE : 0;
  void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | populate, -1, 0);
  if (p != MAP_FAILED && (uintptr_t)p + bytes > (uintptr_t)1 << 48) {
    munmap(p, bytes);   /* above 48 bits (five-level paging asked for): no room for an index slot's tag */
    p = MAP_FAILED;
  }
  if (p == MAP_FAILED) {
    atomic_fetch_sub_explicit(&t->mapped, bytes, memory_order_relaxed);
    return NULL;
  }
  return p;
}

static void unmap_bytes(struct fg_trace_table *t, void *p, size_t bytes)
{
  munmap(p, bytes);
  atomic_fetch_sub_explicit(&t->mapped, bytes, memory_order_relaxed);
}

static struct fg_trace_chunk *map_chunk(struct fg_trace_table *t, size_t data_bytes, enum mapper by)
{
  size_t bytes = page_up(sizeof(struct fg_trace_chunk) + data_bytes);
  struct fg_trace_chunk *c = map_bytes(t, bytes, by);
  if (!c)
    return NULL;
  c->size = bytes - sizeof *c;
  c->mapped = bytes;
  return c;   /* mmap's pages are zero: used 0, prev NULL */
}

static struct fg_trace_index *map_index(struct fg_trace_table *t, uint32_t capacity, enum mapper by)
{
  size_t bytes = page_up(sizeof(struct fg_trace_index) + (size_t)capacity * sizeof(struct fg_trace_slot));
  struct fg_trace_index *x = map_bytes(t, bytes, by);
  if (!x)
    return NULL;
  x->capacity = capacity;
  x->mapped = bytes;
  return x;
}

int fg_trace_table_init(struct fg_trace_table *t, uint32_t index_slots, size_t chunk_bytes, uint64_t limit)
{
  memset(t, 0, sizeof *t);
  if (index_slots < 16 || (index_slots & (index_slots - 1)) != 0)
    return -1;
  t->limit = limit;
  t->chunk_bytes = chunk_bytes;
  struct fg_trace_index *x = map_index(t, index_slots, AHEAD);
  struct fg_trace_chunk *c = map_chunk(t, chunk_bytes, AHEAD);
  if (!x || !c) {
    if (x)
      unmap_bytes(t, x, x->mapped);
    if (c)
      unmap_bytes(t, c, c->mapped);
    return -1;
  }
  atomic_store(&t->index, x);
  atomic_store(&t->chunk, c);
  return 0;
}

void fg_trace_table_set_limit(struct fg_trace_table *t, uint64_t limit)
{
  t->limit = limit;
}

void fg_trace_table_destroy(struct fg_trace_table *t)
{
  for (struct fg_trace_index *x = atomic_load(&t->index), *older; x; x = older) {
    older = x->older;
    unmap_bytes(t, x, x->mapped);
  }
  for (struct fg_trace_chunk *c = atomic_load(&t->chunk), *prev; c; c = prev) {
    prev = c->prev;
    unmap_bytes(t, c, c->mapped);
  }
  struct fg_trace_index *x = atomic_load(&t->spare_index);
  if (x)
    unmap_bytes(t, x, x->mapped);
  struct fg_trace_chunk *c = atomic_load(&t->spare_chunk);
  if (c)
    unmap_bytes(t, c, c->mapped);
  atomic_store(&t->index, NULL);
  atomic_store(&t->chunk, NULL);
  atomic_store(&t->spare_index, NULL);
  atomic_store(&t->spare_chunk, NULL);
}

static uint64_t mix(uint64_t h, uint64_t v)
{
  h ^= v;
  h *= 0x9e3779b97f4a7c15ull;
  return h ^ (h >> 29);
}

/* A frame as one word: its method, its bci and type spread over the bits. */
static uint64_t frame_word(uint64_t method, int32_t bci, uint8_t type)
{
  return method ^ ((uint64_t)(uint32_t)bci << 8 | type) * 0xff51afd7ed558ccdull;
}

void fg_trace_hash_begin(struct fg_trace_hash *h)
{
  *h = (struct fg_trace_hash){{0x243f6a8885a308d3ull, 0x13198a2e03707344ull, 0xa4093822299f31d0ull,
                               0x082efa98ec4e6c89ull},
                              0};
}

typedef uint64_t (*frame_word_fn)(const void *src, uint32_t i);

/* Frames [from, to) as word(src, i) gives them, outermost first: one at a
 * time until the next frame is chain 0's, then four chains side by side.
 * Inlined with word, so no call is left per frame. */
static inline __attribute__((always_inline)) void take(struct fg_trace_hash *h, frame_word_fn word,
                                                       const void *src, uint32_t from, uint32_t to)
{
  uint32_t i = to;
  for (; i > from && (h->taken & 3); i--, h->taken++)
    h->chain[h->taken & 3] = mix(h->chain[h->taken & 3], word(src, i - 1));
  uint64_t a = h->chain[0], b = h->chain[1], c = h->chain[2], d = h->chain[3];
  uint32_t grouped = 0;
  for (; i >= from + 4; i -= 4, grouped += 4) {
    a = mix(a, word(src, i - 1));
    b = mix(b, word(src, i - 2));
    c = mix(c, word(src, i - 3));
    d = mix(d, word(src, i - 4));
  }
  h->chain[0] = a;
  h->chain[1] = b;
  h->chain[2] = c;
  h->chain[3] = d;
  h->taken += grouped;
  for (; i > from; i--, h->taken++)
    h->chain[h->taken & 3] = mix(h->chain[h->taken & 3], word(src, i - 1));
}

struct walk_frames {
  const ASGCT_CallFrame *frames;
  const uint8_t *types;
};

/* Frame i of a walk (src: struct walk_frames) or of a trace, as one word. */
static uint64_t walk_frames_word(const void *src, uint32_t i)
{
  const struct walk_frames *w = src;
  return frame_word((uint64_t)(uintptr_t)w->frames[i].method_id, w->frames[i].lineno, w->types[i]);
}

static uint64_t trace_frames_word(const void *src, uint32_t i)
{
  const struct fg_trace *tr = src;
  return frame_word(fg_trace_methods(tr)[i], fg_trace_bcis(tr)[i], fg_trace_types(tr)[i]);
}

void fg_trace_hash_trace_frames(struct fg_trace_hash *h, const struct fg_trace *tr, uint32_t from, uint32_t to)
{
  take(h, trace_frames_word, tr, from, to);
}

static void take_walk_frames(struct fg_trace_hash *h, const ASGCT_CallFrame *frames, const uint8_t *types,
                             uint32_t from, uint32_t to)
{
  struct walk_frames w = {frames, types};
  take(h, walk_frames_word, &w, from, to);
}

/* A stack's key: two 64-bit hashes of its four chains, its frame count and
 * flags, made differently (the first folds pairs of chains by exclusive or,
 * the second adds them in one after another, with another multiplier). */
struct key {
  uint64_t hash, check;
};

static uint64_t absorb(uint64_t h, uint64_t v)
{
  h = (h + v) * 0xc2b2ae3d27d4eb4full;
  return h ^ (h >> 31);
}

static struct key key_end(const struct fg_trace_hash *h, uint32_t n, uint32_t flags)
{
  uint64_t shape = (uint64_t)n << 32 | flags;
  uint64_t check = absorb(absorb(absorb(absorb(absorb(0x452821e638d01377ull, h->chain[0]), h->chain[1]),
                                        h->chain[2]), h->chain[3]), shape);
  return (struct key){mix(mix(mix(h->chain[0], h->chain[1]), mix(h->chain[2], h->chain[3])), shape), check};
}

/* The stack's key: its frames before the known suffix taken on from the
 * suffix's hash, or all of them. */
static struct key key_of(const ASGCT_CallFrame *frames, const uint8_t *types, uint32_t n, uint32_t flags,
                         const struct fg_trace_suffix *known)
{
  struct fg_trace_hash h;
  if (known)
    h = known->hash;
  else
    fg_trace_hash_begin(&h);
  take_walk_frames(&h, frames, types, 0, known ? n - known->len : n);
  return key_end(&h, n, flags);
}

#define SLOT_TAG_SHIFT 48

/* An index slot: the trace's address, its hash's top bits above it. */
static uintptr_t slot_of(const struct fg_trace *tr, uint64_t h)
{
  return (uintptr_t)tr | (uintptr_t)(h >> SLOT_TAG_SHIFT << SLOT_TAG_SHIFT);
}

static struct fg_trace *trace_in(uintptr_t slot)
{
  return (struct fg_trace *)(slot & (((uintptr_t)1 << SLOT_TAG_SHIFT) - 1));
}

/* Whether a slot whose address word is at (read with acquire order: its
 * check was written before it) holds the trace of key. */
static int holds(const struct fg_trace_slot *s, uintptr_t at, struct key key)
{
  return at != FG_TRACE_SLOT_CLAIMED && at >> SLOT_TAG_SHIFT == key.hash >> SLOT_TAG_SHIFT &&
         atomic_load_explicit(&s->check, memory_order_relaxed) == key.check;
}

/* The trace in x with the key, or NULL: the slots alone are read. */
static const struct fg_trace *find(const struct fg_trace_index *x, struct key key)
{
  uint32_t mask = x->capacity - 1;
  for (uint32_t i = (uint32_t)key.hash & mask, probes = 0; probes < x->capacity; i = (i + 1) & mask, probes++) {
    uintptr_t at = atomic_load_explicit(&x->slots[i].at, memory_order_acquire);
    if (!at)
      return NULL;
    if (holds(&x->slots[i], at, key))
      return trace_in(at);
  }
  return NULL;
}

static size_t trace_bytes(uint32_t n)
{
  size_t bytes = sizeof(struct fg_trace) + (size_t)n * (sizeof(uint64_t) + sizeof(int32_t) + 1);
  return (bytes + 15) & ~(size_t)15;
}

/* A spare that lost the race to be installed goes back, or is unmapped. */
static void give_back_chunk(struct fg_trace_table *t, struct fg_trace_chunk *c)
{
  struct fg_trace_chunk *none = NULL;
  if (!atomic_compare_exchange_strong(&t->spare_chunk, &none, c))
    unmap_bytes(t, c, c->mapped);
}

static void give_back_index(struct fg_trace_table *t, struct fg_trace_index *x)
{
  struct fg_trace_index *none = NULL;
  if (!atomic_compare_exchange_strong(&t->spare_index, &none, x))
    unmap_bytes(t, x, x->mapped);
}

/* bytes (a multiple of 16) from the current chunk, moving to a new one when
 * it is full; *from and *at say where, to give them back. */
static void *carve(struct fg_trace_table *t, size_t bytes, struct fg_trace_chunk **from, size_t *at)
{
  for (;;) {
    struct fg_trace_chunk *c = atomic_load_explicit(&t->chunk, memory_order_acquire);
    /* acquire: bytes given back by uncarve may be carved again here, after
     * the writes of the thread that gave them back */
    size_t off = atomic_fetch_add_explicit(&c->used, bytes, memory_order_acquire);
    if (off + bytes <= c->size) {
      *from = c;
      *at = off;
      return c->data + off;
    }
    struct fg_trace_chunk *next = atomic_exchange(&t->spare_chunk, NULL);
    if (next && next->size < bytes) {
      give_back_chunk(t, next);
      next = NULL;
    }
    if (!next) {
      next = map_chunk(t, bytes > t->chunk_bytes ? bytes : t->chunk_bytes, BY_HANDLER);
      if (!next)
        return NULL;
      atomic_fetch_add_explicit(&t->handler_maps, 1, memory_order_relaxed);
    }
    next->prev = c;
    if (!atomic_compare_exchange_strong_explicit(&t->chunk, &c, next, memory_order_acq_rel, memory_order_acquire))
      give_back_chunk(t, next);   /* another thread moved on first: carve from its chunk */
  }
}

/* A trace that turned out to be there already: its bytes go back when
 * nothing was carved after them. */
static void uncarve(struct fg_trace_chunk *c, size_t at, size_t bytes)
{
  size_t end = at + bytes;
  atomic_compare_exchange_strong_explicit(&c->used, &end, at, memory_order_release, memory_order_relaxed);
}

/* The index to add to: the newest, or a bigger one once it is three
 * quarters full (the drainer's spare, else one mapped here). */
static struct fg_trace_index *index_for_adding(struct fg_trace_table *t)
{
  struct fg_trace_index *x = atomic_load_explicit(&t->index, memory_order_acquire);
  if (atomic_load_explicit(&x->used, memory_order_relaxed) < x->capacity / 4 * 3)
    return x;
  struct fg_trace_index *bigger = atomic_exchange(&t->spare_index, NULL);
  if (bigger && bigger->capacity <= x->capacity) {
    give_back_index(t, bigger);
    bigger = NULL;
  }
  if (!bigger) {
    bigger = x->capacity < (1u << 30) ? map_index(t, x->capacity * 2, BY_HANDLER) : NULL;
    if (!bigger)   /* refused: go on filling the newest while it has room */
      return atomic_load_explicit(&x->used, memory_order_relaxed) < x->capacity - 1 ? x : NULL;
    atomic_fetch_add_explicit(&t->handler_maps, 1, memory_order_relaxed);
  }
  bigger->older = x;
  if (atomic_compare_exchange_strong_explicit(&t->index, &x, bigger, memory_order_acq_rel, memory_order_acquire))
    return bigger;
  give_back_index(t, bigger);
  return x;   /* the one another thread installed */
}

const struct fg_trace *fg_trace_table_put(struct fg_trace_table *t, const ASGCT_CallFrame *frames,
                                          const uint8_t *types, uint32_t n, uint32_t flags)
{
  return fg_trace_table_put_known(t, frames, types, n, flags, NULL);
}

const struct fg_trace *fg_trace_table_put_known(struct fg_trace_table *t, const ASGCT_CallFrame *frames,
                                                const uint8_t *types, uint32_t n, uint32_t flags,
                                                const struct fg_trace_suffix *known)
{
  if (known && known->len > n)
    known = NULL;
  struct key key = key_of(frames, types, n, flags, known);
  for (const struct fg_trace_index *x = atomic_load_explicit(&t->index, memory_order_acquire); x; x = x->older) {
    const struct fg_trace *found = find(x, key);
    if (found)
      return found;
  }
  struct fg_trace_index *x = index_for_adding(t);
  size_t bytes = trace_bytes(n), at;
  struct fg_trace_chunk *chunk;
  struct fg_trace *tr = x ? carve(t, bytes, &chunk, &at) : NULL;
  if (!tr) {
    atomic_fetch_add_explicit(&t->refused, 1, memory_order_relaxed);
    return NULL;
  }
  tr->hash = key.hash;
  tr->n = n;
  tr->flags = flags;
  tr->id = atomic_fetch_add_explicit(&t->next_id, 1, memory_order_relaxed) + 1;
  uint64_t *m = (uint64_t *)fg_trace_methods(tr);
  int32_t *b = (int32_t *)fg_trace_bcis(tr);
  uint8_t *k = (uint8_t *)fg_trace_types(tr);
  for (uint32_t i = 0; i < n; i++) {
    m[i] = (uint64_t)(uintptr_t)frames[i].method_id;
    b[i] = frames[i].lineno;
    k[i] = types[i];
  }
  uint32_t mask = x->capacity - 1;
  for (uint32_t i = (uint32_t)key.hash & mask, probes = 0; probes < x->capacity; i = (i + 1) & mask, probes++) {
    struct fg_trace_slot *s = &x->slots[i];
    uintptr_t cur = 0;
    /* claimed first, so that two handlers at one empty slot never mix their
     * address and check; a claimed slot is passed over by lookups */
    if (atomic_compare_exchange_strong_explicit(&s->at, &cur, FG_TRACE_SLOT_CLAIMED, memory_order_acquire,
                                                memory_order_acquire)) {
      atomic_store_explicit(&s->check, key.check, memory_order_relaxed);
      atomic_store_explicit(&s->at, slot_of(tr, key.hash), memory_order_release);
      atomic_fetch_add_explicit(&x->used, 1, memory_order_relaxed);
      atomic_fetch_add_explicit(&t->stored, 1, memory_order_relaxed);
      return tr;
    }
    if (holds(s, cur, key)) {   /* added by another thread meanwhile */
      uncarve(chunk, at, bytes);
      return trace_in(cur);
    }
  }
  atomic_fetch_add_explicit(&t->refused, 1, memory_order_relaxed);   /* a full index: never below 3/4 */
  return NULL;
}

/* Copies x's traces into the private, empty index into (one still being
 * written is left: lookups find it in x). */
static void copy_into(const struct fg_trace_index *x, struct fg_trace_index *into)
{
  uint32_t mask = into->capacity - 1, used = 0;
  for (uint32_t s = 0; s < x->capacity; s++) {
    uintptr_t at = atomic_load_explicit(&x->slots[s].at, memory_order_acquire);
    if (!at || at == FG_TRACE_SLOT_CLAIMED)
      continue;
    uint32_t i = (uint32_t)trace_in(at)->hash & mask;
    while (atomic_load_explicit(&into->slots[i].at, memory_order_relaxed))
      i = (i + 1) & mask;
    atomic_store_explicit(&into->slots[i].check, atomic_load_explicit(&x->slots[s].check, memory_order_relaxed),
                          memory_order_relaxed);
    atomic_store_explicit(&into->slots[i].at, at, memory_order_relaxed);
    used++;
  }
  atomic_store_explicit(&into->used, used, memory_order_relaxed);
}

void fg_trace_table_prepare(struct fg_trace_table *t)
{
  struct fg_trace_index *x = atomic_load(&t->index);
  if (!atomic_load(&t->spare_index) && atomic_load(&x->used) >= x->capacity / 2 && x->capacity < (1u << 30)) {
    struct fg_trace_index *bigger = map_index(t, x->capacity * 2, AHEAD);
    if (bigger) {
      /* what x holds now, so that the stacks seen so far are found at the
       * first index searched once handlers move to it */
      copy_into(x, bigger);
      give_back_index(t, bigger);
    }
  }
  struct fg_trace_chunk *c = atomic_load(&t->chunk);
  if (!atomic_load(&t->spare_chunk) && atomic_load(&c->used) >= c->size / 2) {
    struct fg_trace_chunk *spare = map_chunk(t, t->chunk_bytes, AHEAD);
    if (spare)
      give_back_chunk(t, spare);
  }
}

uint32_t fg_trace_table_count(struct fg_trace_table *t)
{
  return atomic_load(&t->stored);
}
