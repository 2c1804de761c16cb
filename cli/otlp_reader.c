/* OpenTelemetry's profiles signal read into a profile (fg/otlp_reader.h).
 * Two passes over the message: the dictionary's tables first (wherever the
 * field is), then each Profile's samples, which index into them. Every
 * element of a table takes at least two bytes of the input, so no table
 * outgrows it; the frames built from stacks are held to FRAMES_PER_BYTE
 * times the input's size, so a file of many samples on one deep stack
 * cannot make the work quadratic. */
#include "fg/event_kinds.h"
#include "fg/otlp_reader.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fg/error_line.h"
#include "fg/grow_array.h"
#include "fg/profile.h"
#include "fg/u64_map.h"

#define FRAMES_PER_BYTE 64
#define NAME_MAX_BYTES 4096   /* a function name or file longer is cut */

struct rd {
  const uint8_t *b;
  size_t pos, end;
  int bad;
};

static uint64_t varint(struct rd *r)
{
  uint64_t v = 0;
  for (int shift = 0; shift < 70; shift += 7) {
    if (r->pos >= r->end) {
      r->bad = 1;
      return 0;
    }
    uint8_t c = r->b[r->pos++];
    v |= (uint64_t)(c & 0x7f) << (shift < 64 ? shift : 63);
    if (!(c & 0x80))
      return v;
  }
  r->bad = 1;
  return 0;
}

/* n little-endian bytes (a fixed64's 8, a fixed32's 4). */
static uint64_t little_endian(const uint8_t *b, size_t n)
{
  uint64_t v = 0;
  for (size_t i = 0; i < n; i++)
    v |= (uint64_t)b[i] << (8 * i);
  return v;
}

enum { WIRE_VARINT = 0, WIRE_I64 = 1, WIRE_LEN = 2, WIRE_I32 = 5 };

struct field {
  uint32_t number, wire;
  uint64_t v;        /* WIRE_VARINT, WIRE_I64, WIRE_I32 */
  struct rd sub;     /* WIRE_LEN: its bytes */
};

/* The next field of r: 1, 0 at r's end, -1 when malformed (r->bad). */
static int next_field(struct rd *r, struct field *f)
{
  if (r->bad || r->pos >= r->end)
    return r->bad ? -1 : 0;
  uint64_t tag = varint(r);
  f->number = (uint32_t)(tag >> 3);
  f->wire = (uint32_t)(tag & 7);
  f->v = 0;
  f->sub = (struct rd){r->b, r->pos, r->pos, 0};
  if (r->bad || f->number == 0 || tag >> 3 > 0x1fffffff) {
    r->bad = 1;
    return -1;
  }
  size_t need = f->wire == WIRE_I64 ? 8 : f->wire == WIRE_I32 ? 4 : 0;
  switch (f->wire) {
  case WIRE_VARINT:
    f->v = varint(r);
    break;
  case WIRE_I64:
  case WIRE_I32:
    if (r->end - r->pos < need) {
      r->bad = 1;
      break;
    }
    f->v = little_endian(r->b + r->pos, need);
    r->pos += need;
    break;
  case WIRE_LEN: {
    uint64_t len = varint(r);
    if (r->bad || len > r->end - r->pos) {
      r->bad = 1;
      break;
    }
    f->sub = (struct rd){r->b, r->pos, r->pos + (size_t)len, 0};
    r->pos += (size_t)len;
    break;
  }
  default:
    r->bad = 1;   /* groups: not in this schema */
  }
  return r->bad ? -1 : 1;
}

/* A repeated integer field's elements, packed or one at a time: calls
 * add(ctx, v) for each. -1 when malformed. */
static int each_int(const struct field *f, int fixed64, int (*add)(void *ctx, uint64_t v), void *ctx)
{
  if (f->wire == (fixed64 ? WIRE_I64 : WIRE_VARINT))
    return add(ctx, f->v);
  if (f->wire != WIRE_LEN)
    return -1;
  struct rd r = f->sub;
  while (r.pos < r.end) {
    uint64_t v = 0;
    if (fixed64) {
      if (r.end - r.pos < 8)
        return -1;
      v = little_endian(r.b + r.pos, 8);
      r.pos += 8;
    } else {
      v = varint(&r);
      if (r.bad)
        return -1;
    }
    if (add(ctx, v) != 0)
      return -1;
  }
  return 0;
}

