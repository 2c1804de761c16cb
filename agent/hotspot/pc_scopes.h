/* A compiled method's debug scopes, from JVMTI's inline records (a
 * CompiledMethodLoad's, or code_heap.h's reading in their shape): at record i's pc (ascending) the frames [records[i].first ..
 * records[i + 1].first), innermost first. Immutable once published; never freed while
 * the agent runs (a handler may be reading it), so a recompilation-heavy run
 * keeps its old tables.
 *
 * The walker asks, for every compiled frame, for the first record at or
 * above a pc. With DebugNonSafepoints a C2 method has a record every few
 * instructions, thousands of them, and a binary search of its pc table is a
 * dozen dependent loads, each a cache miss once the application's work
 * between two samples has evicted the table. A directory of the code's
 * 64-byte blocks, each giving the first record at or above the block's
 * start, leaves one load and a short scan of consecutive pcs. */
#ifndef FG_PC_SCOPES_H
#define FG_PC_SCOPES_H

#include <jni.h>
#include <jvmticmlr.h>
#include <stddef.h>
#include <stdint.h>

#define FG_SCOPE_BLOCK_SHIFT 6   /* one directory entry per 64 bytes of code */

/* A record: its pc, as an offset from the table's base, beside where its
 * frames start, so that the scan reads one array. */
struct fg_pc_record {
  uint32_t offset;
  uint32_t first;   /* its first frame in frames[]; the next record's first ends them */
};

/* A frame of a record, method and bci side by side: the bci as HotSpot's
 * frames give it (a record at a method's entry: 0, not the raw -1). */
struct fg_scope_frame {
  jmethodID method;
  jint bci;
};

struct fg_pc_scopes {
  uint32_t npcs;
  uint32_t nblocks;                  /* 0: no directory (the search is a binary one) */
  uintptr_t base;                    /* the code's first byte (or the first record's pc, if lower) */
  struct fg_pc_record *records;      /* npcs + 1 (the last holds only the frames' end), ascending */
  struct fg_scope_frame *frames;
  uint16_t *block_first;             /* [b]: the first record at or above base + 64 b; nblocks + 1 entries */
};

/* Record i's pc. */
static inline uintptr_t fg_pc_record_pc(const struct fg_pc_scopes *s, uint32_t i)
{
  return s->base + s->records[i].offset;
}

/* compile_info's inline record (JVMTI_CMLR_INLINE_INFO), or NULL. */
const jvmtiCompiledMethodLoadInlineRecord *fg_pc_inline_record(const void *compile_info);

/* One allocation holding the inline records of compile_info for the code
 * at [start, start + len), with the directory when there are at most 65535
 * records; NULL when there are none, they are not in ascending order or
 * they span 4 GB.
 * Not async-signal-safe (malloc): JVMTI callbacks only. */
struct fg_pc_scopes *fg_pc_scopes_build(const void *compile_info, uintptr_t start, size_t len);

/* Index of the first record at or above pc, or -1. Async-signal-safe. */
int fg_pc_scopes_at_or_above(const struct fg_pc_scopes *s, uintptr_t pc);

#endif
