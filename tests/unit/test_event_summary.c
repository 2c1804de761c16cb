/* The summary's alloc and lock sections name every cause of a loss that
 * happened, and only those: no memlimit named without one; the estimate
 * with the lost samples' weight; merged events said; the accounting line
 * holds every cause. */
#include "unit.h"

#include <stdlib.h>
#include <string.h>

#include "fg/output.h"
#include "fg/stats.h"

static char *summary_of(const struct fg_stats *s)
{
  char *text = fg_summary_text(s);
  assert_non_null(text);
  return text;
}

static struct fg_stats alloc_only(void)
{
  struct fg_stats s;
  memset(&s, 0, sizeof s);
  s.cpu_off = 1;
  s.alloc.on = 1;
  s.alloc.interval = 0;
  return s;
}

static void a_full_log_is_named_not_memlimit(void **state)
{
  (void)state;
  struct fg_stats s = alloc_only();
  s.alloc.taken = 1000;
  s.alloc.stored = 990;
  s.alloc.merged = 300;
  s.alloc.log_full = 10;
  s.alloc.weight = 95000000;
  s.alloc.lost_weight = 1000000;
  char *text = summary_of(&s);
  assert_non_null(strstr(text, "lost:              10 (1.00%): 10 with the event log's share for a drainer pass spent"));
  assert_non_null(strstr(text, "(the drainer fell behind)"));
  assert_non_null(strstr(text, "merged:            300 of them"));
  assert_non_null(strstr(text, "95.0 MB allocated"));
  assert_non_null(strstr(text, "96.0 MB with the lost samples' weight"));
  assert_null(strstr(text, "memlimit"));
  assert_null(strstr(text, "memory limit"));
  assert_null(strstr(text, "whose thread's record"));
  assert_non_null(strstr(text, "taken 1000 = stored 990 + lost 10: OK"));
  free(text);
}

static void each_cause_is_counted_and_named(void **state)
{
  (void)state;
  struct fg_stats s = alloc_only();
  s.lock.on = 1;
  s.memlimit = 50000000;
  s.lock.taken = 10;
  s.lock.stored = 6;
  s.lock.no_thread = 1;
  s.lock.no_memory = 1;
  s.lock.no_class = 1;
  s.lock.log_full = 1;
  s.lock.lost_weight = 4000000;
  char *text = summary_of(&s);
  const char *lock = strstr(text, "lock: waits");
  assert_non_null(lock);
  assert_non_null(strstr(lock, "lost waits:        4.000 ms"));
  assert_non_null(strstr(lock, "lost:              4 (40.00%): 1 with the event log's share"));
  assert_non_null(strstr(lock, ", 1 whose thread's record was taken"));
  assert_non_null(strstr(lock, ", 1 whose new stack was over memlimit (50.0 MB) or refused by the heap"));
  assert_non_null(strstr(lock, ", 1 whose class JVMTI did not name"));
  assert_non_null(strstr(lock, "taken 10 = stored 6 + lost 4: OK"));
  s.lock.stored = 7;   /* a count out of step shows */
  free(text);
  text = summary_of(&s);
  assert_non_null(strstr(text, "taken 10 = stored 7 + lost 4: MISMATCH"));
  free(text);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(a_full_log_is_named_not_memlimit),
      cmocka_unit_test(each_cause_is_counted_and_named),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
