/* One sample as the handler writes it into its thread's ring, and as the
 * drainer reads it back. Layout, in 64-bit words:
 *   0            ring header: length in words, tag FG_RECORD_SAMPLE
 *   1            thread serial (which registration of which thread)
 *   2            low 32 bits: num_frames as AsyncGetCallTrace gave it, after
 *                truncation (<= 0: a tick code); high 32 bits: flags
 *   3 .. 3+n-1   jmethodID of each frame, leaf first
 *   then         the frames' bcis (lineno), two int32 to a word
 * Encoding is async-signal-safe: plain stores, no calls. */
#ifndef FG_SAMPLE_RECORD_H
#define FG_SAMPLE_RECORD_H

#include <stdint.h>

#include "fg/forte.h"
#include "fg/ring.h"

#define FG_RECORD_SAMPLE 1u
#define FG_SAMPLE_TRUNCATED 1u   /* the stack was deeper than depth */

static inline uint32_t fg_sample_words(uint32_t nframes)
{
  return 3 + nframes + (nframes + 1) / 2;
}

static inline void fg_sample_encode(uint64_t *w, uint64_t serial, int32_t num_frames,
                                    uint32_t flags, const ASGCT_CallFrame *frames)
{
  uint32_t n = num_frames > 0 ? (uint32_t)num_frames : 0;
  uint32_t nwords = fg_sample_words(n);
  w[0] = fg_ring_header(nwords, FG_RECORD_SAMPLE);
  w[1] = serial;
  w[2] = (uint64_t)flags << 32 | (uint32_t)num_frames;
  uint64_t *bcis = w + 3 + n;
  for (uint32_t i = 0; i < n; i++)
    w[3 + i] = (uint64_t)(uintptr_t)frames[i].method_id;
  for (uint32_t i = 0; i < n; i += 2) {
    uint32_t lo = (uint32_t)frames[i].lineno;
    uint32_t hi = i + 1 < n ? (uint32_t)frames[i + 1].lineno : 0;
    bcis[i / 2] = (uint64_t)hi << 32 | lo;
  }
}

static inline uint64_t fg_sample_serial(const uint64_t *w) { return w[1]; }
static inline int32_t fg_sample_num_frames(const uint64_t *w) { return (int32_t)(uint32_t)w[2]; }
static inline uint32_t fg_sample_flags(const uint64_t *w) { return (uint32_t)(w[2] >> 32); }

static inline jmethodID fg_sample_method(const uint64_t *w, uint32_t i)
{
  return (jmethodID)(uintptr_t)w[3 + i];
}

static inline int32_t fg_sample_bci(const uint64_t *w, uint32_t i)
{
  uint32_t n = (uint32_t)fg_sample_num_frames(w);
  uint64_t pair = w[3 + n + i / 2];
  return (int32_t)(uint32_t)(i % 2 ? pair >> 32 : pair);
}

#endif
