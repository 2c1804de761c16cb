/* OpenTelemetry's profiles signal: one ProfilesData message (the
 * v1development profiles.proto), uncompressed, as a collector's file
 * receiver or an OTLP/HTTP body takes it. One Profile for each event the
 * profile holds, all sharing one dictionary:
 *   - a Location per frame name (a name's ":line" suffix its Line's line),
 *     a Function per name without its line, a "profile.frame.type"
 *     attribute saying jvm, native or kernel (OpenTelemetry's names) and
 *     "fgagent.frame.kind" the kind exactly (interpreted, inlined, ...);
 *   - a Stack per distinct frame sequence, leaf first;
 *   - a Sample per stack and thread, "thread.id" and "thread.name"
 *     attributes, and when the profile has its samples' times, one value and
 *     one timestamp per sample (those the timeline had no room for at the
 *     profile's end, as the JFR writer puts them); else one value, the total.
 * Values: CPU and wall in nanoseconds (samples x the period, the time one
 * sample stands for), or samples when that is not known; alloc in bytes;
 * lock in nanoseconds waited. Every table's entry 0 is its zero value, as
 * the schema requires. */
#include <stdlib.h>
#include <string.h>

#include "fg/event_kinds.h"
#include "fg/output.h"
#include "fg/profile.h"
#include "fg/u64_map.h"
#include "output/byte_buffer.h"
#include "output/frame_name.h"
#include "output/protobuf.h"

/* Field numbers of profiles.proto and common.proto. */
enum {
  DATA_RESOURCE_PROFILES = 1, DATA_DICTIONARY = 2,
  RESOURCE_SCOPE_PROFILES = 2,
  SCOPE_SCOPE = 1, SCOPE_PROFILES = 2, INSTRUMENTATION_NAME = 1,
  DICT_MAPPING = 1, DICT_LOCATION = 2, DICT_FUNCTION = 3, DICT_LINK = 4, DICT_STRING = 5, DICT_ATTRIBUTE = 6,
  DICT_STACK = 7,
  PROFILE_SAMPLE_TYPE = 1, PROFILE_SAMPLES = 2, PROFILE_TIME = 3, PROFILE_DURATION = 4, PROFILE_PERIOD_TYPE = 5,
  PROFILE_PERIOD = 6, PROFILE_ID = 7,
  VALUE_TYPE_TYPE = 1, VALUE_TYPE_UNIT = 2,
  SAMPLE_STACK = 1, SAMPLE_ATTRIBUTES = 2, SAMPLE_VALUES = 4, SAMPLE_TIMESTAMPS = 5,
  STACK_LOCATIONS = 1,
  LOCATION_LINES = 3, LOCATION_ATTRIBUTES = 4,
  LINE_FUNCTION = 1, LINE_LINE = 2,
  FUNCTION_NAME = 1, FUNCTION_SYSTEM_NAME = 2, FUNCTION_FILE = 3,
  LINK_TRACE_ID = 1, LINK_SPAN_ID = 2,
  KV_KEY = 1, KV_VALUE = 2, ANY_STRING = 1, ANY_INT = 3,
};

/* The frame types of OpenTelemetry's semantic conventions we have frames of. */
enum { TYPE_NONE, TYPE_JVM, TYPE_NATIVE, TYPE_KERNEL, TYPE_COUNT };

struct otlp {
  const struct fg_profile *p;
  struct fg_profile strings;        /* the string table: a name's id is its index, "" first */
  struct fg_u64_map function_of;    /* function name's string id + 1 -> function index */
  struct fg_u64_map stack_of;       /* a frame sequence's hash -> the first fg_stack with it */
  uint32_t *stack_index;            /* each fg_stack's Stack index */
  struct fg_bytes functions, locations, stacks, attributes;
  uint32_t nfunctions, nstacks, nattributes;
  uint32_t type_attribute[TYPE_COUNT];
  uint32_t kind_attribute[FG_KIND_COUNT];   /* fgagent.frame.kind's: the kind exactly, for fgprof to read back */
  uint32_t *thread_attributes;      /* two per thread: thread.id's index, thread.name's; 0: none */
};

