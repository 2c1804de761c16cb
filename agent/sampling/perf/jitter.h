/* The period of a thread's samples, varied so that they do not keep step
 * with a program that repeats itself.
 *
 * A fixed period T samples a loop whose iteration takes about a multiple (or
 * a simple fraction) of T at the same few points of each iteration, drifting
 * slowly, so a step's share comes out several times the sampling noise off
 * what the loop timed itself, differently in each run (RepeatingSteps).
 * So every FG_JITTER_RUN (K) samples the thread's counter gets a new period:
 * with r_i drawn uniformly from [-1/4, 1/4] (r_0 = 0), run i's K periods are
 * T*(1 + r_i - r_(i-1)), within [T/2, 3T/2], and it ends K*T*r_i from where
 * the fixed period would have put its end. So each run starts at a fresh
 * random phase of any loop shorter than K*T/2, and the first n runs' periods
 * add up to n*K*T + K*T*r_n: off the fixed rate by at most K*T/4, whatever n.
 * Changing the period is a system call (it restarts the counter's timer),
 * hence runs of K rather than a new period each sample. K bounds two
 * errors: too long a run, and one whose period nearly divides a loop's
 * length puts all its samples on the same few points of it, a lump that
 * grows with the run; too short, and runs stratify the loop's phases,
 * spreading its shares more evenly than independent samples would (and
 * the period changes cost more of the handler). At K = 32 a repeating
 * loop's shares are off by the sample count's own noise and no more: a
 * chi-square over RepeatingSteps' nine steps averages its 8 degrees of
 * freedom (docs/how-it-works.md has the runs of K = 16, 32 and 64).
 * Pure arithmetic on one thread's state, async-signal-safe; unit-tested alone. */
#ifndef FG_JITTER_H
#define FG_JITTER_H

#include <stdint.h>

#define FG_JITTER_RUN 32u              /* samples between period changes */
#define FG_JITTER_ONE 65536            /* r's unit: r = q / FG_JITTER_ONE */
#define FG_JITTER_MAX (FG_JITTER_ONE / 4)

struct fg_jitter {
  uint64_t rng;       /* xorshift64 state; 0 until the first signal */
  int32_t q;          /* the current run's r, times FG_JITTER_ONE */
  uint32_t count;     /* signals since the period last changed */
};

/* A draw in [-FG_JITTER_MAX, FG_JITTER_MAX]. */
static inline int32_t fg_jitter_draw(struct fg_jitter *j)
{
  uint64_t x = j->rng;
  x ^= x << 13;
  x ^= x >> 7;
  x ^= x << 17;
  j->rng = x;
  return (int32_t)((x >> 11) % (2 * FG_JITTER_MAX + 1)) - FG_JITTER_MAX;
}

/* At each of the thread's signals: 0 to keep the period, else the period
 * in ns its counter takes from now (a run's start). seed (the thread id)
 * starts its sequence. */
static inline uint64_t fg_jitter_next(struct fg_jitter *j, uint64_t interval_ns, uint64_t seed)
{
  if (j->rng == 0)
    j->rng = (seed + 1) * 0x9E3779B97F4A7C15ull | 1;
  if (++j->count < FG_JITTER_RUN)
    return 0;
  j->count = 0;
  /* the shift is a difference of two rounded offsets, so that the runs' shifts add up to the last one exactly */
  int32_t next = fg_jitter_draw(j);
  int64_t before = (int64_t)((__int128)interval_ns * j->q / FG_JITTER_ONE);
  int64_t after = (int64_t)((__int128)interval_ns * next / FG_JITTER_ONE);
  j->q = next;
  return (uint64_t)((int64_t)interval_ns + after - before);
}

#endif
