/* The one error line a parser hands back: fmt's text in err, cut to fit. */
#ifndef FG_ERROR_LINE_H
#define FG_ERROR_LINE_H

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

/* Writes the line and returns -1, so that a failure is one statement:
 * return fg_error_line(err, errlen, "%s: byte %zu: ...", source, at). */
__attribute__((format(printf, 3, 4))) static inline int fg_error_line(char *err, size_t errlen, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err, errlen, fmt, ap);
  va_end(ap);
  return -1;
}

#endif
