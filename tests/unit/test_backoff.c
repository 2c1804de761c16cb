/* The back-off: whatever a walk costs, sampling takes a bounded share of its
 * thread's CPU, and every skipped interval is credited to a stored sample. */
#include <string.h>
#include "unit.h"

#include "sampling/signal/backoff.h"

#define MS 1000000ull
#define US 1000ull

/* A thread signalled every interval whose walks each take walk_ns, for
 * signals signals: the share of its CPU the walks take, and the weights. */
struct run {
  double share;
  uint64_t walks, weights, carry;
};

static struct run simulate(uint64_t walk_ns, uint64_t interval_ns, uint64_t signals)
{
  struct fg_backoff b;
  fg_backoff_reset(&b, 2048);
  struct run r = {0, 0, 0, 0};
  uint64_t walk_time = 0;
  for (uint64_t i = 0; i < signals; i++) {
    if (fg_backoff_skip(&b))
      continue;
    r.walks++;
    r.weights += fg_backoff_take_weight(&b);
    walk_time += walk_ns;
    fg_backoff_after_walk(&b, walk_ns, interval_ns, 2048, fg_backoff_precise(&b) ? FG_TIMED_CPU : FG_TIMED_WALL);
  }
  r.carry = b.carry;
  /* the program's own CPU: an interval between signals, the walks on top */
  r.share = (double)walk_time / (double)(walk_time + signals * interval_ns);
  return r;
}

static void cheap_walks_are_never_skipped(void **state)
{
  (void)state;
  struct run r = simulate(5 * US, 1 * MS, 10000);
  assert_int_equal(r.walks, 10000);
  assert_int_equal(r.weights, 10000);
}

static void any_walk_cost_keeps_the_share_bounded(void **state)
{
  (void)state;
  static const uint64_t costs[] = {60 * US, 200 * US, 1 * MS, 5 * MS, 66900 * US};
  for (size_t i = 0; i < sizeof costs / sizeof costs[0]; i++) {
    struct run r = simulate(costs[i], 1 * MS, 200000);
    /* FG_PRECISE proof walks come first, one more than the share allows */
    if (r.share > 0.055)
      fail_msg("walks of %llu ns take %.1f%% of the thread", (unsigned long long)costs[i], 100 * r.share);
    /* every signal is a stored sample's weight, or still carried */
    assert_int_equal(r.weights + r.carry, 200000);
  }
  /* without the back-off, 66.9 ms walks at 1 ms would take 98.5% */
}

static void the_first_slow_walk_is_proven_on_the_cpu_clock(void **state)
{
  (void)state;
  struct fg_backoff b;
  fg_backoff_reset(&b, 2048);
  /* a cheap walk whose thread was preempted: wall time 4 ms */
  struct fg_backoff_verdict v = fg_backoff_after_walk(&b, 4 * MS, 1 * MS, 2048, FG_TIMED_WALL);
  assert_int_equal(v.skipped_next, 0);
  assert_int_equal(b.depth, 2048);
  assert_true(fg_backoff_precise(&b));
  /* timed on its CPU clock it cost 5 us: nothing changes */
  v = fg_backoff_after_walk(&b, 5 * US, 1 * MS, 2048, FG_TIMED_CPU);
  assert_int_equal(v.skipped_next, 0);
  assert_int_equal(b.skip_left, 0);
  /* a real 66.9 ms walk: the first is judged with the 5 us before it and
   * skips nothing; from the second on, 19 x 66.9 ms of quiet, 1271 signals
   * skipped; the depth stays until most recent walks (6 of 8) are over the
   * budget */
  v = fg_backoff_after_walk(&b, 66900 * US, 1 * MS, 2048, FG_TIMED_CPU);
  assert_int_equal(v.skipped_next, 0);
  for (int i = 0; i < FG_CUT_OVER - 2; i++) {
    v = fg_backoff_after_walk(&b, 66900 * US, 1 * MS, 2048, FG_TIMED_CPU);
    assert_int_equal(v.skipped_next, 1271);
    assert_int_equal(v.cut, 0);
    assert_int_equal(b.depth, 2048);
  }
  v = fg_backoff_after_walk(&b, 66900 * US, 1 * MS, 2048, FG_TIMED_CPU);
  assert_int_equal(v.skipped_next, 1271);
  assert_int_equal(v.cut, 1);
  assert_int_equal(b.depth, 1024);
  for (int i = 0; i < 1271; i++)
    assert_true(fg_backoff_skip(&b));
  assert_false(fg_backoff_skip(&b));
  assert_int_equal(fg_backoff_take_weight(&b), 1272);
  assert_int_equal(fg_backoff_take_weight(&b), 1);
}

/* Only a walk timed on the wall clock alone, and slow (over its share of
 * the interval or over the budget), is unproven: its time is left out of the
 * handler's, and the next walks are timed on the CPU clock. */
