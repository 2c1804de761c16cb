/* A map from non-zero 64-bit keys (addresses, ids) to 32-bit values: open
 * addressing, linear probing, grown at half full. Not for signal handlers. */
#ifndef FG_U64_MAP_H
#define FG_U64_MAP_H

#include <stdint.h>

struct fg_u64_map {
  uint64_t *keys;        /* 0 = empty */
  uint32_t *values;
  uint32_t capacity, used;
};

void fg_u64_map_init(struct fg_u64_map *m);
void fg_u64_map_free(struct fg_u64_map *m);

/* 1 and *value when key is present, else 0. */
int fg_u64_map_get(const struct fg_u64_map *m, uint64_t key, uint32_t *value);

/* Sets key (non-zero) to value. 0, or -1 when out of memory. */
int fg_u64_map_put(struct fg_u64_map *m, uint64_t key, uint32_t value);

#endif
