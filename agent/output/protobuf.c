/* Protocol buffers' wire format: the fields pprof's and OTLP's writers use. */
#include "output/protobuf.h"

void fg_pb_int(struct fg_bytes *p, int field, uint64_t v)
{
  fg_bytes_varint(p, (uint64_t)field << 3 | 0);
  fg_bytes_varint(p, v);
}

void fg_pb_le64(struct fg_bytes *p, uint64_t v)
{
  uint8_t b[8];
  for (int i = 0; i < 8; i++)
    b[i] = (uint8_t)(v >> (8 * i));
  fg_bytes_raw(p, b, sizeof b);
}

void fg_pb_fixed64(struct fg_bytes *p, int field, uint64_t v)
{
  fg_bytes_varint(p, (uint64_t)field << 3 | 1);
  fg_pb_le64(p, v);
}

void fg_pb_bytes(struct fg_bytes *p, int field, const void *data, size_t n)
{
  fg_bytes_varint(p, (uint64_t)field << 3 | 2);
  fg_bytes_varint(p, n);
  fg_bytes_raw(p, data, n);
}

void fg_pb_message(struct fg_bytes *p, int field, struct fg_bytes *msg)
{
  fg_bytes_varint(p, (uint64_t)field << 3 | 2);
  fg_bytes_varint(p, msg->len);
  fg_bytes_move(p, msg);
}
