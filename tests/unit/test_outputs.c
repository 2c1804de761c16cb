/* The text outputs as pure functions of a small profile. */
#include "unit.h"

#include <string.h>

#include "capture.h"
#include "fg/output.h"
#include "profile_fixture.h"

static void collapsed_merges_threads_and_sorts(void **state)
{
  (void)state;
  struct fg_profile p;
  build_fixture(&p);
  /* the same stack on two threads becomes one line */
  const char *hot[] = {"Worker.run", "Main.hot"};
  add_named(&p, 0, hot, 2, 3);
  struct fg_output_settings cfg = {.per_thread = false};
  char *text;
  CAPTURE(text, fg_write_collapsed(out, &p, &cfg));
  assert_string_equal(text,
                      "Main.main;Main.cold 30\n"
                      "Main.main;Main.work 10\n"
                      "Main.main;Main.work;Main.hot 60\n"
                      "Worker.run;Main.hot 8\n"
                      "[GC_active] 2\n");
  free(text);
  fg_profile_free(&p);
}

static void collapsed_per_thread_roots_and_sanitizes_names(void **state)
{
  (void)state;
  struct fg_profile p;
  build_fixture(&p);
  struct fg_output_settings cfg = {.per_thread = true};
  char *text;
  CAPTURE(text, fg_write_collapsed(out, &p, &cfg));
  assert_string_equal(text,
                      "[main tid=100];Main.main;Main.cold 30\n"
                      "[main tid=100];Main.main;Main.work 10\n"
                      "[main tid=100];Main.main;Main.work;Main.hot 60\n"
                      "[worker_1 tid=101];Worker.run;Main.hot 5\n"
                      "[worker_1 tid=101];[GC_active] 2\n");
  free(text);
  fg_profile_free(&p);
}

static void empty_profile_writes_nothing(void **state)
{
  (void)state;
  struct fg_profile p;
  fg_profile_init(&p);
  struct fg_output_settings cfg = {0};
  char *text;
  CAPTURE(text, fg_write_collapsed(out, &p, &cfg));
  assert_string_equal(text, "");
  free(text);
  fg_profile_free(&p);
}

static const char callgraph_golden[] =
  "# fgagent call graph, in the style of ftrace's function_graph tracer\n"
  "# DURATION = samples x 1.000 ms (interval asked: 1.000 ms)\n"
  "# 107 samples stored of 107 signals taken; the summary accounts for every loss\n"
  "#\n"
  "# fgagent summary\n"
  "#   TASK/PID    |   DURATION    | FUNCTION CALLS\n"
  "#    |    |     |    |   |      | |   |   |   |\n"
  "\n"
  " ------------------------------------------\n"
  "  => main-100  100 samples\n"
  " ------------------------------------------\n"
  "\n"
  "    main-100    |               | Main.main() {\n"
  "    main-100    |               |   Main.work() {\n"
  "    main-100    | * 60000.00 us |     Main.hot(); /* 60 samples, 60.0% */\n"
  "    main-100    | * 70000.00 us |   } /* Main.work 70 samples, 70.0%, self 10 */\n"
  "    main-100    | * 30000.00 us |   Main.cold(); /* 30 samples, 30.0% */\n"
  "    main-100    | * 100000.0 us | } /* Main.main 100 samples, 100.0%, self 0 */\n"
  "\n"
  " ------------------------------------------\n"
  "  => worker;1-101  7 samples\n"
  " ------------------------------------------\n"
  "\n"
  "  worker;1-101  |               | Worker.run() {\n"
  "  worker;1-101  | # 5000.000 us |   Main.hot(); /* 5 samples, 71.4% */\n"
  "  worker;1-101  | # 5000.000 us | } /* Worker.run 5 samples, 71.4%, self 0 */\n"
  "  worker;1-101  | # 2000.000 us | [GC_active]; /* 2 samples, 28.6% */\n";

static void callgraph_matches_function_graph_layout(void **state)
{
  (void)state;
  struct fg_profile p;
  build_fixture(&p);
  struct fg_output_settings cfg = {0};
  char *text;
  CAPTURE(text, fg_write_callgraph(out, &p, &cfg));
  /* the summary, behind "# ", sits between the first four lines and the column heads */
  const char *accounting = strstr(text, "#   accounting:        taken 107 = stored 107 + lost 0: OK\n#\n");
  assert_non_null(accounting);
  size_t head = (size_t)(strstr(callgraph_golden, "# fgagent summary\n") - callgraph_golden) +
                strlen("# fgagent summary\n");
  assert_int_equal(strncmp(text, callgraph_golden, head), 0);
  const char *rest = accounting + strlen("#   accounting:        taken 107 = stored 107 + lost 0: OK\n#\n");
  if (strcmp(rest, callgraph_golden + head) != 0)
    fail_msg("call graph differs after the summary:\n%s", rest);
  free(text);
  fg_profile_free(&p);
}

