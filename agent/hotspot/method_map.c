/* The Method* map; see method_map.h. */
#include "hotspot/method_map.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define FIRST_SIZE (1u << 14)

static uint32_t slot_of(uintptr_t key, uint32_t mask)
{
  uint64_t k = key;
  k ^= k >> 33;
  k *= 0xff51afd7ed558ccdull;
  k ^= k >> 33;
  return (uint32_t)k & mask;
}

/* Tables are mapped (half a megabyte and more): one freed is unmapped, so
 * a reader left in it would fault at once rather than read reused heap. */
static struct fg_method_table *new_table(uint32_t size)
{
  size_t bytes = sizeof(struct fg_method_table) + (size_t)size * sizeof(struct fg_method_slot);
  void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED)
    return NULL;
  struct fg_method_table *t = p;
  t->mask = size - 1;
  t->bytes = bytes;
  return t;
}

static void free_table(struct fg_method_table *t)
{
  if (t)
    munmap(t, t->bytes);
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

static void free_tables(struct fg_method_map *m, struct fg_method_table **list)
{
  for (struct fg_method_table *t = *list, *next; t; t = next) {
    next = t->retired_next;
    free_table(t);
    m->nretired--;
  }
  *list = NULL;
}

/* No reader is left: at exit, once the sampler and the drainer stopped. */
void fg_method_map_free(struct fg_method_map *m)
{
  free_tables(m, &m->retired);
  free_tables(m, &m->waiting);
  free_table(atomic_load(&m->table));
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

/* Frees the tables no reader can hold any more. Under the lock.
 *
 * Invariant: a reader holds a table only between fg_method_map_enter and
 * fg_method_map_leave, and while it does it is counted in readers[p],
 * where p is the parity of an epoch E_r that was current after its count
 * was raised (enter checks the epoch again after raising it; every atomic
 * here is seq_cst, so these are points of one total order). Its table load
 * comes after that check, so a table T it holds was swapped out, if at
 * all, after epoch E_r was current: T went into retired at an epoch E >=
 * E_r. T moves to waiting at the flip E -> E+1 and is freed at a later
 * call that reads readers[(E+1)-1's parity] = readers[E's parity] at 0
 * while the epoch is still E+1 (no flip happens while waiting holds
 * tables). Then every reader with E_r = E has left: it was counted before
 * that read (its check saw E, before the flip). And no reader with E_r < E
 * is left either: the flip E -> E+1 itself is made only once readers[E-1's
 * parity] read 0 while the epoch was E, and the flip E-1 -> E only once
 * readers[E-2's parity] did, and so on: by the flip to E+1 every reader
 * counted under an epoch before E has left. So no reader holds T when it
 * is unmapped. A count read above 0 only delays the free; readers that
 * enter after the flip count in the other parity, so each count drains. */
static void reclaim(struct fg_method_map *m)
{
  for (int pass = 0; pass < 2; pass++) {   /* the second frees at once what the first flipped, when no reader is in */
    unsigned long e = atomic_load(&m->epoch);
    if (atomic_load(&m->readers[(e - 1) & 1]) != 0)
      return;   /* readers of the epoch before may still hold waiting tables */
    free_tables(m, &m->waiting);
    if (!m->retired)
      return;
    m->waiting = m->retired;
    m->retired = NULL;
    atomic_store(&m->epoch, e + 1);
  }
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
  atomic_store_explicit(&m->table, t, memory_order_seq_cst);   /* before the epoch's flip (reclaim) */
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

jmethodID fg_method_map_id(struct fg_method_map *m, uintptr_t method)
{
  unsigned in = fg_method_map_enter(m);
  const struct fg_method_slot *e = fg_method_map_get(m, method);
  jmethodID id = e ? e->id : NULL;
  fg_method_map_leave(m, in);
  return id;
}
