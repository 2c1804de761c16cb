/* A growing text buffer for writers that build a line before printing it. */
#ifndef FG_TEXT_BUFFER_H
#define FG_TEXT_BUFFER_H

#include <stddef.h>

struct fg_text {
  char *buf;
  size_t len, cap;
  int failed;   /* an allocation failed; fg_text_take returns NULL */
};

void fg_text_init(struct fg_text *t);
void fg_text_add(struct fg_text *t, const char *s);
void fg_text_addf(struct fg_text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Adds s with every character of bad replaced by '_'. */
void fg_text_add_sanitized(struct fg_text *t, const char *s, const char *bad);
/* The text (caller frees), NUL-terminated even when nothing was added, or
 * NULL if any step failed. */
char *fg_text_take(struct fg_text *t);

#endif
