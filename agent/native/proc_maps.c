/* /proc/PID/maps's ranges; see proc_maps.h. */
#include "native/proc_maps.h"

#include <string.h>

/* Hexadecimal digits from *p (at most 16, at least one): the value, *p past them; -1 with none. */
static int hex(const char **p, const char *end, uint64_t *v)
{
  const char *q = *p;
  uint64_t x = 0;
  for (; q < end && q - *p < 17; q++) {
    int d = *q >= '0' && *q <= '9' ? *q - '0' : *q >= 'a' && *q <= 'f' ? *q - 'a' + 10 : -1;
    if (d < 0)
      break;
    x = x << 4 | (uint64_t)d;
  }
  if (q == *p || q - *p > 16)
    return -1;
  *p = q;
  *v = x;
  return 0;
}

int fg_maps_piece(struct fg_maps_reader *m, const char *piece, size_t len, uintptr_t addr, uintptr_t *lo, uintptr_t *hi)
{
  int starts = !m->mid_line;
  m->mid_line = len == 0 || piece[len - 1] != '\n';
  if (!starts)
    return 0;
  const char *p = piece, *end = piece + len;
  uint64_t a, b;
  if (hex(&p, end, &a) != 0 || p == end || *p++ != '-' || hex(&p, end, &b) != 0 || p == end || *p != ' ' ||
      a >= b || addr < a || addr >= b)
    return 0;
  *lo = (uintptr_t)a;
  *hi = (uintptr_t)b;
  return 1;
}
