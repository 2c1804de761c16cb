/* Decodes perf_events context-switch records into thread executions, the
 * way LLVM's PerfContextSwitchDecoder does for Intel PT traces (seed 003):
 * consecutive records of one stream (one CPU for PERF_RECORD_SWITCH_CPU_WIDE,
 * one thread for per-thread PERF_RECORD_SWITCH) give
 *   complete       switch-in then switch-out of the same thread
 *   only start     a switch-in with nothing after it (still running at the end)
 *   only end       a switch-out with nothing before it (running at the start)
 *   hinted start   an out after an out (or after another thread's in): the
 *                  start is bounded by the previous record
 *   hinted end     an in after an in (or before another thread's out): the end
 *                  is bounded by the next record
 * Records must carry sample_id_all with PERF_SAMPLE_TID | TIME | CPU. Every
 * header is checked before it is read (size 0, not a multiple of 8, past
 * the data, too small for its type, an unknown type, time going backwards):
 * decoding stops with an error naming the CPU (or stream) and byte offset.
 * PERF_RECORD_LOST is counted. Pure code: no perf_events needed to test it. */
#ifndef FG_SWITCH_DECODER_H
#define FG_SWITCH_DECODER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum fg_exec_kind {
  FG_EXEC_COMPLETE,
  FG_EXEC_ONLY_START,
  FG_EXEC_ONLY_END,
  FG_EXEC_HINTED_START,
  FG_EXEC_HINTED_END,
};

struct fg_execution {
  enum fg_exec_kind kind;
  uint32_t cpu;
  int32_t pid, tid;
  uint64_t start;        /* ns; for a hinted start the earliest it can be; 0 when unknown */
  uint64_t end;          /* ns; for a hinted end the latest it can be; UINT64_MAX when unknown */
};

typedef void (*fg_execution_fn)(void *ctx, const struct fg_execution *e);

/* One stream's state, carried across chunks of its ring buffer. */
struct fg_switch_stream {
  uint32_t stream;       /* the CPU, or the thread id for per-thread streams: named in errors */
  uint64_t offset;       /* bytes decoded so far: error offsets count from the stream's start */
  bool has_prev;
  bool prev_out;
  int32_t prev_pid, prev_tid;
  uint32_t prev_cpu;
  uint64_t prev_time;
  uint64_t switches;     /* switch records seen */
  uint64_t lost;         /* records the kernel dropped (PERF_RECORD_LOST) */
  bool failed;           /* an error stopped it: later chunks are refused */
};

void fg_switch_stream_init(struct fg_switch_stream *s, uint32_t stream);

/* Decodes len bytes of whole records. 0, or -1 with one line in err. */
int fg_switch_decode(struct fg_switch_stream *s, const uint8_t *data, size_t len, fg_execution_fn fn, void *ctx,
                     char *err, size_t errlen);

/* End of the stream: a trailing switch-in becomes an only-start execution. */
void fg_switch_finish(struct fg_switch_stream *s, fg_execution_fn fn, void *ctx);

#endif
