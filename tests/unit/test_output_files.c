/* File names: extension to format, %p/%t expansion, atomic writes. */
#include "unit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fg/output.h"
#include "profile_fixture.h"

static void extensions_select_formats(void **state)
{
  (void)state;
  assert_int_equal(fg_format_for_path("a.collapsed"), FG_FORMAT_COLLAPSED);
  assert_int_equal(fg_format_for_path("dir.x/a.folded"), FG_FORMAT_COLLAPSED);
  assert_int_equal(fg_format_for_path("profile.txt"), FG_FORMAT_CALLGRAPH);
  assert_int_equal(fg_format_for_path(".txt"), FG_FORMAT_NONE);
  assert_int_equal(fg_format_for_path("a.txt.gz"), FG_FORMAT_NONE);
  assert_int_equal(fg_format_for_path("noext"), FG_FORMAT_NONE);
  assert_string_equal(fg_format_extension(FG_FORMAT_PPROF), ".pb.gz");
  assert_string_equal(fg_format_extension(FG_FORMAT_SPEEDSCOPE), ".speedscope.json");
  assert_string_equal(fg_format_extension(FG_FORMAT_CALLGRAPH), ".txt");
}

static void paths_expand_pid_and_time(void **state)
{
  (void)state;
  char out[64];
  setenv("TZ", "UTC", 1);
  tzset();
  assert_int_equal(fg_expand_path("p-%p-%t.txt", 4242, 86400 + 3661, out, sizeof out), 0);
  assert_string_equal(out, "p-4242-19700102-010101.txt");
  assert_int_equal(fg_expand_path("100%%.txt", 1, 0, out, sizeof out), 0);
  assert_string_equal(out, "100%.txt");
  assert_int_equal(fg_expand_path("bad%x.txt", 1, 0, out, sizeof out), -1);
  assert_int_equal(fg_expand_path("trailing%", 1, 0, out, sizeof out), -1);
  assert_int_equal(fg_expand_path("0123456789.txt", 1, 0, out, 10), -1);
}

static void write_goes_through_a_temporary_and_reports_errors(void **state)
{
  (void)state;
  struct fg_profile p;
  build_fixture(&p);
  struct fg_output_settings cfg = {0};
  char dir[] = "/tmp/fgagent-unit-XXXXXX", path[256], err[256];
  assert_non_null(mkdtemp(dir));
  snprintf(path, sizeof path, "%s/out.collapsed", dir);
  assert_int_equal(fg_write_profile_file(path, &p, &cfg, err, sizeof err), 0);
  FILE *f = fopen(path, "r");
  assert_non_null(f);
  char line[128];
  assert_non_null(fgets(line, sizeof line, f));
  assert_string_equal(line, "Main.main;Main.cold 30\n");
  fclose(f);
  unlink(path);

  snprintf(path, sizeof path, "%s/missing/out.txt", dir);
  assert_int_equal(fg_write_profile_file(path, &p, &cfg, err, sizeof err), -1);
  assert_non_null(strstr(err, "missing/out.txt"));
  assert_non_null(strstr(err, "No such file or directory"));
  snprintf(path, sizeof path, "%s/out.svg", dir);
  assert_int_equal(fg_write_profile_file(path, &p, &cfg, err, sizeof err), -1);
  assert_non_null(strstr(err, "unknown extension"));
  rmdir(dir);
  fg_profile_free(&p);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(extensions_select_formats),
    cmocka_unit_test(paths_expand_pid_and_time),
    cmocka_unit_test(write_goes_through_a_temporary_and_reports_errors),
  };
  return cmocka_run_group_tests_name("output_files", tests, NULL, NULL);
}