/* ---- the dictionary ---- */

struct span { size_t pos, len; };
struct function { uint32_t name, system_name, file; };
struct line { uint32_t function; int64_t number; };
struct location { uint32_t first_line, nlines, first_attr, nattrs; };
struct stack { uint32_t first, n; };
struct attribute { uint32_t key; int is_string; struct span s; int64_t num; };

struct u32s { uint32_t *v; uint32_t n, cap; };

struct dict {
  const uint8_t *data;
  struct span *strings; uint32_t nstrings, strings_cap;
  struct function *functions; uint32_t nfunctions, functions_cap;
  struct line *lines; uint32_t nlines, lines_cap;
  struct location *locations; uint32_t nlocations, locations_cap;
  struct stack *stacks; uint32_t nstacks, stacks_cap;
  struct attribute *attributes; uint32_t nattributes, attributes_cap;
  struct u32s loc_attrs, stack_locs;
};

static int push_u32(void *ctx, uint64_t v)
{
  struct u32s *a = ctx;
  if (v > UINT32_MAX || fg_grow_array((void **)&a->v, &a->cap, sizeof *a->v, (size_t)a->n + 1) != 0)
    return -1;
  a->v[a->n++] = (uint32_t)v;
  return 0;
}

#define GROW(d, what) (fg_grow_array((void **)&(d)->what, &(d)->what##_cap, sizeof *(d)->what, (size_t)(d)->n##what + 1))

static int read_function(struct dict *d, struct rd r)
{
  struct function fn = {0};
  struct field f;
  int k;
  while ((k = next_field(&r, &f)) > 0) {
    if (f.wire != WIRE_VARINT)
      continue;
    if (f.number == 1)
      fn.name = (uint32_t)f.v;
    else if (f.number == 2)
      fn.system_name = (uint32_t)f.v;
    else if (f.number == 3)
      fn.file = (uint32_t)f.v;
  }
  if (k < 0 || GROW(d, functions) != 0)
    return -1;
  d->functions[d->nfunctions++] = fn;
  return 0;
}

static int read_location(struct dict *d, struct rd r)
{
  struct location loc = {d->nlines, 0, d->loc_attrs.n, 0};
  struct field f;
  int k;
  while ((k = next_field(&r, &f)) > 0) {
    if (f.number == 3 && f.wire == WIRE_LEN) {
      struct line ln = {0, 0};
      struct field g;
      struct rd lr = f.sub;
      int j;
      while ((j = next_field(&lr, &g)) > 0)
        if (g.wire == WIRE_VARINT && g.number == 1)
          ln.function = (uint32_t)g.v;
        else if (g.wire == WIRE_VARINT && g.number == 2)
          ln.number = (int64_t)g.v;
      if (j < 0 || GROW(d, lines) != 0)
        return -1;
      d->lines[d->nlines++] = ln;
      loc.nlines++;
    } else if (f.number == 4) {
      uint32_t before = d->loc_attrs.n;
      if (each_int(&f, 0, push_u32, &d->loc_attrs) != 0)
        return -1;
      loc.nattrs += d->loc_attrs.n - before;
    }
  }
  if (k < 0 || GROW(d, locations) != 0)
    return -1;
  d->locations[d->nlocations++] = loc;
  return 0;
}

static int read_stack(struct dict *d, struct rd r)
{
  struct stack s = {d->stack_locs.n, 0};
  struct field f;
  int k;
  while ((k = next_field(&r, &f)) > 0)
    if (f.number == 1 && each_int(&f, 0, push_u32, &d->stack_locs) != 0)
      return -1;
  s.n = d->stack_locs.n - s.first;
  if (k < 0 || GROW(d, stacks) != 0)
    return -1;
  d->stacks[d->nstacks++] = s;
  return 0;
}

