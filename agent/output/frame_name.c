/* Frame names taken apart: the ":line" suffix, a Java method's class and package. */
#include "output/frame_name.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int64_t fg_frame_split_line(const char *name, char *function, size_t len)
{
  snprintf(function, len, "%s", name);
  char *colon = strrchr(function, ':');
  if (!colon || colon == function || colon[1] == '\0' || colon[-1] == ':')
    return 0;
  char *end;
  long line = strtol(colon + 1, &end, 10);
  if (*end != '\0' || line <= 0)
    return 0;
  *colon = '\0';
  return line;
}

int fg_frame_split_java(const char *function, struct fg_java_name *out)
{
  size_t n = strlen(function);
  const char *dot = strrchr(function, '.');
  *out = (struct fg_java_name){.cls = function, .method = function, .package = function, .method_len = n};
  /* "class.method" with none of what C++ names, "lib.so+0x..." and [markers] have */
  if (!dot || dot == function || dot[1] == '\0' || strpbrk(function, " ()[]+:;,") != NULL)
    return -1;
  out->cls_len = (size_t)(dot - function);
  out->method = dot + 1;
  out->method_len = n - out->cls_len - 1;
  size_t pkg = 0;
  for (size_t i = 0; i < out->cls_len; i++) {
    if (function[i] == '/' && i + 2 < out->cls_len && function[i + 1] == '0' && function[i + 2] == 'x')
      break;   /* a hidden class's address: the package is before it */
    if (function[i] == '/')
      pkg = i;
  }
  out->package_len = pkg;
  return 0;
}
