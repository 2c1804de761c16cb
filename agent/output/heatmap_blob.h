/* The heatmap page's data: deflated (raw deflate, which the browser's
 * DecompressionStream("deflate-raw") reads) and written 7 bits a character. */
#ifndef FG_HEATMAP_BLOB_H
#define FG_HEATMAP_BLOB_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct fg_bytes;

/* Where a part's streams of like bytes end, a deflate block ending at each. */
#define FG_HEATMAP_CUTS 7
struct fg_heatmap_cuts {
  size_t at[FG_HEATMAP_CUTS];   /* ascending offsets in the part */
  unsigned n;
};

/* Writes "deflate-raw:" and each part deflated on its own (its cuts[i], when
 * cuts is not NULL) as fg_put_text7's text, a
 * comma between them; or, when zlib cannot be loaded, "raw:" and the parts
 * as they are (the page reads either). 0, or -1 when a write or an
 * allocation failed. */
int fg_heatmap_put_parts(FILE *out, const struct fg_bytes *parts, const struct fg_heatmap_cuts *cuts, size_t n);

/* data[0..len) as UTF-8 text 7 bits a character, 8/7 of its size where base64
 * is 4/3: its bits, high first, in groups of 7 (the last padded with zero
 * bits), each group the ASCII character of its value, except NUL, CR, ','
 * and '<' (a script element's text cannot hold them, or they separate the
 * parts): the j-th of those (in that order) and the group after it are the
 * one character U+0100 + (j << 7 | next), two UTF-8 bytes; the j-th as the
 * last group is U+0100 + ((4 + j) << 7). A reader takes floor(bits / 8)
 * bytes. 0, or -1 when a write failed. */
int fg_put_text7(FILE *out, const uint8_t *data, size_t len);

#endif