static int read_attribute(struct dict *d, struct rd r)
{
  struct attribute a = {0};
  struct field f;
  int k;
  while ((k = next_field(&r, &f)) > 0) {
    if (f.number == 1 && f.wire == WIRE_VARINT) {
      a.key = (uint32_t)f.v;
    } else if (f.number == 2 && f.wire == WIRE_LEN) {
      struct field g;
      struct rd vr = f.sub;
      int j;
      while ((j = next_field(&vr, &g)) > 0)
        if (g.number == 1 && g.wire == WIRE_LEN)
          a.is_string = 1, a.s = (struct span){g.sub.pos, g.sub.end - g.sub.pos};
        else if (g.number == 3 && g.wire == WIRE_VARINT)
          a.is_string = 0, a.num = (int64_t)g.v;
      if (j < 0)
        return -1;
    }
  }
  if (k < 0 || GROW(d, attributes) != 0)
    return -1;
  d->attributes[d->nattributes++] = a;
  return 0;
}

static int read_dictionary(struct dict *d, struct rd r)
{
  struct field f;
  int k;
  while ((k = next_field(&r, &f)) > 0) {
    if (f.wire != WIRE_LEN)
      continue;
    int rc = 0;
    switch (f.number) {
    case 2: rc = read_location(d, f.sub); break;
    case 3: rc = read_function(d, f.sub); break;
    case 5:
      if ((rc = GROW(d, strings)) == 0)
        d->strings[d->nstrings++] = (struct span){f.sub.pos, f.sub.end - f.sub.pos};
      break;
    case 6: rc = read_attribute(d, f.sub); break;
    case 7: rc = read_stack(d, f.sub); break;
    default: break;   /* mappings, links: fgagent's frames need neither */
    }
    if (rc != 0)
      return -1;
  }
  return k < 0 ? -1 : 0;
}

/* String i of the table into out (cut at len - 1 bytes); "" when past it. */
static const char *string_at(const struct dict *d, uint32_t i, char *out, size_t len)
{
  size_t n = 0;
  if (i < d->nstrings) {
    n = d->strings[i].len < len - 1 ? d->strings[i].len : len - 1;
    memcpy(out, d->data + d->strings[i].pos, n);
  }
  out[n] = '\0';
  for (size_t k = 0; k < n; k++)   /* a NUL inside would end the name early: never a byte the input lacks */
    if (!out[k])
      out[k] = '?';
  return out;
}

static int string_is(const struct dict *d, uint32_t i, const char *s)
{
  return i < d->nstrings && d->strings[i].len == strlen(s) && memcmp(d->data + d->strings[i].pos, s, d->strings[i].len) == 0;
}

/* ---- profiles ---- */

struct reader {
  struct dict d;
  struct fg_profile *p;
  struct fg_u64_map threads;     /* (thread.id attribute + 1) << 32 | thread.name attribute + 1 -> thread */
  struct fg_u64_map stacks;      /* event, stack and thread -> the profile's stack + 1 */
  uint32_t *frames;
  uint32_t frames_cap;
  uint64_t frame_budget;         /* frames left to build: FRAMES_PER_BYTE x the input's size */
  uint64_t samples;
  const char *why;               /* what was wrong, for the error line */
};

static enum fg_frame_kind kind_of(const struct reader *rd, const struct location *loc)
{
  for (uint32_t k = 0; k < loc->nattrs; k++) {   /* fgagent's own kind, when it wrote the file */
    uint32_t a = rd->d.loc_attrs.v[loc->first_attr + k];
    if (a >= rd->d.nattributes || !string_is(&rd->d, rd->d.attributes[a].key, "fgagent.frame.kind") ||
        !rd->d.attributes[a].is_string)
      continue;
    struct span s = rd->d.attributes[a].s;
    for (int kind = 0; kind < FG_KIND_COUNT; kind++) {
      const char *name = fg_kind_name((enum fg_frame_kind)kind);
      if (strlen(name) == s.len && memcmp(name, rd->d.data + s.pos, s.len) == 0)
        return (enum fg_frame_kind)kind;
    }
  }
  for (uint32_t k = 0; k < loc->nattrs; k++) {
    uint32_t a = rd->d.loc_attrs.v[loc->first_attr + k];
    if (a >= rd->d.nattributes || !string_is(&rd->d, rd->d.attributes[a].key, "profile.frame.type") ||
        !rd->d.attributes[a].is_string)
      continue;
    struct span s = rd->d.attributes[a].s;
    const char *v = (const char *)rd->d.data + s.pos;
    if (s.len == 6 && memcmp(v, "kernel", 6) == 0)
      return FG_KIND_KERNEL;
    if (s.len == 6 && memcmp(v, "native", 6) == 0)
      return FG_KIND_NATIVE;
    return FG_KIND_JAVA;   /* jvm, and the runtimes' other kinds */
  }
  return FG_KIND_MARKER;
}

