/* A compiled method's debug scopes, from CompiledMethodLoad's inline
 * records: at pc[i] (ascending) the frames methods/bcis[start[i] ..
 * start[i+1]), innermost first. Immutable once published; never freed while
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
#include <stddef.h>
#include <stdint.h>

#define FG_SCOPE_BLOCK_SHIFT 6   /* one directory entry per 64 bytes of code */

struct fg_pc_scopes {
  uint32_t npcs;
  uintptr_t *pc;
  uint32_t *start;
  jmethodID *methods;
  jint *bcis;
  uintptr_t base;           /* the code's first byte */
  uint32_t nblocks;         /* 0: no directory (the search is a binary one) */
  uint16_t *block_first;    /* [b]: the first record at or above base + 64 b; nblocks + 1 entries */
};

/* One allocation holding the inline records of compile_info for the code
 * at [start, start + len), with the directory when there are at most 65535
 * records; NULL when there are none or they are not in ascending order.
 * Not async-signal-safe (malloc): JVMTI callbacks only. */
struct fg_pc_scopes *fg_pc_scopes_build(const void *compile_info, uintptr_t start, size_t len);

/* Index of the first record at or above pc, or -1. Async-signal-safe. */
int fg_pc_scopes_at_or_above(const struct fg_pc_scopes *s, uintptr_t pc);

#endif
