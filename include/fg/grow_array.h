/* The one helper of fgagent's growing arrays: room for need elements. */
#ifndef FG_GROW_ARRAY_H
#define FG_GROW_ARRAY_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

/* Makes *array hold at least need elements of elem bytes, doubling *cap
 * (from 64). 0, or -1 when out of memory (the array is left as it was). */
static inline int fg_grow_array(void **array, uint32_t *cap, size_t elem, size_t need)
{
  if (need <= *cap)
    return 0;
  if (need > UINT32_MAX / 2)
    return -1;
  uint32_t n = *cap ? *cap : 64;
  while (n < need)
    n *= 2;
  void *a = realloc(*array, (size_t)n * elem);
  if (!a)
    return -1;
  *array = a;
  *cap = n;
  return 0;
}

#endif
