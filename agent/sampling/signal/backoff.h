/* How much of a thread's CPU sampling may take, whatever its stack.
 *
 * A per-thread CPU-time timer counts the handler's own time too: when one
 * walk costs more than the interval, the next signal is already pending when
 * the handler returns and the thread does nothing but walk its stack (a
 * livelock). Three rules, per thread, keep that from happening:
 *  - share: after a walk, with h ns the lesser of its time and the thread's
 *    previous walk's, the next ceil(h * (100 / FG_SHARE_LIMIT_PCT - 1) /
 *    interval) - 1 signals are skipped, so walks take at most about
 *    FG_SHARE_LIMIT_PCT percent of the thread's CPU. A skipped signal costs
 *    only its delivery; its interval is credited to the thread's next stored
 *    sample (its weight), so the profile still counts every interval. The
 *    lesser of two, because a skip of N puts N intervals on one stack: a
 *    single walk that reads slow (the host took the virtual CPU, an
 *    interrupt came in the middle) would skip hundreds of signals and lump
 *    their intervals onto one point of the program (RepeatingSteps: one
 *    sample weighing 220 intervals, a step's share 5 points too high). A
 *    cost that stays skips from the second walk on, so a livelock is one
 *    walk longer at most.
 *  - budget: when most recent walks (FG_CUT_OVER of the last 8) took longer
 *    than FG_WALK_BUDGET_NS, the frames the thread's next walks ask for halve
 *    (down to FG_MIN_WALK_DEPTH; the stacks cut are marked [truncated]); after
 *    FG_RESTORE_AFTER walks at that depth with at most 2 of the last 32 over
 *    the budget, it doubles again, up to depth (a cost that stays halves it
 *    again within 8 walks). Single walks decide nothing:
 *    on a virtual machine a thread's CPU clock also counts the time the host
 *    took its CPU away, so a busy host makes a 250 us walk read several ms,
 *    and halving on two such walks in a row cut three quarters of a
 *    deep-stack run's samples short.
 *  - proof: a walk's duration is taken from CLOCK_MONOTONIC (cheap), which
 *    counts time the thread spent switched out inside the handler. When the
 *    thread's perf counter page says it was not switched out (its sequence
 *    did not move: the kernel rewrites the page at every switch), that time is
 *    the walk's own and the two rules above apply to it at once. Otherwise
 *    only a walk timed on the thread's own CPU clock (two system calls, over
 *    a microsecond each here) triggers them: one slow wall-clock walk makes the
 *    next FG_PRECISE_WALKS walks be timed that way.
 * Pure arithmetic on one thread's state, async-signal-safe; unit-tested alone. */
#ifndef FG_BACKOFF_H
#define FG_BACKOFF_H

#include <stdint.h>

#define FG_SHARE_LIMIT_PCT 5u
#define FG_WALK_BUDGET_NS 1000000ull   /* 1 ms: the longest pause a walk may cause */
#define FG_MIN_WALK_DEPTH 64
#define FG_RESTORE_AFTER 64u
#define FG_CUT_OVER 6
#define FG_PRECISE_WALKS 16u
#define FG_MAX_SKIP 100000u            /* a walk of 5 s at 1 ms; bounds the weight */

struct fg_backoff {
  uint32_t skip_left;      /* signals to skip before the next walk */
  uint32_t carry;          /* signals skipped since the last stored sample */
  uint32_t precise_left;   /* walks still to be timed on the thread's CPU clock */
  uint32_t over_history;   /* the last 32 walks counted, newest in bit 0: 1 = over the budget (CPU-timed) */
  uint32_t at_depth;       /* walks counted since the depth last changed */
  int depth;               /* Java frames the next walk asks for */
  uint32_t session;        /* the sampler's session these belong to: another's start over (fg_sampler) */
  uint64_t last_ns;        /* the last proven walk's time; 0: none yet */
};

/* How a walk's duration was measured. */
enum fg_walk_timing {
  FG_TIMED_WALL,    /* CLOCK_MONOTONIC; the thread may have been switched out meanwhile */
  FG_TIMED_CPU,     /* the thread's own CPU clock (fg_backoff_precise) */
  FG_TIMED_ALONE,   /* CLOCK_MONOTONIC, and the thread was not switched out meanwhile */
};

/* What a walk's measured duration changed. */
struct fg_backoff_verdict {
  uint32_t skipped_next;   /* signals the thread will skip now */
  int cut;                 /* the depth was halved */
};

static inline void fg_backoff_reset(struct fg_backoff *b, int depth)
{
  *b = (struct fg_backoff){.depth = depth};
}

