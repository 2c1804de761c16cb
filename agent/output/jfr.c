/* JDK Flight Recorder output: one chunk that the JDK's `jfr` tool, JMC and
 * IntelliJ read. A jdk.ExecutionSample event per sample (thread, stack trace,
 * time); alloc's a jdk.ObjectAllocationSample, lock's a jdk.JavaMonitorEnter
 * or jdk.ThreadPark per event, nativemem's a profiler.Malloc and nativelock's a
 * profiler.NativeLock (async-profiler's types); a kernel event's (event=NAME)
 * an fgagent.KernelEvent per sample, with the event's name and the events it
 * stands for (JMC lists it under fgagent / Kernel, with its stack traces); a
 * GC pause the agent saw (JVMTI GarbageCollectionStart/Finish, the profile's
 * marks) an fgagent.GCPause: its start, duration and name, as fgprof reads it
 * back (not jdk.GCPhasePause, whose gcId names a jdk.GarbageCollection we
 * have not got); threads, stack traces, methods, classes, packages and symbols in
 * one checkpoint's constant pools; the metadata event declares only the
 * types these use, with the field names the JDK's own metadata has.
 *
 * The chunk, as the JDK's parser (jdk.jfr.internal.consumer) reads it:
 *   header (68 bytes, big-endian): "FLR\0", version 2.0, chunk size, offsets
 *     of the checkpoint and the metadata event, start (ns since 1970),
 *     duration (ns), start ticks, ticks per second, state 0 (finished),
 *     flags (1: compressed integers, 2: the last chunk);
 *   events: size, type id, fields; integers as varints (7 bits a byte, the
 *     9th byte of a long holds 8), strings as 3 (UTF-8), length, bytes.
 * Ticks here are CLOCK_MONOTONIC nanoseconds, the samples' own clock. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fg/event_kinds.h"
#include "fg/output.h"
#include "fg/profile.h"
#include "output/jfr_chunk.h"

/* ---- JFR's integers and strings ---- */

void jfr_put_long(struct fg_bytes *o, uint64_t v)
{
  uint8_t b[9];
  size_t n = 0;
  while (n < 8 && v >= 0x80) {
    b[n++] = (uint8_t)(v | 0x80);
    v >>= 7;
  }
  b[n++] = (uint8_t)v;   /* the 9th byte, if reached, holds the last 8 bits */
  fg_bytes_raw(o, b, n);
}

void jfr_put_int(struct fg_bytes *o, int32_t v)
{
  jfr_put_long(o, (uint32_t)v);   /* the reader reads a long and keeps its low 32 bits */
}

void jfr_put_string(struct fg_bytes *o, const char *s, size_t n)
{
  uint8_t utf8 = 3;
  fg_bytes_raw(o, &utf8, 1);
  jfr_put_long(o, n);
  fg_bytes_raw(o, s, n);
}

void jfr_put_cstring(struct fg_bytes *o, const char *s)
{
  jfr_put_string(o, s, strlen(s));
}

/* An event: its size (counting the size's own bytes) before the body. */
void jfr_put_event(struct fg_bytes *o, struct fg_bytes *body)
{
  size_t n = body->len + 1;
  while (fg_bytes_varint_len(n) + body->len != n)
    n = fg_bytes_varint_len(n) + body->len;
  jfr_put_long(o, n);
  fg_bytes_move(o, body);
}

/* ---- the metadata: an element tree over a string table ---- */

struct meta {
  struct fg_bytes tree;
  struct fg_profile strings;   /* used as a string table: id = index */
};

static void meta_string(struct meta *m, const char *s)
{
  jfr_put_int(&m->tree, (int32_t)fg_profile_intern(&m->strings, s, FG_KIND_MARKER));
}

/* An element's name and attributes (pairs, NULL-ended); its children follow. */
static void element(struct meta *m, const char *name, const char *const *attrs, int children)
{
  int n = 0;
  while (attrs[2 * n])
    n++;
  meta_string(m, name);
  jfr_put_int(&m->tree, n);
  for (int i = 0; i < 2 * n; i++)
    meta_string(m, attrs[i]);
  jfr_put_int(&m->tree, children);
}

