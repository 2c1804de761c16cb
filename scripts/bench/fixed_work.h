/* The fixed work both C floor programs time (mechanism_floor.c,
 * floors_paired.c): xorshift integer mixing that no compiler folds away,
 * from a state the caller carries on, and the clocks they time it by. */
#ifndef FLOOR_FIXED_WORK_H
#define FLOOR_FIXED_WORK_H

#include <stdint.h>
#include <time.h>

#define FIXED_WORK_SEED 88172645463325252ull

static inline uint64_t fixed_work(long rounds, uint64_t x)
{
  for (long i = 0; i < rounds; i++) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
  }
  return x;
}

static inline uint64_t clock_ns(clockid_t c)
{
  struct timespec ts;
  clock_gettime(c, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

#endif
