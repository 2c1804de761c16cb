/* The Method* map; see method_map.h. */
#include "hotspot/method_map.h"

#include <stdlib.h>
#include <string.h>

#define FIRST_SIZE (1u << 14)

static uint32_t slot_of(uintptr_t key, uint32_t mask)
{
  uint64_t k = key;
  k ^= k >> 33;
  k *= 0xff51afd7ed558ccdull;
  k ^= k >> 33;
  return (uint32_t)k & mask;
}

static struct fg_method_table *new_table(uint32_t size)
{
  struct fg_method_table *t = calloc(1, sizeof *t + (size_t)size * sizeof t->e[0]);
  if (t)
    t->mask = size - 1;
  return t;
}

int fg_method_map_init(struct fg_method_map *m)
{
  memset(m, 0, sizeof *m);
  if (pthread_mutex_init(&m->lock, NULL) != 0)
    return -1;
  struct fg_method_table *t = new_table(FIRST_SIZE);
  if (!t)
    return -1;
  atomic_store(&m->table, t);
  return 0;
}

void fg_method_map_set_readers(struct fg_method_map *m, const _Atomic int *readers)
{
  pthread_mutex_lock(&m->lock);
  m->readers = readers;
  pthread_mutex_unlock(&m->lock);
}

static void free_retired(struct fg_method_map *m)
{
  for (struct fg_method_table *t = m->retired, *next; t; t = next) {
    next = t->retired_next;
    free(t);
  }
  m->retired = NULL;
  m->nretired = 0;
}

void fg_method_map_free(struct fg_method_map *m)
{
  free_retired(m);
  free(atomic_load(&m->table));
  pthread_mutex_destroy(&m->lock);
  memset(m, 0, sizeof *m);
}

/* The slot for method in t: its own, else the first removed or empty one
 * on its probe (NULL: t is full, which the load bound never lets happen). */
static struct fg_method_slot *slot_for(struct fg_method_table *t, uintptr_t method)
{
  struct fg_method_slot *free_slot = NULL;
  for (uint32_t i = slot_of(method, t->mask), n = 0; n <= t->mask; i = (i + 1) & t->mask, n++) {
    uintptr_t k = atomic_load_explicit(&t->e[i].method, memory_order_relaxed);
    if (k == method)
      return &t->e[i];
    if (k == FG_METHOD_REMOVED && !free_slot)
      free_slot = &t->e[i];
    if (k == 0)
      return free_slot ? free_slot : &t->e[i];
  }
  return free_slot;
}

/* Writes the entry, its key last. */
static void store(struct fg_method_slot *e, uintptr_t method, jmethodID id, uintptr_t code, uint32_t len)
{
  e->id = id;
  e->code = code;
  e->code_len = len;
  atomic_store_explicit(&e->method, method, memory_order_release);
}

/* Tables no reader can be in any more are freed: every reader counts
 * itself in *readers for as long as it may hold a table, so once it reads
 * 0 after a table was swapped out, none holds that one. Under the lock. */
static void reclaim(struct fg_method_map *m)
{
  if (m->retired && m->readers && atomic_load(m->readers) == 0)
    free_retired(m);
}

/* The live entries into a new table a quarter full with them (a map that
 * lost most of its methods shrinks; one that gains grows). 0, or -1 when
 * out of memory. Under the lock. */
static int rebuild(struct fg_method_map *m)
{
  struct fg_method_table *old = atomic_load_explicit(&m->table, memory_order_relaxed);
  uint32_t size = FIRST_SIZE;
  while (size < 4 * (m->count + 1) && size < (1u << 31))
    size *= 2;
  struct fg_method_table *t = new_table(size);
  if (!t)
    return -1;
  for (uint32_t i = 0; i <= old->mask; i++) {
    uintptr_t k = atomic_load_explicit(&old->e[i].method, memory_order_relaxed);
    struct fg_method_slot *e = k && k != FG_METHOD_REMOVED ? slot_for(t, k) : NULL;
    if (e)   /* always: the new table is a quarter full */
      store(e, k, old->e[i].id, old->e[i].code, old->e[i].code_len);
  }
  m->removed = 0;
  atomic_store_explicit(&m->table, t, memory_order_seq_cst);   /* before reclaim reads the readers */
  old->retired_next = m->retired;
  m->retired = old;
  m->nretired++;
  return 0;
}

int fg_method_map_put(struct fg_method_map *m, uintptr_t method, jmethodID id, uintptr_t code, uint32_t code_len)
{
  if (!method || method == FG_METHOD_REMOVED)
    return -1;
  pthread_mutex_lock(&m->lock);
  struct fg_method_table *t = atomic_load_explicit(&m->table, memory_order_relaxed);
  int rc = 0;
  const struct fg_method_slot *was = fg_method_map_get(m, method);
  if (!was && (m->count + m->removed + 1) * 2 > t->mask + 1) {   /* at most half taken: short probes */
    rc = rebuild(m);
    t = atomic_load_explicit(&m->table, memory_order_relaxed);
  }
  struct fg_method_slot *e = rc == 0 || was || (m->count + m->removed + 1) * 4 <= (t->mask + 1) * 3
                                 ? slot_for(t, method)
                                 : NULL;
  rc = e ? 0 : -1;
  if (e) {
    int rewritten = was && (was->id != id || was->code != code || was->code_len != code_len);
    if (!was) {
      m->count++;
      if (atomic_load_explicit(&e->method, memory_order_relaxed) == FG_METHOD_REMOVED)
        m->removed--;
    }
    store(e, method, id, code, code_len);
    if (rewritten)
      atomic_fetch_add_explicit(&m->generation, 1, memory_order_release);
  }
  reclaim(m);
  pthread_mutex_unlock(&m->lock);
  return rc;
}

int fg_method_map_remove(struct fg_method_map *m, uintptr_t method)
{
  pthread_mutex_lock(&m->lock);
  struct fg_method_slot *e = (struct fg_method_slot *)fg_method_map_get(m, method);
  if (e) {
    atomic_store_explicit(&e->method, FG_METHOD_REMOVED, memory_order_release);
    m->count--;
    m->removed++;
    m->gone++;
    atomic_fetch_add_explicit(&m->generation, 1, memory_order_release);
    uint32_t size = atomic_load_explicit(&m->table, memory_order_relaxed)->mask + 1;
    if (size > FIRST_SIZE && (m->count + 1) * 16 < size)
      rebuild(m);   /* most of its classes unloaded: a table a quarter full again (no memory: stays as it is) */
  }
  reclaim(m);
  pthread_mutex_unlock(&m->lock);
  return e ? 0 : -1;
}

const struct fg_method_slot *fg_method_map_get(const struct fg_method_map *m, uintptr_t method)
{
  const struct fg_method_table *t = atomic_load_explicit(&m->table, memory_order_acquire);
  if (!t || !method || method == FG_METHOD_REMOVED)
    return NULL;
  for (uint32_t i = slot_of(method, t->mask), n = 0; n <= t->mask; i = (i + 1) & t->mask, n++) {
    uintptr_t k = atomic_load_explicit(&t->e[i].method, memory_order_acquire);
    if (k == method)
      return &t->e[i];
    if (k == 0)
      return NULL;
  }
  return NULL;
}
