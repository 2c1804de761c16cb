/* The handler's parts timed (built with FG_HANDLER_PARTS, as for
 * make bench-parts): each signal dealt to one arm at random, a part it
 * does not pass through adding nothing, a signal of a millisecond left out,
 * and the report's per-arm figures
 * the parts' cycles a signal, adding up to its total. */
#include "unit.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sampling/signal/handler_parts.h"

#define SIGNALS 4000

static void busy(unsigned n)
{
  for (volatile unsigned i = 0; i < n; i++) {
  }
}

static void arms_and_parts_add_up(void **state)
{
  (void)state;
  unsigned in_arm[2] = {0, 0}, runs = 0;
  int last = -1;
  for (int i = 0; i < SIGNALS; i++) {
    struct fg_parts_clock c;
    fg_parts_begin(&c);
    int arm = fg_parts_arm();
    in_arm[arm]++;
    runs += arm != last;
    last = arm;
    busy(200);
    fg_parts_mark(&c, FG_PART_PERIOD);
    busy(2000);
    fg_parts_mark(&c, FG_PART_WALK);   /* never FG_PART_WALK_NATIVE */
    fg_parts_add(&c);
  }
  /* a signal that took a millisecond (switched out, say) is left out of the sums */
  struct fg_parts_clock slow;
  fg_parts_begin(&slow);
  int slow_arm = fg_parts_arm();
  usleep(1000);
  fg_parts_mark(&slow, FG_PART_WALK);
  fg_parts_add(&slow);
  /* dealt at random: about half each (5 standard deviations), and not in
   * long runs of one arm (a run every other signal on average) */
  assert_in_range(in_arm[0], SIGNALS / 2 - 160, SIGNALS / 2 + 160);
  assert_in_range(runs, SIGNALS / 2 - 160, SIGNALS / 2 + 160);

  char *text = NULL;
  size_t len = 0;
  FILE *out = open_memstream(&text, &len);
  usleep(2000);   /* the report's rate needs a millisecond since the first signal */
  fg_parts_report(out);
  fclose(out);
  char *line = strstr(text, "random, ");
  assert_non_null(line);
  unsigned n0, n1;
  assert_int_equal(sscanf(line, "random, %u and %u:", &n0, &n1), 2);
  unsigned out0, out1;
  char *out_line = strstr(text, "left out:");
  assert_non_null(out_line);
  assert_int_equal(sscanf(out_line, "left out: %u and %u", &out0, &out1), 2);
  /* every signal counted or left out, in its own arm; the slow one left out
   * (and, on a busy machine, the few switched out in the loop) */
  assert_int_equal(n0 + out0, in_arm[0] + (slow_arm == 0));
  assert_int_equal(n1 + out1, in_arm[1] + (slow_arm == 1));
  assert_true((slow_arm ? out1 : out0) >= 1);
  assert_true(out0 + out1 <= 1 + SIGNALS / 100);
  double walk[2], native[2], period[2], total[2], sum[2] = {0, 0};
  const char *names[] = {"period change", "before the walk", "kernel frames", "walk, Java", "walk, no Java",
                         "trace table", "ring", "after"};
  for (size_t p = 0; p < sizeof names / sizeof names[0]; p++) {
    char *at = strstr(text, names[p]);
    assert_non_null(at);
    double a, b;
    assert_int_equal(sscanf(at + strlen(names[p]), "%lf %lf", &a, &b), 2);
    sum[0] += a;
    sum[1] += b;
    if (p == 0)
      period[0] = a, period[1] = b;
    if (p == 3)
      walk[0] = a, walk[1] = b;
    if (p == 4)
      native[0] = a, native[1] = b;
  }
  char *at = strstr(text, "    total");
  assert_non_null(at);
  assert_int_equal(sscanf(at + strlen("    total"), "%lf %lf", &total[0], &total[1]), 2);
  for (int a = 0; a < 2; a++) {
    assert_true(native[a] == 0);          /* not passed through: nothing added */
    assert_true(walk[a] > 2 * period[a]);   /* ten times the busy loop of the other */
    assert_true(total[a] > sum[a] - 8 && total[a] < sum[a] + 8);   /* rounded to whole cycles */
  }
  free(text);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(arms_and_parts_add_up),
  };
  return cmocka_run_group_tests_name("handler_parts", tests, NULL, NULL);
}
