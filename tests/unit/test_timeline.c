/* The call graph's timeline mode: samples per CPU in time order, frames
 * opened and closed between consecutive samples, the context-switch banner. */
#include "unit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fg/output.h"
#include "fg/profile.h"

static uint32_t id(struct fg_profile *p, const char *name)
{
  return (uint32_t)fg_profile_intern(p, name, FG_KIND_JAVA);
}

static char *render(const struct fg_profile *p)
{
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  struct fg_output_settings cfg = {.timeline = true};
  assert_int_equal(fg_write_timeline(f, p, &cfg), 0);
  fclose(f);
  return text;
}

static void samples_in_time_order_per_cpu_with_switch_banners(void **state)
{
  (void)state;
  struct fg_profile p;
  fg_profile_init(&p);
  p.timeline.max = 100;
  p.stats.interval_ns = 1000000;
  uint32_t main_t = (uint32_t)fg_profile_add_thread(&p, 1, "main");
  uint32_t work_t = (uint32_t)fg_profile_add_thread(&p, 12, "worker");
  uint32_t run = id(&p, "Main.run"), hot = id(&p, "Main.hot"), cold = id(&p, "Main.cold"), loop = id(&p, "W.loop");
  uint32_t a[] = {run, hot}, b[] = {run, cold}, c[] = {loop};
  /* added out of order: the writer sorts by CPU, then time */
  assert_int_equal(fg_profile_add_timed(&p, main_t, b, 2, 1, 3000000, 1), 0);
  assert_int_equal(fg_profile_add_timed(&p, main_t, a, 2, 1, 1000000, 1), 0);
  assert_int_equal(fg_profile_add_timed(&p, main_t, a, 2, 1, 2000000, 1), 0);
  assert_int_equal(fg_profile_add_timed(&p, work_t, c, 1, 1, 4000000, 1), 0);
  assert_int_equal(fg_profile_add_timed(&p, work_t, c, 1, 1, 1500000, 0), 0);
  char *text = render(&p);
  const char *expect_cpu1 =
      " 1)     main-1     |               | Main.run() {\n"
      " 1)     main-1     | ! 1000.000 us |   Main.hot();\n"
      " 1)     main-1     | ! 1000.000 us |   Main.hot();\n"
      " 1)     main-1     | ! 1000.000 us |   Main.cold();\n"
      " ------------------------------------------\n"
      " 1) main-1 => worker-12\n"
      " ------------------------------------------\n"
      "\n"
      " 1)   worker-12    | ! 1000.000 us | W.loop();\n";
  if (!strstr(text, expect_cpu1))
    fail_msg("CPU 1's part is not as expected:\n%s", text);
  assert_non_null(strstr(text, " 0)   worker-12    | ! 1000.000 us | W.loop();\n"));
  assert_true(strstr(text, " 0)") < strstr(text, " 1)"));   /* CPU 0 first */
  assert_non_null(strstr(text, "# fgagent timeline: 5 samples"));
  /* the aggregated profile counts them too */
  assert_int_equal(fg_profile_total(&p), 5);
  free(text);
  fg_profile_free(&p);
}

static void frames_close_when_a_later_sample_leaves_them(void **state)
{
  (void)state;
  struct fg_profile p;
  fg_profile_init(&p);
  p.timeline.max = 2;
  uint32_t t = (uint32_t)fg_profile_add_thread(&p, 7, "t");
  uint32_t x = id(&p, "X.x"), y = id(&p, "Y.y"), z = id(&p, "Z.z"), w = id(&p, "W.w");
  uint32_t deep[] = {x, y, z}, other[] = {w};
  fg_profile_add_timed(&p, t, deep, 3, 1, 10, 0);
  fg_profile_add_timed(&p, t, other, 1, 1, 20, 0);
  fg_profile_add_timed(&p, t, other, 1, 1, 30, 0);   /* beyond max: counted, not kept */
  char *text = render(&p);
  assert_non_null(strstr(text, "|     Z.z();\n"));
  assert_non_null(strstr(text, "|   } /* Y.y */\n"));
  assert_non_null(strstr(text, "| } /* X.x */\n"));
  assert_true(strstr(text, "} /* Y.y */") < strstr(text, "} /* X.x */"));
  assert_non_null(strstr(text, "(1 more not kept)"));
  assert_int_equal(fg_profile_total(&p), 3);
  free(text);
  fg_profile_free(&p);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(samples_in_time_order_per_cpu_with_switch_banners),
    cmocka_unit_test(frames_close_when_a_later_sample_leaves_them),
  };
  return cmocka_run_group_tests_name("timeline", tests, NULL, NULL);
}
