/* A thread's last walk; see walk_cache.h. */
#include "walk/walk_cache.h"

#include <string.h>

/* Reads logged per frame at most: an interpreted frame reads five words and
 * writes one frame, a compiled one none (fg_walk_cache_sized); the call
 * stub's frame reads up to five and writes none, but follows a Java frame. */
#define READS_PER_FRAME 5

size_t fg_walk_cache_bytes(int frames)
{
  size_t n = frames > 0 ? (size_t)frames : 0;
  return n * (2 * sizeof(struct fg_cached_frame) + sizeof(struct fg_trace_hash)) +
         2 * READS_PER_FRAME * n * sizeof(struct fg_stack_read);
}

void fg_walk_cache_init(struct fg_walk_cache *c, void *mem, int frames)
{
  memset(c, 0, sizeof *c);
  uint32_t n = frames > 0 ? (uint32_t)frames : 0;
  c->cap = n;
  c->read_cap = READS_PER_FRAME * n;
  c->frames = mem;
  c->made = c->frames + n;
  c->hashes = (struct fg_trace_hash *)(c->made + n);
  c->reads = (struct fg_stack_read *)(c->hashes + n);
  c->made_reads = c->reads + c->read_cap;
  c->first = c->cap;
  c->spliced_at = c->mismatch = FG_WALK_CACHE_NONE;
  c->min_java = FG_WALK_CACHE_MIN_JAVA;
  c->min_native = FG_WALK_CACHE_MIN_NATIVE;
}

int fg_walk_cache_begin(struct fg_walk_cache *c, uintptr_t code_version, uintptr_t method_version,
                        struct fg_bounds b, int native)
{
  int used = c->last_n >= (native ? c->min_native : c->min_java);
  c->recording = used && c->cap > 0;
  c->pending = 0;
  c->spliced_at = FG_WALK_CACHE_NONE;
  c->usable = 0;
  if (!used)
    return 0;   /* nothing past the first line */
  c->made_n = c->made_reads_n = 0;
  c->now_code = code_version;
  c->now_method = method_version;
  c->now_bounds = b;
  c->usable = c->trace && c->first < c->cap && c->code_version == code_version &&
              c->method_version == method_version && c->bounds.lo == b.lo && c->bounds.hi == b.hi;
  c->at = c->first;
  c->verified = c->cap;
  c->mismatch = FG_WALK_CACHE_NONE;
  return 1;
}

static uintptr_t word_at(uintptr_t addr)
{
  return *(const volatile uintptr_t *)addr;   /* read by the kept walk within the same bounds */
}

/* Whether what kept frame j read still holds. */
static int frame_holds(const struct fg_walk_cache *c, uint32_t j)
{
  const struct fg_cached_frame *e = &c->frames[j];
  uint32_t end = j + 1 < c->cap ? c->frames[j + 1].reads_at : c->read_cap;
  for (uint32_t r = e->reads_at; r < end; r++)
    if (word_at(c->reads[r].addr) != c->reads[r].value)
      return 0;
  if (!e->sized)
    return 1;
  if (j + 1 == c->cap)
    return 0;   /* not kept: a walk that went on from the frame after it */
  const struct fg_cached_frame *next = e + 1;
  return word_at(next->sp - 8) == next->pc && word_at(next->sp - 16) == next->fp;
}

/* Whether every read from kept frame i on still holds. Checked from the
 * end down and remembered, so that no word is read twice in a walk. */
static int holds_from(struct fg_walk_cache *c, uint32_t i)
{
  if (c->mismatch != FG_WALK_CACHE_NONE && c->mismatch >= i)
    return 0;
  while (c->verified > i) {
    if (!frame_holds(c, c->verified - 1)) {
      c->mismatch = c->verified - 1;
      return 0;
    }
    c->verified--;
  }
  return 1;
}

/* The kept frame the walk may go on from at r (a caller frame, java_call as
 * the walker has it), or -1. */
static int match(struct fg_walk_cache *c, const struct fg_regs *r, int java_call)
{
  if (!c->usable)
    return -1;
  while (c->at < c->cap && c->frames[c->at].sp < r->sp)
    c->at++;
  if (c->at == c->cap) {
    c->usable = 0;   /* the walk is past every kept frame */
    return -1;
  }
  const struct fg_cached_frame *e = &c->frames[c->at];
  if (e->sp != r->sp || e->pc != r->pc || e->fp != r->fp || e->java_call != (uint32_t)java_call)
    return -1;
  return holds_from(c, c->at) ? (int)c->at : -1;
}

/* Copies the kept walk's frames from kept frame i on to f/types, when fewer
 * than room: their count, else -1. */
