/* libFuzzer target: arbitrary bytes as a library's ELF file, read by the
 * native symbol reader as it reads a loaded library's (its .symtab, else
 * its .dynsym; its debug file's build id and .gnu_debuglink), then pcs
 * named in it (C++ names demangled), and a uprobe's file offset of a
 * symbol (in the file's bytes, or none). Nothing may be read outside the bytes,
 * and what is kept is bounded by their size. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "native/symbols.h"

#define BASE 0x7f0000000000ull

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  static char paths[4][FG_SYMBOLS_PATH_MAX];
  size_t n = fg_symbols_debug_paths(data, size, "/usr/lib/x86_64-linux-gnu/libfuzz.so.1", paths, 4);
  for (size_t i = 0; i < n; i++)
    if (!memchr(paths[i], '\0', sizeof paths[i]))
      abort();
  static const char *probed[] = {"main", "f", "_start", ""};
  for (size_t i = 0; i < sizeof probed / sizeof *probed; i++) {
    uint64_t off = 0;
    if (fg_symbols_image_offset(data, size, probed[i], &off) && off >= size)
      abort();   /* an offset outside the file */
  }
  struct fg_symbols *s = fg_symbols_of_image(data, size, BASE);
  if (!s)
    return 0;
  /* pcs: the first pages of the image's addresses, and some the input's last bytes choose */
  char name[256];
  for (uint64_t off = 0; off < 0x2000; off += 4)
    if (fg_symbols_image_name(s, BASE + off, name, sizeof name) && !memchr(name, '\0', sizeof name))
      abort();
  for (size_t at = size >= 64 ? size - 64 : 0; at + 4 <= size; at += 4) {
    uint32_t off;
    memcpy(&off, data + at, sizeof off);
    if (fg_symbols_image_name(s, BASE + off, name, sizeof name) && !memchr(name, '\0', sizeof name))
      abort();
  }
  fg_symbols_free(s);
  return 0;
}
