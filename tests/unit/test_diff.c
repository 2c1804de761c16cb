/* fgprof diff's engine on runs built from collapsed text. */
#include "unit.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "capture.h"
#include "fg/collapsed_reader.h"
#include "fg/diff.h"
#include "fg/profile.h"

static const struct fg_diff_options defaults = {10.0, 0.5, 0.01};

/* runs[i] from "hot cold other" sample counts */
static void make_runs(struct fg_profile *runs, const int (*counts)[3], size_t n, const char *hot_name)
{
  for (size_t i = 0; i < n; i++) {
    char text[512], err[256];
    snprintf(text, sizeof text, "Main.main;%s %d\nMain.main;Main.cold %d\nMain.main;Main.other %d\n",
             hot_name, counts[i][0], counts[i][1], counts[i][2]);
    fg_profile_init(&runs[i]);
    assert_int_equal(fg_parse_collapsed(text, strlen(text), "run", &runs[i], err, sizeof err), 0);
  }
}

static void free_runs(struct fg_profile *runs, size_t n)
{
  for (size_t i = 0; i < n; i++)
    fg_profile_free(&runs[i]);
}

static const struct fg_diff_row *row(const struct fg_diff *d, const char *name)
{
  for (size_t i = 0; i < d->nrows; i++)
    if (strcmp(d->rows[i].name, name) == 0)
      return &d->rows[i];
  fail_msg("no row %s", name);
  return NULL;
}

static void same_runs_show_no_change(void **state)
{
  (void)state;
  const int a[4][3] = {{300, 300, 400}, {310, 295, 395}, {295, 305, 400}, {305, 290, 405}};
  const int b[4][3] = {{302, 298, 400}, {298, 303, 399}, {306, 296, 398}, {301, 301, 398}};
  struct fg_profile base[4], next[4];
  make_runs(base, a, 4, "Main.hot");
  make_runs(next, b, 4, "Main.hot");
  struct fg_diff d;
  assert_int_equal(fg_diff_compute(base, 4, next, 4, &defaults, &d), 0);
  assert_true(d.welch);
  assert_int_equal(d.slower, 0);
  assert_int_equal(d.faster, 0);
  assert_true(fabs(row(&d, "Main.hot")->base_self - 0.3025) < 1e-9);
  assert_true(fabs(row(&d, "Main.main")->base_total - 1.0) < 1e-9);
  char *json;
  CAPTURE(json, fg_diff_write_json(out, &d));
  assert_non_null(strstr(json, "{\"verdict\":\"no_change\",\"slower\":0,\"faster\":0,\"test\":\"welch_t\""));
  free(json);
  fg_diff_free(&d);
  free_runs(base, 4);
  free_runs(next, 4);
}

static void a_slower_method_is_named(void **state)
{
  (void)state;
  /* hot does 20% more work: 300 -> 360 samples, the rest unchanged */
  const int a[3][3] = {{300, 300, 400}, {310, 295, 395}, {295, 305, 400}};
  const int b[3][3] = {{360, 300, 400}, {372, 295, 395}, {354, 305, 400}};
  struct fg_profile base[3], next[3];
  make_runs(base, a, 3, "Main.hot");
  make_runs(next, b, 3, "Main.hot");
  struct fg_diff d;
  assert_int_equal(fg_diff_compute(base, 3, next, 3, &defaults, &d), 0);
  assert_int_equal(d.slower, 1);
  assert_int_equal(d.faster, 0);    /* the others' shares shrink by under 10% */
  assert_string_equal(d.rows[0].name, "Main.hot");
  assert_int_equal(d.rows[0].change, FG_CHANGE_SLOWER);
  assert_true(d.rows[0].change_pct > 13 && d.rows[0].change_pct < 14);
  assert_true(d.rows[0].p < defaults.alpha);   /* t ~ 6.2 on ~4 df: p ~ 0.0035 */
  char *text;
  CAPTURE(text, fg_diff_write_text(out, &d, 10));
  assert_non_null(strstr(text, "verdict: REGRESSION (1 frame slower, 0 faster; 1 call path slower, 0 faster)"));
  assert_non_null(strstr(text, "slower    +13."));
  free(text);
  fg_diff_free(&d);
  /* and the other way round it is an improvement, not a regression */
  assert_int_equal(fg_diff_compute(next, 3, base, 3, &defaults, &d), 0);
  assert_int_equal(d.slower, 0);
  assert_int_equal(d.faster, 1);
  assert_int_equal(d.rows[0].change, FG_CHANGE_FASTER);
  fg_diff_free(&d);
  free_runs(base, 3);
  free_runs(next, 3);
}