/* An annotation of class type, with key = value (key NULL: none). */
static void annotation(struct meta *m, int type, const char *key, const char *value)
{
  char id[16];
  snprintf(id, sizeof id, "%d", type);
  element(m, "annotation", (const char *[]){"class", id, key, value, NULL}, 0);
}

struct field {
  const char *name;
  int type;
  int flags;          /* F_POOL: a constant-pool key; F_ARRAY: an array */
  const char *label;
};
enum { F_POOL = 1, F_ARRAY = 2, F_TICKS = 4, F_SPAN = 8, F_BYTES = 16, F_ADDRESS = 32 };
#define MAX_FIELDS 8

struct type {
  const char *name;
  int id;
  const char *super;   /* NULL, or the super type's name */
  int flags;           /* TY_SIMPLE, TY_CONTENT */
  const char *label;
  const char *category[2];   /* an event's: its place in JMC's event browser */
  struct field fields[MAX_FIELDS];
};
/* TY_SIMPLE: one field, read as that field. TY_CONTENT: an annotation that
 * is a content type (itself annotated @ContentType): the JDK's jfr tool
 * formats a field it marks (a time, a duration, bytes) only then, and JMC
 * types the field by it (a monitor's address). */
enum { TY_SIMPLE = 1, TY_CONTENT = 2 };