static int reuse(struct fg_walk_cache *c, int i, ASGCT_CallFrame *f, uint8_t *types, int room)
{
  uint32_t len = c->frames[i].to_end;
  if ((int64_t)len >= room || len > c->trace->n)
    return -1;
  uint32_t from = c->trace->n - len;
  const uint64_t *m = fg_trace_methods(c->trace) + from;
  const int32_t *b = fg_trace_bcis(c->trace) + from;
  memcpy(types, fg_trace_types(c->trace) + from, len);
  for (uint32_t j = 0; j < len; j++)
    f[j] = (ASGCT_CallFrame){b[j], (jmethodID)(uintptr_t)m[j]};
  c->spliced_at = (uint32_t)i;
  return (int)len;
}

int fg_walk_cache_suffix(const struct fg_walk_cache *c, struct fg_trace_suffix *known)
{
  if (c->spliced_at == FG_WALK_CACHE_NONE)
    return 0;
  known->len = c->frames[c->spliced_at].to_end;
  known->hash = c->hashes[c->spliced_at];
  return 1;
}

void fg_walk_cache_end(struct fg_walk_cache *c, int n, int ended)
{
  c->pending = ended && c->recording;
  c->last_n = (uint32_t)n;
}

/* The walk's own frames and reads, into frames[at..] and reads[read_at..],
 * with the hashes of trace's frames from each on: taken on from the kept
 * frame the walk went on from, else from none. */
static void put_made(struct fg_walk_cache *c, uint32_t at, uint32_t read_at, const struct fg_trace *trace)
{
  for (uint32_t i = 0; i < c->made_n; i++) {
    struct fg_cached_frame e = c->made[i];
    e.reads_at += read_at;
    e.to_end = c->last_n - e.to_end;
    c->frames[at + i] = e;
  }
  memcpy(c->reads + read_at, c->made_reads, c->made_reads_n * sizeof *c->reads);
  struct fg_trace_hash h;
  uint32_t taken = 0;
  if (c->spliced_at != FG_WALK_CACHE_NONE) {
    h = c->hashes[c->spliced_at];
    taken = c->frames[c->spliced_at].to_end;
  } else {
    fg_trace_hash_begin(&h);
  }
  for (uint32_t j = at + c->made_n; j-- > at;) {   /* the outermost first */
    uint32_t len = c->frames[j].to_end;
    fg_trace_hash_trace_frames(&h, trace, trace->n - len, trace->n - taken);
    c->hashes[j] = h;
    taken = len;
  }
}

/* The walk comes to a caller frame at r, having written n frames. */
static void enter(struct fg_walk_cache *c, const struct fg_regs *r, int java_call, int n)
{
  if (!c->recording)
    return;
  if (c->made_n == c->cap) {
    c->recording = 0;
    return;
  }
  c->made[c->made_n++] = (struct fg_cached_frame){r->pc, r->sp, r->fp, c->made_reads_n, (uint32_t)n,
                                                  (uint32_t)(java_call != 0), 0};
}

int fg_walk_cache_go_on(struct fg_walk_cache *c, const struct fg_regs *r, int java_call, ASGCT_CallFrame *f,
                        uint8_t *types, int n, int room)
{
  int at = match(c, r, java_call);
  int got = at >= 0 ? reuse(c, at, f, types, room - n) : -1;
  if (got < 0)
    enter(c, r, java_call, n);
  return got;
}

static void keep(struct fg_walk_cache *c, const struct fg_trace *trace);

void fg_walk_cache_commit(struct fg_walk_cache *c, const struct fg_trace *trace)
{
  if (c->pending)
    keep(c, trace);
  c->pending = 0;
  c->spliced_at = FG_WALK_CACHE_NONE;   /* a walk that never begins has no suffix to offer */
}

/* The ended walk, its frames the last of trace's, in place of the last one. */
static void keep(struct fg_walk_cache *c, const struct fg_trace *trace)
{
  if (!trace || trace->n < c->last_n)
    return;
  uint32_t at, read_at;
  if (c->spliced_at == FG_WALK_CACHE_NONE) {
    at = c->cap - c->made_n;
    read_at = c->read_cap - c->made_reads_n;
  } else {
    /* the kept frames from spliced_at on stay; this walk's go before them */
    uint32_t rest = c->spliced_at, rest_reads = c->frames[rest].reads_at;
    if (c->made_n > rest || c->made_reads_n > rest_reads)
      return;   /* no room before them: the last walk stays kept */
    at = rest - c->made_n;
    read_at = rest_reads - c->made_reads_n;
  }
  put_made(c, at, read_at, trace);
  c->first = at;
  c->trace = trace;
  c->code_version = c->now_code;
  c->method_version = c->now_method;
  c->bounds = c->now_bounds;
}
