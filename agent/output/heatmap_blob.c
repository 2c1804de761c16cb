/* Deflate through the system's zlib, loaded when a page is written: not
 * linked, so the agent adds no library to the JVM's and binds no symbol of
 * the JDK's own zlib copy (dlopen with RTLD_LOCAL, dlsym from its handle). */
#include "output/heatmap_blob.h"

#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "output/byte_buffer.h"

int fg_put_base64(FILE *out, const uint8_t *data, size_t len)
{
  static const char digits[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  char buf[4096];
  size_t n = 0;
  for (size_t i = 0; i < len; i += 3) {
    uint32_t v = (uint32_t)data[i] << 16 | (i + 1 < len ? (uint32_t)data[i + 1] << 8 : 0) |
                 (i + 2 < len ? data[i + 2] : 0);
    buf[n++] = digits[v >> 18 & 63];
    buf[n++] = digits[v >> 12 & 63];
    buf[n++] = i + 1 < len ? digits[v >> 6 & 63] : '=';
    buf[n++] = i + 2 < len ? digits[v & 63] : '=';
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

/* data deflated (raw) into *out, *outlen; 0, or -1 when zlib is not there or failed. */
static int deflate_raw(void *z, const uint8_t *data, size_t len, uint8_t **out, size_t *outlen)
{
  deflate_init2_fn init = (deflate_init2_fn)dlsym(z, "deflateInit2_");
  deflate_fn step = (deflate_fn)dlsym(z, "deflate");
  deflate_end_fn end = (deflate_end_fn)dlsym(z, "deflateEnd");
  int rc = -1;
  z_stream s;
  memset(&s, 0, sizeof s);
  size_t cap = len / 4 + 4096, n = 0;
  uint8_t *buf = malloc(cap);
  if (!init || !step || !end || !buf || init(&s, 9, Z_DEFLATED, -15, 9, Z_DEFAULT_STRATEGY, ZLIB_VERSION,
                                            (int)sizeof s) != Z_OK) {
    free(buf);
    return -1;
  }
  size_t fed = 0;
  for (;;) {
    if (s.avail_in == 0 && fed < len) {
      size_t piece = len - fed < (1u << 30) ? len - fed : (1u << 30);
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
    int r = step(&s, fed == len ? Z_FINISH : Z_NO_FLUSH);
    n += room - s.avail_out;
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

int fg_heatmap_put_parts(FILE *out, const struct fg_bytes *parts, size_t n)
{
  void *z = dlopen("libz.so.1", RTLD_NOW | RTLD_LOCAL);
  int rc = fputs(z ? "deflate-raw:" : "raw:", out) < 0 ? -1 : 0;
  for (size_t i = 0; rc == 0 && i < n; i++) {
    if (i && fputc(',', out) == EOF)
      rc = -1;
    uint8_t *packed = NULL;
    size_t len = 0;
    if (rc == 0 && z) {
      rc = deflate_raw(z, parts[i].b, parts[i].len, &packed, &len);
      if (rc == 0)
        rc = fg_put_base64(out, packed, len);
      free(packed);
    } else if (rc == 0) {
      rc = fg_put_base64(out, parts[i].b, parts[i].len);
    }
  }
  if (z)
    dlclose(z);
  return rc;
}
