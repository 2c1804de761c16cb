/* Native pc -> function name, at drain time (never in a signal handler).
 * Loaded libraries are found with dladdr; their functions are read from the
 * ELF symbol tables (.symtab when the file has one, as Debian's and
 * Temurin's libjvm.so do, else .dynsym), so that the JVM's internal functions
 * get names and not only the few it exports. C++ names are demangled with
 * the process's own __cxa_demangle when one is loaded (every JVM has it). */
#ifndef FG_SYMBOLS_H
#define FG_SYMBOLS_H

#include <stddef.h>
#include <stdint.h>

struct fg_symbols;

struct fg_symbols *fg_symbols_new(void);
void fg_symbols_free(struct fg_symbols *s);

/* Writes the function containing pc into buf: "deflate_slow",
 * "G1ParScanThreadState::trim_queue_partially", or "libz.so.1+0x3c10" when
 * the library has no symbol for it, "[unknown_native]" when pc is in no
 * library. */
void fg_symbols_name(struct fg_symbols *s, uintptr_t pc, char *buf, size_t len);

/* The address of the function raw_name (mangled, as the symbol table has
 * it, local symbols included) in the library that holds in_library; 0 when
 * it has none. Reads the library's symbols on first use. */
uintptr_t fg_symbols_lookup(struct fg_symbols *s, const void *in_library, const char *raw_name);

/* The same readers on an ELF image in memory, for the tests and the fuzzer
 * (a library's file is another's: every offset and count in it is checked
 * against its size, and what is read is bounded by it). */
#define FG_SYMBOLS_PATH_MAX 4096

/* The function symbols of the size bytes at file (a whole ELF file, kept by
 * the caller while the result lives) as if loaded at base; NULL when it is
 * no 64-bit ELF whose headers lie inside it. Freed by fg_symbols_free. */
struct fg_symbols *fg_symbols_of_image(const uint8_t *file, size_t size, uintptr_t base);

/* The function of such an image holding pc, named as fg_symbols_name names
 * it: 1, or 0 when no symbol holds it. */
int fg_symbols_image_name(struct fg_symbols *s, uintptr_t pc, char *buf, size_t len);

/* The file offset of the function raw_name (as the symbol table names it:
 * .symtab, else .dynsym) in such an image: where a uprobe on it goes, its
 * address within the PT_LOAD segment that holds it. 1 and *offset; 0 when
 * no function symbol has that name or no segment of the file holds it. */
int fg_symbols_image_offset(const uint8_t *file, size_t size, const char *raw_name, uint64_t *offset);

/* Where the separate debug file of the library at path with that image may
 * be: up to max paths into out, most likely first; how many. */
size_t fg_symbols_debug_paths(const uint8_t *file, size_t size, const char *path, char (*out)[FG_SYMBOLS_PATH_MAX],
                              size_t max);

#endif
