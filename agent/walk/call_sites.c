/* The call-site table; see call_sites.h. */
#include "call_sites.h"

#include <stdlib.h>
#include <string.h>

int fg_call_sites_init(struct fg_call_sites *c)
{
  size_t bytes = sizeof(struct fg_call_site) << FG_CALL_SITE_BITS;
  c->slots = aligned_alloc(64, bytes);
  if (!c->slots)
    return -1;
  memset(c->slots, 0, bytes);   /* pc 0: empty, no code is there */
  return 0;
}

void fg_call_sites_free(struct fg_call_sites *c)
{
  free(c->slots);
  c->slots = NULL;
}

static struct fg_call_site *slot_of(const struct fg_call_sites *c, uintptr_t pc)
{
  return &c->slots[(pc * 0x9e3779b97f4a7c15ull) >> (64 - FG_CALL_SITE_BITS)];
}

int fg_call_sites_get(const struct fg_call_sites *c, uintptr_t pc, uint32_t generation,
                      struct fg_call_site_info *out)
{
  if (!c->slots || !pc)
    return 0;
  struct fg_call_site *s = slot_of(c, pc);
  uint32_t before = atomic_load_explicit(&s->seq, memory_order_acquire);
  if (before & 1)
    return 0;
  int hit = s->pc == pc && s->generation == generation;
  if (hit)
    *out = s->info;
  atomic_thread_fence(memory_order_acquire);
  return hit && atomic_load_explicit(&s->seq, memory_order_relaxed) == before;
}

void fg_call_sites_put(struct fg_call_sites *c, uintptr_t pc, uint32_t generation,
                       const struct fg_call_site_info *in)
{
  if (!c->slots || !pc)
    return;
  struct fg_call_site *s = slot_of(c, pc);
  uint32_t seq = atomic_load_explicit(&s->seq, memory_order_relaxed);
  if ((seq & 1) || !atomic_compare_exchange_strong_explicit(&s->seq, &seq, seq + 1, memory_order_acquire,
                                                            memory_order_relaxed))
    return;   /* another thread is writing it */
  atomic_thread_fence(memory_order_release);
  s->pc = pc;
  s->generation = generation;
  s->info = *in;
  atomic_store_explicit(&s->seq, seq + 2, memory_order_release);
}
