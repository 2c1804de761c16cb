/* See fg/u64_map.h. */
#include "fg/u64_map.h"

#include <stdlib.h>
#include <string.h>

void fg_u64_map_init(struct fg_u64_map *m)
{
  memset(m, 0, sizeof *m);
}

void fg_u64_map_free(struct fg_u64_map *m)
{
  free(m->keys);
  free(m->values);
  memset(m, 0, sizeof *m);
}

static uint32_t slot_of(uint64_t key, uint32_t capacity)
{
  key ^= key >> 33;
  key *= 0xff51afd7ed558ccdull;
  key ^= key >> 33;
  return (uint32_t)key & (capacity - 1);
}

int fg_u64_map_get(const struct fg_u64_map *m, uint64_t key, uint32_t *value)
{
  if (!m->capacity || !key)
    return 0;
  for (uint32_t i = slot_of(key, m->capacity);; i = (i + 1) & (m->capacity - 1)) {
    if (m->keys[i] == key) {
      *value = m->values[i];
      return 1;
    }
    if (!m->keys[i])
      return 0;
  }
}

static void place(uint64_t *keys, uint32_t *values, uint32_t capacity, uint64_t key, uint32_t value)
{
  uint32_t i = slot_of(key, capacity);
  while (keys[i] && keys[i] != key)
    i = (i + 1) & (capacity - 1);
  keys[i] = key;
  values[i] = value;
}

int fg_u64_map_put(struct fg_u64_map *m, uint64_t key, uint32_t value)
{
  if (!key)
    return -1;
  if ((m->used + 1) * 2 > m->capacity) {
    uint32_t cap = m->capacity ? m->capacity * 2 : 64;
    uint64_t *keys = calloc(cap, sizeof *keys);
    uint32_t *values = calloc(cap, sizeof *values);
    if (!keys || !values) {
      free(keys);
      free(values);
      return -1;
    }
    for (uint32_t i = 0; i < m->capacity; i++)
      if (m->keys[i])
        place(keys, values, cap, m->keys[i], m->values[i]);
    free(m->keys);
    free(m->values);
    m->keys = keys;
    m->values = values;
    m->capacity = cap;
  }
  uint32_t before;
  if (!fg_u64_map_get(m, key, &before))
    m->used++;
  place(m->keys, m->values, m->capacity, key, value);
  return 0;
}
