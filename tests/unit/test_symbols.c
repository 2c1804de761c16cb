/* Native names from ELF symbol tables: the test program's own functions,
 * static ones included (they are only in .symtab), libc's, libc's internal
 * ones from its separate debug file (libc6-dbg), and the vDSO's. */
#include "unit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>

#include "native/symbols.h"

__attribute__((noinline)) static int only_in_symtab(int x)
{
  return x * 3 + 1;
}

static void a_static_function_is_named(void **state)
{
  (void)state;
  struct fg_symbols *s = fg_symbols_new();
  char name[256];
  fg_symbols_name(s, (uintptr_t)only_in_symtab + 2, name, sizeof name);
  assert_string_equal(name, "only_in_symtab");
  assert_int_equal(only_in_symtab(1), 4);
  fg_symbols_name(s, (uintptr_t)getpid, name, sizeof name);
  assert_non_null(strstr(name, "getpid"));
  fg_symbols_free(s);
}

/* A function written in assembly without .size (its symbol's size is 0),
 * as libjvm's SpinPause: named up to the next symbol. */
__asm__(".text\n"
        ".type sized_by_the_next_symbol, @function\n"
        "sized_by_the_next_symbol:\n"
        "  pause\n"
        "  movl $1, %eax\n"
        "  ret\n");
int sized_by_the_next_symbol(void);

static void a_function_with_no_size_is_named(void **state)
{
  (void)state;
  struct fg_symbols *s = fg_symbols_new();
  char name[256];
  fg_symbols_name(s, (uintptr_t)sized_by_the_next_symbol + 2, name, sizeof name);
  assert_string_equal(name, "sized_by_the_next_symbol");
  assert_int_equal(sized_by_the_next_symbol(), 1);
  fg_symbols_free(s);
}

/* start_thread is in no dynsym: only libc6-dbg's debug file, found by
 * libc's build id, names it. Without that package the test says so. */
static void libc_internals_are_named_from_the_debug_file(void **state)
{
  (void)state;
  if (access("/usr/share/doc/libc6-dbg", F_OK) != 0) {
    printf("libc6-dbg is not installed: libc's internal functions stay libc.so.6+0x...\n");
    return;
  }
  struct fg_symbols *s = fg_symbols_new();
  uintptr_t start = fg_symbols_lookup(s, (const void *)getpid, "start_thread");
  assert_true(start != 0);
  char name[256];
  fg_symbols_name(s, start + 16, name, sizeof name);
  assert_string_equal(name, "start_thread");
  fg_symbols_name(s, (uintptr_t)getpid, name, sizeof name);   /* exported ones still named */
  assert_non_null(strstr(name, "getpid"));
  fg_symbols_free(s);
}

/* The vDSO has no file: its symbols come from its image in memory. */
static void vdso_functions_are_named(void **state)
{
  (void)state;
  uintptr_t vdso = (uintptr_t)getauxval(AT_SYSINFO_EHDR);
  if (!vdso) {
    printf("no vDSO in this process\n");
    return;
  }
  struct fg_symbols *s = fg_symbols_new();
  uintptr_t at = fg_symbols_lookup(s, (const void *)vdso, "__vdso_clock_gettime");
  assert_true(at > vdso);
  char name[256];
  fg_symbols_name(s, at + 4, name, sizeof name);
  assert_true(strcmp(name, "__vdso_clock_gettime") == 0 || strcmp(name, "clock_gettime") == 0);
  fg_symbols_free(s);
}

static void an_address_in_no_library_says_so(void **state)
{
  (void)state;
  struct fg_symbols *s = fg_symbols_new();
  char name[256];
  void *heap = malloc(16);
  fg_symbols_name(s, (uintptr_t)heap, name, sizeof name);
  assert_string_equal(name, "[unknown_native]");
  free(heap);
  fg_symbols_free(s);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(a_static_function_is_named),
    cmocka_unit_test(a_function_with_no_size_is_named),
    cmocka_unit_test(libc_internals_are_named_from_the_debug_file),
    cmocka_unit_test(vdso_functions_are_named),
    cmocka_unit_test(an_address_in_no_library_says_so),
  };
  return cmocka_run_group_tests_name("symbols", tests, NULL, NULL);
}
