/* Native names from ELF symbol tables: the test program's own functions,
 * static ones included (they are only in .symtab), libc's, libc's internal
 * ones from its separate debug file (libc6-dbg), and the vDSO's. */
#include "unit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>

#include <elf.h>

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

/* A small ELF image built here: section headers [null, symtab, strtab,
 * symtab again], one function fz_one at 0x1000 of 16 bytes. */
struct elf_image {
  Elf64_Ehdr eh;
  Elf64_Sym syms[2];
  char strtab[8];
  Elf64_Shdr sh[4];
};

static void elf_image(struct elf_image *im)
{
  memset(im, 0, sizeof *im);
  memcpy(im->eh.e_ident, ELFMAG, SELFMAG);
  im->eh.e_ident[EI_CLASS] = ELFCLASS64;
  im->eh.e_shoff = offsetof(struct elf_image, sh);
  im->eh.e_shnum = 4;
  im->eh.e_shentsize = sizeof(Elf64_Shdr);
  im->syms[1] = (Elf64_Sym){.st_name = 1, .st_info = ELF64_ST_INFO(STB_GLOBAL, STT_FUNC), .st_shndx = 1,
                            .st_value = 0x1000, .st_size = 16};
  memcpy(im->strtab, "\0fz_one", 8);
  im->sh[1] = (Elf64_Shdr){.sh_type = SHT_SYMTAB, .sh_offset = offsetof(struct elf_image, syms),
                           .sh_size = sizeof im->syms, .sh_link = 2, .sh_entsize = sizeof(Elf64_Sym)};
  im->sh[2] = (Elf64_Shdr){.sh_type = SHT_STRTAB, .sh_offset = offsetof(struct elf_image, strtab), .sh_size = 8};
  im->sh[3] = im->sh[1];
}

static void an_image_in_memory_is_named(void **state)
{
  (void)state;
  struct elf_image im;
  elf_image(&im);
  struct fg_symbols *s = fg_symbols_of_image((const uint8_t *)&im, sizeof im, 0x100000);
  assert_non_null(s);
  char name[64];
  assert_int_equal(fg_symbols_image_name(s, 0x101008, name, sizeof name), 1);
  assert_string_equal(name, "fz_one");
  assert_int_equal(fg_symbols_image_name(s, 0x101010, name, sizeof name), 0);
  fg_symbols_free(s);
}

/* A string table whose last byte is no NUL: its names could run past the
 * file, so none is taken; headers past the end or wrapping around: no ELF.
 * And an ELF with no function symbol (the fuzzer's first find: qsort was
 * handed NULL) names nothing. */
static void a_hostile_image_names_nothing(void **state)
{
  (void)state;
  struct elf_image im;
  char name[64];
  elf_image(&im);
  memcpy(im.strtab, "\0fz_one", 8);
  im.strtab[7] = 'X';
  struct fg_symbols *s = fg_symbols_of_image((const uint8_t *)&im, sizeof im, 0x100000);
  assert_non_null(s);
  assert_int_equal(fg_symbols_image_name(s, 0x101008, name, sizeof name), 0);
  fg_symbols_free(s);
  elf_image(&im);
  im.sh[2].sh_offset = UINT64_MAX - 2;   /* offset + size wraps to a small number */
  s = fg_symbols_of_image((const uint8_t *)&im, sizeof im, 0x100000);
  assert_int_equal(fg_symbols_image_name(s, 0x101008, name, sizeof name), 0);
  fg_symbols_free(s);
  elf_image(&im);
  im.eh.e_shoff = UINT64_MAX - 16;
  assert_null(fg_symbols_of_image((const uint8_t *)&im, sizeof im, 0x100000));
  elf_image(&im);
  im.syms[1].st_info = ELF64_ST_INFO(STB_GLOBAL, STT_OBJECT);
  s = fg_symbols_of_image((const uint8_t *)&im, sizeof im, 0x100000);
  assert_non_null(s);
  assert_int_equal(fg_symbols_image_name(s, 0x101008, name, sizeof name), 0);
  fg_symbols_free(s);
}

/* The debug file's names come from the build id note and .gnu_debuglink,
 * bounded by their sections: a link name without its NUL is not taken. */
static void debug_paths_stay_inside_the_image(void **state)
{
  (void)state;
  struct {
    struct elf_image im;
    char shstrtab[32];
    char link[12];
  } f;
  elf_image(&f.im);
  static char paths[4][FG_SYMBOLS_PATH_MAX];
  assert_int_equal(fg_symbols_debug_paths((const uint8_t *)&f.im, sizeof f.im, "/usr/lib/libx.so", paths, 4), 0);
  memset(f.shstrtab, 0, sizeof f.shstrtab);
  memcpy(f.shstrtab + 1, ".gnu_debuglink", 15);
  memcpy(f.link, "libx.debug\0\0", 12);
  f.im.eh.e_shstrndx = 2;
  f.im.sh[2] = (Elf64_Shdr){.sh_type = SHT_STRTAB, .sh_offset = sizeof f.im, .sh_size = sizeof f.shstrtab};
  f.im.sh[3] = (Elf64_Shdr){.sh_type = SHT_PROGBITS, .sh_name = 1, .sh_offset = sizeof f.im + sizeof f.shstrtab,
                            .sh_size = sizeof f.link};
  assert_int_equal(fg_symbols_debug_paths((const uint8_t *)&f, sizeof f, "/usr/lib/libx.so", paths, 4), 2);
  assert_string_equal(paths[0], "/usr/lib/debug/usr/lib/libx.debug");
  assert_string_equal(paths[1], "/usr/lib/.debug/libx.debug");
  memset(f.link, 'x', sizeof f.link);
  assert_int_equal(fg_symbols_debug_paths((const uint8_t *)&f, sizeof f, "/usr/lib/libx.so", paths, 4), 0);
  /* the section's name cut by the end of the names' section */
  memcpy(f.link, "libx.debug\0\0", 12);
  f.im.sh[2].sh_size = 8;
  assert_int_equal(fg_symbols_debug_paths((const uint8_t *)&f, sizeof f, "/usr/lib/libx.so", paths, 4), 0);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(a_static_function_is_named),
    cmocka_unit_test(a_function_with_no_size_is_named),
    cmocka_unit_test(libc_internals_are_named_from_the_debug_file),
    cmocka_unit_test(vdso_functions_are_named),
    cmocka_unit_test(an_address_in_no_library_says_so),
    cmocka_unit_test(an_image_in_memory_is_named),
    cmocka_unit_test(a_hostile_image_names_nothing),
    cmocka_unit_test(debug_paths_stay_inside_the_image),
  };
  return cmocka_run_group_tests_name("symbols", tests, NULL, NULL);
}