static const struct type types[] = {
  {"long", T_LONG, NULL, 0, NULL, {0}, {{0}}},
  {"int", T_INT, NULL, 0, NULL, {0}, {{0}}},
  {"boolean", T_BOOLEAN, NULL, 0, NULL, {0}, {{0}}},
  {"java.lang.String", T_STRING, NULL, 0, NULL, {0}, {{0}}},
  {"jdk.jfr.Label", T_LABEL, "java.lang.annotation.Annotation", 0, NULL, {0}, {{"value", T_STRING, 0, NULL}}},
  {"jdk.jfr.ContentType", T_CONTENT_TYPE, "java.lang.annotation.Annotation", 0, NULL, {0}, {{0}}},
  {"jdk.jfr.Timestamp", T_TIMESTAMP, "java.lang.annotation.Annotation", TY_CONTENT, NULL, {0},
   {{"value", T_STRING, 0, NULL}}},
  {"jdk.jfr.Category", T_CATEGORY, "java.lang.annotation.Annotation", 0, NULL, {0},
   {{"value", T_STRING, F_ARRAY, NULL}}},
  {"jdk.jfr.Timespan", T_TIMESPAN, "java.lang.annotation.Annotation", TY_CONTENT, NULL, {0},
   {{"value", T_STRING, 0, NULL}}},
  {"jdk.jfr.DataAmount", T_DATA_AMOUNT, "java.lang.annotation.Annotation", TY_CONTENT, NULL, {0},
   {{"value", T_STRING, 0, NULL}}},
  {"jdk.jfr.MemoryAddress", T_MEMORY_ADDRESS, "java.lang.annotation.Annotation", TY_CONTENT, NULL, {0}, {{0}}},
  {"jdk.jfr.Unsigned", T_UNSIGNED, "java.lang.annotation.Annotation", TY_CONTENT, NULL, {0}, {{0}}},
  {"java.lang.Thread", T_THREAD, NULL, 0, "Thread", {0},
   {{"osName", T_STRING, 0, "OS Thread Name"}, {"osThreadId", T_LONG, 0, "OS Thread Id"},
    {"javaName", T_STRING, 0, "Java Thread Name"}, {"javaThreadId", T_LONG, 0, "Java Thread Id"}}},
  {"jdk.types.ThreadState", T_THREAD_STATE, NULL, TY_SIMPLE, "Java Thread State", {0}, {{"name", T_STRING, 0, "Name"}}},
  {"jdk.types.Symbol", T_SYMBOL, NULL, TY_SIMPLE, "Symbol", {0}, {{"string", T_STRING, 0, "String"}}},
  {"jdk.types.Package", T_PACKAGE, NULL, 0, "Package", {0}, {{"name", T_SYMBOL, F_POOL, "Name"}}},
  /* the JDK's field order, classLoader first: async-profiler's converter reads a class by position */
  {"jdk.types.ClassLoader", T_CLASS_LOADER, NULL, 0, "Java Class Loader", {0},
   {{"type", T_CLASS, F_POOL, "Type"}, {"name", T_SYMBOL, F_POOL, "Name"}}},
  {"java.lang.Class", T_CLASS, NULL, 0, "Java Class", {0},
   {{"classLoader", T_CLASS_LOADER, F_POOL, "Class Loader"}, {"name", T_SYMBOL, F_POOL, "Name"}, {"package", T_PACKAGE, F_POOL, "Package"},
    {"modifiers", T_INT, 0, "Access Modifiers"}, {"hidden", T_BOOLEAN, 0, "Hidden"}}},
  {"jdk.types.Method", T_METHOD, NULL, 0, "Java Method", {0},
   {{"type", T_CLASS, F_POOL, "Type"}, {"name", T_SYMBOL, F_POOL, "Name"},
    {"descriptor", T_SYMBOL, F_POOL, "Descriptor"}, {"modifiers", T_INT, 0, "Access Modifiers"},
    {"hidden", T_BOOLEAN, 0, "Hidden"}}},
  {"jdk.types.FrameType", T_FRAME_TYPE, NULL, TY_SIMPLE, "Frame type", {0},
   {{"description", T_STRING, 0, "Description"}}},
  {"jdk.types.StackFrame", T_STACK_FRAME, NULL, 0, NULL, {0},
   {{"method", T_METHOD, F_POOL, "Java Method"}, {"lineNumber", T_INT, 0, "Line Number"},
    {"bytecodeIndex", T_INT, 0, "Bytecode Index"}, {"type", T_FRAME_TYPE, F_POOL, "Frame Type"}}},
  {"jdk.types.StackTrace", T_STACK_TRACE, NULL, 0, "Stacktrace", {0},
   {{"truncated", T_BOOLEAN, 0, "Truncated"}, {"frames", T_STACK_FRAME, F_ARRAY, "Stack Frames"}}},
  {"jdk.ExecutionSample", T_EXECUTION_SAMPLE, "jdk.jfr.Event", 0, "Method Profiling Sample",
   {"Java Virtual Machine", "Profiling"},
   {{"startTime", T_LONG, F_TICKS, "Start Time"}, {"sampledThread", T_THREAD, F_POOL, "Thread"},
    {"state", T_THREAD_STATE, F_POOL, "Thread State"}, {"stackTrace", T_STACK_TRACE, F_POOL, "Stack Trace"}}},
  {"jdk.ObjectAllocationSample", T_ALLOC_SAMPLE, "jdk.jfr.Event", 0, "Object Allocation Sample",
   {"Java Application", NULL},
   {{"startTime", T_LONG, F_TICKS, "Start Time"}, {"eventThread", T_THREAD, F_POOL, "Event Thread"},
    {"stackTrace", T_STACK_TRACE, F_POOL, "Stack Trace"}, {"objectClass", T_CLASS, F_POOL, "Object Class"},
    {"weight", T_LONG, F_BYTES, "Sample Weight"}}},
  {"jdk.JavaMonitorEnter", T_MONITOR_ENTER, "jdk.jfr.Event", 0, "Java Monitor Blocked", {"Java Application", NULL},
   {{"startTime", T_LONG, F_TICKS, "Start Time"}, {"duration", T_LONG, F_SPAN, "Duration"},
    {"eventThread", T_THREAD, F_POOL, "Event Thread"}, {"stackTrace", T_STACK_TRACE, F_POOL, "Stack Trace"},
    {"monitorClass", T_CLASS, F_POOL, "Monitor Class"}, {"previousOwner", T_THREAD, F_POOL, "Previous Monitor Owner"},
    {"address", T_LONG, F_ADDRESS, "Monitor Address"}}},
  {"jdk.ThreadPark", T_THREAD_PARK, "jdk.jfr.Event", 0, "Java Thread Park", {"Java Application", NULL},
   {{"startTime", T_LONG, F_TICKS, "Start Time"}, {"duration", T_LONG, F_SPAN, "Duration"},
    {"eventThread", T_THREAD, F_POOL, "Event Thread"}, {"stackTrace", T_STACK_TRACE, F_POOL, "Stack Trace"},
    {"parkedClass", T_CLASS, F_POOL, "Class Parked On"}, {"address", T_LONG, F_ADDRESS, "Address of Object Parked"}}},
  /* async-profiler's shapes (its jfrMetadata.cpp), so that its jfrconv and JMC read them as its own */
  {"profiler.Malloc", T_MALLOC, "jdk.jfr.Event", 0, "malloc", {"Java Virtual Machine", "Native Memory"},
   {{"startTime", T_LONG, F_TICKS, "Start Time"}, {"eventThread", T_THREAD, F_POOL, "Event Thread"},
    {"stackTrace", T_STACK_TRACE, F_POOL, "Stack Trace"}, {"address", T_LONG, F_ADDRESS, "Address"},
    {"size", T_LONG, F_BYTES, "Size"}}},
  {"profiler.Free", T_FREE, "jdk.jfr.Event", 0, "free", {"Java Virtual Machine", "Native Memory"},
   {{"startTime", T_LONG, F_TICKS, "Start Time"}, {"eventThread", T_THREAD, F_POOL, "Event Thread"},
    {"stackTrace", T_STACK_TRACE, F_POOL, "Stack Trace"}, {"address", T_LONG, F_ADDRESS, "Address"}}},
  {"profiler.NativeLock", T_NATIVE_LOCK, "jdk.jfr.Event", 0, "Native Lock Sample", {"Java Virtual Machine", "Native Lock"},
   {{"startTime", T_LONG, F_TICKS, "Start Time"}, {"duration", T_LONG, F_SPAN, "Duration"},
    {"eventThread", T_THREAD, F_POOL, "Event Thread"}, {"stackTrace", T_STACK_TRACE, F_POOL, "Stack Trace"},
    {"address", T_LONG, F_ADDRESS, "Lock Address"}}},
  /* alloc,live: async-profiler's shape (its converter and fgprof read it); one event a stack, its
   * allocationSize the bytes its live samples stand for, allocationTime the report's */
  {"profiler.LiveObject", T_LIVE_OBJECT, "jdk.jfr.Event", 0, "Live Object", {"Java Application", NULL},
   {{"startTime", T_LONG, F_TICKS, "Start Time"}, {"eventThread", T_THREAD, F_POOL, "Event Thread"},
    {"stackTrace", T_STACK_TRACE, F_POOL, "Stack Trace"}, {"objectClass", T_CLASS, F_POOL, "Object Class"},
    {"allocationSize", T_LONG, F_BYTES, "Allocation Size"}, {"allocationTime", T_LONG, F_TICKS, "Allocation Time"}}},
  {"fgagent.KernelEvent", T_KERNEL_EVENT, "jdk.jfr.Event", 0, "Kernel Event", {"fgagent", "Kernel"},
   {{"startTime", T_LONG, F_TICKS, "Start Time"}, {"eventThread", T_THREAD, F_POOL, "Event Thread"},
    {"stackTrace", T_STACK_TRACE, F_POOL, "Stack Trace"}, {"event", T_STRING, 0, "Event"},
    {"count", T_LONG, 0, "Events"}}},
  {"fgagent.GCPause", T_GC_PAUSE, "jdk.jfr.Event", 0, "GC Pause (JVMTI)", {"fgagent", "GC"},
   {{"startTime", T_LONG, F_TICKS, "Start Time"}, {"duration", T_LONG, F_SPAN, "Duration"},
    {"name", T_STRING, 0, "Name"}}},
  /* a setting of each event type recorded, as the JDK writes at a recording's start: JMC's
   * analysis of a type asks that it was enabled, the method profiling one at what period */
  {"jdk.ActiveSetting", T_ACTIVE_SETTING, "jdk.jfr.Event", 0, "Recording Setting", {"Flight Recorder", NULL},
   {{"startTime", T_LONG, F_TICKS, "Start Time"}, {"id", T_LONG, 0, "Event Id"},
    {"name", T_STRING, 0, "Setting Name"}, {"value", T_STRING, 0, "Setting Value"}}},
};
#define NTYPES (sizeof types / sizeof types[0])