static uint32_t string_id(struct otlp *o, const char *s)
{
  int64_t id = fg_profile_intern(&o->strings, s, FG_KIND_MARKER);
  if (id < 0) {
    o->functions.failed = 1;   /* any buffer's failure fails the write */
    return 0;
  }
  return (uint32_t)id;
}

/* A KeyValueAndUnit with a string value (or an integer one when s is NULL). */
static uint32_t add_attribute(struct otlp *o, const char *key, const char *s, int64_t v)
{
  struct fg_bytes any = {0}, kv = {0};
  fg_pb_int(&kv, KV_KEY, string_id(o, key));
  if (s)
    fg_pb_bytes(&any, ANY_STRING, s, strlen(s));
  else
    fg_pb_int(&any, ANY_INT, (uint64_t)v);
  fg_pb_message(&kv, KV_VALUE, &any);
  fg_pb_message(&o->attributes, DICT_ATTRIBUTE, &kv);
  free(any.b);
  free(kv.b);
  return o->nattributes++;
}

static int frame_type(enum fg_frame_kind kind)
{
  switch (kind) {
  case FG_KIND_JAVA: case FG_KIND_INTERPRETED: case FG_KIND_COMPILED: case FG_KIND_INLINED: return TYPE_JVM;
  case FG_KIND_NATIVE: return TYPE_NATIVE;
  case FG_KIND_KERNEL: return TYPE_KERNEL;
  default: return TYPE_NONE;
  }
}

/* Locations (index = name id + 1) and their functions. */
static int add_locations(struct otlp *o)
{
  const struct fg_profile *p = o->p;
  static const char *const types[TYPE_COUNT] = {[TYPE_JVM] = "jvm", [TYPE_NATIVE] = "native",
                                                 [TYPE_KERNEL] = "kernel"};
  struct fg_bytes m = {0}, line = {0}, packed = {0};
  for (uint32_t id = 0; id < p->nnames; id++) {
    char function[1024];
    int64_t number = fg_frame_split_line(p->names[id], function, sizeof function);
    uint32_t name = string_id(o, function), index;
    if (!fg_u64_map_get(&o->function_of, (uint64_t)name + 1, &index)) {
      const char *file = fg_profile_file(p, id);
      index = o->nfunctions++;
      if (fg_u64_map_put(&o->function_of, (uint64_t)name + 1, index) != 0)
        o->functions.failed = 1;
      fg_pb_int(&m, FUNCTION_NAME, name);
      fg_pb_int(&m, FUNCTION_SYSTEM_NAME, name);
      if (file && *file)
        fg_pb_int(&m, FUNCTION_FILE, string_id(o, file));
      fg_pb_message(&o->functions, DICT_FUNCTION, &m);
    }
    fg_pb_int(&line, LINE_FUNCTION, index);
    if (number > 0)
      fg_pb_int(&line, LINE_LINE, (uint64_t)number);
    fg_pb_message(&m, LOCATION_LINES, &line);
    enum fg_frame_kind kind = fg_profile_kind(p, id);
    int type = frame_type(kind);
    if (type != TYPE_NONE) {
      if (!o->type_attribute[type])
        o->type_attribute[type] = add_attribute(o, "profile.frame.type", types[type], 0);
      fg_bytes_varint(&packed, o->type_attribute[type]);
    }
    if (!o->kind_attribute[kind])
      o->kind_attribute[kind] = add_attribute(o, "fgagent.frame.kind", fg_kind_name(kind), 0);
    fg_bytes_varint(&packed, o->kind_attribute[kind]);
    fg_pb_message(&m, LOCATION_ATTRIBUTES, &packed);
    fg_pb_message(&o->locations, DICT_LOCATION, &m);
  }
  int failed = m.failed || line.failed || packed.failed;
  free(m.b);
  free(line.b);
  free(packed.b);
  return failed ? -1 : 0;
}

static uint64_t frames_hash(const uint32_t *frames, uint32_t n)
{
  uint64_t h = 1469598103934665603ull;
  for (uint32_t i = 0; i < n; i++)
    h = (h ^ frames[i]) * 1099511628211ull;
  return h ? h : 1;
}

