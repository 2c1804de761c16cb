/* A growing byte buffer with the varint encoding of pprof and JFR. */
#include "output/byte_buffer.h"

#include <stdlib.h>
#include <string.h>

void fg_bytes_raw(struct fg_bytes *o, const void *data, size_t n)
{
  if (o->failed)
    return;
  if (o->len + n > o->cap) {
    size_t cap = o->cap ? o->cap : 4096;
    while (cap < o->len + n)
      cap *= 2;
    uint8_t *b = realloc(o->b, cap);
    if (!b) {
      o->failed = 1;
      return;
    }
    o->b = b;
    o->cap = cap;
  }
  if (n)
    memcpy(o->b + o->len, data, n);
  o->len += n;
}

void fg_bytes_varint(struct fg_bytes *o, uint64_t v)
{
  uint8_t buf[10];
  size_t n = 0;
  do {
    buf[n] = (uint8_t)(v & 0x7f);
    v >>= 7;
    if (v)
      buf[n] |= 0x80;
    n++;
  } while (v);
  fg_bytes_raw(o, buf, n);
}

size_t fg_bytes_varint_len(uint64_t v)
{
  size_t n = 1;
  while (v >>= 7)
    n++;
  return n;
}

void fg_bytes_move(struct fg_bytes *o, struct fg_bytes *src)
{
  if (src->failed)
    o->failed = 1;
  fg_bytes_raw(o, src->b, src->len);
  src->len = 0;
  src->failed = 0;
}
