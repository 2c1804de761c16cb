/* Compiled methods' debug scopes; see pc_scopes.h. */
#include "hotspot/pc_scopes.h"

#include <stdlib.h>

/* SynchronizationEntryBCI (and InvocationEntryBci): the bci of a record at
 * a method's entry, before its first bytecode: C1's call of the
 * counter_overflow stub when the invocation counter overflows, the
 * monitorenter of a synchronized method (in the method itself or in one
 * inlined there). HotSpot's frames say 0 there (compiledVFrame::bci, which
 * GetStackTrace reports); the raw -1 would make a caller's frame one
 * without a bytecode index. */
#define ENTRY_BCI (-1)

static jint frame_bci(jint raw)
{
  return raw == ENTRY_BCI ? 0 : raw;
}

/* The first record at or above offset among [lo, hi) (the last is). */
static uint32_t binary_search(const struct fg_pc_record *records, uint32_t lo, uint32_t hi, uint64_t offset)
{
  hi--;
  while (lo < hi) {
    uint32_t mid = (lo + hi) / 2;
    if (records[mid].offset >= offset)
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
    uint64_t block = (uint64_t)b << FG_SCOPE_BLOCK_SHIFT;
    while (i < s->npcs && s->records[i].offset < block)
      i++;
    s->block_first[b] = (uint16_t)i;
  }
}

const jvmtiCompiledMethodLoadInlineRecord *fg_pc_inline_record(const void *compile_info)
{
  for (const jvmtiCompiledMethodLoadRecordHeader *h = compile_info; h; h = h->next)
    if (h->kind == JVMTI_CMLR_INLINE_INFO)
      return (const void *)h;
  return NULL;
}

struct fg_pc_scopes *fg_pc_scopes_build(const void *compile_info, uintptr_t start, size_t len)
{
  const jvmtiCompiledMethodLoadInlineRecord *r = fg_pc_inline_record(compile_info);
  if (!r || r->numpcs <= 0)
    return NULL;
  size_t npcs = (size_t)r->numpcs, nframes = 0;
  for (size_t i = 0; i < npcs; i++) {
    if (r->pcinfo[i].numstackframes < 0 || (i && r->pcinfo[i].pc < r->pcinfo[i - 1].pc))
      return NULL;   /* not the ascending table we rely on */
    nframes += (size_t)r->pcinfo[i].numstackframes;
  }
  uintptr_t base = (uintptr_t)r->pcinfo[0].pc < start ? (uintptr_t)r->pcinfo[0].pc : start;
  if ((uintptr_t)r->pcinfo[npcs - 1].pc - base > UINT32_MAX || nframes > UINT32_MAX)
    return NULL;
  size_t code = start + len - base;
  size_t nblocks = npcs <= UINT16_MAX && code > 0 ? ((code - 1) >> FG_SCOPE_BLOCK_SHIFT) + 1 : 0;
  if (nblocks > UINT32_MAX - 1)
    nblocks = 0;
  struct fg_pc_scopes *s = malloc(sizeof *s + (npcs + 1) * sizeof(struct fg_pc_record) +
                                  nframes * sizeof(struct fg_scope_frame) +
                                  (nblocks ? nblocks + 1 : 0) * sizeof(uint16_t));
  if (!s)
    return NULL;
  s->npcs = (uint32_t)npcs;
  s->records = (struct fg_pc_record *)(s + 1);
  s->frames = (struct fg_scope_frame *)(s->records + npcs + 1);
  s->block_first = nblocks ? (uint16_t *)(s->frames + nframes) : NULL;
  s->base = base;
  s->nblocks = (uint32_t)nblocks;
  uint32_t k = 0;
  for (size_t i = 0; i < npcs; i++) {
    const PCStackInfo *p = &r->pcinfo[i];
    s->records[i] = (struct fg_pc_record){(uint32_t)((uintptr_t)p->pc - base), k};
    for (jint j = 0; j < p->numstackframes; j++, k++)
      s->frames[k] = (struct fg_scope_frame){p->methods[j], frame_bci(p->bcis[j])};
  }
  s->records[npcs] = (struct fg_pc_record){UINT32_MAX, k};
  if (nblocks)
    index_blocks(s);
  return s;
}

int fg_pc_scopes_at_or_above(const struct fg_pc_scopes *s, uintptr_t pc)
{
  if (!s || !s->npcs)
    return -1;
  if (pc < s->base)
    return 0;   /* below every record */
  uint64_t offset = pc - s->base, b = offset >> FG_SCOPE_BLOCK_SHIFT;
  if (!s->nblocks || b >= s->nblocks) {
    if (s->records[s->npcs - 1].offset < offset)
      return -1;
    return (int)binary_search(s->records, 0, s->npcs, offset);
  }
  /* the records of pc's block: from the block's first to the next block's,
   * which is the answer when none of pc's block is at or above pc */
  uint32_t i = s->block_first[b], end = s->block_first[b + 1];
  while (i < end && s->records[i].offset < offset)
    i++;
  return i < s->npcs ? (int)i : -1;
}