/* A location's frame names, caller first (its last line is the caller of the
 * lines inlined before it), appended to rd->frames at *n. */
static int location_frames(struct reader *rd, uint32_t index, uint32_t *n)
{
  static const struct location zero;   /* location_table[0], even when a file leaves it out */
  if (index >= rd->d.nlocations && index != 0) {
    rd->why = "a stack names a location the dictionary lacks";
    return -1;
  }
  const struct location *loc = index < rd->d.nlocations ? &rd->d.locations[index] : &zero;
  if ((uint64_t)*n + loc->nlines + 1 > rd->frame_budget) {
    rd->why = "its stacks hold more frames than a file of its size can (64 a byte)";
    return -1;
  }
  if (loc->nlines == 0) {   /* the zero location, or one without lines: a marker */
    if (fg_grow_array((void **)&rd->frames, &rd->frames_cap, sizeof *rd->frames, (size_t)*n + 1) != 0)
      return -1;
    int64_t id = fg_profile_intern(rd->p, "[unknown]", FG_KIND_MARKER);
    if (id < 0)
      return -1;
    rd->frames[(*n)++] = (uint32_t)id;
    return 0;
  }
  if (fg_grow_array((void **)&rd->frames, &rd->frames_cap, sizeof *rd->frames, (size_t)*n + loc->nlines) != 0)
    return -1;
  enum fg_frame_kind kind = kind_of(rd, loc);
  for (uint32_t k = loc->nlines; k-- > 0;) {
    const struct line *ln = &rd->d.lines[loc->first_line + k];
    if (ln->function >= rd->d.nfunctions) {
      rd->why = "a location names a function the dictionary lacks";
      return -1;
    }
    const struct function *fn = &rd->d.functions[ln->function];
    char name[NAME_MAX_BYTES + 32];
    string_at(&rd->d, fn->name ? fn->name : fn->system_name, name, NAME_MAX_BYTES);
    if (!name[0])
      snprintf(name, sizeof name, "[unknown]");
    if (ln->number > 0)
      snprintf(name + strlen(name), 32, ":%lld", (long long)ln->number);
    /* a frame of no known kind: a marker when bracketed, as fgagent's are, else native code */
    int64_t id = fg_profile_intern(rd->p, name, kind != FG_KIND_MARKER || name[0] == '[' ? kind : FG_KIND_NATIVE);
    if (id < 0)
      return -1;
    char file[NAME_MAX_BYTES];
    if (fn->file && !fg_profile_file(rd->p, (uint32_t)id) &&
        fg_profile_set_file(rd->p, (uint32_t)id, string_at(&rd->d, fn->file, file, sizeof file)) != 0)
      return -1;
    rd->frames[(*n)++] = (uint32_t)id;
  }
  return 0;
}

/* The profile's thread of a sample's attributes (thread.id, thread.name);
 * thread "all" when it has neither. */
static int64_t thread_of(struct reader *rd, const uint32_t *attrs, uint32_t nattrs)
{
  uint32_t id_attr = 0, name_attr = 0;
  for (uint32_t k = 0; k < nattrs; k++) {
    uint32_t a = attrs[k];
    if (a == 0 || a >= rd->d.nattributes)
      continue;
    if (string_is(&rd->d, rd->d.attributes[a].key, "thread.id") && !rd->d.attributes[a].is_string)
      id_attr = a;
    else if (string_is(&rd->d, rd->d.attributes[a].key, "thread.name") && rd->d.attributes[a].is_string)
      name_attr = a;
  }
  uint64_t key = ((uint64_t)id_attr + 1) << 32 | ((uint64_t)name_attr + 1);
  uint32_t t;
  if (fg_u64_map_get(&rd->threads, key, &t))
    return t;
  char name[NAME_MAX_BYTES];
  if (name_attr) {
    struct span s = rd->d.attributes[name_attr].s;
    size_t n = s.len < sizeof name - 1 ? s.len : sizeof name - 1;
    memcpy(name, rd->d.data + s.pos, n);
    name[n] = '\0';
    for (size_t k = 0; k < n; k++)
      if (!name[k])
        name[k] = '?';
  } else {
    snprintf(name, sizeof name, id_attr ? "[thread]" : "all");
  }
  int64_t tid = id_attr ? rd->d.attributes[id_attr].num : 0;
  int64_t at = fg_profile_add_thread(rd->p, tid >= 0 && tid <= INT32_MAX ? (int)tid : 0, name);
  if (at < 0 || fg_u64_map_put(&rd->threads, key, (uint32_t)at) != 0)
    return -1;
  return at;
}

