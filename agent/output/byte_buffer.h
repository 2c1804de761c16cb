/* A growing byte buffer for the binary writers (pprof, JFR): raw bytes and
 * LEB128 varints, the integer encoding both formats use. */
#ifndef FG_BYTE_BUFFER_H
#define FG_BYTE_BUFFER_H

#include <stddef.h>
#include <stdint.h>

struct fg_bytes {
  uint8_t *b;
  size_t len, cap;
  int failed;   /* an allocation failed; the content is incomplete */
};

void fg_bytes_raw(struct fg_bytes *o, const void *data, size_t n);
/* v in 7-bit groups, low first, the top bit of each byte saying one follows. */
void fg_bytes_varint(struct fg_bytes *o, uint64_t v);
/* How many bytes fg_bytes_varint writes for v. */
size_t fg_bytes_varint_len(uint64_t v);
/* Appends src's content (marking o failed if src had failed) and empties src. */
void fg_bytes_move(struct fg_bytes *o, struct fg_bytes *src);

#endif