static void new_gone_and_renamed_frames(void **state)
{
  (void)state;
  const int a[2][3] = {{300, 300, 400}, {305, 296, 399}};
  struct fg_profile base[2], next[2], other[2];
  make_runs(base, a, 2, "Main.hot");
  make_runs(next, a, 2, "Main.hotter");        /* same class, new method, same share */
  make_runs(other, a, 2, "Other.blob");        /* neither: a new frame and a gone one */
  struct fg_diff d;
  assert_int_equal(fg_diff_compute(base, 2, next, 2, &defaults, &d), 0);
  assert_int_equal(row(&d, "Main.hotter")->change, FG_CHANGE_RENAMED);
  assert_string_equal(row(&d, "Main.hotter")->counterpart, "Main.hot");
  assert_int_equal(d.slower, 0);
  assert_int_equal(d.faster, 0);
  assert_int_equal(d.npaths, 0);   /* the renamed frame's paths are the frame table's news */
  fg_diff_free(&d);
  assert_int_equal(fg_diff_compute(base, 2, other, 2, &defaults, &d), 0);
  assert_int_equal(row(&d, "Other.blob")->change, FG_CHANGE_NEW);
  assert_int_equal(row(&d, "Main.hot")->change, FG_CHANGE_GONE);
  assert_int_equal(d.slower, 1);
  assert_int_equal(d.faster, 1);
  fg_diff_free(&d);
  free_runs(base, 2);
  free_runs(next, 2);
  free_runs(other, 2);
}

static void parse_run(struct fg_profile *p, const char *text)
{
  char err[256];
  fg_profile_init(p);
  assert_int_equal(fg_parse_collapsed(text, strlen(text), "run", p, err, sizeof err), 0);
}

/* Nine callers spend their time in one shared helper; in new, A.price makes
 * it do 1.6 times the work. The helper's self share stays 100%, the callers
 * have no self time: only the call path shows it. */
static void a_caller_slower_through_a_shared_helper_is_a_call_path(void **state)
{
  (void)state;
  const char *callers[] = {"A.price", "B.tax", "C.ship", "D.audit", "E.log", "F.pack", "G.bill", "H.sort", "I.load"};
  struct fg_profile base[3], next[3];
  for (int side = 0; side < 2; side++)
    for (int r = 0; r < 3; r++) {
      char text[2048];
      size_t len = 0;
      for (int c = 0; c < 9; c++) {
        int n = (c == 0 && side == 1 ? 160 : 100) + (r * 7 + c * 3) % 9 - 4;   /* a little run-to-run spread */
        len += (size_t)snprintf(text + len, sizeof text - len, "Main.run;%s;Util.hash %d\n", callers[c], n);
      }
      parse_run(side ? &next[r] : &base[r], text);
    }
  struct fg_diff d;
  assert_int_equal(fg_diff_compute(base, 3, next, 3, &defaults, &d), 0);
  assert_int_equal(d.slower, 0);        /* no frame's own share moved enough */
  assert_int_equal(d.paths_slower, 1);
  assert_int_equal(d.paths_faster, 0);  /* the others' shares shrink by 6% */
  const struct fg_path_row *p = &d.paths[0];
  assert_int_equal(p->change, FG_CHANGE_SLOWER);
  assert_int_equal(p->nframes, 3);      /* the deepest path carrying the change, not A.price's */
  assert_string_equal(p->frames[1], "A.price");
  assert_string_equal(p->frames[2], "Util.hash");
  assert_string_equal(p->self_in, "Util.hash");
  assert_true(p->base_total > 0.110 && p->base_total < 0.112 && p->new_total > 0.166 && p->new_total < 0.168);
  assert_true(p->p < defaults.alpha);
  char *text;
  CAPTURE(text, fg_diff_write_text(out, &d, 5));
  assert_non_null(strstr(text, "verdict: REGRESSION (0 frames slower, 0 faster; 1 call path slower, 0 faster)"));
  assert_non_null(strstr(text, "Main.run > A.price > Util.hash; self time in Util.hash (+5."));
  free(text);
  char *json;
  CAPTURE(json, fg_diff_write_json(out, &d));
  assert_non_null(strstr(json, "{\"verdict\":\"regression\",\"slower\":0,"));
  assert_non_null(strstr(json, "\"paths_slower\":1,\"paths_faster\":0,\"paths\":[{\"path\":[\"Main.run\",\"A.price\","
                               "\"Util.hash\"],\"status\":\"slower\""));
  free(json);
  fg_diff_free(&d);
  free_runs(base, 3);
  free_runs(next, 3);
}