/* What a Profile's values are. */
struct kind {
  enum fg_stack_event event;
  uint64_t per_sample;   /* CPU in nanoseconds: the period, a value's samples = value / it; else 1 */
};

/* A Profile's values, or event -1 when it is a kernel event past the
 * FG_KERNEL_EVENTS_MAX a profile holds. */
static struct kind profile_kind(struct reader *rd, uint32_t type, uint32_t unit, uint32_t period_unit,
                                uint64_t period)
{
  const struct dict *d = &rd->d;
  for (int e = FG_STACK_ALLOC; e < FG_STACK_KERNEL; e++)   /* a type fgagent writes names its kind */
    if (string_is(d, type, fg_event_kind((enum fg_stack_event)e)->value_type) &&
        (e != FG_STACK_LOCK || string_is(d, unit, "nanoseconds")))
      return (struct kind){(enum fg_stack_event)e, 1};
  if (string_is(d, unit, "events")) {   /* a kernel event's, its type its name ("events": an unnamed one) */
    char name[320] = "";
    if (type < d->nstrings && !string_is(d, type, "events")) {
      size_t len = d->strings[type].len < sizeof name - 1 ? d->strings[type].len : sizeof name - 1;
      memcpy(name, d->data + d->strings[type].pos, len);
      name[len] = '\0';
    }
    int k = fg_stats_kevent_index(&rd->p->stats, name);
    return (struct kind){k < 0 ? (enum fg_stack_event)-1 : (enum fg_stack_event)(FG_STACK_KERNEL + k), 1};
  }
  if (string_is(d, unit, "bytes"))
    return (struct kind){FG_STACK_ALLOC, 1};
  if (string_is(d, type, "delay") || string_is(d, type, "lock") || string_is(d, type, "lock_wait") ||
      string_is(d, type, "contention"))
    return (struct kind){FG_STACK_LOCK, 1};
  if (string_is(d, unit, "nanoseconds") && string_is(d, period_unit, "nanoseconds") && period > 0)
    return (struct kind){FG_STACK_CPU, period};
  return (struct kind){FG_STACK_CPU, 1};
}

struct sample {
  uint32_t stack;
  struct u32s attrs;
  struct { uint64_t *v; uint32_t n, cap; } values, times;
};

static int push_u64(void *ctx, uint64_t v)
{
  struct { uint64_t *v; uint32_t n, cap; } *a = ctx;
  if (fg_grow_array((void **)&a->v, &a->cap, sizeof *a->v, (size_t)a->n + 1) != 0)
    return -1;
  a->v[a->n++] = v;
  return 0;
}

/* The recording's span made to hold time t (ns since 1970): a producer may
 * leave a Profile's time or duration out. */
static void cover(struct fg_stats *st, uint64_t t)
{
  if (!st->start_epoch_ns || t < st->start_epoch_ns) {
    if (st->start_epoch_ns)
      st->wall_ns += st->start_epoch_ns - t;
    st->start_epoch_ns = st->start_ns = t;
  }
  if (t > st->start_ns + st->wall_ns)
    st->wall_ns = t - st->start_ns;
}