static void field_element(struct meta *m, const struct field *f)
{
  char id[16];
  snprintf(id, sizeof id, "%d", f->type);
  const char *attrs[9] = {"name", f->name, "class", id};
  int n = 4;
  if (f->flags & F_POOL) {
    attrs[n++] = "constantPool";
    attrs[n++] = "true";
  }
  if (f->flags & F_ARRAY) {
    attrs[n++] = "dimension";
    attrs[n++] = "1";
  }
  attrs[n] = NULL;
  element(m, "field", attrs, !!f->label + !!(f->flags & F_TICKS) + !!(f->flags & F_SPAN) + !!(f->flags & F_BYTES) +
                                 2 * !!(f->flags & F_ADDRESS));
  if (f->label)
    annotation(m, T_LABEL, "value", f->label);
  if (f->flags & F_TICKS)
    annotation(m, T_TIMESTAMP, "value", "TICKS");
  if (f->flags & F_SPAN)
    annotation(m, T_TIMESPAN, "value", "TICKS");
  if (f->flags & F_BYTES)
    annotation(m, T_DATA_AMOUNT, "value", "BYTES");
  if (f->flags & F_ADDRESS) {
    annotation(m, T_UNSIGNED, NULL, NULL);
    annotation(m, T_MEMORY_ADDRESS, NULL, NULL);
  }
}

