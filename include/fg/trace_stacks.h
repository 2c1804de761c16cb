/* From a sample's trace to its stack in the aggregated profile: the
 * drainer's side of the trace table. A trace is turned into frame names once
 * per (trace, thread, kernel state); every later sample of it is a map
 * lookup and a count, however deep the stack. Pure: frame names come from
 * the caller's namer (JVMTI in the agent, anything in a test or benchmark). */
#ifndef FG_TRACE_STACKS_H
#define FG_TRACE_STACKS_H

#include <stdint.h>

#include "fg/profile.h"
#include "fg/trace_table.h"
#include "fg/u64_map.h"

struct fg_stack_namer {
  int64_t (*frame)(void *ctx, const struct fg_trace *tr, uint32_t i);   /* frame i's name id, -1 to leave out */
  const char *(*state)(uint32_t state);   /* event=wall's kernel state as a leaf frame ("[state=sleeping]") */
  void *ctx;
  /* an FG_FRAME_UNREAD frame i's names, root first, into out (room of them): how many; 0:
   * frame(i) names it instead. out NULL: only how many. NULL: always 0 */
  uint32_t (*expand)(void *ctx, const struct fg_trace *tr, uint32_t i, uint32_t *out, uint32_t room);
  const int *depth;   /* the Java frames a walk keeps (the session's depth=); NULL: not cut again */
};

struct fg_trace_stacks {
  struct fg_u64_map map;                  /* (trace id, thread, state) -> profile stack index */
  uint32_t *frames;                       /* one stack's name ids, root first */
  uint32_t cap;
  struct fg_stack_namer namer;
};

/* max_frames: the most frames a trace holds. 0, or -1 when out of memory. */
int fg_trace_stacks_init(struct fg_trace_stacks *s, uint32_t max_frames, struct fg_stack_namer namer);
void fg_trace_stacks_free(struct fg_trace_stacks *s);

/* The profile stack of trace tr on thread in state (0: none), root first:
 * the "[name]" root of a thread with no JNIEnv (thread_frame, or -1), the
 * [tick] or [truncated] marker, the frames ([native_cut] between the native
 * and the Java ones when they do not meet), the state. -1 when out of memory. */
int64_t fg_trace_stack(struct fg_trace_stacks *s, struct fg_profile *p, uint32_t thread, int64_t thread_frame,
                       const struct fg_trace *tr, uint32_t state);

/* The same stack (no thread frame, no state) as a stack of kind e: alloc,live's
 * sampled allocations still alive (FG_STACK_LIVE), walked as alloc's. Not
 * kept in the map when e is not the kind tr's flags make: named again each
 * time (the profile finds the stack it made before). -1 when out of memory. */
int64_t fg_trace_stack_as(struct fg_trace_stacks *s, struct fg_profile *p, uint32_t thread, const struct fg_trace *tr,
                          enum fg_stack_event e);

/* What weight samples of tr add to the accounting: Java, a failed walk by
 * its tick, a thread with no JNIEnv; truncated, recovered, budget-cut ... */
void fg_trace_account(struct fg_stats *st, const struct fg_trace *tr, int64_t thread_frame, uint64_t weight);

#endif
