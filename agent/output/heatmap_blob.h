/* The heatmap page's data: deflated (raw deflate, which the browser's
 * DecompressionStream("deflate-raw") reads) and written as base64. */
#ifndef FG_HEATMAP_BLOB_H
#define FG_HEATMAP_BLOB_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct fg_bytes;

/* Writes "deflate-raw:" and each part deflated on its own in base64, a
 * comma between them; or, when zlib cannot be loaded, "raw:" and the parts
 * as they are (the page reads either). 0, or -1 when a write or an
 * allocation failed. */
int fg_heatmap_put_parts(FILE *out, const struct fg_bytes *parts, size_t n);

/* Base64 of data[0..len) to out. 0, or -1 when a write failed. */
int fg_put_base64(FILE *out, const uint8_t *data, size_t len);

#endif