/* Stacks: one per distinct frame sequence (threads and events share them). */
static int add_stacks(struct otlp *o)
{
  const struct fg_profile *p = o->p;
  struct fg_bytes m = {0}, packed = {0};
  for (uint32_t i = 0; i < p->nstacks; i++) {
    const struct fg_stack *s = &p->stacks[i];
    const uint32_t *frames = fg_stack_frames(p, s);
    uint64_t h = frames_hash(frames, s->nframes);
    uint32_t like;
    if (fg_u64_map_get(&o->stack_of, h, &like) && p->stacks[like].nframes == s->nframes &&
        memcmp(fg_stack_frames(p, &p->stacks[like]), frames, s->nframes * sizeof *frames) == 0) {
      o->stack_index[i] = o->stack_index[like];
      continue;
    }
    if (!fg_u64_map_get(&o->stack_of, h, &like) && fg_u64_map_put(&o->stack_of, h, i) != 0)
      o->stacks.failed = 1;
    o->stack_index[i] = o->nstacks++;
    for (uint32_t f = s->nframes; f-- > 0;)
      fg_bytes_varint(&packed, (uint64_t)frames[f] + 1);
    fg_pb_message(&m, STACK_LOCATIONS, &packed);
    fg_pb_message(&o->stacks, DICT_STACK, &m);
  }
  int failed = m.failed || packed.failed;
  free(m.b);
  free(packed.b);
  return failed ? -1 : 0;
}

/* thread.id and thread.name of every thread but the one a profile without
 * threads has ("all", tid 0). */
static int add_threads(struct otlp *o)
{
  const struct fg_profile *p = o->p;
  o->thread_attributes = calloc(2 * (size_t)(p->nthreads ? p->nthreads : 1), sizeof *o->thread_attributes);
  if (!o->thread_attributes)
    return -1;
  for (uint32_t t = 0; t < p->nthreads; t++) {
    const struct fg_thread_info *th = &p->threads[t];
    if (th->tid == 0 && th->name && strcmp(th->name, "all") == 0)
      continue;
    o->thread_attributes[2 * t] = add_attribute(o, "thread.id", NULL, th->tid);
    if (th->name && *th->name)
      o->thread_attributes[2 * t + 1] = add_attribute(o, "thread.name", th->name, 0);
  }
  return 0;
}

/* What a value of event e measures, and the period a sample stands for. */
struct value_kind {
  const char *type, *unit;
  uint64_t period;       /* 0: none */
  uint64_t per_count;    /* a stack's count times this is its value */
};

static struct value_kind value_kind(const struct fg_profile *p, enum fg_stack_event e)
{
  const struct fg_stats *s = &p->stats;
  if (e != FG_STACK_CPU) {
    const struct fg_event_kind *k = fg_event_kind(e);
    uint64_t period = fg_event_period(s, e);
    /* a kernel event's values typed by its name ("page-faults"), unit "events": the reader tells them apart so */
    const char *type = fg_stack_kernel_index(e) >= 0 ? fg_event_title_name(s, e) : k->value_type;
    return (struct value_kind){type, k->unit, period == 1 ? 0 : period, 1};
  }
  uint64_t ns = fg_stats_ns_per_sample(s);
  const char *type = strcmp(s->event, "wall") == 0 ? "wall" : "cpu";
  if (ns == 0)
    return (struct value_kind){"samples", "count", 0, 1};
  return (struct value_kind){type, "nanoseconds", ns, ns};
}

static void value_type(struct otlp *o, struct fg_bytes *out, int field, const char *type, const char *unit)
{
  struct fg_bytes m = {0};
  fg_pb_int(&m, VALUE_TYPE_TYPE, string_id(o, type));
  fg_pb_int(&m, VALUE_TYPE_UNIT, string_id(o, unit));
  fg_pb_message(out, field, &m);
  free(m.b);
}

/* A profile's 16-byte id, never all zeroes: a hash of what tells profiles apart. */
static void profile_id(const struct fg_profile *p, enum fg_stack_event e, uint8_t id[16])
{
  uint64_t parts[5] = {p->stats.start_epoch_ns, p->stats.start_ns, p->stats.wall_ns, (uint64_t)e, p->nstacks};
  uint64_t h1 = 1469598103934665603ull, h2 = 0x9e3779b97f4a7c15ull;
  for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++)
    for (int b = 0; b < 8; b++) {
      uint8_t byte = (uint8_t)(parts[i] >> (8 * b));
      h1 = (h1 ^ byte) * 1099511628211ull;
      h2 = (h2 ^ byte) * 0x100000001b3ull + 0x7f4a7c15ull;
    }
  for (int b = 0; b < 8; b++) {
    id[b] = (uint8_t)(h1 >> (8 * b));
    id[8 + b] = (uint8_t)(h2 >> (8 * b));
  }
  id[15] |= 1;
}

