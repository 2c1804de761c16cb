/* The Method* map; see method_map.h. */
#include "method_map.h"

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
  m->tables[m->ntables++] = t;
  atomic_store(&m->table, t);
  return 0;
}

void fg_method_map_free(struct fg_method_map *m)
{
  for (int i = 0; i < m->ntables; i++)
    free(m->tables[i]);
  pthread_mutex_destroy(&m->lock);
  memset(m, 0, sizeof *m);
}

/* Writes the entry, its key last. */
static void store(struct fg_method_table *t, uintptr_t method, jmethodID id, uintptr_t code, uint32_t len)
{
  for (uint32_t i = slot_of(method, t->mask);; i = (i + 1) & t->mask) {
    uintptr_t k = atomic_load_explicit(&t->e[i].method, memory_order_relaxed);
    if (k == 0 || k == method) {
      t->e[i].id = id;
      t->e[i].code = code;
      t->e[i].code_len = len;
      atomic_store_explicit(&t->e[i].method, method, memory_order_release);
      return;
    }
  }
}

static int grow(struct fg_method_map *m)
{
  struct fg_method_table *old = atomic_load_explicit(&m->table, memory_order_relaxed);
  if (m->ntables == FG_METHOD_MAP_MAX_TABLES)
    return -1;
  struct fg_method_table *t = new_table((old->mask + 1) * 2);
  if (!t)
    return -1;
  for (uint32_t i = 0; i <= old->mask; i++) {
    uintptr_t k = atomic_load_explicit(&old->e[i].method, memory_order_relaxed);
    if (k)
      store(t, k, old->e[i].id, old->e[i].code, old->e[i].code_len);
  }
  m->tables[m->ntables++] = t;
  atomic_store_explicit(&m->table, t, memory_order_release);
  return 0;
}

int fg_method_map_put(struct fg_method_map *m, uintptr_t method, jmethodID id, uintptr_t code, uint32_t code_len)
{
  if (!method)
    return -1;
  pthread_mutex_lock(&m->lock);
  struct fg_method_table *t = atomic_load_explicit(&m->table, memory_order_relaxed);
  int rc = 0;
  if ((m->count + 1) * 2 > t->mask + 1) {   /* at most half full: short probes */
    rc = grow(m);
    t = atomic_load_explicit(&m->table, memory_order_relaxed);
  }
  if (rc == 0 || (m->count + 1) * 4 <= (t->mask + 1) * 3) {
    const struct fg_method_slot *was = fg_method_map_get(m, method);
    int rewritten = was && (was->id != id || was->code != code || was->code_len != code_len);
    if (!was)
      m->count++;
    store(t, method, id, code, code_len);
    if (rewritten)
      atomic_fetch_add_explicit(&m->generation, 1, memory_order_release);
    rc = 0;
  }
  pthread_mutex_unlock(&m->lock);
  return rc;
}

const struct fg_method_slot *fg_method_map_get(const struct fg_method_map *m, uintptr_t method)
{
  const struct fg_method_table *t = atomic_load_explicit(&m->table, memory_order_acquire);
  if (!t || !method)
    return NULL;
  for (uint32_t i = slot_of(method, t->mask);; i = (i + 1) & t->mask) {
    uintptr_t k = atomic_load_explicit(&t->e[i].method, memory_order_acquire);
    if (k == method)
      return &t->e[i];
    if (k == 0)
      return NULL;
  }
}