static void only_slow_wall_clock_walks_are_unproven(void **state)
{
  (void)state;
  assert_true(fg_walk_time_unproven(4 * MS, 1 * MS, FG_TIMED_WALL));
  assert_true(fg_walk_time_unproven(60 * US, 1 * MS, FG_TIMED_WALL));    /* 19 x 60 us > 1 ms */
  assert_false(fg_walk_time_unproven(50 * US, 1 * MS, FG_TIMED_WALL));   /* 19 x 50 us < 1 ms */
  assert_true(fg_walk_time_unproven(2 * MS, 100 * MS, FG_TIMED_WALL));   /* over the budget */
  assert_false(fg_walk_time_unproven(900 * US, 100 * MS, FG_TIMED_WALL));
  assert_false(fg_walk_time_unproven(4 * MS, 1 * MS, FG_TIMED_CPU));
  assert_false(fg_walk_time_unproven(4 * MS, 1 * MS, FG_TIMED_ALONE));
  struct fg_backoff b;
  fg_backoff_reset(&b, 2048);
  fg_backoff_after_walk(&b, 50 * US, 1 * MS, 2048, FG_TIMED_WALL);
  assert_false(fg_backoff_precise(&b));
  fg_backoff_after_walk(&b, 60 * US, 1 * MS, 2048, FG_TIMED_WALL);
  assert_true(fg_backoff_precise(&b));
}

/* A walk its thread ran without being switched out (its counter page's
 * sequence did not move) is its own time: a slow one skips signals at once,
 * with no walk timed on the CPU clock, and a cheap one leaves all as it was. */
static void a_walk_not_switched_out_needs_no_proof(void **state)
{
  (void)state;
  struct fg_backoff b;
  fg_backoff_reset(&b, 2048);
  struct fg_backoff_verdict v = fg_backoff_after_walk(&b, 5 * US, 1 * MS, 2048, FG_TIMED_ALONE);
  assert_int_equal(v.skipped_next, 0);
  assert_false(fg_backoff_precise(&b));
  v = fg_backoff_after_walk(&b, 66900 * US, 1 * MS, 2048, FG_TIMED_ALONE);
  assert_int_equal(v.skipped_next, 0);   /* judged with the walk before */
  v = fg_backoff_after_walk(&b, 66900 * US, 1 * MS, 2048, FG_TIMED_ALONE);
  assert_int_equal(v.skipped_next, 1271);
  assert_false(fg_backoff_precise(&b));
  for (int i = 0; i < 1271; i++)
    assert_true(fg_backoff_skip(&b));
  assert_int_equal(fg_backoff_take_weight(&b), 1272);
  /* six of eight such walks over the budget halve the depth, as proven ones do */
  fg_backoff_reset(&b, 2048);
  for (int i = 0; i < FG_CUT_OVER - 1; i++)
    assert_int_equal(fg_backoff_after_walk(&b, 2 * MS, 100 * MS, 2048, FG_TIMED_ALONE).cut, 0);
  v = fg_backoff_after_walk(&b, 2 * MS, 100 * MS, 2048, FG_TIMED_ALONE);
  assert_int_equal(v.cut, 1);
  assert_int_equal(b.depth, 1024);
  assert_false(fg_backoff_precise(&b));
  /* the same on the wall clock of a thread that was switched out: proven first */
  fg_backoff_after_walk(&b, 66900 * US, 1 * MS, 2048, FG_TIMED_WALL);
  assert_int_equal(b.skip_left, 0);
  assert_true(fg_backoff_precise(&b));
}

/* A walk that reads slow once among cheap ones (the host took the virtual
 * CPU in the middle of it) skips nothing: a skip would put its hundreds of
 * intervals on the one stack sampled next. Two slow walks in a row skip as
 * the lesser of them asks. */
static void one_slow_walk_skips_nothing(void **state)
{
  (void)state;
  struct fg_backoff b;
  fg_backoff_reset(&b, 2048);
  for (int i = 0; i < 100; i++) {
    uint64_t ns = i % 10 == 9 ? 3 * MS : 3 * US;
    struct fg_backoff_verdict v = fg_backoff_after_walk(&b, ns, 250 * US, 2048, FG_TIMED_ALONE);
    assert_int_equal(v.skipped_next, 0);
    assert_false(fg_backoff_skip(&b));
    assert_int_equal(fg_backoff_take_weight(&b), 1);
  }
  fg_backoff_after_walk(&b, 3 * MS, 250 * US, 2048, FG_TIMED_ALONE);
  /* 19 x 1 ms of quiet: 76 intervals, 75 of them skipped */
  assert_int_equal(fg_backoff_after_walk(&b, 1 * MS, 250 * US, 2048, FG_TIMED_ALONE).skipped_next, 75);
}

static void one_slow_walk_alone_keeps_the_depth(void **state)
{
  (void)state;
  struct fg_backoff b;
  fg_backoff_reset(&b, 2048);
  for (int i = 0; i < 50; i++) {
    /* on a busy virtual machine: the host took the CPU during every other walk */
    fg_backoff_after_walk(&b, 3 * MS, 100 * MS, 2048, FG_TIMED_CPU);
    fg_backoff_after_walk(&b, 200 * US, 100 * MS, 2048, FG_TIMED_CPU);
  }
  assert_int_equal(b.depth, 2048);
  /* an outlier on the wall clock alone is not counted at all */
  for (int i = 0; i < 50; i++)
    fg_backoff_after_walk(&b, 3 * MS, 100 * MS, 2048, FG_TIMED_WALL);
  assert_int_equal(b.depth, 2048);
}