static void class_element(struct meta *m, const struct type *t)
{
  char id[16];
  snprintf(id, sizeof id, "%d", t->id);
  const char *attrs[9] = {"name", t->name, "id", id};
  int n = 4;
  if (t->super) {
    attrs[n++] = "superType";
    attrs[n++] = t->super;
  }
  if (t->flags & TY_SIMPLE) {
    attrs[n++] = "simpleType";
    attrs[n++] = "true";
  }
  attrs[n] = NULL;
  int nfields = 0;
  while (nfields < MAX_FIELDS && t->fields[nfields].name)
    nfields++;
  int event = t->category[0] != NULL;
  int content = !!(t->flags & TY_CONTENT);
  element(m, "class", attrs, nfields + !!t->label + event + content);
  if (t->label)
    annotation(m, T_LABEL, "value", t->label);
  if (content)
    annotation(m, T_CONTENT_TYPE, NULL, NULL);
  if (event) {
    char cid[16];
    snprintf(cid, sizeof cid, "%d", T_CATEGORY);
    element(m, "annotation", (const char *[]){"class", cid, "value-0", t->category[0],
                                              t->category[1] ? "value-1" : NULL, t->category[1], NULL}, 0);
  }
  for (int i = 0; i < nfields; i++)
    field_element(m, &t->fields[i]);
}

/* The metadata event's body: type 0, start, duration, metadata id, strings,
 * tree. fgagent's own event types only when the profile has such events
 * (kernel, gc): every other type is the JDK's, as the JDK declares it. */
/* Whether a kernel event was recorded (its type is in the metadata, events or not). */
static int kernel_on(const struct fg_stats *s)
{
  for (int k = 0; k < FG_KERNEL_EVENTS_MAX; k++)
    if (s->kernel[k].on)
      return 1;
  return 0;
}

static int metadata_event(struct fg_bytes *o, uint64_t start_ticks, int kernel, int gc)
{
  struct meta m = {0};
  fg_profile_init(&m.strings);
  element(&m, "root", (const char *[]){NULL}, 2);
  element(&m, "metadata", (const char *[]){NULL}, (int)NTYPES - !kernel - !gc);
  for (size_t i = 0; i < NTYPES; i++)
    if ((kernel || types[i].id != T_KERNEL_EVENT) && (gc || types[i].id != T_GC_PAUSE))
      class_element(&m, &types[i]);
  element(&m, "region", (const char *[]){"locale", "en_US", "gmtOffset", "0", NULL}, 0);
  struct fg_bytes body = {0};
  jfr_put_long(&body, 0);
  jfr_put_long(&body, start_ticks);
  jfr_put_long(&body, 0);
  jfr_put_long(&body, 1);
  jfr_put_int(&body, (int32_t)m.strings.nnames);
  for (uint32_t i = 0; i < m.strings.nnames; i++)
    jfr_put_cstring(&body, m.strings.names[i]);
  fg_bytes_move(&body, &m.tree);
  jfr_put_event(o, &body);
  int rc = body.failed || m.tree.failed || m.strings.nnames == 0 ? -1 : 0;
  free(body.b);
  free(m.tree.b);
  fg_profile_free(&m.strings);
  return rc;
}

/* ---- the settings ---- */

