/* nativemem=SIZE: which allocations a thread's hook samples, and what a
 * sample stands for. Sample points fall on the bytes a thread allocates as
 * a Poisson process of mean gap SIZE (gaps drawn from the exponential
 * distribution, as HotSpot does for alloc= and TCMalloc for its heap
 * profile): an allocation of s bytes holds one with probability
 * p = 1 - exp(-s / SIZE), whatever came before it, so a sample of it stands
 * for s / p bytes and 1 / p calls, and every site's estimate is unbiased
 * whatever the sizes of its allocations. SIZE 0: every call, as it is.
 * Pure arithmetic: no allocation, no lock (it runs inside malloc). */
#ifndef FG_NM_SAMPLING_H
#define FG_NM_SAMPLING_H

#include <math.h>
#include <stdint.h>

/* xorshift64*: a thread's own stream (state never 0). */
static inline uint64_t fg_nm_random(uint64_t *state)
{
  uint64_t x = *state;
  x ^= x >> 12;
  x ^= x << 25;
  x ^= x >> 27;
  *state = x;
  return x * 0x2545f4914f6cdd1dull;
}

/* The bytes to the next sample point: exponential of mean interval, at least 1. */
static inline int64_t fg_nm_gap(uint64_t *state, uint64_t interval)
{
  double u = (double)((fg_nm_random(state) >> 11) + 1) * (1.0 / 9007199254740992.0);   /* (0, 1] */
  double g = -log(u) * (double)interval;
  return g < 1.0 ? 1 : g > 9.0e18 ? (int64_t)9000000000000000000ll : (int64_t)g;
}

/* What a sampled allocation of size bytes stands for: *bytes and *calls. */
static inline void fg_nm_weight(uint64_t size, uint64_t interval, uint64_t *bytes, uint64_t *calls)
{
  if (interval == 0 || size == 0) {
    *bytes = size;
    *calls = 1;
    return;
  }
  double p = -expm1(-(double)size / (double)interval);
  *bytes = (uint64_t)((double)size / p + 0.5);
  *calls = (uint64_t)(1.0 / p + 0.5);
  if (*calls == 0)
    *calls = 1;
}

#endif
