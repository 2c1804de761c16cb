/* Nanoseconds of a POSIX clock: clock_gettime is async-signal-safe (and for
 * CLOCK_MONOTONIC a vDSO call, no syscall), so the handler uses it too. */
#ifndef FG_CLOCK_H
#define FG_CLOCK_H

#include <stdint.h>
#include <time.h>

static inline uint64_t fg_clock_ns(clockid_t clock)
{
  struct timespec ts;
  if (clock_gettime(clock, &ts) != 0)
    return 0;
  return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

#endif