/* A time as the JDK writes a setting's: "10 ms", "100 us", "0 ns". */
static void timespan_text(uint64_t ns, char *out, size_t len)
{
  static const struct {
    uint64_t ns;
    const char *unit;
  } units[] = {{1000000000u, "s"}, {1000000u, "ms"}, {1000u, "us"}, {1u, "ns"}};
  size_t i = 0;
  while (i + 1 < sizeof units / sizeof units[0] && (ns == 0 || ns % units[i].ns != 0))
    i++;
  snprintf(out, len, "%" PRIu64 " %s", ns / units[i].ns, units[i].unit);
}

static void setting(struct fg_bytes *o, struct fg_bytes *body, uint64_t ticks, int type, const char *name,
                    const char *value)
{
  jfr_put_long(body, T_ACTIVE_SETTING);
  jfr_put_long(body, ticks);           /* an instant: JDK 17 gave it a duration, JDK 25 none */
  jfr_put_long(body, (uint64_t)type);  /* the event type's id in this chunk's metadata */
  jfr_put_cstring(body, name);
  jfr_put_cstring(body, value);
  jfr_put_event(o, body);
}

/* The settings of each event type the session recorded: enabled, with its
 * stack trace, CPU's period (the interval asked) and lock's threshold. */
static void active_settings(struct fg_bytes *o, struct fg_bytes *body, const struct fg_stats *s, uint64_t ticks,
                            int gc)
{
  char text[32];
  if (!s->cpu_off) {
    setting(o, body, ticks, T_EXECUTION_SAMPLE, "enabled", "true");
    if (s->interval_ns) {
      timespan_text(s->interval_ns, text, sizeof text);
      setting(o, body, ticks, T_EXECUTION_SAMPLE, "period", text);
    }
  }
  if (s->alloc.on) {
    setting(o, body, ticks, T_ALLOC_SAMPLE, "enabled", "true");
    setting(o, body, ticks, T_ALLOC_SAMPLE, "stackTrace", "true");
  }
  if (s->live.on) {
    setting(o, body, ticks, T_LIVE_OBJECT, "enabled", "true");
    setting(o, body, ticks, T_LIVE_OBJECT, "stackTrace", "true");
  }
  if (s->lock.on) {
    timespan_text(s->lock.interval, text, sizeof text);
    for (int type = T_MONITOR_ENTER; type <= T_THREAD_PARK; type++) {
      setting(o, body, ticks, type, "enabled", "true");
      setting(o, body, ticks, type, "stackTrace", "true");
      setting(o, body, ticks, type, "threshold", text);
    }
  }
  for (int k = 0; k < FG_KERNEL_EVENTS_MAX; k++) {   /* each kernel event's: its name, then its period */
    if (!s->kernel[k].on)
      continue;
    snprintf(text, sizeof text, "%" PRIu64, s->kernel[k].interval);
    setting(o, body, ticks, T_KERNEL_EVENT, "enabled", "true");
    setting(o, body, ticks, T_KERNEL_EVENT, "stackTrace", "true");
    setting(o, body, ticks, T_KERNEL_EVENT, "event", s->kevent[k].name);
    setting(o, body, ticks, T_KERNEL_EVENT, "period", text);
  }
  if (gc)   /* the GC pauses JVMTI reported: no stack */
    setting(o, body, ticks, T_GC_PAUSE, "enabled", "true");
  if (s->nativemem.on) {
    setting(o, body, ticks, T_MALLOC, "enabled", "true");
    setting(o, body, ticks, T_MALLOC, "stackTrace", "true");
    if (s->nativemem.leak) {   /* every sampled allocation with its address, and the frees of those freed */
      setting(o, body, ticks, T_MALLOC, "leak", "true");
      setting(o, body, ticks, T_FREE, "enabled", "true");
      setting(o, body, ticks, T_FREE, "stackTrace", "true");
    }
  }
  if (s->nativelock.on) {
    timespan_text(s->nativelock.interval, text, sizeof text);
    setting(o, body, ticks, T_NATIVE_LOCK, "enabled", "true");
    setting(o, body, ticks, T_NATIVE_LOCK, "stackTrace", "true");
    setting(o, body, ticks, T_NATIVE_LOCK, "threshold", text);
  }
}

