/* fgprof's --from and --to: the forms of a time, and a profile's samples in a range. */
#include "unit.h"

#include <stdlib.h>
#include <string.h>

#include "fg/profile.h"
#include "fg/time_range.h"

#define S 1000000000ull

static void times_parse_in_every_form(void **state)
{
  (void)state;
  struct fg_time_spec t;
  assert_int_equal(fg_parse_time_spec("2.5s", &t), 0);
  assert_int_equal(t.kind, FG_TIME_FROM_START);
  assert_int_equal(t.ns, 2500000000ull);
  assert_int_equal(fg_parse_time_spec("1m30s", &t), 0);
  assert_int_equal(t.ns, 90 * S);
  assert_int_equal(fg_parse_time_spec("1h2m3.25s", &t), 0);
  assert_int_equal(t.ns, 3723 * S + 250000000ull);
  assert_int_equal(fg_parse_time_spec("500ms", &t), 0);
  assert_int_equal(t.ns, 500000000ull);
  assert_int_equal(fg_parse_time_spec("-10s", &t), 0);
  assert_int_equal(t.kind, FG_TIME_FROM_END);
  assert_int_equal(t.ns, 10 * S);
  assert_int_equal(fg_parse_time_spec("14:03", &t), 0);
  assert_int_equal(t.kind, FG_TIME_OF_DAY);
  assert_int_equal(t.ns, (14 * 3600 + 3 * 60) * S);
  assert_int_equal(fg_parse_time_spec("14:03:10.5", &t), 0);
  assert_int_equal(t.ns, (14 * 3600 + 3 * 60 + 10) * S + S / 2);
  assert_int_equal(fg_parse_time_spec("2026-12-06T14:03:10Z", &t), 0);
  assert_int_equal(t.kind, FG_TIME_EPOCH);
  assert_int_equal(t.ns, 1796565790ull * S);
  assert_int_equal(fg_parse_time_spec("2026-12-06T15:03:10.125+01:00", &t), 0);
  assert_int_equal(t.ns, 1796565790ull * S + 125000000ull);
  const char *bad[] = {"", "soon", "10", "1x", "25:00", "14:3", "2026-13-01T00:00:00Z", "2026-12-06T14:03:10Q",
                       "99999999999999999999s", "1.5", "-", "12:60", "2600-01-01T00:00:00Z"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
    assert_int_equal(fg_parse_time_spec(bad[i], &t), -1);
}

static void specs_resolve_against_the_recording(void **state)
{
  (void)state;
  setenv("TZ", "UTC", 1);
  uint64_t start = 1796565790ull * S, end = start + 600 * S;   /* 2026-12-06 14:03:10 UTC, 10 minutes */
  struct fg_time_spec t;
  fg_parse_time_spec("90s", &t);
  assert_int_equal(fg_time_spec_epoch(&t, start, end), start + 90 * S);
  fg_parse_time_spec("-10s", &t);
  assert_int_equal(fg_time_spec_epoch(&t, start, end), end - 10 * S);
  fg_parse_time_spec("14:05", &t);
  assert_int_equal(fg_time_spec_epoch(&t, start, end), start + 110 * S);
  /* a recording through midnight: 00:01 is the next day's */
  uint64_t late = (1796565790ull - 14 * 3600 - 3 * 60 - 10 + 86400 - 120) * S;   /* 23:58:00 */
  fg_parse_time_spec("00:01", &t);
  assert_int_equal(fg_time_spec_epoch(&t, late, late + 600 * S), late + 180 * S);
}

/* Samples at known times: a range keeps exactly those in [from, to). */
static void a_range_keeps_its_samples(void **state)
{
  (void)state;
  struct fg_profile p, r;
  fg_profile_init(&p);
  p.timeline.max = 100;
  p.stats.start_ns = 1000;
  p.stats.start_epoch_ns = 50 * S;
  p.stats.wall_ns = 10 * S;
  uint32_t t = (uint32_t)fg_profile_add_thread(&p, 1, "main");
  uint32_t a = (uint32_t)fg_profile_intern(&p, "A", FG_KIND_JAVA), b = (uint32_t)fg_profile_intern(&p, "B", FG_KIND_JAVA);
  int64_t sa = fg_profile_stack(&p, t, &a, 1), sb = fg_profile_stack(&p, t, &b, 1);
  for (int i = 0; i < 10; i++)   /* A at 0..9 s, B at 0.5..9.5 s */
    fg_profile_count(&p, (uint32_t)sa, 1, 1000 + i * S, 0);
  for (int i = 0; i < 10; i++)
    fg_profile_count(&p, (uint32_t)sb, 2, 1000 + i * S + S / 2, 0);
  fg_profile_count(&p, (uint32_t)sa, 5, 0, 0);   /* no time */
  uint64_t untimed = 0;
  assert_int_equal(fg_profile_time_range(&p, 52 * S, 55 * S, &r, &untimed), 0);
  assert_int_equal(untimed, 5);
  uint64_t na = 0, nb = 0;
  for (uint32_t i = 0; i < r.nstacks; i++)
    *(fg_stack_frames(&r, &r.stacks[i])[0] == a ? &na : &nb) += r.stacks[i].count;
  assert_int_equal(na, 3);   /* 2, 3, 4 s */
  assert_int_equal(nb, 6);   /* 2.5, 3.5, 4.5 s, 2 each */
  assert_int_equal(r.stats.start_epoch_ns, 52 * S);
  assert_int_equal(r.stats.wall_ns, 3 * S);
  fg_profile_free(&r);
  fg_profile_free(&p);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(times_parse_in_every_form),
    cmocka_unit_test(specs_resolve_against_the_recording),
    cmocka_unit_test(a_range_keeps_its_samples),
  };
  return cmocka_run_group_tests_name("time_range", tests, NULL, NULL);
}
