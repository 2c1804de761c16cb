/* Deflate through the system's zlib, loaded when a page is written: not
 * linked, so the agent adds no library to the JVM's and binds no symbol of
 * the JDK's own zlib copy (dlopen with RTLD_LOCAL, dlsym from its handle). */
#include "output/heatmap_blob.h"

#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "output/byte_buffer.h"

/* The values a group cannot be as the character itself: NUL and CR (the
 * HTML parser replaces them), ',' (it separates the parts), '<' (it could
 * end the script element) and DEL, which escapes them. */
static const uint8_t bad7[5] = {0, '\r', ',', '<', 127};

int fg_put_text7(FILE *out, const uint8_t *data, size_t len)
{
  char buf[4096];
  size_t n = 0, groups = (len * 8 + 6) / 7, i = 0;
  uint32_t acc = 0;
  int bits = 0;
  for (size_t g = 0; g < groups; g++) {
    if (bits < 7) {
      acc = (acc << 8 | (i < len ? data[i] : 0)) & 0xffff;   /* past the end: zero bits */
      i++;
      bits += 8;
    }
    bits -= 7;
    uint8_t v = (uint8_t)(acc >> bits & 127);
    int j = 0;
    while (j < 5 && v != bad7[j])
      j++;
    if (j < 5) {
      buf[n++] = 127;
      buf[n++] = (char)('0' + j);
    } else {
      buf[n++] = (char)v;
    }
    if (n >= sizeof buf - 4) {
      if (fwrite(buf, 1, n, out) != n)
        return -1;
      n = 0;
    }
  }
  return fwrite(buf, 1, n, out) == n ? 0 : -1;
}

typedef int (*deflate_init2_fn)(z_streamp, int, int, int, int, int, const char *, int);
typedef int (*deflate_fn)(z_streamp, int);
typedef int (*deflate_end_fn)(z_streamp);

/* data deflated (raw) into *out, *outlen, a deflate block ending at each of
 * cuts' offsets (cuts may be NULL): each stream of a part gets Huffman codes
 * of its own. 0, or -1 when zlib is not there or failed. */
static int deflate_raw(void *z, const uint8_t *data, size_t len, const struct fg_heatmap_cuts *cuts, uint8_t **out,
                       size_t *outlen)
{
  deflate_init2_fn init = (deflate_init2_fn)dlsym(z, "deflateInit2_");
  deflate_fn step = (deflate_fn)dlsym(z, "deflate");
  deflate_end_fn end = (deflate_end_fn)dlsym(z, "deflateEnd");
  int rc = -1;
  z_stream s;
  memset(&s, 0, sizeof s);
  size_t cap = len / 4 + 4096, n = 0;
  uint8_t *buf = malloc(cap);
  if (!init || !step || !end || !buf || init(&s, 6, Z_DEFLATED, -15, 9, Z_DEFAULT_STRATEGY, ZLIB_VERSION,
                                            (int)sizeof s) != Z_OK) {
    free(buf);
    return -1;
  }
  size_t fed = 0, stop = 0;   /* stop: the next cut, or the end */
  unsigned next = 0;
  int ended = 1;               /* the block up to stop is ended: input past it may follow */
  for (;;) {
    if (s.avail_in == 0 && fed < len && (fed < stop || ended)) {
      if (fed >= stop) {
        while (cuts && next < cuts->n && cuts->at[next] <= fed)
          next++;
        stop = cuts && next < cuts->n && cuts->at[next] < len ? cuts->at[next] : len;
        ended = 0;
      }
      size_t piece = stop - fed < (1u << 30) ? stop - fed : (1u << 30);
      s.next_in = (Bytef *)(uintptr_t)(data + fed);
      s.avail_in = (uInt)piece;
      fed += piece;
    }
    if (n == cap) {
      uint8_t *g = realloc(buf, cap * 2);
      if (!g)
        break;
      buf = g;
      cap *= 2;
    }
    s.next_out = buf + n;
    s.avail_out = (uInt)(cap - n < (1u << 30) ? cap - n : (1u << 30));
    size_t room = s.avail_out;
    int flush = fed == len ? Z_FINISH : fed == stop ? Z_BLOCK : Z_NO_FLUSH;
    int r = step(&s, flush);
    n += room - s.avail_out;
    if (flush == Z_BLOCK && s.avail_in == 0 && s.avail_out != 0)   /* else called again to end it */
      ended = 1;
    if (r == Z_STREAM_END) {
      rc = 0;
      break;
    }
    if (r != Z_OK && r != Z_BUF_ERROR)
      break;
  }
  end(&s);
  if (rc != 0) {
    free(buf);
    return -1;
  }
  *out = buf;
  *outlen = n;
  return 0;
}

int fg_heatmap_put_parts(FILE *out, const struct fg_bytes *parts, const struct fg_heatmap_cuts *cuts, size_t n)
{
  void *z = dlopen("libz.so.1", RTLD_NOW | RTLD_LOCAL);
  int rc = fputs(z ? "deflate-raw:" : "raw:", out) < 0 ? -1 : 0;
  for (size_t i = 0; rc == 0 && i < n; i++) {
    if (i && fputc(',', out) == EOF)
      rc = -1;
    uint8_t *packed = NULL;
    size_t len = 0;
    if (rc == 0 && z) {
      rc = deflate_raw(z, parts[i].b, parts[i].len, cuts ? &cuts[i] : NULL, &packed, &len);
      if (rc == 0)
        rc = fg_put_text7(out, packed, len);
      free(packed);
    } else if (rc == 0) {
      rc = fg_put_text7(out, parts[i].b, parts[i].len);
    }
  }
  if (z)
    dlclose(z);
  return rc;
}
