/* Text that every output can carry: strict UTF-8.
 * Names reach fgagent from the JVM (modified UTF-8: a supplementary
 * character as two 3-byte surrogates, NUL as C0 80), from the kernel (a
 * thread's comm, cut at 15 bytes whatever the characters) and from files
 * fgprof reads (anything). The profile keeps only strict UTF-8, so JSON,
 * HTML, pprof and collapsed stacks are valid whatever came in. */
#ifndef FG_UTF8_H
#define FG_UTF8_H

#include <stddef.h>

/* Whether s[0..len) is strict UTF-8 (no overlong forms, no surrogates,
 * nothing above U+10FFFF). */
int fg_utf8_valid(const char *s, size_t len);

/* A NUL-terminated strict UTF-8 copy of s[0..len) (malloc'd; *out_len set
 * when not NULL): a surrogate pair becomes the character it encodes, every
 * other byte that is not part of a valid sequence becomes U+FFFD. NULL when
 * out of memory. */
char *fg_utf8_sanitize(const char *s, size_t len, size_t *out_len);

/* Copies the string src into dst (cap bytes, NUL-terminated), cut on a
 * character boundary: never half a character at the end. Returns dst. */
char *fg_utf8_copy(char *dst, size_t cap, const char *src);

/* Cuts s before a character its end leaves incomplete (the kernel cuts a
 * thread's comm at 15 bytes, whatever the characters). */
void fg_utf8_trim_partial(char *s);

#endif
