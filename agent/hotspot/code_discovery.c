/* Compiled methods added to the code map as samples find them; see code_discovery.h. */
#include "hotspot/code_discovery.h"

#include <stdlib.h>

#include "fg/clock.h"
#include "hotspot/code_heap.h"
#include "hotspot/code_map.h"
#include "hotspot/method_map.h"
#include "hotspot/osr_entry.h"
#include "hotspot/vm_deopt.h"

#define SWEEP_SLICE 1024        /* entries whose nmethod a sweep reads again (a cache miss each) ... */
#define SWEEP_NS 50000000ull    /* ... at most every 50 ms: a lookup finds a freed entry itself
                                   (fg_code_blob_stale), the sweep only empties it, and passes
                                   come as often as wants wake the drainer */

jmethodID fg_code_discovery_method_id(void *ctx, uintptr_t method)
{
  struct fg_code_discovery *d = ctx;
  jmethodID id = fg_method_map_id(d->methods, method);   /* announced: the drainer is a reader too */
  return id ? id : fg_code_heap_method_id(d->heap, method);
}

static uint64_t tried_key(const struct fg_nmethod *n)
{
  return n->nm ^ ((uint64_t)(uint32_t)n->compile_id << 1);
}

static uint64_t *tried_slot(struct fg_code_discovery *d, uint64_t key)
{
  return &d->tried[(key >> 5) % FG_CODE_TRIED];
}

/* Adds the nmethod holding pc, unless an entry holds it now or it was
 * tried. */
static void discover(struct fg_code_discovery *d, uintptr_t pc)
{
  const struct fg_code_blob *b = fg_code_map_lookup(&d->code->methods, pc);
  if ((b && atomic_load_explicit(&b->method, memory_order_relaxed) && !fg_code_blob_stale(&d->code->wants, b)) ||
      fg_code_map_lookup(&d->code->stubs, pc))
    return;
  struct fg_nmethod n;
  if (fg_code_heap_find(d->heap, pc, &n) != 0)
    return;
  uint64_t key = tried_key(&n);
  if (*tried_slot(d, key) == key)
    return;
  jmethodID id = fg_code_discovery_method_id(d, n.method);
  int unnamed = !id;
  void *record = id ? fg_code_heap_inline_record(d->heap, &n, fg_code_discovery_method_id, d, &unnamed) : NULL;
  if (unnamed || (!record && !fg_code_heap_same(d->heap, &n))) {
    *tried_slot(d, key) = key;   /* each pass would find it again */
    d->unnamed += unnamed;
    return;
  }
  size_t len = n.code_end - n.code_begin;
  struct fg_deopt_sites sites;
  fg_vm_deopt_sites_of(d->deopt, n.nm, (const void *)n.code_begin, len, &sites);
  struct fg_code_origin origin = {n.nm, n.compile_id, n.frame_bytes};
  fg_code_map_add_method(d->code, id, (const void *)n.code_begin, (int32_t)len, record, &sites, &origin);
  free(record);
  d->found++;
}

/* Whether b's nmethod was freed (fg_code_blob_stale). */
static int gone(void *ctx, const struct fg_code_blob *b)
{
  const struct fg_code_discovery *d = ctx;
  return fg_code_blob_stale(&d->code->wants, b);
}

jmethodID fg_code_discovery_method_at(struct fg_code_discovery *d, uintptr_t pc, int *unnamed, jint *bci)
{
  struct fg_nmethod n;
  *unnamed = 0;
  *bci = -1;
  if (pthread_mutex_trylock(&d->lock) != 0)
    return NULL;   /* the heap's names are learnt under it */
  int found = fg_code_heap_find(d->heap, pc, &n) == 0;
  jmethodID id = found ? fg_code_discovery_method_id(d, n.method) : NULL;
  if (id) {
    struct fg_code_blob m = {.start = n.code_begin, .end = n.code_end};
    struct fg_scope_frame f;
    fg_vm_deopt_sites_of(d->deopt, n.nm, (const void *)n.code_begin, n.code_end - n.code_begin, &m.deopt);
    if (fg_osr_entering(&m, id, pc, &f))
      *bci = f.bci;
  }
  pthread_mutex_unlock(&d->lock);
  *unnamed = found && !id;
  return id;
}

static void take(struct fg_code_discovery *d)
{
  struct fg_code_wants *w = &d->code->wants;
  for (int i = 0; i < FG_CODE_WANTS; i++) {
    uintptr_t pc = atomic_exchange_explicit(&w->pc[i], 0, memory_order_relaxed);
    if (pc)
      discover(d, pc);
  }
}

void fg_code_discovery_pass(struct fg_code_discovery *d)
{
  pthread_mutex_lock(&d->lock);
  if (!d->names_learned) {   /* once a session, on the drainer's first pass */
    d->names_learned = 1;
    fg_code_heap_learn_names(d->heap);
  }
  take(d);
  uint64_t now = fg_clock_ns(CLOCK_MONOTONIC);
  if (now - d->swept_ns >= SWEEP_NS) {
    d->swept_ns = now;
    d->gone += fg_code_map_sweep(d->code, &d->next, SWEEP_SLICE, gone, d);
  }
  pthread_mutex_unlock(&d->lock);
}

void fg_code_discovery_take(struct fg_code_discovery *d)
{
  if (pthread_mutex_trylock(&d->lock) != 0)
    return;
  take(d);
  pthread_mutex_unlock(&d->lock);
}
