/* Strict UTF-8 in, strict UTF-8 out: names cut on character boundaries,
 * invalid bytes replaced, the JVM's surrogate pairs joined, and every writer
 * valid whatever names the profile was given. */
#include "unit.h"

#include <stdlib.h>
#include <string.h>

#include "capture.h"
#include "fg/output.h"
#include "fg/profile.h"
#include "fg/utf8.h"

static void strict_validation(void **state)
{
  (void)state;
  assert_true(fg_utf8_valid("plain ascii", 11));
  assert_true(fg_utf8_valid("\xc3\xa9\xe4\xb8\xad\xf0\x9f\x98\x80", 9));   /* é 中 😀 */
  assert_false(fg_utf8_valid("\xc3", 1));                       /* cut */
  assert_false(fg_utf8_valid("\xc0\x80", 2));                   /* overlong NUL (modified UTF-8) */
  assert_false(fg_utf8_valid("\xed\xa0\xbd\xed\xb8\x80", 6));   /* surrogates (CESU-8) */
  assert_false(fg_utf8_valid("\xf4\x90\x80\x80", 4));           /* above U+10FFFF */
  assert_false(fg_utf8_valid("\xb6\x7f", 2));                   /* a pointer's bytes */
}

static void sanitize_repairs(void **state)
{
  (void)state;
  size_t n;
  char *s = fg_utf8_sanitize("a\xb6\x7f" "b", 4, &n);
  assert_string_equal(s, "a\xef\xbf\xbd\x7f" "b");
  assert_int_equal(n, 6);
  free(s);
  /* the JVM's modified UTF-8 for U+1F600 becomes the real thing */
  s = fg_utf8_sanitize("x\xed\xa0\xbd\xed\xb8\x80y", 8, NULL);
  assert_string_equal(s, "x\xf0\x9f\x98\x80y");
  free(s);
  s = fg_utf8_sanitize("renamed-304-\xc3\xa9\xe4", 15, NULL);
  assert_string_equal(s, "renamed-304-\xc3\xa9\xef\xbf\xbd");
  assert_true(fg_utf8_valid(s, strlen(s)));
  free(s);
}

static void cuts_fall_on_character_boundaries(void **state)
{
  (void)state;
  char buf[16];
  /* "renamed-304-é中" is 17 bytes: a 16-byte buffer keeps "renamed-304-é" */
  assert_string_equal(fg_utf8_copy(buf, sizeof buf, "renamed-304-\xc3\xa9\xe4\xb8\xad"), "renamed-304-\xc3\xa9");
  char small[4];
  assert_string_equal(fg_utf8_copy(small, sizeof small, "w\xc3\xa9\xc3\xa9"), "w\xc3\xa9");
  assert_string_equal(fg_utf8_copy(small, sizeof small, "abc"), "abc");
  char comm[16] = "ww\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3";   /* the kernel's 15-byte cut */
  fg_utf8_trim_partial(comm);
  assert_string_equal(comm, "ww\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9");
  char whole[] = "a\xe4\xb8\xad";
  fg_utf8_trim_partial(whole);
  assert_string_equal(whole, "a\xe4\xb8\xad");
}

typedef int (*writer_fn)(FILE *, const struct fg_profile *, const struct fg_output_settings *);

static void every_writer_emits_valid_utf8(void **state)
{
  (void)state;
  struct fg_profile p;
  fg_profile_init(&p);
  char long_name[400] = "ww";
  for (int i = 0; i < 150; i++)
    strcat(long_name, "\xc3\xa9");   /* "ww" + é x 150: 302 bytes */
  uint32_t t1 = (uint32_t)fg_profile_add_thread(&p, 7, long_name);
  uint32_t t2 = (uint32_t)fg_profile_add_thread(&p, 8, "renamed-304-\xc3\xa9\xe4");
  const char *bad[] = {"Deopt.main", "\xb6\x7f", "java/lang/Integer.parseInt", "Emoji\xed\xa0\xbd\xed\xb8\x80"};
  uint32_t ids[4];
  for (int i = 0; i < 4; i++)
    ids[i] = (uint32_t)fg_profile_intern(&p, bad[i], FG_KIND_JAVA);
  fg_profile_add(&p, t1, ids, 4, 3);
  fg_profile_add(&p, t2, ids, 2, 5);
  p.stats.interval_ns = 1000000;
  p.stats.taken = p.stats.java = 8;
  static const writer_fn writers[] = {fg_write_collapsed, fg_write_callgraph, fg_write_flamegraph_html,
                                      fg_write_speedscope, fg_write_timeline};
  for (int per_thread = 0; per_thread < 2; per_thread++) {
    struct fg_output_settings cfg = {.per_thread = per_thread};
    for (size_t i = 0; i < sizeof writers / sizeof writers[0]; i++) {
      char *text;
      size_t len_ = 0;
      text = NULL;
      FILE *out = open_memstream(&text, &len_);
      writers[i](out, &p, &cfg);
      fclose(out);
      if (!fg_utf8_valid(text, len_))
        fail_msg("writer %zu (threads=%d) wrote invalid UTF-8:\n%.300s", i, per_thread, text);
      free(text);
    }
  }
  fg_profile_free(&p);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(strict_validation),
    cmocka_unit_test(sanitize_repairs),
    cmocka_unit_test(cuts_fall_on_character_boundaries),
    cmocka_unit_test(every_writer_emits_valid_utf8),
  };
  return cmocka_run_group_tests_name("utf8", tests, NULL, NULL);
}