/* The Profile of event e: its samples with their values and, when the
 * profile has their times, a timestamp each. */
static int add_profile(struct otlp *o, struct fg_bytes *out, enum fg_stack_event e)
{
  const struct fg_profile *p = o->p;
  const struct fg_stats *st = &p->stats;
  struct value_kind k = value_kind(p, e);
  struct fg_bytes prof = {0}, m = {0}, values = {0}, times = {0}, packed = {0};
  value_type(o, &prof, PROFILE_SAMPLE_TYPE, k.type, k.unit);

  /* each stack's timeline entries, in time order: counted, then placed */
  bool timed = false;
  uint32_t *first = calloc((size_t)p->nstacks + 1, sizeof *first);
  uint32_t *order = calloc(p->timeline.n ? p->timeline.n : 1, sizeof *order);
  int rc = first && order ? 0 : -1;
  if (rc == 0 && st->start_epoch_ns) {
    for (uint32_t i = 0; i < p->timeline.n; i++) {
      uint32_t s = p->timeline.entries[i].stack;
      if (s < p->nstacks && p->stacks[s].event == e) {
        first[s + 1]++;
        timed = true;
      }
    }
    for (uint32_t s = 0; s < p->nstacks; s++)
      first[s + 1] += first[s];
    uint32_t *at = calloc(p->nstacks ? p->nstacks : 1, sizeof *at);
    if (!at)
      rc = -1;
    for (uint32_t i = 0; rc == 0 && i < p->timeline.n; i++) {
      uint32_t s = p->timeline.entries[i].stack;
      if (s < p->nstacks && p->stacks[s].event == e)
        order[first[s] + at[s]++] = i;
    }
    free(at);
  }
  uint64_t end = st->start_epoch_ns + st->wall_ns;
  for (uint32_t i = 0; rc == 0 && i < p->nstacks; i++) {
    const struct fg_stack *s = &p->stacks[i];
    if (s->event != e || s->count == 0)
      continue;
    fg_pb_int(&m, SAMPLE_STACK, o->stack_index[i]);
    uint32_t *attrs = &o->thread_attributes[2 * s->thread];
    for (int a = 0; a < 2; a++)
      if (attrs[a])
        fg_bytes_varint(&packed, attrs[a]);
    if (packed.len)
      fg_pb_message(&m, SAMPLE_ATTRIBUTES, &packed);
    uint64_t left = s->count;
    if (timed) {
      for (uint32_t j = first[i]; j < first[i + 1] && left; j++) {
        const struct fg_timeline_entry *t = &p->timeline.entries[order[j]];
        uint64_t weight = t->weight ? t->weight : 1;
        if (weight > left)
          weight = left;
        left -= weight;
        fg_bytes_varint(&values, weight * k.per_count);
        uint64_t when = t->time_ns >= st->start_ns ? st->start_epoch_ns + (t->time_ns - st->start_ns) : end;
        fg_pb_le64(&times, when);
      }
      if (left) {   /* what the timeline had no room for: at the end */
        fg_bytes_varint(&values, left * k.per_count);
        fg_pb_le64(&times, end);
      }
      fg_pb_message(&m, SAMPLE_VALUES, &values);
      fg_pb_message(&m, SAMPLE_TIMESTAMPS, &times);
    } else {
      fg_bytes_varint(&values, left * k.per_count);
      fg_pb_message(&m, SAMPLE_VALUES, &values);
    }
    fg_pb_message(&prof, PROFILE_SAMPLES, &m);
  }
  free(first);
  free(order);
  if (st->start_epoch_ns)
    fg_pb_fixed64(&prof, PROFILE_TIME, st->start_epoch_ns);
  fg_pb_int(&prof, PROFILE_DURATION, st->wall_ns);
  if (k.period) {
    value_type(o, &prof, PROFILE_PERIOD_TYPE, k.type, k.unit);
    fg_pb_int(&prof, PROFILE_PERIOD, k.period);
  }
  uint8_t id[16];
  profile_id(p, e, id);
  fg_pb_bytes(&prof, PROFILE_ID, id, sizeof id);
  if (prof.failed || m.failed || values.failed || times.failed || packed.failed)
    rc = -1;
  if (rc == 0)
    fg_pb_message(out, SCOPE_PROFILES, &prof);
  free(prof.b);
  free(m.b);
  free(values.b);
  free(times.b);
  free(packed.b);
  return rc;
}