static void callgraph_duration_marks_and_widths(void **state)
{
  (void)state;
  /* one stack per magnitude, a sample = 1 us: marks at 10us, 100us, 1ms, 10ms, 100ms, 1s */
  static const struct { uint64_t samples; const char *cell; } cases[] = {
    {5, "  5.000 us    |"}, {11, "+ 11.000 us   |"}, {101, "! 101.000 us  |"},
    {1001, "# 1001.000 us |"}, {10001, "* 10001.00 us |"}, {100001, "@ 100001.0 us |"},
    {1000001, "$ 1000001 us  |"}, {123456789, "$ 123456789 us |"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    struct fg_profile p;
    fg_profile_init(&p);
    p.stats.interval_ns = 1000;
    fg_profile_add_thread(&p, 1, "t");
    uint32_t id = (uint32_t)fg_profile_intern(&p, "A.a", FG_KIND_JAVA);
    fg_profile_add(&p, 0, &id, 1, cases[i].samples);
    struct fg_output_settings cfg = {0};
    char *text;
    CAPTURE(text, fg_write_callgraph(out, &p, &cfg));
    if (!strstr(text, cases[i].cell))
      fail_msg("no '%s' in:\n%s", cases[i].cell, text);
    free(text);
    fg_profile_free(&p);
  }
}

static void callgraph_survives_very_deep_stacks(void **state)
{
  (void)state;
  struct fg_profile p;
  fg_profile_init(&p);
  p.stats.interval_ns = 1000000;
  fg_profile_add_thread(&p, 1, "deep");
  enum { DEPTH = 5000 };   /* far past any sane recursion; the text grows as depth squared */
  uint32_t *ids = malloc(DEPTH * sizeof *ids);
  char name[32];
  for (int i = 0; i < DEPTH; i++) {
    snprintf(name, sizeof name, "R.f%d", i % 7);
    ids[i] = (uint32_t)fg_profile_intern(&p, name, FG_KIND_JAVA);
  }
  fg_profile_add(&p, 0, ids, DEPTH, 1);
  struct fg_output_settings cfg = {0};
  char *text;
  CAPTURE(text, fg_write_callgraph(out, &p, &cfg));
  size_t opens = 0, len = strlen(text);
  for (const char *c = text; (c = memmem(c, len - (size_t)(c - text), "() {\n", 5)) != NULL; c++)
    opens++;
  assert_int_equal(opens, DEPTH - 1);
  free(text);
  free(ids);
  fg_profile_free(&p);
}

/* Fails naming the first of the n lines that text does not contain. */
static void expect_all(const char *text, const char *const *lines, size_t n)
{
  for (size_t i = 0; i < n; i++)
    if (!strstr(text, lines[i]))
      fail_msg("no '%s' in:\n%s", lines[i], text);
}

/* A one-thread profile of one stack: main, then `depth` frames named by name_of(i), then a leaf. */
static void build_deep(struct fg_profile *p, uint32_t depth, const char *(*name_of)(uint32_t, char *))
{
  fg_profile_init(p);
  p->stats.interval_ns = 1000000;
  fg_profile_add_thread(p, 1, "deep");
  uint32_t *ids = malloc((depth + 2) * sizeof *ids);
  char name[32];
  ids[0] = (uint32_t)fg_profile_intern(p, "Main.main", FG_KIND_JAVA);
  for (uint32_t i = 0; i < depth; i++)
    ids[i + 1] = (uint32_t)fg_profile_intern(p, name_of(i, name), FG_KIND_JAVA);
  ids[depth + 1] = (uint32_t)fg_profile_intern(p, "R.leaf", FG_KIND_JAVA);
  fg_profile_add(p, 0, ids, depth + 2, 3);
  free(ids);
}

static const char *same_name(uint32_t i, char *buf)
{
  (void)i;
  return strcpy(buf, "R.rec");
}

static const char *cycling_names(uint32_t i, char *buf)
{
  snprintf(buf, 32, "R.f%u", i % 7);
  return buf;
}

static size_t count_lines(const char *text)
{
  size_t n = 0;
  for (const char *c = text; (c = strchr(c, '\n')) != NULL; c++)
    n++;
  return n;
}

static void callgraph_folds_plain_recursion(void **state)
{
  (void)state;
  struct fg_profile p;
  build_deep(&p, 65536, same_name);
  struct fg_output_settings cfg = {0};
  char *text;
  CAPTURE(text, fg_write_callgraph(out, &p, &cfg));
  /* 65 536 frames of R.rec: one line opens them all, one closes them */
  assert_non_null(strstr(text, "|   R.rec() { /* 65535 recursive calls folded */\n"));
  assert_non_null(strstr(text, "} /* R.rec 3 samples, 100.0%, self 0 */\n"));
  /* the leaf sits one level under the fold, its real depth named */
  assert_non_null(strstr(text, "[depth 65537] R.leaf(); /* 3 samples, 100.0% */\n"));
  assert_true(strlen(text) < 8192);
  free(text);
  fg_profile_free(&p);
}

static void callgraph_folds_only_what_keeps_every_count(void **state)
{
  (void)state;
  /* R.rec x3 with samples of its own at the third level, then x2 more: the fold stops
   * where a level has self samples, so the counts printed are the counts taken */
  struct fg_profile p;
  fg_profile_init(&p);
  p.stats.interval_ns = 1000000;
  fg_profile_add_thread(&p, 1, "t");
  const char *three[] = {"R.rec", "R.rec", "R.rec"};
  const char *five[] = {"R.rec", "R.rec", "R.rec", "R.rec", "R.rec"};
  add_named(&p, 0, three, 3, 4);
  add_named(&p, 0, five, 5, 6);
  struct fg_output_settings cfg = {0};
  char *text;
  CAPTURE(text, fg_write_callgraph(out, &p, &cfg));
  const char *expected[] = {
    "| R.rec() { /* 2 recursive calls folded */\n",
    "|   [depth 3] R.rec(); /* 6 samples, 60.0%, 1 recursive call folded */\n",
    "| } /* R.rec 10 samples, 100.0%, self 4 */\n",
  };
  expect_all(text, expected, 3);
  assert_int_equal(count_lines(strstr(text, "=> t-1")), 6);
  free(text);
  fg_profile_free(&p);
}

static void callgraph_grows_linearly_with_depth(void **state)
{
  (void)state;
  /* no recursion to fold: every frame gets its lines, but indentation stops at 64 levels,
   * so the text is linear in frames (65 536 frames once wrote gigabytes) */
  struct fg_profile p;
  build_deep(&p, 65536, cycling_names);
  struct fg_output_settings cfg = {0};
  char *text;
  CAPTURE(text, fg_write_callgraph(out, &p, &cfg));
  size_t len = strlen(text);
  assert_true(len < (size_t)65538 * 2 * 240);
  assert_non_null(strstr(text, "[depth 65537] R.leaf(); /* 3 samples, 100.0% */\n"));
  assert_non_null(strstr(text, "[depth 100] } /* R.f1 3 samples, 100.0%, self 0 */\n"));
  /* depth 63 is still shown by its indentation alone, depth 64 and on by the mark */
  char at63[160], at64[160];
  snprintf(at63, sizeof at63, "| %*s R.f6() {\n", 63 * 2 - 1, "");
  snprintf(at64, sizeof at64, "| %*s [depth 64] R.f0() {\n", 64 * 2 - 1, "");
  assert_non_null(strstr(text, at63));
  assert_non_null(strstr(text, at64));
  free(text);
  fg_profile_free(&p);
}


/* The walker's line: its own share; what it cannot walk through, when the
 * VM lacks something, after it; AsyncGetCallTrace alone, and why. */
static void summary_says_which_walker(void **state)
{
  (void)state;
  struct fg_stats s = {0};
  s.taken = s.java = 200;
  s.vm_walked = 150;
  snprintf(s.walker, sizeof s.walker, "vm");
  char *text;
  CAPTURE(text, fg_write_summary(out, &s));
  assert_non_null(strstr(text, "walker:        vm; its own walk read 150 (75.00% of Java stacks), "
                               "AsyncGetCallTrace the rest\n"));
  free(text);
  snprintf(s.walker, sizeof s.walker, "vm; not through deoptimized frames: the JVM exports no nmethod::_orig_pc_offset");
  CAPTURE(text, fg_write_summary(out, &s));
  assert_non_null(strstr(text, "walker:        vm; its own walk read 150 (75.00% of Java stacks), AsyncGetCallTrace "
                               "the rest; not through deoptimized frames: the JVM exports no nmethod::_orig_pc_offset\n"));
  free(text);
  snprintf(s.walker, sizeof s.walker, "vm asked, unavailable: the JVM exports no JavaThread::_anchor");
  CAPTURE(text, fg_write_summary(out, &s));
  assert_non_null(strstr(text, "walker:        vm asked, unavailable: the JVM exports no JavaThread::_anchor; "
                               "AsyncGetCallTrace walks every stack\n"));
  assert_null(strstr(text, "its own walk"));
  assert_null(strstr(text, "code map:"));   /* nothing dropped: no line */
  free(text);
  s.threads_no_fd = 7;   /* threads past the descriptor budget */
  s.fd_budget = 128;
  CAPTURE(text, fg_write_summary(out, &s));
  assert_non_null(strstr(text, "    not sampled:     7 threads given no counter: fgagent's descriptors would have "
                               "passed their budget, 128 "));
  free(text);
  s.code_map_dropped = 3;   /* a JVM that compiled past the map's room */
  CAPTURE(text, fg_write_summary(out, &s));
  assert_non_null(strstr(text, "      code map:      3 compiled methods and stubs not recorded, the map full at 1048576 "
                               "entries"));
  free(text);
}

/* POSIX CPU timers: the rate is the signals', the intervals they stood for
 * beside their own and those of threads' ends are counted in taken, stored
 * with a sample or lost, and the clocks said. */
static void summary_accounts_for_timers(void **state)
{
  (void)state;
  struct fg_stats s = {0};
  s.interval_ns = 1000000;
  s.cpu_ns = 2000000000;   /* 2 s: 2000 intervals */
  s.folded = 1500;         /* 500 signals standing for 1950 intervals, and 50 intervals of thread ends */
  s.tail_to_last = 30;
  s.tail_lost = 20;
  s.taken = 2000;
  s.java = 1980;
  s.walks = 450;
  s.clock = 0;
  s.clock_timers = 12;
  s.clock_counters = 2;
  s.clock_to_counter = 3;
  s.clock_to_timer = 1;
  snprintf(s.event, sizeof s.event, "cpu");
  snprintf(s.event_detail, sizeof s.event_detail, "timers");
  char *text;
  CAPTURE(text, fg_write_summary(out, &s));
  static const char *const expected[] = {
    "rate achieved:     250.0 signals per CPU-second, one every 4.000 ms (2.000 s of CPU sampled)\n",
    "folded intervals:  1500: POSIX CPU timers fire at the kernel's tick",
    "(1000.0 intervals per CPU-second in all)\n",
    "thread ends:       30 of those: CPU a thread on a timer ran after its last signal, stored with its last sample\n",
    "clocks:            clock=auto; at the end 12 threads on a POSIX CPU timer, 2 on a perf_events counter; 3 moved "
    "to a counter (running 1 ms or more between context switches), 1 back to a timer\n",
    "signals taken:     2000 (the folded intervals counted in)\n",
    "never signalled: 20 (intervals of CPU of threads on a POSIX timer that ended before its first signal",
    "accounting:        taken 2000 = stored 1980 + lost 20: OK",
  };
  expect_all(text, expected, sizeof expected / sizeof expected[0]);
  assert_null(strstr(text, "by clock:"));   /* no walk of either clock timed */
  free(text);
  /* the walks of each clock apart: 300 on a timer at 2 us, 100 on a counter at 6 us */
  s.handler_ns = 300 * 2000 + 100 * 6000;
  s.counter_handler_ns = 100 * 6000;
  s.counter_walks = 100;
  s.unproven = 50;
  CAPTURE(text, fg_write_summary(out, &s));
  assert_non_null(strstr(text, "handler time:      3.00 us per stack walk on average"));
  assert_non_null(strstr(text, "    by clock:        2.00 us a walk on a POSIX timer's signal (300 walks), 6.00 us on "
                               "a perf_events counter's (100)\n"));
  free(text);
  s.counter_walks = 400;   /* every timed walk a counter's: one clock, no line */
  s.counter_handler_ns = s.handler_ns;
  CAPTURE(text, fg_write_summary(out, &s));
  assert_null(strstr(text, "by clock:"));
  free(text);
}

static void summary_accounts_for_every_signal(void **state)
{
  (void)state;
  struct fg_stats s = {0};
  s.taken = 1000;
  s.java = 900;
  s.failed[5] = 40;
  s.failed[2] = 10;
  s.no_jnienv = 30;
  s.overruns = 15;
  s.no_slot = 5;
  s.truncated = 3;
  s.interval_ns = 1000000;
  s.cpu_ns = 1000000000;
  s.walks = 950;
  s.unproven = 50;   /* left out of the time: the 900 others took 4.5 us each */
  s.handler_ns = 900 * 4500;
  snprintf(s.event, sizeof s.event, "cpu");
  snprintf(s.event_detail, sizeof s.event_detail, "perf_events cpu-clock");
  char *text;
  CAPTURE(text, fg_write_summary(out, &s));
  static const char *const expected[] = {
    "event:             cpu (perf_events cpu-clock)",
    "interval asked:    1.000 ms",
    "rate achieved:     1000.0 signals per CPU-second, one every 1.000 ms",
    "handler time:      4.50 us per stack walk on average (0.004 s in all, 0.43% of the CPU sampled, the period "
    "changes included)",
    "left out:        50 walks (5.26%) slow by the wall clock alone, counted at the average: their thread most "
    "likely switched out meanwhile\n",
    "back-off:          0 signals skipped after walks costing over 5% of the interval, their time credited to "
    "their thread's next sample\n",
    "signals taken:     1000",
    "samples stored:    980 (98.00%)",
    "Java stacks:     900",
    "failed walks:    50 (5.10%)",
    "[unknown_Java]           40 (4.08%)",
    "[GC_active]              10 (1.02%)",
    "no JNIEnv:       30",
    "samples lost:      20 (2.00%)",
    "overruns:        15",
    "no slot:         5",
    "truncated stacks:  3",
    "accounting:        taken 1000 = stored 980 + lost 20: OK",
  };
  expect_all(text, expected, sizeof expected / sizeof expected[0]);
  free(text);
  s.taken = 1001;
  CAPTURE(text, fg_write_summary(out, &s));
  assert_non_null(strstr(text, "taken 1001 = stored 980 + lost 20: MISMATCH"));
  free(text);
  /* skipped signals are stored as weight (with the thread's last sample when
   * it ended first), or lost when their thread stored none */
  s.skipped = 9;
  s.skipped_to_last = 4;
  s.skipped_lost = 2;
  s.depth_cuts = 1;
  s.budget_cut = 3;
  s.taken = 1002;
  CAPTURE(text, fg_write_summary(out, &s));
  static const char *const backoff[] = {
    "back-off:          9 signals skipped",
    "credited to their thread's next sample (4 to their thread's last one, no later one coming)",
    "back-off:        2 (skipped signals of a thread that stored no sample)",
    "time budget:       walk depth halved 1 times after walks over 1.0 ms; 3 samples cut short",
    "accounting:        taken 1002 = stored 980 + lost 22: OK",
  };
  expect_all(text, backoff, sizeof backoff / sizeof backoff[0]);
  assert_null(strstr(text, "repeat ring:"));   /* said only when something was lost there */
  assert_null(strstr(text, "kernel frames:"));
  free(text);
  /* event=wall's repeats the sampler's ring had no room for are lost ticks */
  s.repeats_lost = 7;
  s.taken = 1009;
  s.kernel_no_ring = 4;
  CAPTURE(text, fg_write_summary(out, &s));
  static const char *const more[] = {
    "repeat ring:     7 (event=wall: idle threads' ticks the sampler's ring had no room for)",
    "samples lost:      29 (2.87%)",
    "kernel frames:     none for 4 threads",
    "accounting:        taken 1009 = stored 980 + lost 29: OK",
  };
  expect_all(text, more, sizeof more / sizeof more[0]);
  free(text);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(collapsed_merges_threads_and_sorts),
    cmocka_unit_test(collapsed_per_thread_roots_and_sanitizes_names),
    cmocka_unit_test(empty_profile_writes_nothing),
    cmocka_unit_test(callgraph_matches_function_graph_layout),
    cmocka_unit_test(callgraph_duration_marks_and_widths),
    cmocka_unit_test(callgraph_survives_very_deep_stacks),
    cmocka_unit_test(callgraph_folds_plain_recursion),
    cmocka_unit_test(callgraph_folds_only_what_keeps_every_count),
    cmocka_unit_test(callgraph_grows_linearly_with_depth),
    cmocka_unit_test(summary_accounts_for_every_signal),
    cmocka_unit_test(summary_accounts_for_timers),
    cmocka_unit_test(summary_says_which_walker),
  };
  return cmocka_run_group_tests_name("outputs", tests, NULL, NULL);
}
