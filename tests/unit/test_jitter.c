/* The jittered period: a new one every FG_JITTER_RUN signals, within
 * [T/2, 3T/2], each run starting at a fresh offset from the fixed grid,
 * and the periods adding up to the fixed rate. */
#include "unit.h"

#include "sampling/perf/jitter.h"

#define RUNS 100000

/* Signals the thread takes: the period in force at each, from T at the start. */
static void periods_add_up_to_the_fixed_rate(void **state)
{
  (void)state;
  const uint64_t intervals[] = {250000, 1000000, 10000000, 997};
  for (size_t c = 0; c < sizeof intervals / sizeof intervals[0]; c++) {
    uint64_t T = intervals[c], period = T;
    struct fg_jitter j = {0};
    __int128 elapsed = 0;   /* CPU time at each signal */
    uint64_t changes = 0, bins[8] = {0};
    for (uint64_t n = 1; n <= (uint64_t)RUNS * FG_JITTER_RUN; n++) {
      elapsed += period;
      uint64_t next = fg_jitter_next(&j, T, 42);
      assert_true((next != 0) == (n % FG_JITTER_RUN == 0));   /* a change each run of signals */
      if (!next)
        continue;
      changes++;
      assert_true(next >= T / 2 && next <= T + T / 2);
      period = next;
      /* the run ending here is off the fixed grid by K*T*r, |r| <= 1/4 */
      double off = (double)(elapsed - (__int128)n * T) / (double)(FG_JITTER_RUN * T);
      assert_true(off >= -0.25 - 1e-6 && off <= 0.25 + 1e-6);
      int bin = (int)((off + 0.25) * 16);
      bins[bin > 7 ? 7 : bin]++;
    }
    assert_int_equal(changes, RUNS);
    /* uniform offsets: each eighth of [-1/4, 1/4] gets 1/8 of the runs (the
     * sequence is fixed by the seed; 5 standard deviations is about 2.5%) */
    for (int b = 0; b < 8; b++)
      assert_true(bins[b] > RUNS / 8 * 0.97 && bins[b] < RUNS / 8 * 1.03);
  }
}

/* Threads seeded apart draw apart; a seed always draws the same. */
static void seeds_give_their_own_sequences(void **state)
{
  (void)state;
  struct fg_jitter a = {0}, b = {0}, c = {0};
  int same_ab = 0, same_ac = 0;
  for (unsigned n = 0; n < 64 * FG_JITTER_RUN; n++) {
    uint64_t pa = fg_jitter_next(&a, 1000000, 1001), pb = fg_jitter_next(&b, 1000000, 1002),
             pc = fg_jitter_next(&c, 1000000, 1001);
    same_ab += pa && pa == pb;
    same_ac += pa && pa == pc;
  }
  assert_true(same_ab < 4);
  assert_int_equal(same_ac, 64);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(periods_add_up_to_the_fixed_rate),
    cmocka_unit_test(seeds_give_their_own_sequences),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
