/* A growing text buffer. */
#include "output/text_buffer.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void fg_text_init(struct fg_text *t)
{
  t->buf = NULL;
  t->len = t->cap = 0;
  t->failed = 0;
}

static int reserve(struct fg_text *t, size_t more)
{
  if (t->failed)
    return -1;
  if (t->len + more + 1 <= t->cap)
    return 0;
  size_t cap = t->cap ? t->cap : 128;
  while (cap < t->len + more + 1)
    cap *= 2;
  char *b = realloc(t->buf, cap);
  if (!b) {
    t->failed = 1;
    return -1;
  }
  t->buf = b;
  t->cap = cap;
  return 0;
}

void fg_text_add(struct fg_text *t, const char *s)
{
  size_t n = strlen(s);
  if (reserve(t, n) != 0)
    return;
  memcpy(t->buf + t->len, s, n + 1);
  t->len += n;
}

void fg_text_addf(struct fg_text *t, const char *fmt, ...)
{
  char small[256];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(small, sizeof small, fmt, ap);
  va_end(ap);
  if (n < 0) {
    t->failed = 1;
    return;
  }
  if ((size_t)n < sizeof small) {
    fg_text_add(t, small);
    return;
  }
  if (reserve(t, (size_t)n) != 0)
    return;
  va_start(ap, fmt);
  vsnprintf(t->buf + t->len, (size_t)n + 1, fmt, ap);
  va_end(ap);
  t->len += (size_t)n;
}

void fg_text_add_sanitized(struct fg_text *t, const char *s, const char *bad)
{
  size_t n = strlen(s);
  if (reserve(t, n) != 0)
    return;
  for (size_t i = 0; i < n; i++)
    t->buf[t->len + i] = strchr(bad, s[i]) ? '_' : s[i];
  t->len += n;
  t->buf[t->len] = '\0';
}

char *fg_text_take(struct fg_text *t)
{
  if (t->failed || reserve(t, 0) != 0) {
    free(t->buf);
    fg_text_init(t);
    return NULL;
  }
  char *b = t->buf;
  b[t->len] = '\0';   /* a buffer nothing was added to is terminated too */
  fg_text_init(t);
  return b;
}
