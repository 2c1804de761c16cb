/* Protocol buffers' wire format for the writers that speak it (pprof,
 * OpenTelemetry's profiles): a field is its number and wire type as one
 * varint, then a varint, 8 little-endian bytes, or a length and bytes. */
#ifndef FG_PROTOBUF_H
#define FG_PROTOBUF_H

#include <stddef.h>
#include <stdint.h>

#include "output/byte_buffer.h"

/* A varint field (int32, int64, uint64, bool; never negative here). */
void fg_pb_int(struct fg_bytes *p, int field, uint64_t v);
/* v as 8 little-endian bytes: a fixed64's value, or an element of a packed list of them. */
void fg_pb_le64(struct fg_bytes *p, uint64_t v);
/* A fixed64 field. */
void fg_pb_fixed64(struct fg_bytes *p, int field, uint64_t v);
/* A length-delimited field of n bytes (string, bytes). */
void fg_pb_bytes(struct fg_bytes *p, int field, const void *data, size_t n);
/* msg's bytes as a length-delimited field (a message, a packed list); msg is
 * emptied for reuse. */
void fg_pb_message(struct fg_bytes *p, int field, struct fg_bytes *msg);

#endif
