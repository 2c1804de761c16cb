/* Native names from ELF symbol tables: the test program's own functions,
 * static ones included (they are only in .symtab), and libc's. */
#include "unit.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../agent/native/symbols.h"

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
    cmocka_unit_test(an_address_in_no_library_says_so),
  };
  return cmocka_run_group_tests_name("symbols", tests, NULL, NULL);
}