static int add_sample(struct reader *rd, const struct kind *k, struct sample *s)
{
  if (s->stack >= rd->d.nstacks && s->stack != 0) {
    rd->why = "a sample names a stack the dictionary lacks";
    return -1;
  }
  if (s->times.n && s->times.n != s->values.n) {
    rd->why = "a sample's values and timestamps differ in number";
    return -1;
  }
  int64_t t = thread_of(rd, s->attrs.v, s->attrs.n);
  if (t < 0)
    return -1;
  /* stacks met again on the same thread cost no new frames; past 2^24
   * stacks or 2^22 threads they are built each time (the budget bounds it) */
  int cached = s->stack < (1u << 24) && (uint64_t)t < (1u << 22);
  uint64_t key = ((uint64_t)s->stack << 24 | (uint64_t)t << 2 | k->event) + 1;
  uint32_t at;
  int64_t index;
  if (cached && fg_u64_map_get(&rd->stacks, key, &at)) {
    index = at;
  } else {
    static const struct stack zero;   /* stack_table[0], even when a file leaves it out */
    const struct stack *st = s->stack < rd->d.nstacks ? &rd->d.stacks[s->stack] : &zero;
    uint32_t n = 0;
    for (uint32_t i = st->n; i-- > 0;)   /* leaf first in the file: root first here */
      if (location_frames(rd, rd->d.stack_locs.v[st->first + i], &n) != 0)
        return -1;
    if (n == 0 && location_frames(rd, 0, &n) != 0)   /* no location: the zero one's "[unknown]" */
      return -1;
    rd->frame_budget -= n < rd->frame_budget ? n : rd->frame_budget;
    index = fg_profile_event_stack(rd->p, k->event, (uint32_t)t, rd->frames, n);
    if (index < 0 || (cached && fg_u64_map_put(&rd->stacks, key, (uint32_t)index) != 0))
      return -1;
  }
  struct fg_stats *stats = &rd->p->stats;
  for (uint32_t i = 0; i < s->values.n; i++) {
    uint64_t v = s->values.v[i];
    uint64_t count = k->per_sample > 1 ? (v + k->per_sample / 2) / k->per_sample : v;
    if (count == 0)
      continue;
    if (count > (1ull << 53)) {
      rd->why = "a value is past 2^53";
      return -1;
    }
    uint64_t time = s->times.n ? s->times.v[i] : 0;
    if (time)
      cover(stats, time);
    fg_profile_count(rd->p, (uint32_t)index, count, time, 0);
    rd->samples++;
    const struct fg_stack *st = &rd->p->stacks[index];
    if (k->event == FG_STACK_CPU) {
      fg_profile_account(rd->p, fg_stack_frames(rd->p, st), st->nframes, count);
    } else {
      struct fg_event_stats *e = fg_stats_event(stats, k->event);
      rd->p->stacks[index].events++;
      e->on = 1;
      e->taken++;
      e->stored++;
      e->weight += count;
      e->events++;
    }
  }
  return 0;
}

static int read_profile(struct reader *rd, struct rd r)
{
  uint32_t type = 0, unit = 0, period_unit = 0;
  uint64_t period = 0, time = 0, duration = 0;
  struct field f;
  int k;
  struct rd scan = r;
  while ((k = next_field(&scan, &f)) > 0) {   /* what the values are, wherever it is said */
    if ((f.number == 1 || f.number == 5) && f.wire == WIRE_LEN) {
      struct field g;
      struct rd vr = f.sub;
      int j;
      uint32_t t = 0, u = 0;
      while ((j = next_field(&vr, &g)) > 0)
        if (g.wire == WIRE_VARINT && g.number == 1)
          t = (uint32_t)g.v;
        else if (g.wire == WIRE_VARINT && g.number == 2)
          u = (uint32_t)g.v;
      if (j < 0)
        return -1;
      if (f.number == 1)
        type = t, unit = u;
      else
        period_unit = u;
    } else if (f.number == 3 && f.wire == WIRE_I64) {
      time = f.v;
    } else if (f.number == 4 && f.wire == WIRE_VARINT) {
      duration = f.v;
    } else if (f.number == 6 && f.wire == WIRE_VARINT) {
      period = f.v;
    }
  }
  if (k < 0)
    return -1;
  struct kind kd = profile_kind(rd, type, unit, period_unit, period);
  if ((int)kd.event < 0) {
    rd->why = "more than " FG_KERNEL_EVENTS_MAX_TEXT " kernel events (Profiles whose values' unit is events)";
    return -1;
  }
  struct fg_stats *st = &rd->p->stats;
  if (time) {
    cover(st, time);
    cover(st, time + duration);
  }
  if (kd.event == FG_STACK_CPU && kd.per_sample > 1)
    st->interval_ns = kd.per_sample;
  if (kd.event == FG_STACK_ALLOC && period && string_is(&rd->d, period_unit, "bytes"))
    st->alloc.interval = period;

  int rc = 0;
  while (rc == 0 && (k = next_field(&r, &f)) > 0) {
    if (f.number != 2 || f.wire != WIRE_LEN)
      continue;
    struct sample s = {0};
    struct rd sr = f.sub;
    struct field g;
    int j;
    while (rc == 0 && (j = next_field(&sr, &g)) > 0) {
      if (g.number == 1 && g.wire == WIRE_VARINT)
        s.stack = g.v > UINT32_MAX ? UINT32_MAX : (uint32_t)g.v;
      else if (g.number == 2)
        rc = each_int(&g, 0, push_u32, &s.attrs);
      else if (g.number == 4)
        rc = each_int(&g, 0, push_u64, &s.values);
      else if (g.number == 5)
        rc = each_int(&g, 1, push_u64, &s.times);
    }
    if (rc == 0 && j < 0)
      rc = -1;
    if (rc == 0 && s.values.n == 0)   /* timestamps only: each one sample */
      for (uint32_t i = 0; rc == 0 && i < s.times.n; i++)
        rc = push_u64(&s.values, kd.per_sample);
    if (rc == 0)
      rc = add_sample(rd, &kd, &s);
    free(s.attrs.v);
    free(s.values.v);
    free(s.times.v);
  }
  return rc != 0 || k < 0 ? -1 : 0;
}

