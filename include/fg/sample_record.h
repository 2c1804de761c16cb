/* One sample as the handler writes it into its thread's ring, and as the
 * drainer reads it back: the stack itself is a trace in the shared trace
 * table (fg/trace_table.h), so a record is five words whatever the depth.
 *   0   ring header: FG_SAMPLE_WORDS words, tag FG_RECORD_SAMPLE
 *   1   thread serial (which registration of which thread)
 *   2   the trace (const struct fg_trace *): frames, bcis, types, the walk's flags
 *   3   when it was taken, CLOCK_MONOTONIC ns
 *   4   bits 0..31: its weight, the intervals it stands for (1 + the signals
 *       its thread skipped just before it, see sampling/signal/backoff.h); 32..43:
 *       the CPU; 44..47: the thread's kernel state (event=wall)
 * A trace's flags: FG_SAMPLE_* below, with the tick code of a failed walk
 * in bits 16..23 and a kernel event's index in bits 12..13. Encoding is async-signal-safe: plain stores, no calls. */
#ifndef FG_SAMPLE_RECORD_H
#define FG_SAMPLE_RECORD_H

#include <stdint.h>

#include "fg/forte.h"
#include "fg/ring.h"
#include "fg/trace_table.h"

#define FG_RECORD_SAMPLE 1u
#define FG_SAMPLE_WORDS 5u

#define FG_SAMPLE_TRUNCATED 1u   /* the Java stack was deeper than depth */
#define FG_SAMPLE_RECOVERED 2u   /* AsyncGetCallTrace failed; fgagent's walker found the stack */
#define FG_SAMPLE_NATIVE_CUT 4u  /* the native frames stop short of the Java ones */
#define FG_SAMPLE_FAILED 8u      /* no Java stack; fg_trace_tick says why */
#define FG_SAMPLE_ALLOC (1u << 24) /* an allocation sample's stack: the class allocated, then the Java frames */
#define FG_SAMPLE_LOCK (1u << 25)  /* a contended lock's stack: the lock's class, then the Java frames */
#define FG_SAMPLE_NATIVEMEM (1u << 26) /* a sampled malloc's stack: its caller, then the caller's callers */
#define FG_SAMPLE_NATIVELOCK (1u << 30) /* a contended pthread lock's stack: its caller, then theirs */
#define FG_SAMPLE_KERNEL_EVENT (1u << 31) /* a kernel event's sample (event=NAME): its counter's signal */
#define FG_SAMPLE_KERNEL_SHIFT 12u         /* ... bits 12..13: which of the session's kernel events */
#define FG_SAMPLE_KERNEL_MASK (3u << FG_SAMPLE_KERNEL_SHIFT)
#define FG_SAMPLE_COPY_CUT (1u << 27) /* walker=copy: the stack's copy ended before the walk did (TRUNCATED too) */
#define FG_SAMPLE_BUDGET (1u << 28) /* the walk's time budget cut it short (fewer frames, no retry) */
#define FG_SAMPLE_VM_WALKED (1u << 29) /* walker=vm: fgagent's own walker read it, not AsyncGetCallTrace */

/* flags with a failed walk's tick code (0 .. -127) folded in */
static inline uint32_t fg_sample_flags_with_tick(uint32_t flags, int tick)
{
  return flags | FG_SAMPLE_FAILED | (uint32_t)(uint8_t)(-tick) << 16;
}

static inline int fg_trace_tick(const struct fg_trace *t) { return -(int)((t->flags >> 16) & 0xff); }

static inline jmethodID fg_trace_method(const struct fg_trace *t, uint32_t i)
{
  return (jmethodID)(uintptr_t)fg_trace_methods(t)[i];
}

static inline void fg_sample_encode(uint64_t *w, uint64_t serial, const struct fg_trace *trace, uint64_t time_ns,
                                    uint32_t weight, int cpu, uint32_t state)
{
  w[0] = fg_ring_header(FG_SAMPLE_WORDS, FG_RECORD_SAMPLE);
  w[1] = serial;
  w[2] = (uint64_t)(uintptr_t)trace;
  w[3] = time_ns;
  w[4] = (uint64_t)(state & 15u) << 44 | (uint64_t)((uint32_t)(cpu < 0 ? 0 : cpu) & 0xfffu) << 32 | weight;
}

static inline uint64_t fg_sample_serial(const uint64_t *w) { return w[1]; }
static inline const struct fg_trace *fg_sample_trace(const uint64_t *w)
{
  return (const struct fg_trace *)(uintptr_t)w[2];
}
static inline uint64_t fg_sample_time(const uint64_t *w) { return w[3]; }
static inline uint32_t fg_sample_weight(const uint64_t *w) { return (uint32_t)w[4]; }
static inline uint32_t fg_sample_cpu(const uint64_t *w) { return (uint32_t)(w[4] >> 32) & 0xfffu; }
static inline uint32_t fg_sample_state(const uint64_t *w) { return (uint32_t)(w[4] >> 44) & 15u; }

/* The sample's stack, through its trace. */
static inline uint32_t fg_sample_nframes(const uint64_t *w) { return fg_sample_trace(w)->n; }
static inline uint32_t fg_sample_flags(const uint64_t *w) { return fg_sample_trace(w)->flags; }
static inline int fg_sample_tick(const uint64_t *w) { return fg_trace_tick(fg_sample_trace(w)); }
static inline jmethodID fg_sample_method(const uint64_t *w, uint32_t i) { return fg_trace_method(fg_sample_trace(w), i); }
static inline int32_t fg_sample_bci(const uint64_t *w, uint32_t i) { return fg_trace_bcis(fg_sample_trace(w))[i]; }
static inline uint8_t fg_sample_type(const uint64_t *w, uint32_t i) { return fg_trace_types(fg_sample_trace(w))[i]; }

#endif
