/* The stack walker the signal handler calls: AsyncGetCallTrace's inputs and
 * tick codes. With walker=vm the Java frames are read by fgagent's own
 * walker (vm_walker.h) and AsyncGetCallTrace walks only the samples it
 * cannot, or the callers past code it has no record of yet. Around either:
 *  - Native frames: from the interrupted pc up to the first JIT/interpreter
 *    frame, walked by the libraries' DWARF call frame information
 *    (unwind_tables.h), joined leaf-side to the Java frames.
 *  - Stitching: when the thread is in native code called from Java without a
 *    frame anchor (a leaf call such as SharedRuntime::dsin), ASGCT is retried
 *    from the Java frame the native walk reached.
 *  - Recovery: when ASGCT gives up inside a stub (arraycopy, a vtable stub)
 *    or a compiled method's prologue or epilogue, the frame is popped by the
 *    layouts HotSpot generates on x86-64 and ASGCT retried from the caller;
 *    the stub or method stays on the stack as a frame of its own.
 * Every memory read is checked against the thread's stack or a known code
 * blob first. Async-signal-safe: no locks, no allocation. */
#ifndef FG_WALKER_H
#define FG_WALKER_H

#include <stdint.h>

#include "fg/forte.h"
#include "fg/options.h"
#include "fg/sample_record.h"
#include "hotspot/code_heap.h"
#include "hotspot/code_map.h"
#include "hotspot/vm_deopt.h"

struct fg_vm_offsets;
struct fg_method_map;
struct fg_pc_cache;
struct fg_unwind_tables;
struct fg_walk_cache;

#define FG_MAX_NATIVE_FRAMES 128

struct fg_walker {
  fg_asgct_fn asgct;
  const struct fg_code_map *code;
  int depth;                 /* Java frames kept; ASGCT is asked for depth + 1 */
  int native_depth;          /* native frames kept; 0 = cstack=no */
  int recover;               /* retry ASGCT from a popped stub/method frame */
  int annotate;              /* classify the top Java frames (ann) */
  /* From gHotSpotVMStructs, -1 when unknown: where a thread's frame anchor
   * is, relative to its JNIEnv (JDK-8178287: a thread in the VM called from
   * a C2 runtime stub has an anchor with no pc, and ASGCT gives up) */
  int anchor_known;
  long env_to_anchor, anchor_sp, anchor_pc;
  /* walker=vm: fgagent's own walk first (vm_walker.h), ASGCT when it cannot */
  int use_vm;
  const struct fg_vm_offsets *vm;
  struct fg_method_map *methods;
  struct fg_pc_cache *pcs;       /* pcs met in earlier walks (pc_cache.h), or NULL */
  struct fg_unwind_tables *unwind;   /* native frames' rules (unwind_tables.h); NULL: the leaf only */
  const struct fg_code_heap *heap;   /* compiled methods read from the code heap, for a caller the map
                                        has not read yet (code_heap.h); NULL: CompiledMethodLoad's */
  const struct fg_vm_deopt *deopt;   /* with heap: where such a caller deoptimized keeps its pc */
  /* walker=copy: the stack is a copy taken at the sample, walked later on
   * another thread (fg_walk_copy): nothing of the thread's live state (its
   * frame anchor, its state) is read, and AsyncGetCallTrace is never called */
  int from_copy;
  int copy_cut;              /* this copy ended before the stack did (set per walk) */
};

struct fg_walk {
  int32_t n;                 /* frames written, leaf first */
  uint32_t flags;            /* FG_SAMPLE_TRUNCATED, _RECOVERED, _NATIVE_CUT, _FAILED, _BUDGET: the record's */
  int tick;                  /* ASGCT's code when it failed (FG_SAMPLE_FAILED) */
  uintptr_t no_record;       /* walker=copy: it stopped at this pc, in the code cache but in no blob or
                                method the code map holds yet (not read from the code heap yet); 0: not */
};

/* Walks the interrupted thread. frames/types hold fg_walk_capacity(w)
 * entries. depth: the Java frames this walk may keep, at most w->depth (the
 * thread's time budget may have lowered it; a stack cut by it is flagged
 * FG_SAMPLE_BUDGET too). deadline_ns (CLOCK_MONOTONIC): past it, no retry
 * (stitching, recovery) is started. stack_lo/hi bound the thread's stack
 * (0, 0 when unknown: no recovery then). env NULL: a thread with no JNIEnv,
 * native frames only. kept: the thread's last walk (walk_cache.h) for the
 * VM walker, or NULL; the caller commits the trace it stores to it. */
struct fg_walk fg_walk_stack(const struct fg_walker *w, int depth, uint64_t deadline_ns, void *env,
                             void *ucontext, uintptr_t stack_lo, uintptr_t stack_hi, struct fg_walk_cache *kept,
                             ASGCT_CallFrame *frames, uint8_t *types);

/* What the kernel recorded of a thread at a sample (walker=copy): its user
 * registers, and the top of its stack [sp, sp + copied) copied to stack.
 * cut: the copy ended before the stack did. */
struct fg_stack_copy {
  uintptr_t pc, sp, fp;
  uintptr_t rax, rbx, rdx, r13;    /* fg_top_regs' scratch registers */
  const uint8_t *stack;
  uint64_t copied;
  int cut;
};

/* Walks a thread's stack from its copy, on any thread, as fg_walk_stack
 * does with walker=vm but with no AsyncGetCallTrace to fall back on: the
 * native frames to the first Java one, then fgagent's walker. env: the
 * thread's JNIEnv (NULL: native frames only). A walk that cannot go on is
 * FG_SAMPLE_FAILED with fgagent's own classification: UNKNOWN_NOT_JAVA when
 * the native walk never reached Java, NOT_WALKABLE_JAVA when a Java frame
 * could not be read (the method or stub the pc is in kept above it), and
 * UNKNOWN_JAVA when a caller is code with no record (the frames so far
 * kept); either of the last two has no_record set when that code is in no
 * entry of the code map (a walk again once it has more may go on). A Java walk that fails near the end of a cut copy keeps its frames
 * and is FG_SAMPLE_TRUNCATED | FG_SAMPLE_COPY_CUT. Async-signal-safe. */
struct fg_walk fg_walk_copy(const struct fg_walker *w, void *env, const struct fg_stack_copy *c,
                            ASGCT_CallFrame *frames, uint8_t *types);

/* Frames fg_walk_copy may write: its native walk goes to FG_MAX_NATIVE_DEPTH
 * whatever cstack says (with cstack=no its frames are dropped after). */
static inline int fg_copy_walk_capacity(const struct fg_walker *w)
{
  return FG_MAX_NATIVE_DEPTH + w->depth + 1 + FG_MAX_RECOVERED_FRAMES;
}

/* Frames a walk may write: native ones, the depth + 1 ASGCT is asked for,
 * and what recovery puts before them (FG_MAX_RECOVERED_FRAMES at most).
 * fg_options_max_frames agrees for the walker the options make. */
static inline int fg_walk_capacity(const struct fg_walker *w)
{
  return w->native_depth + w->depth + 1 + FG_MAX_RECOVERED_FRAMES;
}

/* The frames of compiled method m at the first debug record at or after pc,
 * innermost first, typed FG_FRAME_JAVA; 0 when m has none there. A top
 * frame asks with pc + 1 (HotSpot's rule for a pc between records), a
 * caller with its return address (the call's own record). */
int fg_walk_scopes_at(const struct fg_code_blob *m, uintptr_t pc, ASGCT_CallFrame *f, uint8_t *types, int room);

#endif
