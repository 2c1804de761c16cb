/* Strict UTF-8 checks and repairs; see fg/utf8.h. */
#include "fg/utf8.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Length of the valid sequence at s (at most n bytes left), 0 if none;
 * *cp gets the code point. Surrogates count as invalid here. */
static size_t sequence(const unsigned char *s, size_t n, uint32_t *cp)
{
  unsigned char c = s[0];
  if (c < 0x80) {
    *cp = c;
    return 1;
  }
  size_t len;
  uint32_t min, v;
  if (c >= 0xc2 && c <= 0xdf) {
    len = 2, min = 0x80, v = c & 0x1f;
  } else if (c >= 0xe0 && c <= 0xef) {
    len = 3, min = 0x800, v = c & 0x0f;
  } else if (c >= 0xf0 && c <= 0xf4) {
    len = 4, min = 0x10000, v = c & 0x07;
  } else {
    return 0;
  }
  if (n < len)
    return 0;
  for (size_t i = 1; i < len; i++) {
    if ((s[i] & 0xc0) != 0x80)
      return 0;
    v = v << 6 | (s[i] & 0x3f);
  }
  if (v < min || v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff))
    return 0;
  *cp = v;
  return len;
}

/* A CESU-8 surrogate pair at s (6 bytes), as the JVM's modified UTF-8 writes
 * a supplementary character: its code point, or 0. */
static uint32_t surrogate_pair(const unsigned char *s, size_t n)
{
  if (n < 6 || s[0] != 0xed || (s[1] & 0xf0) != 0xa0 || (s[2] & 0xc0) != 0x80 || s[3] != 0xed ||
      (s[4] & 0xf0) != 0xb0 || (s[5] & 0xc0) != 0x80)
    return 0;
  uint32_t hi = 0xd000u | (uint32_t)(s[1] & 0x3f) << 6 | (s[2] & 0x3f);
  uint32_t lo = 0xd000u | (uint32_t)(s[4] & 0x3f) << 6 | (s[5] & 0x3f);
  return 0x10000u + ((hi - 0xd800u) << 10) + (lo - 0xdc00u);
}

int fg_utf8_valid(const char *s, size_t len)
{
  const unsigned char *u = (const unsigned char *)s;
  uint32_t cp;
  for (size_t i = 0; i < len;) {
    if (u[i] < 0x80) {
      i++;
      continue;
    }
    size_t k = sequence(u + i, len - i, &cp);
    if (!k)
      return 0;
    i += k;
  }
  return 1;
}

static size_t put(unsigned char *out, uint32_t cp)
{
  if (cp < 0x80) {
    out[0] = (unsigned char)cp;
    return 1;
  }
  if (cp < 0x800) {
    out[0] = (unsigned char)(0xc0 | cp >> 6);
    out[1] = (unsigned char)(0x80 | (cp & 0x3f));
    return 2;
  }
  if (cp < 0x10000) {
    out[0] = (unsigned char)(0xe0 | cp >> 12);
    out[1] = (unsigned char)(0x80 | (cp >> 6 & 0x3f));
    out[2] = (unsigned char)(0x80 | (cp & 0x3f));
    return 3;
  }
  out[0] = (unsigned char)(0xf0 | cp >> 18);
  out[1] = (unsigned char)(0x80 | (cp >> 12 & 0x3f));
  out[2] = (unsigned char)(0x80 | (cp >> 6 & 0x3f));
  out[3] = (unsigned char)(0x80 | (cp & 0x3f));
  return 4;
}

char *fg_utf8_sanitize(const char *s, size_t len, size_t *out_len)
{
  const unsigned char *u = (const unsigned char *)s;
  if (len > (SIZE_MAX - 1) / 3)
    return NULL;
  unsigned char *out = malloc(len * 3 + 1);   /* a bad byte (1) becomes U+FFFD (3) */
  if (!out)
    return NULL;
  size_t o = 0;
  for (size_t i = 0; i < len;) {
    uint32_t cp;
    size_t k = sequence(u + i, len - i, &cp);
    if (k) {
      memcpy(out + o, u + i, k);
      o += k;
      i += k;
    } else if ((cp = surrogate_pair(u + i, len - i)) != 0) {
      o += put(out + o, cp);
      i += 6;
    } else {
      o += put(out + o, 0xfffd);
      i++;
    }
  }
  out[o] = '\0';
  if (out_len)
    *out_len = o;
  return (char *)out;
}

char *fg_utf8_copy(char *dst, size_t cap, const char *src)
{
  if (cap == 0)
    return dst;
  size_t n = strlen(src);
  if (n >= cap) {
    n = cap - 1;
    /* back off over continuation bytes to the start of the cut character */
    size_t start = n;
    while (start > 0 && ((unsigned char)src[start] & 0xc0) == 0x80)
      start--;
    if (start < n && ((unsigned char)src[start] & 0xc0) == 0xc0)
      n = start;
  }
  memcpy(dst, src, n);
  dst[n] = '\0';
  return dst;
}

void fg_utf8_trim_partial(char *s)
{
  size_t n = strlen(s), i = n, cont = 0;
  while (i > 0 && cont < 3 && ((unsigned char)s[i - 1] & 0xc0) == 0x80) {
    i--;
    cont++;
  }
  if (i == 0 || ((unsigned char)s[i - 1] & 0xc0) != 0xc0)
    return;   /* ends in ASCII, or in continuation bytes with no lead: the sanitizer's */
  unsigned char lead = (unsigned char)s[i - 1];
  size_t need = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : 2;
  if (cont + 1 < need)
    s[i - 1] = '\0';
}
