/* pprof's profile.proto, gzip'd: what `go tool pprof` reads.
 * Sample types samples/count and cpu/nanoseconds (alloc: alloc_objects/count
 * and alloc_space/bytes; lock: contentions/count and delay/nanoseconds, the
 * names Go's own profiles use, so pprof and Pyroscope show them as theirs);
 * one Location per frame,
 * one Function per method (a name's ":line" suffix becomes the Line's line);
 * the summary as comments; a "thread" label per sample when per_thread.
 * The gzip stream uses stored (uncompressed) deflate blocks: no zlib needed. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "fg/event_kinds.h"
#include "fg/utf8.h"
#include "fg/output.h"
#include "fg/profile.h"
#include "output/byte_buffer.h"
#include "output/protobuf.h"
#include "output/frame_name.h"

/* ---- the string table: a profile's name table, every string of one kind ---- */

static int64_t string_id(struct fg_profile *table, const char *s)
{
  return fg_profile_intern(table, s, FG_KIND_MARKER);
}

/* ---- gzip with stored blocks ---- */

static uint32_t crc32_of(const uint8_t *data, size_t n)
{
  static uint32_t table[256];
  if (!table[1])
    for (uint32_t i = 0; i < 256; i++) {
      uint32_t c = i;
      for (int k = 0; k < 8; k++)
        c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
      table[i] = c;
    }
  uint32_t crc = 0xffffffffu;
  for (size_t i = 0; i < n; i++)
    crc = table[(crc ^ data[i]) & 0xff] ^ (crc >> 8);
  return crc ^ 0xffffffffu;
}

static int put_le32(FILE *out, uint32_t v)
{
  uint8_t b[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};
  return fwrite(b, 1, 4, out) == 4 ? 0 : -1;
}

static int write_gzip(FILE *out, const uint8_t *data, size_t n)
{
  static const uint8_t header[10] = {0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff};
  if (fwrite(header, 1, sizeof header, out) != sizeof header)
    return -1;
  size_t pos = 0;
  do {
    size_t chunk = n - pos > 65535 ? 65535 : n - pos;
    uint8_t block[5] = {(uint8_t)(pos + chunk == n), (uint8_t)chunk, (uint8_t)(chunk >> 8),
                        (uint8_t)~chunk, (uint8_t)(~chunk >> 8)};
    if (fwrite(block, 1, 5, out) != 5 || fwrite(data + pos, 1, chunk, out) != chunk)
      return -1;
    pos += chunk;
  } while (pos < n);
  return put_le32(out, crc32_of(data, n)) || put_le32(out, (uint32_t)n) ? -1 : 0;
}

/* ---- the profile ---- */

