/* Compiled methods' debug scopes; see pc_scopes.h. */
#include "pc_scopes.h"

#include <jvmticmlr.h>
#include <stdlib.h>

/* The first record at or above pc among [lo, hi) (pc[hi - 1] >= pc). */
static uint32_t binary_search(const uintptr_t *pcs, uint32_t lo, uint32_t hi, uintptr_t pc)
{
  hi--;
  while (lo < hi) {
    uint32_t mid = (lo + hi) / 2;
    if (pcs[mid] >= pc)
      hi = mid;
    else
      lo = mid + 1;
  }
  return lo;
}

/* Fills the directory: for each block, the first record at or above its start. */
static void index_blocks(struct fg_pc_scopes *s)
{
  uint32_t i = 0;
  for (uint32_t b = 0; b <= s->nblocks; b++) {
    uintptr_t block = s->base + ((uintptr_t)b << FG_SCOPE_BLOCK_SHIFT);
    while (i < s->npcs && s->pc[i] < block)
      i++;
    s->block_first[b] = (uint16_t)i;
  }
}

struct fg_pc_scopes *fg_pc_scopes_build(const void *compile_info, uintptr_t start, size_t len)
{
  const jvmtiCompiledMethodLoadRecordHeader *h = compile_info;
  for (; h; h = h->next) {
    if (h->kind != JVMTI_CMLR_INLINE_INFO)
      continue;
    const jvmtiCompiledMethodLoadInlineRecord *r = (const void *)h;
    if (r->numpcs <= 0)
      return NULL;
    size_t npcs = (size_t)r->numpcs, nframes = 0;
    for (size_t i = 0; i < npcs; i++) {
      if (r->pcinfo[i].numstackframes < 0 || (i && r->pcinfo[i].pc < r->pcinfo[i - 1].pc))
        return NULL;   /* not the ascending table we rely on */
      nframes += (size_t)r->pcinfo[i].numstackframes;
    }
    size_t nblocks = npcs <= UINT16_MAX && len > 0 ? ((len - 1) >> FG_SCOPE_BLOCK_SHIFT) + 1 : 0;
    if (nblocks > UINT32_MAX - 1)
      nblocks = 0;
    struct fg_pc_scopes *s = malloc(sizeof *s + npcs * sizeof(uintptr_t) + (npcs + 1) * sizeof(uint32_t) +
                                    nframes * (sizeof(jmethodID) + sizeof(jint)) +
                                    (nblocks ? nblocks + 1 : 0) * sizeof(uint16_t));
    if (!s)
      return NULL;
    s->npcs = (uint32_t)npcs;
    s->pc = (uintptr_t *)(s + 1);
    s->methods = (jmethodID *)(s->pc + npcs);
    s->bcis = (jint *)(s->methods + nframes);
    s->start = (uint32_t *)(s->bcis + nframes);
    s->block_first = nblocks ? (uint16_t *)(s->start + npcs + 1) : NULL;
    s->base = start;
    s->nblocks = (uint32_t)nblocks;
    uint32_t k = 0;
    for (size_t i = 0; i < npcs; i++) {
      const PCStackInfo *p = &r->pcinfo[i];
      s->pc[i] = (uintptr_t)p->pc;
      s->start[i] = k;
      for (jint j = 0; j < p->numstackframes; j++, k++) {
        s->methods[k] = p->methods[j];
        s->bcis[k] = p->bcis[j];
      }
    }
    s->start[npcs] = k;
    if (nblocks)
      index_blocks(s);
    return s;
  }
  return NULL;
}

int fg_pc_scopes_at_or_above(const struct fg_pc_scopes *s, uintptr_t pc)
{
  if (!s || !s->npcs || s->pc[s->npcs - 1] < pc)
    return -1;
  uintptr_t b = pc >= s->base ? (pc - s->base) >> FG_SCOPE_BLOCK_SHIFT : 0;
  if (!s->nblocks || pc < s->base || b >= s->nblocks)
    return (int)binary_search(s->pc, 0, s->npcs, pc);
  /* the records of pc's block: from the block's first to the next block's */
  uint32_t i = s->block_first[b], end = s->block_first[b + 1];
  while (i < end && s->pc[i] < pc)
    i++;
  return (int)i;   /* i == end: the next block's first record, there is one (pc[npcs - 1] >= pc) */
}
