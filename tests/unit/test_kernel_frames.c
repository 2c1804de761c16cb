/* Kernel frames named: /proc/kallsyms read into a sorted table. The ring
 * that brings them to the handler is tested in test_perf_threads.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "unit.h"
#include "native/kernel_symbols.h"

static char *fixture(const char *text)
{
  static char path[64];
  snprintf(path, sizeof path, "/tmp/fg-kallsyms-%d", (int)getpid());
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  fputs(text, f);
  fclose(f);
  return path;
}

static void kallsyms_names_the_function_below_a_pc(void **state)
{
  (void)state;
  const char *path = fixture("ffffffff81200000 T iterate_dir\n"
                             "ffffffff81000000 T _stext\n"
                             "ffffffff81300000 d some_data\n"       /* not text: left out */
                             "ffffffff81400000 t ext4_readdir\t[ext4]\n"
                             "ffffffff81100000 W weak_one\n"
                             "ffffffff811ffff0 T __pfx_iterate_dir\n");   /* padding: left out */
  struct fg_kernel_symbols k;
  assert_int_equal(fg_ksyms_load(&k, path), 0);
  assert_int_equal(k.n, 4);
  assert_false(k.hidden);
  char name[64];
  fg_ksyms_name(&k, 0xffffffff81200010ull, name, sizeof name);
  assert_string_equal(name, "iterate_dir");
  fg_ksyms_name(&k, 0xffffffff81350000ull, name, sizeof name);   /* past the data symbol */
  assert_string_equal(name, "iterate_dir");
  fg_ksyms_name(&k, 0xffffffff81400000ull, name, sizeof name);
  assert_string_equal(name, "ext4_readdir");
  fg_ksyms_name(&k, 0xffffffff81100001ull, name, sizeof name);
  assert_string_equal(name, "weak_one");
  fg_ksyms_name(&k, 0xffffffff811ffff8ull, name, sizeof name);
  assert_string_equal(name, "weak_one");
  fg_ksyms_name(&k, 0xffffffff80000000ull, name, sizeof name);
  assert_string_equal(name, "[kernel]");
  fg_ksyms_free(&k);
  unlink(path);
}

static void hidden_addresses_are_reported(void **state)
{
  (void)state;
  const char *path = fixture("0000000000000000 T _stext\n0000000000000000 T iterate_dir\n");
  struct fg_kernel_symbols k;
  assert_int_equal(fg_ksyms_load(&k, path), 0);
  assert_true(k.hidden);
  char name[64];
  fg_ksyms_name(&k, 0xffffffff81200010ull, name, sizeof name);
  assert_string_equal(name, "[kernel]");
  fg_ksyms_free(&k);
  unlink(path);
  assert_int_equal(fg_ksyms_load(&k, "/nonexistent/kallsyms"), -1);
}

/* A name that begins with a NUL byte, or a NUL for the type (a hostile or
 * corrupt file: the fuzzer's find), is no symbol: every name is one a
 * frame can show. */
static void nul_bytes_make_no_symbol(void **state)
{
  (void)state;
  static const char text[] = "ffffffff81000000 T _stext\n"
                             "ffffffff81100000 t \0hidden\n"
                             "ffffffff81200000 \0 nul_type\n"
                             "ffffffff81300000 T cut\0after\n";
  struct fg_kernel_symbols k;
  assert_int_equal(fg_ksyms_parse(&k, text, sizeof text - 1), 0);
  assert_int_equal(k.n, 2);
  char name[64];
  fg_ksyms_name(&k, 0xffffffff81100010ull, name, sizeof name);
  assert_string_equal(name, "_stext");
  fg_ksyms_name(&k, 0xffffffff81200010ull, name, sizeof name);
  assert_string_equal(name, "_stext");
  fg_ksyms_name(&k, 0xffffffff81300010ull, name, sizeof name);
  assert_string_equal(name, "cut");
  fg_ksyms_free(&k);
  assert_int_equal(fg_ksyms_parse(&k, "", 0), 0);
  assert_int_equal(k.n, 0);
  fg_ksyms_free(&k);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(kallsyms_names_the_function_below_a_pc),
    cmocka_unit_test(hidden_addresses_are_reported),
    cmocka_unit_test(nul_bytes_make_no_symbol),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