static int encode(struct fg_bytes *out, const struct fg_profile *p, bool per_thread, struct fg_profile *st)
{
  struct fg_bytes m = {0}, sub = {0};
  int rc = -1;
  if (string_id(st, "") != 0)
    goto done;
  /* sample types, period type */
  enum fg_stack_event e = p->event;
  const struct fg_event_kind *kind = fg_event_kind(e);
  /* a kernel event's counts are typed by its name ("page-faults"): the kind alone says only "events" */
  const char *value_type = fg_stack_kernel_index(e) >= 0 ? fg_event_title_name(&p->stats, e) : kind->value_type;
  const char *types[2][2] = {{kind->events_type, "count"},
                             {e == FG_STACK_CPU ? "cpu" : value_type, e == FG_STACK_CPU ? "nanoseconds" : kind->unit}};
  for (int i = 0; i < 2; i++) {
    fg_pb_int(&m, 1, (uint64_t)string_id(st, types[i][0]));
    fg_pb_int(&m, 2, (uint64_t)string_id(st, types[i][1]));
    fg_pb_message(out, 1, &m);
  }
  /* functions and locations: one each per frame name; ids are name id + 1 */
  for (uint32_t id = 0; id < p->nnames; id++) {
    char function[1024];
    int64_t line = fg_frame_split_line(p->names[id], function, sizeof function);
    const char *file = fg_profile_file(p, id);
    fg_pb_int(&m, 1, id + 1);
    fg_pb_int(&m, 2, (uint64_t)string_id(st, function));
    fg_pb_int(&m, 3, (uint64_t)string_id(st, function));
    fg_pb_int(&m, 4, (uint64_t)string_id(st, file ? file : ""));
    fg_pb_message(out, 5, &m);
    fg_pb_int(&sub, 1, id + 1);
    fg_pb_int(&sub, 2, (uint64_t)line);
    fg_pb_int(&m, 1, id + 1);
    fg_pb_message(&m, 4, &sub);
    fg_pb_message(out, 4, &m);
  }
  /* samples, leaf first */
  uint64_t weight = fg_stats_ns_per_sample(&p->stats);
  int64_t thread_key = string_id(st, "thread");
  for (uint32_t i = 0; i < p->nstacks; i++) {
    const struct fg_stack *s = &p->stacks[i];
    if (s->event != e)
      continue;
    const uint32_t *frames = fg_stack_frames(p, s);
    for (uint32_t f = s->nframes; f-- > 0;)
      fg_bytes_varint(&sub, frames[f] + 1);
    fg_pb_message(&m, 1, &sub);             /* packed location ids */
    fg_bytes_varint(&sub, e == FG_STACK_CPU ? s->count : s->events);
    fg_bytes_varint(&sub, e == FG_STACK_CPU ? s->count * weight : s->count);
    fg_pb_message(&m, 2, &sub);             /* packed values */
    if (per_thread) {
      const struct fg_thread_info *th = &p->threads[s->thread];
      char cut[256], label[300];   /* a long name is cut on a character boundary */
      snprintf(label, sizeof label, "%s tid=%d", fg_utf8_copy(cut, sizeof cut, th->name), th->tid);
      struct fg_bytes lab = {0};
      fg_pb_int(&lab, 1, (uint64_t)thread_key);
      fg_pb_int(&lab, 2, (uint64_t)string_id(st, label));
      fg_pb_message(&m, 3, &lab);
      free(lab.b);
    }
    fg_pb_message(out, 2, &m);
  }
  /* the summary, line by line, as comments */
  char *summary = fg_summary_text(&p->stats);
  for (char *line = summary ? strtok(summary, "\n") : NULL; line; line = strtok(NULL, "\n"))
    fg_pb_int(out, 13, (uint64_t)string_id(st, line));
  free(summary);
  /* period: the time one sample stands for (alloc: the bytes between samples; lock: one wait) */
  fg_pb_int(&m, 1, (uint64_t)string_id(st, e == FG_STACK_CPU ? "cpu" : kind->period_type));
  fg_pb_int(&m, 2, (uint64_t)string_id(st, e == FG_STACK_CPU ? "nanoseconds" : kind->period_unit));
  fg_pb_message(out, 11, &m);
  fg_pb_int(out, 12, e == FG_STACK_CPU ? weight : fg_event_period(&p->stats, e));
  fg_pb_int(out, 10, p->stats.wall_ns);
  /* the view pprof opens with: time when one sample's time is known, else counts; bytes; delay */
  fg_pb_int(out, 14, (uint64_t)string_id(st, e != FG_STACK_CPU ? value_type : weight ? "cpu" : "samples"));
  /* the string table last: every string is known by now */
  for (uint32_t i = 0; i < st->nnames; i++)
    fg_pb_bytes(out, 6, st->names[i], strlen(st->names[i]));
  rc = out->failed || m.failed || sub.failed ? -1 : 0;
done:
  free(m.b);
  free(sub.b);
  return rc;
}

int fg_write_pprof(FILE *out, const struct fg_profile *p, const struct fg_output_settings *cfg)
{
  struct fg_bytes buf = {0};
  struct fg_profile st;
  fg_profile_init(&st);
  int rc;
  if (cfg->per_thread) {
    rc = encode(&buf, p, true, &st);
  } else {
    struct fg_profile merged;
    rc = fg_profile_merge_threads(p, false, &merged);
    if (rc == 0)
      rc = encode(&buf, &merged, false, &st);
    fg_profile_free(&merged);
  }
  if (rc == 0)
    rc = write_gzip(out, buf.b, buf.len);
  free(buf.b);
  fg_profile_free(&st);
  return rc;
}
