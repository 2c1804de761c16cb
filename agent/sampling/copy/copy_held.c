/* Copies held for a record that has not come; see copy_held.h. */
#include "sampling/copy/copy_held.h"

#include <stdlib.h>
#include <string.h>

int fg_copy_held_has(const struct fg_copy_held *h, int tid)
{
  for (uint32_t i = 0; i < h->n; i++)
    if (h->e[i].tid == tid)
      return 1;
  return 0;
}

int fg_copy_held_add(struct fg_copy_held *h, int tid, const uint8_t *rec, size_t size, uint64_t now_ns,
                     uint32_t methods_seen, int walked)
{
  if (h->n >= FG_COPY_HELD_MAX || size > UINT32_MAX)
    return -1;
  uint8_t *copy = malloc(size);
  if (!copy)
    return -1;
  memcpy(copy, rec, size);
  h->e[h->n++] = (struct fg_copy_held_entry){tid, now_ns, methods_seen, walked, (uint32_t)size, copy};
  return 0;
}

void fg_copy_held_remove(struct fg_copy_held *h, uint32_t i)
{
  if (i >= h->n)
    return;
  free(h->e[i].rec);
  memmove(h->e + i, h->e + i + 1, (h->n - i - 1) * sizeof *h->e);
  h->n--;
}

void fg_copy_held_release(struct fg_copy_held *h, int tid, int last, uint32_t methods_seen, uint64_t now_ns,
                          int (*walk)(void *ctx, const struct fg_copy_held_entry *x, int last), void *ctx)
{
  int waiting[FG_COPY_HELD_MAX];   /* threads with a copy still held before this one */
  uint32_t nwaiting = 0;
  for (uint32_t i = 0; i < h->n;) {
    struct fg_copy_held_entry *x = &h->e[i];
    int behind = 0;
    for (uint32_t w = 0; w < nwaiting; w++)
      behind |= waiting[w] == x->tid;
    if (behind || (tid && x->tid != tid)) {
      i++;
      continue;
    }
    int due = last || now_ns - x->since_ns >= FG_COPY_HELD_NS;
    if (due || !x->walked || x->methods_seen != methods_seen) {
      x->methods_seen = methods_seen;
      x->walked = 1;
      if (walk(ctx, x, due)) {
        fg_copy_held_remove(h, i);
        continue;
      }
    }
    waiting[nwaiting++] = x->tid;
    i++;
  }
}

void fg_copy_held_give_up(struct fg_copy_held *h, uintptr_t pc)
{
  if (!fg_copy_held_gave_up_on(h, pc))
    h->gave_up[h->gave_up_next++ % FG_COPY_GAVE_UP] = pc;
}

int fg_copy_held_gave_up_on(const struct fg_copy_held *h, uintptr_t pc)
{
  for (uint32_t i = 0; i < FG_COPY_GAVE_UP; i++)
    if (h->gave_up[i] == pc)
      return 1;
  return 0;
}

void fg_copy_held_clear(struct fg_copy_held *h)
{
  for (uint32_t i = 0; i < h->n; i++)
    free(h->e[i].rec);
  memset(h, 0, sizeof *h);
}