static int encode(struct otlp *o, struct fg_bytes *out)
{
  const struct fg_profile *p = o->p;
  static const uint8_t zero_trace[16], zero_span[8];
  struct fg_bytes scope = {0}, m = {0}, dict = {0};
  int rc = 0;
  /* every table's entry 0, the zero value (a link's: zero ids, as the schema advises) */
  if (string_id(o, "") != 0)
    rc = -1;
  fg_pb_message(&o->functions, DICT_FUNCTION, &m);
  o->nfunctions = 1;
  fg_pb_message(&o->stacks, DICT_STACK, &m);
  o->nstacks = 1;
  fg_pb_message(&o->attributes, DICT_ATTRIBUTE, &m);
  o->nattributes = 1;
  fg_pb_message(&o->locations, DICT_LOCATION, &m);
  if (rc == 0)
    rc = add_locations(o);
  if (rc == 0)
    rc = add_stacks(o);
  if (rc == 0)
    rc = add_threads(o);

  fg_pb_bytes(&m, INSTRUMENTATION_NAME, "fgagent", 7);
  fg_pb_message(&scope, SCOPE_SCOPE, &m);
  unsigned present = fg_profile_events(p);
  for (int e = 0; rc == 0 && e < FG_STACK_EVENTS; e++)
    if (present & 1u << e)
      rc = add_profile(o, &scope, (enum fg_stack_event)e);
  fg_pb_message(&m, RESOURCE_SCOPE_PROFILES, &scope);
  fg_pb_message(out, DATA_RESOURCE_PROFILES, &m);

  fg_pb_message(&dict, DICT_MAPPING, &m);   /* the zero mapping, the only one */
  fg_bytes_move(&dict, &o->locations);
  fg_bytes_move(&dict, &o->functions);
  fg_pb_bytes(&m, LINK_TRACE_ID, zero_trace, sizeof zero_trace);
  fg_pb_bytes(&m, LINK_SPAN_ID, zero_span, sizeof zero_span);
  fg_pb_message(&dict, DICT_LINK, &m);
  for (uint32_t i = 0; i < o->strings.nnames; i++)
    fg_pb_bytes(&dict, DICT_STRING, o->strings.names[i], strlen(o->strings.names[i]));
  fg_bytes_move(&dict, &o->attributes);
  fg_bytes_move(&dict, &o->stacks);
  fg_pb_message(out, DATA_DICTIONARY, &dict);
  if (scope.failed || m.failed || dict.failed || out->failed)
    rc = -1;
  free(scope.b);
  free(m.b);
  free(dict.b);
  return rc;
}

int fg_write_otlp(FILE *out, const struct fg_profile *p, const struct fg_output_settings *cfg)
{
  (void)cfg;   /* threads are attributes of every sample, not frames */
  struct otlp o = {.p = p};
  fg_profile_init(&o.strings);
  fg_u64_map_init(&o.function_of);
  fg_u64_map_init(&o.stack_of);
  o.stack_index = calloc(p->nstacks ? p->nstacks : 1, sizeof *o.stack_index);
  struct fg_bytes buf = {0};
  int rc = o.stack_index ? encode(&o, &buf) : -1;
  if (rc == 0 && fwrite(buf.b, 1, buf.len, out) != buf.len)
    rc = -1;
  free(buf.b);
  free(o.stack_index);
  free(o.thread_attributes);
  free(o.functions.b);
  free(o.locations.b);
  free(o.stacks.b);
  free(o.attributes.b);
  fg_u64_map_free(&o.function_of);
  fg_u64_map_free(&o.stack_of);
  fg_profile_free(&o.strings);
  return rc;
}
