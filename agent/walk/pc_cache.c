/* The walker's pc cache; see pc_cache.h. */
#include "walk/pc_cache.h"

#include <string.h>
#include <sys/mman.h>

#define HUGE_PAGE (2u << 20)

int fg_pc_cache_init(struct fg_pc_cache *c)
{
  size_t bytes = sizeof(struct fg_pc_slot) << FG_PC_CACHE_BITS;
  /* mapped with a huge page's alignment and asked to be huge pages, whole
   * ones: a slot is a random place in the table, so 256 small pages would
   * be as many TLB misses */
  size_t huge = (bytes + HUGE_PAGE - 1) & ~(size_t)(HUGE_PAGE - 1);
  size_t mapped = huge + HUGE_PAGE;
  uint8_t *p = mmap(NULL, mapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) {
    c->slots = NULL;
    return -1;
  }
  uintptr_t aligned = ((uintptr_t)p + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1);
  madvise((void *)aligned, huge, MADV_HUGEPAGE);   /* a hint: refused or not, the table works */
  memset((void *)aligned, 0, bytes);                /* touched here, not first in a handler; key 0: empty */
  c->slots = (struct fg_pc_slot *)aligned;
  c->base = p;
  c->bytes = mapped;
  return 0;
}

void fg_pc_cache_free(struct fg_pc_cache *c)
{
  if (c->slots)
    munmap(c->base, c->bytes);
  c->slots = NULL;
}

static struct fg_pc_slot *slot_of(const struct fg_pc_cache *c, uintptr_t key)
{
  return &c->slots[fg_pc_slot_index(key)];
}

/* The slot of key, when it holds key under generation with pc in its
 * range (pc 0: no range), copied to *out. */
static int get(const struct fg_pc_cache *c, uintptr_t key, uintptr_t pc, uint32_t generation, struct fg_pc_info *out)
{
  struct fg_pc_slot *s = slot_of(c, key);
  uint32_t before = atomic_load_explicit(&s->seq, memory_order_acquire);
  if (before & 1)
    return 0;
  uintptr_t at = pc % FG_PC_RANGE_BYTES;
  int hit = s->key == key && s->generation == generation && (!pc || (at >= s->lo && at < s->hi));
  if (hit)
    *out = s->info;
  atomic_thread_fence(memory_order_acquire);
  return hit && atomic_load_explicit(&s->seq, memory_order_relaxed) == before;
}

static void put(struct fg_pc_cache *c, uintptr_t key, uint16_t lo, uint16_t hi, uint32_t generation,
                const struct fg_pc_info *in)
{
  struct fg_pc_slot *s = slot_of(c, key);
  uint32_t seq = atomic_load_explicit(&s->seq, memory_order_relaxed);
  if ((seq & 1) || !atomic_compare_exchange_strong_explicit(&s->seq, &seq, seq + 1, memory_order_acquire,
                                                            memory_order_relaxed))
    return;   /* another thread is writing it */
  atomic_thread_fence(memory_order_release);
  s->key = key;
  s->generation = generation;
  s->info = *in;
  s->lo = lo;
  s->hi = hi;
  atomic_store_explicit(&s->seq, seq + 2, memory_order_release);
}

int fg_pc_cache_get(const struct fg_pc_cache *c, uintptr_t pc, int top, uint32_t generation, struct fg_pc_info *out)
{
  if (!c->slots || !pc)
    return 0;
  return get(c, fg_pc_key(pc, top), 0, generation, out);
}

void fg_pc_cache_put(struct fg_pc_cache *c, uintptr_t pc, int top, uint32_t generation, const struct fg_pc_info *in)
{
  if (!c->slots || !pc)
    return;
  put(c, fg_pc_key(pc, top), 0, 0, generation, in);
}

int fg_pc_cache_get_range(const struct fg_pc_cache *c, uintptr_t pc, uint32_t generation, struct fg_pc_info *out)
{
  if (!c->slots || !pc)
    return 0;
  return get(c, fg_pc_range_key(pc), pc, generation, out);
}

void fg_pc_cache_put_range(struct fg_pc_cache *c, uintptr_t lo, uintptr_t hi, uint32_t generation,
                           const struct fg_pc_info *in)
{
  if (!c->slots || !lo || hi <= lo || (hi - 1) / FG_PC_RANGE_BYTES != lo / FG_PC_RANGE_BYTES)
    return;
  uintptr_t base = lo - lo % FG_PC_RANGE_BYTES;
  put(c, fg_pc_range_key(lo), (uint16_t)(lo - base), (uint16_t)(hi - base), generation, in);
}