void jfr_trail_events(struct fg_bytes *o, struct fg_bytes *body, const struct fg_profile *p, uint32_t i)
{
  const struct fg_native_trail_entry *e = &p->trail.e[i];
  jfr_put_long(body, T_MALLOC);
  jfr_put_long(body, e->time_ns);
  jfr_put_long(body, (uint64_t)e->thread + 1);
  jfr_put_long(body, (uint64_t)e->stack + 1);
  jfr_put_long(body, e->addr);
  jfr_put_long(body, e->weight);
  jfr_put_event(o, body);
  if (!e->freed_ns)
    return;
  jfr_put_long(body, T_FREE);   /* on the allocating thread, with its stack: the free's own are not walked */
  jfr_put_long(body, e->freed_ns);
  jfr_put_long(body, (uint64_t)e->thread + 1);
  jfr_put_long(body, (uint64_t)e->stack + 1);
  jfr_put_long(body, e->addr);
  jfr_put_event(o, body);
}

int jfr_native_event(struct fg_bytes *body, const struct fg_profile *p, uint32_t stack, uint64_t ticks,
                     uint64_t weight)
{
  const struct fg_stack *s = &p->stacks[stack];
  if (s->event == FG_STACK_NATIVEMEM) {
    jfr_put_long(body, T_MALLOC);
    jfr_put_long(body, ticks);
    jfr_put_long(body, s->thread + 1);   /* eventThread */
    jfr_put_long(body, stack + 1);
    jfr_put_long(body, 0);               /* address: not kept */
    jfr_put_long(body, weight);          /* size: the bytes the sample stands for */
    return 1;
  }
  if (s->event != FG_STACK_NATIVELOCK)
    return 0;
  uint64_t start = ticks > weight ? ticks - weight : 0;
  jfr_put_long(body, T_NATIVE_LOCK);
  jfr_put_long(body, start);
  jfr_put_long(body, ticks - start);     /* duration */
  jfr_put_long(body, s->thread + 1);
  jfr_put_long(body, stack + 1);
  jfr_put_long(body, 0);                 /* address: not kept */
  return 1;
}

/* ---- the chunk ---- */

static void put_be_at(uint8_t *at, uint64_t v, int n)
{
  for (int i = 0; i < n; i++)
    at[i] = (uint8_t)(v >> (8 * (n - 1 - i)));
}

