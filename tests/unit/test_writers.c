/* The HTML flame graph, pprof and speedscope writers as pure functions of a
 * small profile. (Real readers check them too: tests/tools.) */
#include "unit.h"

#include <regex.h>
#include <stdio.h>
#include <string.h>

#include "capture.h"
#include "fg/output.h"
#include "fg/profile_filter.h"
#include "profile_fixture.h"

static const char evil[] = "</script><img src=x onerror=alert(1)>.run";

static void html_embeds_escaped_data_and_title(void **state)
{
  (void)state;
  struct fg_profile p;
  build_fixture(&p);
  const char *stack[] = {"Main.main", evil};
  add_named(&p, 0, stack, 2, 3);
  struct fg_output_settings cfg = {.title = "t<i>&\"x"};
  char *html;
  CAPTURE(html, fg_write_flamegraph_html(out, &p, &cfg));
  assert_non_null(strstr(html, "<title>t&lt;i&gt;&amp;&quot;x</title>"));
  assert_null(strstr(html, "<img src=x"));                 /* never raw */
  assert_non_null(strstr(html, "\"\\u003c/script\\u003e\\u003cimg src=x onerror=alert(1)\\u003e.run\""));
  assert_null(strstr(html, "@@"));                         /* every placeholder filled */
  /* all=110 at depth 0; Main.main 103 with Main.work 70 (hot 60), Main.cold 30, the evil 3 */
  assert_non_null(strstr(html, "\"d\":[0,1,2,3,2,2,1,2,1]"));
  assert_non_null(strstr(html, "\"v\":[110,103,70,60,30,3,5,5,2]"));
  assert_non_null(strstr(html, "\"unattributed\":2"));
  assert_non_null(strstr(html, "accounting:        taken 107"));   /* the summary in the footer */
  free(html);
  fg_profile_free(&p);
}

static void html_minwidth_leaves_out_narrow_frames(void **state)
{
  (void)state;
  struct fg_profile p;
  build_fixture(&p);
  struct fg_output_settings cfg = {.min_width_pct = 10};   /* under 10.7 samples of 107 */
  char *html;
  CAPTURE(html, fg_write_flamegraph_html(out, &p, &cfg));
  assert_non_null(strstr(html, "\"v\":[107,100,70,60,30]"));
  free(html);
  fg_profile_free(&p);
}

static void html_per_thread_roots(void **state)
{
  (void)state;
  struct fg_profile p;
  build_fixture(&p);
  struct fg_output_settings cfg = {.per_thread = true};
  char *html;
  CAPTURE(html, fg_write_flamegraph_html(out, &p, &cfg));
  assert_non_null(strstr(html, "\"[main tid=100]\""));
  assert_non_null(strstr(html, "\"d\":[0,1,2,3,4,3,1,2,3,2]"));
  free(html);
  fg_profile_free(&p);
}

/* ---- a minimal reader for what fg_write_pprof writes ---- */

static size_t gunzip_stored(const unsigned char *gz, size_t len, unsigned char *out)
{
  assert_true(len > 18 && gz[0] == 0x1f && gz[1] == 0x8b && gz[2] == 8);
  size_t pos = 10, n = 0;
  for (;;) {
    int final = gz[pos] & 1;
    assert_int_equal(gz[pos] & 6, 0);                       /* stored */
    size_t blen = gz[pos + 1] | (size_t)gz[pos + 2] << 8;
    assert_int_equal(blen ^ 0xffff, gz[pos + 3] | (size_t)gz[pos + 4] << 8);
    memcpy(out + n, gz + pos + 5, blen);
    n += blen;
    pos += 5 + blen;
    if (final)
      break;
  }
  size_t isize = gz[pos + 4] | (size_t)gz[pos + 5] << 8 | (size_t)gz[pos + 6] << 16;
  assert_int_equal(isize, n);
  return n;
}

static uint64_t varint(const unsigned char *b, size_t *pos)
{
  uint64_t v = 0;
  for (int shift = 0;; shift += 7) {
    unsigned char c = b[(*pos)++];
    v |= (uint64_t)(c & 0x7f) << shift;
    if (!(c & 0x80))
      return v;
  }
}