/* A back-off from an earlier session (another depth, its carry already
 * credited at that session's end), or a record's first (zeroed), starts
 * at this session's depth. */
static inline void fg_backoff_for_session(struct fg_backoff *b, uint32_t session, int depth)
{
  if (b->session != session || b->depth == 0) {
    fg_backoff_reset(b, depth);
    b->session = session;
  }
}

/* On a signal: 1 when it is to be skipped (counted into carry). */
static inline int fg_backoff_skip(struct fg_backoff *b)
{
  if (b->skip_left == 0)
    return 0;
  b->skip_left--;
  b->carry++;
  return 1;
}

/* n more intervals for the next sample stored (a timer's signal skipped
 * that stood for them beside its own). */
static inline void fg_backoff_carry_more(struct fg_backoff *b, uint32_t n)
{
  b->carry += n;
}

/* The weight of a sample stored now (1 + the signals skipped before it); the
 * carry starts again from zero. */
static inline uint32_t fg_backoff_take_weight(struct fg_backoff *b)
{
  uint32_t w = 1 + b->carry;
  b->carry = 0;
  return w;
}

/* Whether the walk about to start is timed on the thread's CPU clock. */
static inline int fg_backoff_precise(const struct fg_backoff *b)
{
  return b->precise_left > 0;
}

/* Whether a walk that took ns, measured as timing says, is slow by the wall
 * clock alone: over its share of interval_ns or over the budget, and not
 * proven the walk's own. Such a walk makes the next ones be timed on the CPU
 * clock, and its time is left out of the handler's (it is most likely time
 * the thread spent switched out). */
static inline int fg_walk_time_unproven(uint64_t ns, uint64_t interval_ns, enum fg_walk_timing timing)
{
  uint64_t factor = 100 / FG_SHARE_LIMIT_PCT - 1;
  return timing == FG_TIMED_WALL && ((interval_ns > 0 && ns * factor > interval_ns) || ns > FG_WALK_BUDGET_NS);
}

/* After a walk that took ns, measured as timing says, with interval_ns
 * between signals and max_depth the option. */
static inline struct fg_backoff_verdict fg_backoff_after_walk(struct fg_backoff *b, uint64_t ns,
                                                             uint64_t interval_ns, int max_depth,
                                                             enum fg_walk_timing timing)
{
  struct fg_backoff_verdict v = {0, 0};
  uint64_t factor = 100 / FG_SHARE_LIMIT_PCT - 1;   /* quiet time per unit of walk time */
  int over_share = interval_ns > 0 && ns * factor > interval_ns;
  int over_budget = ns > FG_WALK_BUDGET_NS;
  int proven = timing != FG_TIMED_WALL;
  if (timing == FG_TIMED_CPU && b->precise_left > 0)
    b->precise_left--;
  if (fg_walk_time_unproven(ns, interval_ns, timing) || (timing == FG_TIMED_CPU && (over_share || over_budget)))
    b->precise_left = FG_PRECISE_WALKS;   /* prove it (again) on the CPU clock */
  uint64_t steady = ns < b->last_ns ? ns : b->last_ns;   /* the lesser of this walk's and the last's */
  if (proven)
    b->last_ns = ns;
  if (proven && steady * factor > interval_ns && interval_ns > 0) {
    uint64_t quiet = steady * factor;
    uint64_t skip = (quiet + interval_ns - 1) / interval_ns - 1;
    if (skip > FG_MAX_SKIP)
      skip = FG_MAX_SKIP;
    b->skip_left = (uint32_t)skip;
    v.skipped_next = (uint32_t)skip;
  }
  /* the budget's record: every walk within it, and those over it that were
   * proven (a wall-clock one is only a reason to time the next) */
  if (proven || !over_budget) {
    b->over_history = b->over_history << 1 | (uint32_t)over_budget;
    b->at_depth++;
  }
  if (__builtin_popcount(b->over_history & 0xffu) >= FG_CUT_OVER && b->depth > FG_MIN_WALK_DEPTH) {
    b->depth = b->depth / 2 < FG_MIN_WALK_DEPTH ? FG_MIN_WALK_DEPTH : b->depth / 2;
    b->over_history = 0;
    b->at_depth = 0;
    v.cut = 1;
  } else if (b->depth < max_depth && b->at_depth >= FG_RESTORE_AFTER && __builtin_popcount(b->over_history) <= 2) {
    b->depth = b->depth * 2 > max_depth ? max_depth : b->depth * 2;
    b->over_history = 0;
    b->at_depth = 0;
  }
  return v;
}

#endif