/* Thread roots carry tids, lambdas addresses and numbers: all differ from run
 * to run, so call paths leave them out; the same path is no change. */
static void call_paths_ignore_tids_and_lambda_addresses(void **state)
{
  (void)state;
  struct fg_profile base[2], next[2];
  parse_run(&base[0], "[main tid=5];Main.run;Foo$$Lambda$14.0x00007efe94000a08.run;Util.hash 300\nMain.x 700\n");
  parse_run(&base[1], "[main tid=6];Main.run;Foo$$Lambda$14.0x00007efe94000b08.run;Util.hash 305\nMain.x 695\n");
  parse_run(&next[0], "[main tid=9];Main.run;Foo$$Lambda.0x000000005b040210.run;Util.hash 302\nMain.x 698\n");
  parse_run(&next[1], "[main tid=7];Main.run;Foo$$Lambda$15.0x00007efe94001000.run;Util.hash 298\nMain.x 702\n");
  struct fg_diff d;
  assert_int_equal(fg_diff_compute(base, 2, next, 2, &defaults, &d), 0);
  assert_int_equal(d.npaths, 0);
  assert_int_equal(d.paths_slower, 0);
  fg_diff_free(&d);
  free_runs(base, 2);
  free_runs(next, 2);
}

static void one_run_a_side_uses_proportions(void **state)
{
  (void)state;
  const int a[1][3] = {{300, 300, 400}}, b[1][3] = {{400, 300, 400}};
  struct fg_profile base[1], next[1];
  make_runs(base, a, 1, "Main.hot");
  make_runs(next, b, 1, "Main.hot");
  struct fg_diff d;
  assert_int_equal(fg_diff_compute(base, 1, next, 1, &defaults, &d), 0);
  assert_false(d.welch);
  assert_int_equal(d.slower, 1);
  char *text;
  CAPTURE(text, fg_diff_write_text(out, &d, 5));
  assert_non_null(strstr(text, "two-proportion z-test (one run a side: run-to-run noise not measured)"));
  free(text);
  fg_diff_free(&d);
  free_runs(base, 1);
  free_runs(next, 1);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(same_runs_show_no_change),
    cmocka_unit_test(a_slower_method_is_named),
    cmocka_unit_test(new_gone_and_renamed_frames),
    cmocka_unit_test(one_run_a_side_uses_proportions),
    cmocka_unit_test(a_caller_slower_through_a_shared_helper_is_a_call_path),
    cmocka_unit_test(call_paths_ignore_tids_and_lambda_addresses),
  };
  return cmocka_run_group_tests_name("diff", tests, NULL, NULL);
}
