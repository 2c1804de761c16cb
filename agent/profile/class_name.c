/* Class names between the JVM's, the frames' and JFR's forms; see class_name.h. */
#include "fg/class_name.h"

#include <string.h>

static const struct { char code; const char *name; } primitives[] = {
  {'Z', "boolean"}, {'B', "byte"}, {'C', "char"}, {'S', "short"},
  {'I', "int"}, {'J', "long"}, {'F', "float"}, {'D', "double"},
};
#define NPRIMITIVES (sizeof primitives / sizeof primitives[0])

/* Appends s[0..n) to out at *at; -1 when it does not fit (the NUL included). */
static int put(char *out, size_t outlen, size_t *at, const char *s, size_t n)
{
  if (*at + n >= outlen)
    return -1;
  memcpy(out + *at, s, n);
  *at += n;
  out[*at] = '\0';
  return 0;
}

int fg_class_frame_name(const char *sig, char *out, size_t outlen)
{
  size_t dims = 0, at = 0;
  if (outlen == 0)
    return -1;
  out[0] = '\0';
  while (sig[dims] == '[')
    dims++;
  const char *elem = sig + dims;
  if (*elem == 'L') {
    size_t n = strlen(elem);
    if (n < 3 || elem[n - 1] != ';')
      return -1;
    for (size_t i = 1; i < n - 1; i++) {
      if (put(out, outlen, &at, &elem[i], 1) != 0)
        return -1;
    }
  } else {
    size_t i = 0;
    while (i < NPRIMITIVES && primitives[i].code != *elem)
      i++;
    if (dims == 0 || i == NPRIMITIVES || elem[1] != '\0' ||
        put(out, outlen, &at, primitives[i].name, strlen(primitives[i].name)) != 0)
      return -1;
  }
  for (size_t d = 0; d < dims; d++)
    if (put(out, outlen, &at, "[]", 2) != 0)
      return -1;
  return 0;
}

int fg_class_jfr_name(const char *frame, char *out, size_t outlen)
{
  size_t n = strlen(frame), dims = 0, at = 0;
  if (outlen == 0)
    return -1;
  out[0] = '\0';
  while (n >= 2 && frame[n - 2] == '[' && frame[n - 1] == ']') {
    n -= 2;
    dims++;
  }
  for (size_t d = 0; d < dims; d++)
    if (put(out, outlen, &at, "[", 1) != 0)
      return -1;
  for (size_t i = 0; dims && i < NPRIMITIVES; i++)
    if (strlen(primitives[i].name) == n && memcmp(frame, primitives[i].name, n) == 0)
      return put(out, outlen, &at, &primitives[i].code, 1);
  if (dims && put(out, outlen, &at, "L", 1) != 0)
    return -1;
  if (put(out, outlen, &at, frame, n) != 0)
    return -1;
  return dims ? put(out, outlen, &at, ";", 1) : 0;
}
