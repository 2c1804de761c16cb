/* Reading collapsed stacks: ours round-trip, other tools' are understood,
 * and every bad line is named by file and line. */
#include "unit.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "capture.h"
#include "fg/collapsed_reader.h"
#include "fg/output.h"
#include "profile_fixture.h"

static void our_output_round_trips(void **state)
{
  (void)state;
  struct fg_profile p;
  build_fixture(&p);
  for (int per_thread = 0; per_thread <= 1; per_thread++) {
    struct fg_output_settings cfg = {.per_thread = per_thread};
    char *first, *second;
    CAPTURE(first, fg_write_collapsed(out, &p, &cfg));
    struct fg_profile q;
    fg_profile_init(&q);
    char err[256];
    assert_int_equal(fg_parse_collapsed(first, strlen(first), "mem", &q, err, sizeof err), 0);
    CAPTURE(second, fg_write_collapsed(out, &q, &cfg));
    assert_string_equal(first, second);
    assert_int_equal(fg_profile_total(&q), 107);
    assert_int_equal(q.stats.taken, 107);
    assert_int_equal(q.stats.failed[2], 2);   /* [GC_active] */
    if (per_thread) {
      assert_int_equal(q.nthreads, 2);
      assert_string_equal(q.threads[1].name, "worker_1");
      assert_int_equal(q.threads[1].tid, 101);
    }
    free(first);
    free(second);
    fg_profile_free(&q);
  }
  fg_profile_free(&p);
}

static void other_tools_annotations_set_kinds(void **state)
{
  (void)state;
  const char *text =
    "# a comment\n"
    "[main tid=7];java/lang/Thread.run_[j];Main.work_[i];Main.leaf_[0] 5\r\n"
    "\n"
    "start_thread;JavaThread::run;os::javaTimeNanos;do_syscall_64_[k] 2\n"
    "[C2 CompilerThre] 3\n"
    "[truncated];A.b 1\n";
  struct fg_profile p;
  fg_profile_init(&p);
  char err[256];
  assert_int_equal(fg_parse_collapsed(text, strlen(text), "ap.collapsed", &p, err, sizeof err), 0);
  assert_int_equal(fg_profile_total(&p), 11);
  static const struct { const char *name; enum fg_frame_kind kind; } want[] = {
    {"java/lang/Thread.run", FG_KIND_COMPILED}, {"Main.work", FG_KIND_INLINED},
    {"Main.leaf", FG_KIND_INTERPRETED}, {"start_thread", FG_KIND_NATIVE},
    {"JavaThread::run", FG_KIND_NATIVE}, {"do_syscall_64", FG_KIND_KERNEL},
    {"[C2 CompilerThre]", FG_KIND_THREAD}, {"[truncated]", FG_KIND_MARKER}, {"A.b", FG_KIND_JAVA},
  };
  for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
    int found = 0;
    for (uint32_t id = 0; id < p.nnames; id++)
      if (strcmp(p.names[id], want[i].name) == 0 && p.kinds[id] == want[i].kind)
        found = 1;
    if (!found)
      fail_msg("no %s of kind %s", want[i].name, fg_kind_name(want[i].kind));
  }
  assert_int_equal(p.stats.no_jnienv, 3);
  assert_int_equal(p.stats.truncated, 1);
  assert_int_equal(p.stats.java, 8);
  fg_profile_free(&p);
}

static void bad_lines_are_named_by_file_and_line(void **state)
{
  (void)state;
  static const struct { const char *text; const char *message; } cases[] = {
    {"a;b 1\nno_count_here\n", "in.txt:2: no sample count: the line has no space"},
    {"a;b 1\na;b 12x\n", "in.txt:2: the sample count is not a whole number"},
    {"a;b -3\n", "in.txt:1: the sample count is not a whole number"},
    {"a;b \n", "in.txt:1: no sample count after the last space"},
    {" 5\n", "in.txt:1: the stack is empty"},
    {"a;;b 5\n", "in.txt:1: a frame name is empty"},
    {";a 5\n", "in.txt:1: a frame name is empty"},
    {"a 99999999999999999999999\n", "in.txt:1: the sample count is too large"},
    {"a;b 1\n[main tid=1] 3\n", "in.txt:2: a thread root with no frame under it"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    struct fg_profile p;
    fg_profile_init(&p);
    char err[256];
    assert_int_equal(fg_parse_collapsed(cases[i].text, strlen(cases[i].text), "in.txt", &p, err,
                                        sizeof err), -1);
    if (!strstr(err, cases[i].message) || !strstr(err, "accepted:"))
      fail_msg("case %zu: %s", i, err);
    fg_profile_free(&p);
  }
}

static void files_empty_missing_or_without_stacks(void **state)
{
  (void)state;
  char path[] = "/tmp/fgagent-reader-XXXXXX";
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  close(fd);
  struct fg_profile p;
  fg_profile_init(&p);
  char err[512];
  assert_int_equal(fg_read_profile_input(path, false, &p, err, sizeof err), -1);
  assert_non_null(strstr(err, "the file is empty"));
  FILE *f = fopen(path, "w");
  fputs("# only a comment\n\n", f);
  fclose(f);
  assert_int_equal(fg_read_profile_input(path, false, &p, err, sizeof err), -1);
  assert_non_null(strstr(err, "no stack in the file"));
  unlink(path);
  assert_int_equal(fg_read_profile_input(path, false, &p, err, sizeof err), -1);
  assert_non_null(strstr(err, "cannot open"));
  fg_profile_free(&p);
}

static void totals_past_2_to_the_53_are_refused(void **state)
{
  (void)state;
  struct fg_profile p;
  fg_profile_init(&p);
  char err[512];
  /* 2^53 exactly is accepted; one more sample is not */
  const char *fits = "a;b 4503599627370496\nc 4503599627370496\n";
  assert_int_equal(fg_parse_collapsed(fits, strlen(fits), "fits", &p, err, sizeof err), 0);
  const char *more = "d 1\n";
  assert_int_equal(fg_parse_collapsed(more, strlen(more), "more", &p, err, sizeof err), -1);
  assert_non_null(strstr(err, "more:1: the sample counts add up past 2^53 (9007199254740992)"));
  fg_profile_free(&p);
  /* two counts near 2^64 once added up "OK" */
  fg_profile_init(&p);
  const char *wraps = "a 18000000000000000000\nb 18000000000000000000\n";
  assert_int_equal(fg_parse_collapsed(wraps, strlen(wraps), "wraps", &p, err, sizeof err), -1);
  assert_non_null(strstr(err, "wraps:1: the sample counts add up past 2^53"));
  fg_profile_free(&p);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(our_output_round_trips),
    cmocka_unit_test(totals_past_2_to_the_53_are_refused),
    cmocka_unit_test(other_tools_annotations_set_kinds),
    cmocka_unit_test(bad_lines_are_named_by_file_and_line),
    cmocka_unit_test(files_empty_missing_or_without_stacks),
  };
  return cmocka_run_group_tests_name("collapsed_reader", tests, NULL, NULL);
}
