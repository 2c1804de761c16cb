/* Class names: the JVM's signatures into frame names, and frame names into JFR's. */
#include "unit.h"

#include <string.h>

#include "fg/class_name.h"

static void signatures_become_frame_names(void **state)
{
  (void)state;
  static const struct { const char *sig, *frame, *jfr; } cases[] = {
    {"Ljava/lang/String;", "java/lang/String", "java/lang/String"},
    {"[B", "byte[]", "[B"},
    {"[[J", "long[][]", "[[J"},
    {"[Ljava/lang/Object;", "java/lang/Object[]", "[Ljava/lang/Object;"},
    {"[[Ljava/util/Map$Entry;", "java/util/Map$Entry[][]", "[[Ljava/util/Map$Entry;"},
    {"LNoPackage;", "NoPackage", "NoPackage"},
    {"[Z", "boolean[]", "[Z"},
  };
  char frame[128], jfr[128];
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    assert_int_equal(fg_class_frame_name(cases[i].sig, frame, sizeof frame), 0);
    assert_string_equal(frame, cases[i].frame);
    assert_int_equal(fg_class_jfr_name(frame, jfr, sizeof jfr), 0);
    assert_string_equal(jfr, cases[i].jfr);
  }
}

static void what_is_no_signature_is_refused(void **state)
{
  (void)state;
  char out[64];
  static const char *const bad[] = {"", "B", "L;", "Ljava/lang/String", "[", "[Q", "[BB", "java/lang/String"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
    if (fg_class_frame_name(bad[i], out, sizeof out) != -1)
      fail_msg("'%s' became '%s'", bad[i], out);
  assert_int_equal(fg_class_frame_name("Ljava/lang/String;", out, 8), -1);   /* too small */
  assert_int_equal(fg_class_jfr_name("java/lang/String[]", out, 8), -1);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(signatures_become_frame_names),
    cmocka_unit_test(what_is_no_signature_is_refused),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