/* Each Profile of ResourceProfiles r (through its ScopeProfiles). */
static int read_resource(struct reader *rd, struct rd r)
{
  struct field f;
  int k;
  while ((k = next_field(&r, &f)) > 0) {
    if (f.number != 2 || f.wire != WIRE_LEN)
      continue;
    struct rd sr = f.sub;
    struct field g;
    int j;
    while ((j = next_field(&sr, &g)) > 0)
      if (g.number == 2 && g.wire == WIRE_LEN && read_profile(rd, g.sub) != 0)
        return -1;
    if (j < 0)
      return -1;
  }
  return k < 0 ? -1 : 0;
}

int fg_parse_otlp(const uint8_t *data, size_t len, const char *source, struct fg_profile *p, char *err,
                  size_t errlen)
{
  struct reader rd = {.d = {.data = data}, .p = p};
  rd.frame_budget = (uint64_t)len * FRAMES_PER_BYTE;
  fg_u64_map_init(&rd.threads);
  fg_u64_map_init(&rd.stacks);
  snprintf(p->stats.event, sizeof p->stats.event, "otlp");
  snprintf(p->stats.event_detail, sizeof p->stats.event_detail, "read from OpenTelemetry profiles: %s", source);
  int rc = 0;
  struct rd r = {data, 0, len, 0};
  struct field f;
  int k;
  while (rc == 0 && (k = next_field(&r, &f)) > 0)
    if (f.number == 2 && f.wire == WIRE_LEN && read_dictionary(&rd.d, f.sub) != 0)
      rc = fg_error_line(err, errlen, "%s: byte %zu: the dictionary is corrupt", source, f.sub.pos);
  if (rc == 0 && k < 0)
    rc = fg_error_line(err, errlen, "%s: byte %zu: not a ProfilesData message (a field runs past its end); accepted: "
              "OpenTelemetry profiles, as fgagent's .otlp files hold them", source, r.pos);
  r = (struct rd){data, 0, len, 0};
  while (rc == 0 && (k = next_field(&r, &f)) > 0)
    if (f.number == 1 && f.wire == WIRE_LEN && read_resource(&rd, f.sub) != 0)
      rc = fg_error_line(err, errlen, "%s: byte %zu: a profile is corrupt%s%s", source, f.sub.pos, rd.why ? ": " : "",
                rd.why ? rd.why : "");
  if (rc == 0 && rd.samples == 0)
    rc = fg_error_line(err, errlen, "%s: no sample in the file; accepted: OpenTelemetry profiles (a ProfilesData "
              "message) with samples", source);
  free(rd.d.strings);
  free(rd.d.functions);
  free(rd.d.lines);
  free(rd.d.locations);
  free(rd.d.stacks);
  free(rd.d.attributes);
  free(rd.d.loc_attrs.v);
  free(rd.d.stack_locs.v);
  free(rd.frames);
  fg_u64_map_free(&rd.threads);
  fg_u64_map_free(&rd.stacks);
  return rc;
}