int fg_write_jfr(FILE *out, const struct fg_profile *p, const struct fg_output_settings *cfg)
{
  (void)cfg;   /* a JFR event always names its thread */
  const struct fg_stats *s = &p->stats;
  uint64_t start = s->start_ns, end = s->start_ns + s->wall_ns;
  struct fg_bytes o = {0}, body = {0};
  static const uint8_t header[68] = {'F', 'L', 'R', 0, 0, 2, 0, 0};
  fg_bytes_raw(&o, header, sizeof header);
  int wall = strcmp(s->event, "wall") == 0;
  int gc = 0;   /* the agent marks GC pauses only; the JDK's other events stay in its recording */
  for (uint32_t i = 0; i < p->marks.n && !gc; i++)
    gc = p->marks.m[i].kind == FG_MARK_GC_PAUSE;
  active_settings(&o, &body, s, start, gc);

  /* A CPU sample is one event per sample it stands for; an alloc or lock
   * one is one event of its weight. The timeline's at their times, the rest
   * (what it had no room for) at the end. */
  uint64_t *timed = calloc(p->nstacks ? p->nstacks : 1, sizeof *timed);
  struct jfr_pools *pools = jfr_pools_new(p);
  int rc = timed && pools ? 0 : -1;
  /* nativemem,leak: each allocation its address (those not freed are the stacks' counts), each free its own
   * event; the timeline's nativemem entries are the same allocations without addresses, left out */
  int trail = p->trail.n > 0;
  for (uint32_t i = 0; rc == 0 && i < p->trail.n; i++) {
    const struct fg_native_trail_entry *e = &p->trail.e[i];
    if (e->stack >= p->nstacks || p->stacks[e->stack].event != FG_STACK_NATIVEMEM)
      continue;
    if (!e->freed_ns) {
      if (timed[e->stack] + e->weight > p->stacks[e->stack].count)
        continue;   /* more than the stack holds: a crafted profile */
      timed[e->stack] += e->weight;
    }
    jfr_trail_events(&o, &body, p, i);
  }
  for (uint32_t i = 0; rc == 0 && i < p->timeline.n; i++) {
    const struct fg_timeline_entry *e = &p->timeline.entries[i];
    if (e->stack >= p->nstacks)
      continue;
    const struct fg_stack *s = &p->stacks[e->stack];
    if (trail && s->event == FG_STACK_NATIVEMEM)
      continue;
    uint64_t weight = e->weight ? e->weight : 1;
    if (timed[e->stack] + weight > s->count)
      weight = s->count - timed[e->stack];
    timed[e->stack] += weight;
    if (fg_stack_kernel_index(s->event) >= 0) {
      if (weight) {
        jfr_kernel_event(&body, p, e->stack, e->time_ns, weight);
        jfr_put_event(&o, &body);
      }
      continue;
    }
    if (s->event != FG_STACK_CPU) {
      if (weight) {
        if (!jfr_native_event(&body, p, e->stack, e->time_ns, weight))
          jfr_event(&body, pools, p, e->stack, e->time_ns, weight);
        jfr_put_event(&o, &body);
      }
      continue;
    }
    for (uint64_t k = 0; k < weight; k++) {
      jfr_sample(&body, p, e->time_ns, e->stack, wall);
      jfr_put_event(&o, &body);
    }
  }
  for (uint32_t i = 0; rc == 0 && i < p->nstacks; i++) {
    /* a kernel event's samples the timeline had no room for: one event a period, as taken */
    int kernel = fg_stack_kernel_index(p->stacks[i].event) >= 0;
    uint64_t period = kernel ? fg_event_period(&p->stats, (enum fg_stack_event)p->stacks[i].event) : 1;
    for (uint64_t left = kernel ? p->stacks[i].count - timed[i] : 0; left;) {
      uint64_t n = left < period ? left : period;
      jfr_kernel_event(&body, p, i, end, n);
      jfr_put_event(&o, &body);
      left -= n;
    }
    if (kernel)
      continue;
    if (p->stacks[i].event != FG_STACK_CPU) {
      if (timed[i] < p->stacks[i].count) {
        if (!jfr_native_event(&body, p, i, end, p->stacks[i].count - timed[i]))
          jfr_event(&body, pools, p, i, end, p->stacks[i].count - timed[i]);
        jfr_put_event(&o, &body);
      }
      continue;
    }
    for (uint64_t k = timed[i]; k < p->stacks[i].count; k++) {
      jfr_sample(&body, p, end, i, wall);
      jfr_put_event(&o, &body);
    }
  }
  free(timed);
  for (uint32_t i = 0; rc == 0 && i < p->marks.n; i++) {
    const struct fg_mark *k = &p->marks.m[i];
    if (k->kind != FG_MARK_GC_PAUSE)
      continue;
    jfr_put_long(&body, T_GC_PAUSE);
    jfr_put_long(&body, k->time_ns);
    jfr_put_long(&body, k->duration_ns);
    jfr_put_cstring(&body, k->label);
    jfr_put_event(&o, &body);
  }

  uint64_t pool_at = o.len;
  if (rc == 0)
    rc = jfr_checkpoint(&o, p, pools, start);
  jfr_pools_free(pools);
  uint64_t meta_at = o.len;
  if (rc == 0)
    rc = metadata_event(&o, start, (fg_profile_events(p) >> FG_STACK_KERNEL) != 0 || kernel_on(s), gc);
  if (rc == 0 && !o.failed) {
    put_be_at(o.b + 8, o.len, 8);
    put_be_at(o.b + 16, pool_at, 8);
    put_be_at(o.b + 24, meta_at, 8);
    put_be_at(o.b + 32, s->start_epoch_ns, 8);
    put_be_at(o.b + 40, s->wall_ns, 8);
    put_be_at(o.b + 48, start, 8);
    put_be_at(o.b + 56, 1000000000u, 8);
    o.b[67] = 1 | 2;   /* compressed integers; the last chunk */
  }
  if (o.failed || body.failed)
    rc = -1;
  if (rc == 0 && fwrite(o.b, 1, o.len, out) != o.len)
    rc = -1;
  free(o.b);
  free(body.b);
  return rc;
}
