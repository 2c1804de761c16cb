/* One sample as the handler writes it into its thread's ring, and as the
 * drainer reads it back. Layout, in 64-bit words:
 *   0            ring header: length in words, tag FG_RECORD_SAMPLE
 *   1            thread serial (which registration of which thread)
 *   2            low 32 bits: n, the frames stored (>= 0); high 32 bits: flags,
 *                with the CPU in bits 4..15, the tick code of a failed walk in
 *                bits 16..23, the thread's kernel state (wall mode) in 24..27 and
 *                FG_SAMPLE_BUDGET in bit 28
 *   3            when it was taken, CLOCK_MONOTONIC ns
 *   4            its weight: the intervals it stands for, 1 + the signals its
 *                thread skipped just before it (see sampling/backoff.h)
 *   5 .. 5+n-1   each frame's method_id (a jmethodID, a native pc or a stub),
 *                leaf first
 *   then         the frames' bcis (lineno), two int32 to a word
 *   then         the frames' types (enum fg_frame_type), eight bytes to a word
 * Encoding is async-signal-safe: plain stores, no calls. */
#ifndef FG_SAMPLE_RECORD_H
#define FG_SAMPLE_RECORD_H

#include <stdint.h>

#include "fg/forte.h"
#include "fg/ring.h"

#define FG_RECORD_SAMPLE 1u
#define FG_SAMPLE_TRUNCATED 1u   /* the Java stack was deeper than depth */
#define FG_SAMPLE_RECOVERED 2u   /* AsyncGetCallTrace failed; fgagent's walker found the stack */
#define FG_SAMPLE_NATIVE_CUT 4u  /* the native frames stop short of the Java ones */
#define FG_SAMPLE_FAILED 8u      /* no Java stack; fg_sample_tick says why */
#define FG_SAMPLE_BUDGET (1u << 28) /* the walk's time budget cut it short (fewer frames, no retry) */
#define FG_SAMPLE_VM_WALKED (1u << 29) /* walker=vm: fgagent's own walker read it, not AsyncGetCallTrace */

#define FG_SAMPLE_HEADER_WORDS 5

static inline uint32_t fg_sample_words(uint32_t nframes)
{
  return FG_SAMPLE_HEADER_WORDS + nframes + (nframes + 1) / 2 + (nframes + 7) / 8;
}

/* flags with a failed walk's tick code (0 .. -127) folded in */
static inline uint32_t fg_sample_flags_with_tick(uint32_t flags, int tick)
{
  return flags | FG_SAMPLE_FAILED | (uint32_t)(uint8_t)(-tick) << 16;
}

static inline uint32_t fg_sample_flags_with_state(uint32_t flags, uint32_t state)
{
  return flags | (state & 15u) << 24;
}

static inline uint32_t fg_sample_flags_with_cpu(uint32_t flags, int cpu)
{
  return flags | ((uint32_t)(cpu < 0 ? 0 : cpu) & 0xfffu) << 4;
}

static inline void fg_sample_encode(uint64_t *w, uint64_t serial, uint64_t time_ns, uint32_t n, uint32_t flags,
                                    uint32_t weight, const ASGCT_CallFrame *frames, const uint8_t *types)
{
  uint32_t nwords = fg_sample_words(n);
  w[0] = fg_ring_header(nwords, FG_RECORD_SAMPLE);
  w[1] = serial;
  w[2] = (uint64_t)flags << 32 | n;
  w[3] = time_ns;
  w[4] = weight;
  uint64_t *bcis = w + FG_SAMPLE_HEADER_WORDS + n;
  uint64_t *kinds = bcis + (n + 1) / 2;
  for (uint32_t i = 0; i < n; i++)
    w[FG_SAMPLE_HEADER_WORDS + i] = (uint64_t)(uintptr_t)frames[i].method_id;
  for (uint32_t i = 0; i < n; i += 2) {
    uint32_t lo = (uint32_t)frames[i].lineno;
    uint32_t hi = i + 1 < n ? (uint32_t)frames[i + 1].lineno : 0;
    bcis[i / 2] = (uint64_t)hi << 32 | lo;
  }
  for (uint32_t i = 0; i < n; i += 8) {
    uint64_t word = 0;
    for (uint32_t j = 0; j < 8 && i + j < n; j++)
      word |= (uint64_t)(types ? types[i + j] : 0) << (8 * j);
    kinds[i / 8] = word;
  }
}

static inline uint64_t fg_sample_serial(const uint64_t *w) { return w[1]; }
static inline uint32_t fg_sample_nframes(const uint64_t *w) { return (uint32_t)w[2]; }
static inline uint32_t fg_sample_flags(const uint64_t *w) { return (uint32_t)(w[2] >> 32); }
static inline int fg_sample_tick(const uint64_t *w) { return -(int)((fg_sample_flags(w) >> 16) & 0xff); }
static inline uint32_t fg_sample_state(const uint64_t *w) { return (fg_sample_flags(w) >> 24) & 15u; }
static inline uint32_t fg_sample_cpu(const uint64_t *w) { return (fg_sample_flags(w) >> 4) & 0xfffu; }
static inline uint64_t fg_sample_time(const uint64_t *w) { return w[3]; }
static inline uint32_t fg_sample_weight(const uint64_t *w) { return (uint32_t)w[4]; }

static inline uint64_t fg_sample_method_word(const uint64_t *w, uint32_t i) { return w[FG_SAMPLE_HEADER_WORDS + i]; }

static inline jmethodID fg_sample_method(const uint64_t *w, uint32_t i)
{
  return (jmethodID)(uintptr_t)w[FG_SAMPLE_HEADER_WORDS + i];
}

static inline int32_t fg_sample_bci(const uint64_t *w, uint32_t i)
{
  uint32_t n = fg_sample_nframes(w);
  uint64_t pair = w[FG_SAMPLE_HEADER_WORDS + n + i / 2];
  return (int32_t)(uint32_t)(i % 2 ? pair >> 32 : pair);
}

static inline uint8_t fg_sample_type(const uint64_t *w, uint32_t i)
{
  uint32_t n = fg_sample_nframes(w);
  uint64_t word = w[FG_SAMPLE_HEADER_WORDS + n + (n + 1) / 2 + i / 8];
  return (uint8_t)(word >> (8 * (i % 8)));
}

#endif
