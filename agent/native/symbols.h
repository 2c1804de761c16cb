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

#endif
