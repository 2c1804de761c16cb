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

/* data[0..len) as ASCII text 7 bits a character, about 8/7 of its size
 * where base64 is 4/3: its bits, high first, in groups of 7 (the last
 * padded with zero bits), each group the character of its value, except NUL,
 * CR, ',', '<' and DEL (a script element's text cannot hold the first two
 * as they are, the next two end a part or the element), each of which is
 * DEL and the digit of its place in that list ("\x7f2" is ','). ASCII alone,
 * not two-byte UTF-8 characters for them: Chromium parses a page of ASCII
 * text in about half the time. A reader takes floor(bits / 8) bytes. 0, or
 * -1 when a write failed. */
int fg_put_text7(FILE *out, const uint8_t *data, size_t len);

#endif