static void pprof_is_a_gzipped_profile_proto(void **state)
{
  (void)state;
  struct fg_profile p;
  build_fixture(&p);
  p.stats.interval_ns = 1000000;
  struct fg_output_settings cfg = {0};
  char *gz;
  size_t gzlen = 0;
  {
    FILE *out = open_memstream(&gz, &gzlen);
    assert_int_equal(fg_write_pprof(out, &p, &cfg), 0);
    fclose(out);
  }
  unsigned char *pb = malloc(gzlen);
  size_t len = gunzip_stored((unsigned char *)gz, gzlen, pb);
  int fields[16] = {0};
  int strings_seen = 0;
  for (size_t pos = 0; pos < len;) {
    uint64_t key = varint(pb, &pos);
    int field = (int)(key >> 3), wire = (int)(key & 7);
    assert_true(field > 0 && field < 16);
    fields[field]++;
    if (wire == 0) {
      varint(pb, &pos);
    } else {
      assert_int_equal(wire, 2);
      size_t n = varint(pb, &pos);
      if (field == 6 && n == 8 && memcmp(pb + pos, "Main.hot", 8) == 0)
        strings_seen++;
      pos += n;
    }
  }
  assert_int_equal(fields[1], 2);                 /* samples/count, cpu/nanoseconds */
  assert_int_equal(fields[2], 5);                 /* a sample per unique stack */
  assert_int_equal(fields[4], (int)p.nnames);     /* a location per frame */
  assert_int_equal(fields[5], (int)p.nnames);     /* a function per frame */
  assert_true(fields[13] > 10);                   /* the summary as comments */
  assert_int_equal(fields[12], 1);                /* period */
  assert_int_equal(strings_seen, 1);
  free(pb);
  free(gz);
  fg_profile_free(&p);
}

static void speedscope_per_thread_profiles(void **state)
{
  (void)state;
  struct fg_profile p;
  build_fixture(&p);
  struct fg_output_settings cfg = {.per_thread = true, .title = "x"};
  char *json;
  CAPTURE(json, fg_write_speedscope(out, &p, &cfg));
  assert_non_null(strstr(json, "\"$schema\":\"https://www.speedscope.app/file-format-schema.json\""));
  assert_non_null(strstr(json, "\"shared\":{\"frames\":[{\"name\":\"Main.main\"},{\"name\":\"Main.work\"}"));
  /* main: 60 x hot, 30 x cold, 10 x work at 1 ms = ns weights */
  assert_non_null(strstr(json, "{\"type\":\"sampled\",\"name\":\"main tid=100\",\"unit\":\"nanoseconds\","
                               "\"startValue\":0,\"endValue\":100000000,\"samples\":[[0,1,2],[0,3],[0,1]],"
                               "\"weights\":[60000000,30000000,10000000]}"));
  assert_non_null(strstr(json, "\"name\":\"worker;1 tid=101\""));
  assert_non_null(strstr(json, "\"exporter\":\"fgagent: 107 samples stored of 107 taken, 0 lost, 2 failed"));
  free(json);
  fg_profile_free(&p);
}

static void filter_include_exclude_reverse(void **state)
{
  (void)state;
  struct fg_profile p, q;
  build_fixture(&p);
  regex_t inc, exc;
  assert_int_equal(regcomp(&inc, "Main\\.(hot|cold)", REG_EXTENDED | REG_NOSUB), 0);
  assert_int_equal(regcomp(&exc, "^Worker", REG_EXTENDED | REG_NOSUB), 0);
  struct fg_filter f = {&inc, &exc, true};
  assert_int_equal(fg_profile_filter(&p, &f, &q), 0);
  struct fg_output_settings cfg = {0};
  char *text;
  CAPTURE(text, fg_write_collapsed(out, &q, &cfg));
  assert_string_equal(text, "Main.cold;Main.main 30\nMain.hot;Main.work;Main.main 60\n");
  assert_int_equal(q.stats.taken, 90);
  assert_int_equal(q.stats.java, 90);
  free(text);
  fg_profile_free(&q);
  regfree(&inc);
  regfree(&exc);
  fg_profile_free(&p);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(html_embeds_escaped_data_and_title),
    cmocka_unit_test(html_minwidth_leaves_out_narrow_frames),
    cmocka_unit_test(html_per_thread_roots),
    cmocka_unit_test(pprof_is_a_gzipped_profile_proto),
    cmocka_unit_test(speedscope_per_thread_profiles),
    cmocka_unit_test(filter_include_exclude_reverse),
  };
  return cmocka_run_group_tests_name("writers", tests, NULL, NULL);
}