static void the_budget_halves_depth_and_fast_walks_restore_it(void **state)
{
  (void)state;
  struct fg_backoff b;
  fg_backoff_reset(&b, 2048);
  for (int i = 0; i < 100; i++)
    fg_backoff_after_walk(&b, 3 * MS, 100 * MS, 2048, FG_TIMED_CPU);
  assert_int_equal(b.depth, FG_MIN_WALK_DEPTH);   /* never below */
  /* long at that depth: it doubles once 30 of the last 32 walks are within budget */
  int fast = 0;
  while (b.depth == FG_MIN_WALK_DEPTH && fast < 1000) {
    fg_backoff_after_walk(&b, 10 * US, 100 * MS, 2048, FG_TIMED_WALL);
    fast++;
  }
  assert_int_equal(fast, 30);
  assert_int_equal(b.depth, 2 * FG_MIN_WALK_DEPTH);
  /* just doubled: FG_RESTORE_AFTER walks at this depth first */
  for (unsigned i = 0; i < FG_RESTORE_AFTER - 1; i++)
    fg_backoff_after_walk(&b, 10 * US, 100 * MS, 2048, FG_TIMED_WALL);
  assert_int_equal(b.depth, 2 * FG_MIN_WALK_DEPTH);
  fg_backoff_after_walk(&b, 10 * US, 100 * MS, 2048, FG_TIMED_WALL);
  assert_int_equal(b.depth, 4 * FG_MIN_WALK_DEPTH);
  for (int i = 0; i < 100; i++)
    for (unsigned j = 0; j < FG_RESTORE_AFTER; j++)
      fg_backoff_after_walk(&b, 10 * US, 100 * MS, 2048, FG_TIMED_WALL);
  assert_int_equal(b.depth, 2048);                 /* never above the option */
  /* a cost that stays over the budget halves the depth again within 8 walks */
  struct fg_backoff_verdict v = {0, 0};
  for (int i = 0; i < 8 && !v.cut; i++)
    v = fg_backoff_after_walk(&b, 3 * MS, 100 * MS, 2048, FG_TIMED_CPU);
  assert_int_equal(v.cut, 1);
  assert_int_equal(b.depth, 1024);
  /* occasional slow walks do not hold the depth down */
  for (unsigned i = 0; i < FG_RESTORE_AFTER; i++)
    fg_backoff_after_walk(&b, i % 40 == 39 ? 3 * MS : 700 * US, 100 * MS, 2048, FG_TIMED_CPU);
  assert_int_equal(b.depth, 2048);
}

static void the_skip_is_bounded(void **state)
{
  (void)state;
  struct fg_backoff b;
  fg_backoff_reset(&b, 2048);
  fg_backoff_after_walk(&b, 60ull * 1000 * MS, 100 * US, 2048, FG_TIMED_CPU);
  struct fg_backoff_verdict v = fg_backoff_after_walk(&b, 60ull * 1000 * MS, 100 * US, 2048, FG_TIMED_CPU);
  assert_int_equal(v.skipped_next, FG_MAX_SKIP);
}

/* A record kept from a session with another depth (or skips still owed)
 * starts the next session at that session's depth, with nothing to skip;
 * within one session its state stays. */
static void a_new_session_starts_at_its_own_depth(void **state)
{
  (void)state;
  struct fg_backoff b;
  memset(&b, 0, sizeof b);
  fg_backoff_for_session(&b, 1, 64);
  assert_int_equal(b.depth, 64);
  b.skip_left = 7;
  b.depth = 32;   /* halved by the budget */
  fg_backoff_for_session(&b, 1, 64);
  assert_int_equal(b.depth, 32);
  assert_int_equal(b.skip_left, 7);
  fg_backoff_for_session(&b, 2, 8192);
  assert_int_equal(b.depth, 8192);
  assert_int_equal(b.skip_left, 0);
  assert_false(fg_backoff_skip(&b));
  fg_backoff_for_session(&b, 3, 64);
  assert_int_equal(b.depth, 64);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(cheap_walks_are_never_skipped),
    cmocka_unit_test(any_walk_cost_keeps_the_share_bounded),
    cmocka_unit_test(the_first_slow_walk_is_proven_on_the_cpu_clock),
    cmocka_unit_test(only_slow_wall_clock_walks_are_unproven),
    cmocka_unit_test(a_walk_not_switched_out_needs_no_proof),
    cmocka_unit_test(one_slow_walk_skips_nothing),
    cmocka_unit_test(one_slow_walk_alone_keeps_the_depth),
    cmocka_unit_test(the_budget_halves_depth_and_fast_walks_restore_it),
    cmocka_unit_test(the_skip_is_bounded),
    cmocka_unit_test(a_new_session_starts_at_its_own_depth),
  };
  return cmocka_run_group_tests_name("backoff", tests, NULL, NULL);
}
