/* See fg/switch_decoder.h. */
#include "fg/switch_decoder.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* from <linux/perf_event.h>, kept here so the decoder builds anywhere */
#define REC_LOST 2
#define REC_SWITCH 14
#define REC_SWITCH_CPU_WIDE 15
#define REC_TYPES_KNOWN 64          /* the kernel's enum ends far below: above is garbage */
#define MISC_SWITCH_OUT (1u << 13)
#define SAMPLE_ID_BYTES 24          /* pid, tid; time; cpu, reserved */

static uint32_t u32_at(const uint8_t *p) { uint32_t v; memcpy(&v, p, 4); return v; }
static uint16_t u16_at(const uint8_t *p) { uint16_t v; memcpy(&v, p, 2); return v; }
static uint64_t u64_at(const uint8_t *p) { uint64_t v; memcpy(&v, p, 8); return v; }

void fg_switch_stream_init(struct fg_switch_stream *s, uint32_t stream)
{
  memset(s, 0, sizeof *s);
  s->stream = stream;
}

static int fail(struct fg_switch_stream *s, size_t at, char *err, size_t errlen, const char *fmt, ...)
{
  char why[160];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(why, sizeof why, fmt, ap);
  va_end(ap);
  snprintf(err, errlen, "malformed perf context switch records for cpu/thread %u at byte offset %llu: %s",
           s->stream, (unsigned long long)(s->offset + at), why);
  s->failed = true;
  return -1;
}

static void emit(fg_execution_fn fn, void *ctx, enum fg_exec_kind kind, uint32_t cpu, int32_t pid, int32_t tid,
                 uint64_t start, uint64_t end)
{
  struct fg_execution e = {kind, cpu, pid, tid, start, end};
  fn(ctx, &e);
}

/* One switch record against the previous one of the stream (seed 003's
 * RecoverExecutionsFromConsecutiveRecords). */
static void consecutive(struct fg_switch_stream *s, bool out, int32_t pid, int32_t tid, uint32_t cpu,
                        uint64_t time, fg_execution_fn fn, void *ctx)
{
  if (!s->has_prev) {
    if (out)
      emit(fn, ctx, FG_EXEC_ONLY_END, cpu, pid, tid, 0, time);
    return;
  }
  if (!out && !s->prev_out) {
    emit(fn, ctx, FG_EXEC_HINTED_END, s->prev_cpu, s->prev_pid, s->prev_tid, s->prev_time, time - 1);
  } else if (out && s->prev_out) {
    emit(fn, ctx, FG_EXEC_HINTED_START, cpu, pid, tid, s->prev_time + 1, time);
  } else if (out && !s->prev_out) {
    if (pid == s->prev_pid && tid == s->prev_tid) {
      emit(fn, ctx, FG_EXEC_COMPLETE, cpu, pid, tid, s->prev_time, time);
    } else {
      emit(fn, ctx, FG_EXEC_HINTED_END, s->prev_cpu, s->prev_pid, s->prev_tid, s->prev_time, time - 1);
      emit(fn, ctx, FG_EXEC_HINTED_START, cpu, pid, tid, s->prev_time + 1, time);
    }
  }
}

int fg_switch_decode(struct fg_switch_stream *s, const uint8_t *data, size_t len, fg_execution_fn fn, void *ctx,
                     char *err, size_t errlen)
{
  if (s->failed)
    return fail(s, 0, err, errlen, "the stream already failed");
  size_t at = 0;
  while (at < len) {
    if (len - at < 8)
      return fail(s, at, err, errlen, "%zu bytes left, less than a record header", len - at);
    const uint8_t *r = data + at;
    uint32_t type = u32_at(r);
    uint16_t misc = u16_at(r + 4), size = u16_at(r + 6);
    if (size == 0)
      return fail(s, at, err, errlen, "a record of size 0");
    if (size % 8)
      return fail(s, at, err, errlen, "a record of %u bytes, not a multiple of 8", size);
    if (size > len - at)
      return fail(s, at, err, errlen, "a record of %u bytes runs past the %zu bytes left", size, len - at);
    if (type == 0 || type >= REC_TYPES_KNOWN)
      return fail(s, at, err, errlen, "unknown record type %u", type);
    if (type == REC_SWITCH || type == REC_SWITCH_CPU_WIDE) {
      size_t body = type == REC_SWITCH_CPU_WIDE ? 8 : 0;
      if (size < 8 + body + SAMPLE_ID_BYTES)
        return fail(s, at, err, errlen, "a switch record of %u bytes, too small for its sample id", size);
      const uint8_t *id = r + 8 + body;
      int32_t pid = (int32_t)u32_at(id), tid = (int32_t)u32_at(id + 4);
      uint64_t time = u64_at(id + 8);
      uint32_t cpu = u32_at(id + 16);
      if (s->has_prev && time <= s->prev_time)
        return fail(s, at, err, errlen, "time goes backwards (%llu after %llu)", (unsigned long long)time,
                    (unsigned long long)s->prev_time);
      bool out = (misc & MISC_SWITCH_OUT) != 0;
      consecutive(s, out, pid, tid, cpu, time, fn, ctx);
      s->has_prev = true;
      s->prev_out = out;
      s->prev_pid = pid;
      s->prev_tid = tid;
      s->prev_cpu = cpu;
      s->prev_time = time;
      s->switches++;
    } else if (type == REC_LOST) {
      if (size < 8 + 16)
        return fail(s, at, err, errlen, "a lost record of %u bytes, too small", size);
      s->lost += u64_at(r + 16);
    }
    at += size;
  }
  s->offset += len;
  return 0;
}

void fg_switch_finish(struct fg_switch_stream *s, fg_execution_fn fn, void *ctx)
{
  if (s->has_prev && !s->prev_out && !s->failed)
    emit(fn, ctx, FG_EXEC_ONLY_START, s->prev_cpu, s->prev_pid, s->prev_tid, s->prev_time, UINT64_MAX);
  s->has_prev = false;
}
