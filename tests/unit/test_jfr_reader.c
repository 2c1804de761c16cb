/* The JFR reader: fgagent's own recordings read back exactly (CPU samples,
 * allocation weights with their classes, lock waits, threads, times), and any
 * prefix or corruption of one refused with a line, never a crash. The JDK's
 * own recordings are read in the integration tests. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "unit.h"
#include "fg/collapsed_reader.h"
#include "fg/event_kinds.h"
#include "fg/jfr_reader.h"
#include "fg/output.h"
#include "fg/profile.h"

#define START 1000000000ull   /* the samples' clock when the recording began */

/* Adds count of frames (root first; a name ending in "[]" or "Object" is a class) as event e at time. */
static void add(struct fg_profile *p, enum fg_stack_event e, const char *const *names, uint32_t n, uint64_t count,
                uint64_t time)
{
  uint32_t ids[8];
  for (uint32_t i = 0; i < n; i++) {
    int cls = (e == FG_STACK_ALLOC || e == FG_STACK_LOCK) && i == n - 1;
    ids[i] = (uint32_t)fg_profile_intern(p, names[i], cls ? FG_KIND_CLASS : FG_KIND_JAVA);
  }
  int64_t s = fg_profile_event_stack(p, e, 0, ids, n);
  assert_true(s >= 0);
  fg_profile_count(p, (uint32_t)s, count, time, 0);
  p->stacks[s].events += e != FG_STACK_CPU;
}

static void recording(unsigned char **data, size_t *len)
{
  struct fg_profile p;
  fg_profile_init(&p);
  p.timeline.max = 100;
  assert_int_equal(fg_profile_add_thread(&p, 4242, "worker"), 0);
  p.threads[0].java_id = 21;
  p.stats.start_ns = START;
  p.stats.start_epoch_ns = 1700000000000000000ull;
  p.stats.wall_ns = 2000000000ull;
  snprintf(p.stats.event, sizeof p.stats.event, "cpu");
  const char *hot[] = {"Main.main", "Main.hot"};
  const char *alloc[] = {"Main.main", "Main.alloc", "byte[]"};
  const char *strings[] = {"Main.main", "Main.alloc", "java/lang/String"};
  const char *sync[] = {"Main.main", "Main.sync", "java/lang/Object"};
  add(&p, FG_STACK_CPU, hot, 2, 3, START + 10);
  add(&p, FG_STACK_ALLOC, alloc, 3, 1048576, START + 20);
  add(&p, FG_STACK_ALLOC, strings, 3, 600000, START + 25);
  add(&p, FG_STACK_LOCK, sync, 3, 5000000, START + 30000000);
  const char *write[] = {"Main.main", "Main.write"};
  p.stats.kernel[0].on = 1;
  p.stats.kernel[0].interval = 100;
  snprintf(p.stats.kevent[0].name, sizeof p.stats.kevent[0].name, "syscalls:sys_enter_write");
  add(&p, FG_STACK_KERNEL, write, 2, 100, START + 40);   /* two samples of a kernel event, 100 events each */
  add(&p, FG_STACK_KERNEL, write, 2, 100, START + 50);
  p.stats.kernel[1].on = 1;   /* a second kernel event on the same stack: kept apart by its name */
  p.stats.kernel[1].interval = 10;
  snprintf(p.stats.kevent[1].name, sizeof p.stats.kevent[1].name, "page-faults");
  for (int i = 0; i < 3; i++)   /* three samples of 10 page faults each */
    add(&p, FG_STACK_KERNEL + 1, write, 2, 10, START + 60 + (uint64_t)i);
  p.marks.max = 4;   /* a GC pause the agent saw (JVMTI), and one kind it never writes */
  assert_int_equal(fg_marks_add(&p.marks, FG_MARK_GC_PAUSE, START + 1000, 5000, "GC pause (JVMTI)"), 0);
  assert_int_equal(fg_marks_add(&p.marks, FG_MARK_SAFEPOINT, START + 9000, 7, "x"), 0);
  FILE *out = open_memstream((char **)data, len);
  struct fg_output_settings cfg = {0};
  assert_int_equal(fg_write_jfr(out, &p, &cfg), 0);
  fclose(out);
  fg_profile_free(&p);
}

/* The count of the stack with these names, root first, of event e in p (0: none). */
static uint64_t count_of(const struct fg_profile *p, enum fg_stack_event e, const char *const *names, uint32_t n)
{
  for (uint32_t i = 0; i < p->nstacks; i++) {
    const struct fg_stack *s = &p->stacks[i];
    if (s->event != e || s->nframes != n)
      continue;
    uint32_t k = 0;
    while (k < n && strcmp(p->names[fg_stack_frames(p, s)[k]], names[k]) == 0)
      k++;
    if (k == n)
      return s->count;
  }
  return 0;
}

/* ---- recordings made by hand: what no JVM writes, byte by byte ---- */

struct buf {
  uint8_t *b;
  size_t n, cap;
};

static void put(struct buf *o, const void *p, size_t n)
{
  if (o->n + n > o->cap) {
    o->cap = (o->n + n) * 2 + 64;
    o->b = realloc(o->b, o->cap);
    assert_non_null(o->b);
  }
  memcpy(o->b + o->n, p, n);
  o->n += n;
}

static void varint(struct buf *o, uint64_t v)
{
  uint8_t c[9];
  size_t n = 0;
  while (n < 8 && v >= 0x80) {
    c[n++] = (uint8_t)(v | 0x80);
    v >>= 7;
  }
  c[n++] = (uint8_t)v;
  put(o, c, n);
}

static void varint4(struct buf *o, uint32_t v)   /* padded to 4 bytes: what a writer that reserves room writes */
{
  uint8_t c[4] = {(uint8_t)(v | 0x80), (uint8_t)(v >> 7 | 0x80), (uint8_t)(v >> 14 | 0x80), (uint8_t)(v >> 21)};
  put(o, c, 4);
}

static void utf8(struct buf *o, const char *s)
{
  uint8_t enc = 3;
  put(o, &enc, 1);
  varint(o, strlen(s));
  put(o, s, strlen(s));
}

/* An event of type with body: its size padded to 4 bytes, as the JDK writes it. */
static void event(struct buf *o, uint64_t type, const struct buf *body)
{
  struct buf t = {0};
  varint(&t, type);
  varint4(o, (uint32_t)(4 + t.n + body->n));
  put(o, t.b, t.n);
  put(o, body->b, body->n);
  free(t.b);
}

/* A class the metadata declares: fields as "name:typeid[flags]", flags p (a
 * pool key), a (an array). */
struct jcls {
  uint64_t id;
  const char *name;
  const char *fields[8];
};

/* The metadata event's body for classes (the string table holds each text once per use: fine for a reader). */
static void metadata(struct buf *o, const struct jcls *cls, int ncls)
{
  struct buf strs = {0}, tree = {0};
  uint64_t nstr = 0;
#define STR(text) (utf8(&strs, (text)), nstr++)
  /* root element: "root", 0 attributes, 1 child: "metadata" with the classes */
  varint(&tree, STR("root"));
  varint(&tree, 0);
  varint(&tree, 1);
  varint(&tree, STR("metadata"));
  varint(&tree, 0);
  varint(&tree, (uint64_t)ncls);
  for (int i = 0; i < ncls; i++) {
    char id[32];
    snprintf(id, sizeof id, "%llu", (unsigned long long)cls[i].id);
    int nf = 0;
    while (nf < 8 && cls[i].fields[nf])
      nf++;
    varint(&tree, STR("class"));
    varint(&tree, 2);
    varint(&tree, STR("name"));
    varint(&tree, STR(cls[i].name));
    varint(&tree, STR("id"));
    varint(&tree, STR(id));
    varint(&tree, (uint64_t)nf);
    for (int f = 0; f < nf; f++) {
      char name[64], type[32];
      const char *colon = strchr(cls[i].fields[f], ':');
      snprintf(name, sizeof name, "%.*s", (int)(colon - cls[i].fields[f]), cls[i].fields[f]);
      snprintf(type, sizeof type, "%llu", strtoull(colon + 1, NULL, 10));
      int pool = strchr(colon, 'p') != NULL, array = strchr(colon, 'a') != NULL;
      varint(&tree, STR("field"));
      varint(&tree, (uint64_t)(2 + pool + array));
      varint(&tree, STR("name"));
      varint(&tree, STR(name));
      varint(&tree, STR("class"));
      varint(&tree, STR(type));
      if (pool) {
        varint(&tree, STR("constantPool"));
        varint(&tree, STR("true"));
      }
      if (array) {
        varint(&tree, STR("dimension"));
        varint(&tree, STR("1"));
      }
      varint(&tree, 0);
    }
  }
#undef STR
  struct buf body = {0};
  varint(&body, 0);   /* start, duration, id */
  varint(&body, 0);
  varint(&body, 0);
  varint(&body, nstr);
  put(&body, strs.b, strs.n);
  put(&body, tree.b, tree.n);
  event(o, 0, &body);
  free(strs.b);
  free(tree.b);
  free(body.b);
}

/* The classes a stack sample needs, and ids for the hand-made ones. */
enum { T_LONG = 1, T_INT, T_BYTE, T_STRING, T_THREAD, T_STACK, T_FRAME, T_METHOD, T_CLASS, T_SYMBOL, T_FTYPE,
       T_SAMPLE = 20, T_EMPTY = 30, T_HOLDER, T_NEST };

/* async-profiler's and the JDK's other sources of the same events (jfr_reader.c's choose_sources) */
enum { T_ALLOC_SAMPLE = 40, T_NEW_TLAB, T_OUTSIDE_TLAB, T_WALL, T_LIVE };
static const struct jcls source_classes[] = {
  {T_ALLOC_SAMPLE, "jdk.ObjectAllocationSample",
   {"startTime:1", "eventThread:5p", "stackTrace:6p", "objectClass:9p", "weight:1"}},
  {T_NEW_TLAB, "jdk.ObjectAllocationInNewTLAB",
   {"startTime:1", "eventThread:5p", "stackTrace:6p", "objectClass:9p", "allocationSize:1", "tlabSize:1"}},
  {T_OUTSIDE_TLAB, "jdk.ObjectAllocationOutsideTLAB",
   {"startTime:1", "eventThread:5p", "stackTrace:6p", "objectClass:9p", "allocationSize:1"}},
  {T_WALL, "profiler.WallClockSample", {"startTime:1", "sampledThread:5p", "stackTrace:6p", "samples:2"}},
  {T_LIVE, "profiler.LiveObject",
   {"startTime:1", "eventThread:5p", "stackTrace:6p", "objectClass:9p", "allocationSize:1", "allocationTime:1"}},
};

static const struct jcls base_classes[] = {
  {T_LONG, "long", {0}}, {T_INT, "int", {0}}, {T_BYTE, "boolean", {0}}, {T_STRING, "java.lang.String", {0}},
  {T_THREAD, "java.lang.Thread", {"javaName:4", "osThreadId:1", "javaThreadId:1"}},
  {T_STACK, "jdk.types.StackTrace", {"truncated:3", "frames:7a"}},
  {T_FRAME, "jdk.types.StackFrame", {"method:8p", "type:11p"}},
  {T_METHOD, "jdk.types.Method", {"type:9p", "name:10p"}},
  {T_CLASS, "java.lang.Class", {"name:10p"}},
  {T_SYMBOL, "jdk.types.Symbol", {"string:4"}},
  {T_FTYPE, "jdk.types.FrameType", {"description:4"}},
  {T_SAMPLE, "jdk.ExecutionSample", {"startTime:1", "sampledThread:5p", "stackTrace:6p"}},
};

/* A chunk: header, events (pools and samples, as made), metadata of classes; the whole file in *o. */
static void chunk(struct buf *o, const struct buf *events, const struct jcls *extra, int nextra)
{
  struct jcls cls[32];
  int n = 0;
  for (size_t i = 0; i < sizeof base_classes / sizeof base_classes[0]; i++)
    cls[n++] = base_classes[i];
  for (int i = 0; i < nextra; i++) {
    int k = 0;
    while (k < n && cls[k].id != extra[i].id)
      k++;
    cls[k] = extra[i];   /* replaces a base class of its id */
    n += k == n;
  }
  uint8_t h[68] = {'F', 'L', 'R', 0, 0, 2, 0, 1};
  put(o, h, sizeof h);
  put(o, events->b, events->n);
  size_t meta = o->n;
  metadata(o, cls, n);
  uint64_t size = o->n, ticks = 1000000000;
  for (int i = 0; i < 8; i++) {
    o->b[8 + i] = (uint8_t)(size >> (56 - 8 * i));
    o->b[24 + i] = (uint8_t)((uint64_t)meta >> (56 - 8 * i));
    o->b[56 + i] = (uint8_t)(ticks >> (56 - 8 * i));
  }
  o->b[67] = 1;   /* compressed integers */
}

/* A checkpoint's start: its header fields and a count of pools. */
static void checkpoint_head(struct buf *b, uint64_t npools)
{
  varint(b, 0);
  varint(b, 0);
  varint(b, 0);
  uint8_t kind = 1;
  put(b, &kind, 1);
  varint(b, npools);
}

/* A checkpoint of one thread (key 1), one method A.a (key 1) and a stack (key 1) of depth frames of it. */
static void one_stack_pools(struct buf *ev, uint32_t depth)
{
  struct buf cp = {0};
  checkpoint_head(&cp, 5);
  varint(&cp, T_THREAD);   /* thread 1: "main", tid 7, java id 1 */
  varint(&cp, 1);
  varint(&cp, 1);
  utf8(&cp, "main");
  varint(&cp, 7);
  varint(&cp, 1);
  varint(&cp, T_SYMBOL);   /* symbols 1 "A", 2 "a" */
  varint(&cp, 2);
  varint(&cp, 1);
  utf8(&cp, "A");
  varint(&cp, 2);
  utf8(&cp, "a");
  varint(&cp, T_CLASS);
  varint(&cp, 1);
  varint(&cp, 1);
  varint(&cp, 1);
  varint(&cp, T_METHOD);
  varint(&cp, 1);
  varint(&cp, 1);
  varint(&cp, 1);
  varint(&cp, 2);
  varint(&cp, T_STACK);
  varint(&cp, 1);
  varint(&cp, 1);
  uint8_t no = 0;
  put(&cp, &no, 1);
  varint(&cp, depth);
  for (uint32_t i = 0; i < depth; i++) {
    varint(&cp, 1);
    varint(&cp, 0);
  }
  event(ev, 1, &cp);
  free(cp.b);
}

static void sample(struct buf *ev, uint64_t time, uint64_t thread, uint64_t stack)
{
  struct buf b = {0};
  varint(&b, time);
  varint(&b, thread);
  varint(&b, stack);
  event(ev, T_SAMPLE, &b);
  free(b.b);
}

/* An event of type: time 1, thread 1, stack 1, then the values (the class first where it has one). */
static void source_event(struct buf *ev, uint64_t type, const uint64_t *values, int n)
{
  struct buf b = {0};
  varint(&b, 1);
  varint(&b, 1);
  varint(&b, 1);
  for (int i = 0; i < n; i++)
    varint(&b, values[i]);
  event(ev, type, &b);
  free(b.b);
}

/* The total of p's stacks of event e. */
static uint64_t event_total(const struct fg_profile *p, enum fg_stack_event e)
{
  uint64_t n = 0;
  for (uint32_t i = 0; i < p->nstacks; i++)
    n += p->stacks[i].event == e ? p->stacks[i].count : 0;
  return n;
}

/* With FG_JFR_SEEDS set to a directory, a hand-made recording is kept
 * there as name: seeds for fuzz_jfr_reader (tests/fuzz/corpus/jfr_reader). */
static void keep_seed(const struct buf *o, const char *name)
{
  const char *dir = getenv("FG_JFR_SEEDS");
  if (!dir)
    return;
  char path[512];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "wb");
  assert_non_null(f);
  assert_int_equal(fwrite(o->b, 1, o->n, f), o->n);
  fclose(f);
}

/* Parses data; the rc, err in err. */
static int parse(const struct buf *o, bool lines, struct fg_profile *p, char *err, size_t errlen)
{
  fg_profile_init(p);
  err[0] = '\0';
  return fg_parse_jfr(o->b, o->n, "made.jfr", lines, p, err, errlen);
}

/* A refusal is one line naming the file and a byte. */
static void assert_refused(const struct buf *o, const char *what)
{
  struct fg_profile p;
  char err[512];
  if (parse(o, false, &p, err, sizeof err) != -1)
    fail_msg("%s: read, not refused", what);
  if (!strstr(err, "made.jfr: byte ") || strchr(err, '\n'))
    fail_msg("%s: '%s'", what, err);
  fg_profile_free(&p);
}

/* The hand-made pieces make a recording that is read as meant. */
static void hand_made_recordings_are_read(void **state)
{
  (void)state;
  struct buf ev = {0}, o = {0};
  one_stack_pools(&ev, 3);
  sample(&ev, 1000000000, 1, 1);
  sample(&ev, 1000000000, 1, 1);
  chunk(&o, &ev, NULL, 0);
  keep_seed(&o, "hand-made-three-frames.jfr");
  struct fg_profile p;
  char err[512];
  if (parse(&o, false, &p, err, sizeof err) != 0)
    fail_msg("%s", err);
  const char *aaa[] = {"A.a", "A.a", "A.a"};
  assert_int_equal(count_of(&p, FG_STACK_CPU, aaa, 3), 2);
  assert_string_equal(p.threads[0].name, "main");
  fg_profile_free(&p);
  free(ev.b);
  free(o.b);
}

/* An event whose size and type take more bytes than its size says: the
 * reader's end fell behind its position and every later check passed (a
 * read past the buffer). Refused at that event's byte, in each pass. */
static void an_event_shorter_than_its_header_is_refused(void **state)
{
  (void)state;
  for (int where = 0; where < 4; where++) {
    struct buf ev = {0}, o = {0};
    one_stack_pools(&ev, 2);
    size_t at = 68 + ev.n;
    uint8_t bad[] = {0x02, 0x81, 0x80, 0x80, 0x00};   /* size 2, type 1 in four bytes: a checkpoint */
    if (where == 1)
      bad[1] = 0x94;   /* type 20: a sample, in the events' pass */
    if (where == 2)
      bad[1] = 0x80;   /* type 0: a metadata event, only ever read where the header says */
    if (where < 3) {
      put(&ev, bad, sizeof bad);
      sample(&ev, 1, 1, 1);
    }
    chunk(&o, &ev, NULL, 0);
    if (where == 2) {   /* the header points at it */
      for (int i = 0; i < 8; i++)
        o.b[24 + i] = (uint8_t)((uint64_t)at >> (56 - 8 * i));
    }
    if (where == 3) {   /* the chunk's last bytes: the old reader read on past the file */
      at = o.n;
      put(&o, bad, sizeof bad);
      for (int i = 0; i < 8; i++)
        o.b[8 + i] = (uint8_t)((uint64_t)o.n >> (56 - 8 * i));
    }
    char seed[64];
    snprintf(seed, sizeof seed, "crash-header-longer-than-size-%d.jfr", where);
    keep_seed(&o, seed);
    struct fg_profile p;
    char err[512];
    assert_int_equal(parse(&o, false, &p, err, sizeof err), -1);
    char want[64];
    snprintf(want, sizeof want, "made.jfr: byte %zu: ", at);
    if (!strstr(err, want) || !strstr(err, "smaller than its own"))
      fail_msg("case %d: '%s'", where, err);
    fg_profile_free(&p);
    free(ev.b);
    free(o.b);
  }
}

static void fgagents_recordings_read_back_exactly(void **state)
{
  (void)state;
  unsigned char *data;
  size_t len;
  recording(&data, &len);
  assert_true(fg_is_jfr(data, len));
  struct fg_profile p;
  fg_profile_init(&p);
  p.timeline.max = 100;
  char err[512];
  if (fg_parse_jfr(data, len, "rec.jfr", false, &p, err, sizeof err) != 0)
    fail_msg("%s", err);
  const char *hot[] = {"Main.main", "Main.hot"};
  const char *alloc[] = {"Main.main", "Main.alloc", "byte[]"};
  const char *strings[] = {"Main.main", "Main.alloc", "java/lang/String"};
  const char *sync[] = {"Main.main", "Main.sync", "java/lang/Object"};
  assert_int_equal(count_of(&p, FG_STACK_CPU, hot, 2), 3);
  assert_int_equal(count_of(&p, FG_STACK_ALLOC, alloc, 3), 1048576);
  assert_int_equal(count_of(&p, FG_STACK_ALLOC, strings, 3), 600000);
  assert_int_equal(count_of(&p, FG_STACK_LOCK, sync, 3), 5000000);
  const char *write[] = {"Main.main", "Main.write"};
  assert_int_equal(count_of(&p, FG_STACK_KERNEL, write, 2), 200);   /* fgagent.KernelEvent: count events each */
  assert_int_equal(p.stats.kernel[0].stored, 2);
  assert_int_equal(p.stats.kernel[0].interval, 100);
  assert_string_equal(p.stats.kevent[0].name, "syscalls:sys_enter_write");
  assert_int_equal(count_of(&p, FG_STACK_KERNEL + 1, write, 2), 30);   /* the second, apart */
  assert_int_equal(p.stats.kernel[1].interval, 10);
  assert_string_equal(p.stats.kevent[1].name, "page-faults");
  assert_int_equal(fg_event_by_name(&p.stats, fg_profile_events(&p), "page-faults"), FG_STACK_KERNEL + 1);
  assert_int_equal(fg_event_by_name(&p.stats, fg_profile_events(&p), "syscalls_sys_enter_write"), FG_STACK_KERNEL);
  assert_int_equal(fg_event_by_name(&p.stats, fg_profile_events(&p), "kernel"), FG_STACK_KERNEL);
  assert_int_equal(p.nthreads, 1);
  assert_string_equal(p.threads[0].name, "worker");
  assert_int_equal(p.threads[0].tid, 4242);
  assert_int_equal(p.threads[0].java_id, 21);
  assert_int_equal(p.stats.taken, 3);                 /* CPU samples accounted as read */
  assert_int_equal(p.stats.alloc.stored, 2);
  assert_int_equal(p.stats.lock.weight, 5000000);
  assert_string_equal(p.stats.event, "jfr");
  /* times: ns since 1970, the recording's start plus each event's offset; a wait ends at its time */
  int seen_lock = 0;
  for (uint32_t i = 0; i < p.timeline.n; i++) {
    const struct fg_timeline_entry *t = &p.timeline.entries[i];
    if (p.stacks[t->stack].event == FG_STACK_LOCK) {
      assert_int_equal(t->time_ns, 1700000000000000000ull + 30000000);
      seen_lock = 1;
    }
    if (p.stacks[t->stack].event == FG_STACK_ALLOC && t->weight == 1048576)
      assert_int_equal(t->time_ns, 1700000000000000000ull + 20);
  }
  assert_true(seen_lock);
  assert_int_equal(p.marks.n, 0);   /* marks are read only into a profile that keeps them */
  fg_profile_free(&p);
  fg_profile_init(&p);
  p.marks.max = 8;
  if (fg_parse_jfr(data, len, "rec.jfr", false, &p, err, sizeof err) != 0)
    fail_msg("%s", err);
  assert_int_equal(p.marks.n, 1);   /* the GC pause, as fgagent.GCPause, at its time */
  assert_int_equal(p.marks.m[0].kind, FG_MARK_GC_PAUSE);
  assert_int_equal(p.marks.m[0].time_ns, 1700000000000000000ull + 1000);
  assert_int_equal(p.marks.m[0].duration_ns, 5000);
  assert_string_equal(p.marks.m[0].label, "GC pause (JVMTI)");
  fg_profile_free(&p);
  free(data);
}

/* A safepoint's mark spans jdk.SafepointBegin's start to its
 * jdk.SafepointEnd's end (the same safepointId), or to the end of its
 * jdk.ExecuteVMOperation (the JDK's settings leave the end off), named by
 * the operation: HotSpot commits the begin once the threads stopped, so a
 * begin alone is only the time to stop them (and clean up), which is what
 * a safepoint with neither keeps. */
enum { T_SP_BEGIN = 50, T_SP_END, T_VM_OP };
static const struct jcls safepoint_classes[] = {
  {T_SP_BEGIN, "jdk.SafepointBegin", {"startTime:1", "duration:1", "safepointId:1"}},
  {T_SP_END, "jdk.SafepointEnd", {"startTime:1", "duration:1", "safepointId:1"}},
  {T_VM_OP, "jdk.ExecuteVMOperation", {"startTime:1", "duration:1", "operation:4", "safepoint:3", "safepointId:1"}},
};

static void vm_operation(struct buf *ev, uint64_t start, uint64_t duration, const char *op, int safepoint, uint64_t id)
{
  struct buf b = {0};
  varint(&b, start);
  varint(&b, duration);
  utf8(&b, op);
  uint8_t sp = (uint8_t)safepoint;
  put(&b, &sp, 1);
  varint(&b, id);
  event(ev, T_VM_OP, &b);
  free(b.b);
}

static void safepoint_event(struct buf *ev, uint64_t type, uint64_t start, uint64_t duration, uint64_t id)
{
  struct buf b = {0};
  varint(&b, start);
  varint(&b, duration);
  varint(&b, id);
  event(ev, type, &b);
  free(b.b);
}

static void a_safepoint_spans_begin_to_end(void **state)
{
  (void)state;
  struct buf ev = {0}, o = {0};
  one_stack_pools(&ev, 1);
  sample(&ev, 1, 1, 1);
  safepoint_event(&ev, T_SP_BEGIN, 1000, 30, 7);    /* 30 ns to stop the threads */
  safepoint_event(&ev, T_SP_BEGIN, 5000, 40, 9);    /* its end is not in the recording */
  safepoint_event(&ev, T_SP_END, 1500, 20, 7);      /* the operation ran 1030..1500 */
  safepoint_event(&ev, T_SP_END, 8000, 20, 99);     /* no begin: nothing */
  /* the JDK's settings: no SafepointEnd, the operation inside the safepoint names it and ends it */
  safepoint_event(&ev, T_SP_BEGIN, 10000, 50, 11);
  vm_operation(&ev, 10060, 900, "G1CollectFull", 1, 11);
  vm_operation(&ev, 10970, 5, "Handshake", 0, 11);       /* not at a safepoint: not its */
  chunk(&o, &ev, safepoint_classes, 3);
  keep_seed(&o, "hand-made-safepoints.jfr");
  struct fg_profile p;
  fg_profile_init(&p);
  p.marks.max = 8;
  char err[512];
  if (fg_parse_jfr(o.b, o.n, "made.jfr", false, &p, err, sizeof err) != 0)
    fail_msg("%s", err);
  assert_int_equal(p.marks.n, 3);
  assert_int_equal(p.marks.m[2].time_ns, 10000);
  assert_int_equal(p.marks.m[2].duration_ns, 10960 - 10000);
  assert_string_equal(p.marks.m[2].label, "G1CollectFull");
  assert_int_equal(p.marks.m[0].kind, FG_MARK_SAFEPOINT);
  assert_int_equal(p.marks.m[0].time_ns, 1000);
  assert_int_equal(p.marks.m[0].duration_ns, 1520 - 1000);
  assert_int_equal(p.marks.m[1].time_ns, 5000);
  assert_int_equal(p.marks.m[1].duration_ns, 40);
  fg_profile_free(&p);
  free(o.b);
  free(ev.b);
}

/* nativemem,leak's profile: site A's allocation at 0x1000 kept; site B's at
 * 0x2000 freed, the address then given to another of A's, kept. */
static void leak_recording(char **data, size_t *len)
{
  struct fg_profile p;
  fg_profile_init(&p);
  assert_int_equal(fg_profile_add_thread(&p, 77, "native"), 0);
  p.stats.start_ns = START;
  p.stats.wall_ns = 1000000000ull;
  p.stats.nativemem.on = p.stats.nativemem.leak = 1;
  const char *a[] = {"Main.main", "site_a"}, *b[] = {"Main.main", "site_b"};
  uint32_t ids[2];
  for (int k = 0; k < 2; k++)
    ids[k] = (uint32_t)fg_profile_intern(&p, a[k], FG_KIND_NATIVE);
  int64_t sa = fg_profile_event_stack(&p, FG_STACK_NATIVEMEM, 0, ids, 2);
  ids[1] = (uint32_t)fg_profile_intern(&p, b[1], FG_KIND_NATIVE);
  int64_t sb = fg_profile_event_stack(&p, FG_STACK_NATIVEMEM, 0, ids, 2);   /* freed: no count of its own */
  assert_true(sa >= 0 && sb >= 0);
  fg_profile_count(&p, (uint32_t)sa, 3000, START + 10, 0);
  fg_profile_count(&p, (uint32_t)sa, 500, START + 40, 0);
  p.trail.max = 10;
  struct fg_native_trail_entry e[] = {
    {START + 10, 0, 0x1000, 3000, (uint32_t)sa, 0},
    {START + 20, START + 30, 0x2000, 7000, (uint32_t)sb, 0},
    {START + 40, 0, 0x2000, 500, (uint32_t)sa, 0},
  };
  for (int k = 0; k < 3; k++)
    assert_int_equal(fg_native_trail_add(&p.trail, &e[k]), 0);
  FILE *out = open_memstream(data, len);
  struct fg_output_settings cfg = {0};
  assert_int_equal(fg_write_jfr(out, &p, &cfg), 0);
  fclose(out);
  fg_profile_free(&p);
}

static void a_leak_recording_replays_to_its_leaks(void **state)
{
  (void)state;
  char *data;
  size_t len;
  leak_recording(&data, &len);
  const char *a[] = {"Main.main", "site_a"}, *b[] = {"Main.main", "site_b"};
  char err[512];
  for (int leak = 0; leak < 2; leak++) {
    struct fg_profile p;
    fg_profile_init(&p);
    p.stats.nativemem.leak = leak;
    if (fg_parse_jfr((unsigned char *)data, len, "leak.jfr", false, &p, err, sizeof err) != 0)
      fail_msg("%s", err);
    /* --leak: the allocations no free of their address follows; else every one, freed or not */
    assert_int_equal(count_of(&p, FG_STACK_NATIVEMEM, a, 2), 3500);
    assert_int_equal(count_of(&p, FG_STACK_NATIVEMEM, b, 2), leak ? 0 : 7000);
    if (leak)
      assert_int_equal(p.stats.nativemem.freed, 1);
    fg_profile_free(&p);
  }
  free(data);
}

static void cut_or_corrupt_recordings_are_refused(void **state)
{
  (void)state;
  unsigned char *data;
  size_t len;
  recording(&data, &len);
  unsigned char *copy = malloc(len);
  char err[512];
  for (size_t cut = 0; cut < len; cut++) {   /* every prefix: the chunk is longer */
    struct fg_profile p;
    fg_profile_init(&p);
    memcpy(copy, data, cut);
    err[0] = '\0';
    assert_int_equal(fg_parse_jfr(copy, cut, "cut.jfr", false, &p, err, sizeof err), -1);
    if (!strstr(err, "cut.jfr: ") || strchr(err, '\n'))
      fail_msg("prefix of %zu bytes: '%s'", cut, err);
    fg_profile_free(&p);
  }
  for (size_t at = 0; at < len; at++)   /* every byte flipped: refused or read, never a crash */
    for (int bits = 1; bits < 256; bits <<= 3) {
      struct fg_profile p;
      fg_profile_init(&p);
      memcpy(copy, data, len);
      copy[at] ^= (unsigned char)bits;
      if (fg_parse_jfr(copy, len, "bad.jfr", false, &p, err, sizeof err) != 0 && !strstr(err, "bad.jfr: "))
        fail_msg("byte %zu flipped: '%s'", at, err);
      fg_profile_free(&p);
    }
  free(copy);
  free(data);
}

static void a_recording_without_known_events_is_refused(void **state)
{
  (void)state;
  struct fg_profile empty;
  fg_profile_init(&empty);
  empty.stats.start_epoch_ns = 1;
  unsigned char *data;
  size_t len;
  FILE *out = open_memstream((char **)&data, &len);
  struct fg_output_settings cfg = {0};
  assert_int_equal(fg_write_jfr(out, &empty, &cfg), 0);
  fclose(out);
  struct fg_profile p;
  fg_profile_init(&p);
  char err[512];
  assert_int_equal(fg_parse_jfr(data, len, "empty.jfr", false, &p, err, sizeof err), -1);
  assert_non_null(strstr(err, "no jdk.ExecutionSample"));
  assert_false(fg_is_jfr((const uint8_t *)"Main.main 1\n", 12));
  fg_profile_free(&p);
  fg_profile_free(&empty);
  free(data);
}

/* A leaf frame's bytecode index and descriptor (NULL: none). */
struct leaf {
  int32_t bci;
  const char *descriptor;
};

/* A recording (into *data) of thread main with two stacks, run;leaf 2
 * samples at leaves[0] and 4 at leaves[1]. */
static void two_leaves(char **data, size_t *len, const char *run, const char *leaf, const struct leaf *leaves)
{
  struct fg_profile w;
  fg_profile_init(&w);
  assert_int_equal(fg_profile_add_thread(&w, 7, "main"), 0);
  snprintf(w.stats.event, sizeof w.stats.event, "cpu");
  uint32_t root = (uint32_t)fg_profile_intern(&w, run, FG_KIND_JAVA);
  for (int i = 0; i < 2; i++) {
    int64_t id = fg_profile_intern_method(&w, leaf, FG_KIND_JAVA, leaves[i].bci, leaves[i].descriptor);
    assert_true(id >= 0);
    uint32_t frames[] = {root, (uint32_t)id};
    assert_int_equal(fg_profile_add(&w, 0, frames, 2, i == 0 ? 2 : 4), 0);
  }
  FILE *out = open_memstream(data, len);
  struct fg_output_settings cfg = {0};
  assert_int_equal(fg_write_jfr(out, &w, &cfg), 0);
  fclose(out);
  fg_profile_free(&w);
}

/* Read with lines, a recording's Java frames are named at their lines and
 * kept apart by their bytecode indexes (what a .jfr written from them says
 * again); read without, a method is one frame whatever its line. */
static void lines_name_frames_at_their_lines_and_bcis(void **state)
{
  (void)state;
  char *data;
  size_t len;
  two_leaves(&data, &len, "pkg/Main.run:3", "pkg/Main.hot:12", (const struct leaf[]){{5, NULL}, {9, NULL}});

  char err[512];
  struct fg_profile p;
  fg_profile_init(&p);
  if (fg_parse_jfr((const uint8_t *)data, len, "lines.jfr", false, &p, err, sizeof err) != 0)
    fail_msg("%s", err);
  const char *methods[] = {"pkg/Main.run", "pkg/Main.hot"};
  assert_int_equal(count_of(&p, FG_STACK_CPU, methods, 2), 6);
  assert_int_equal(p.nvariants, 0);
  fg_profile_free(&p);

  fg_profile_init(&p);
  if (fg_parse_jfr((const uint8_t *)data, len, "lines.jfr", true, &p, err, sizeof err) != 0)
    fail_msg("%s", err);
  assert_int_equal(p.nvariants, 2);
  uint64_t by_bci[10] = {0};
  for (uint32_t i = 0; i < p.nstacks; i++) {
    const uint32_t *f = fg_stack_frames(&p, &p.stacks[i]);
    assert_int_equal(p.stacks[i].nframes, 2);
    assert_string_equal(p.names[f[0]], "pkg/Main.run:3");
    assert_int_equal(fg_profile_bci(&p, f[0]), -1);
    assert_string_equal(p.names[f[1]], "pkg/Main.hot:12");
    int32_t bci = fg_profile_bci(&p, f[1]);
    assert_true(bci == 5 || bci == 9);
    by_bci[bci] += p.stacks[i].count;
  }
  assert_int_equal(by_bci[5], 2);
  assert_int_equal(by_bci[9], 4);
  fg_profile_free(&p);
  free(data);
}

/* A recording's overloads (one name, two descriptors) are read as two
 * names, each with its descriptor, so a .jfr written from them holds two
 * methods again; a collapsed file written from them names them once. */
static void overloads_are_read_apart(void **state)
{
  (void)state;
  char *data;
  size_t len;
  two_leaves(&data, &len, "pkg/Work.run", "pkg/Work.mix", (const struct leaf[]){{-1, "(JI)J"}, {-1, "(J)J"}});

  char err[512];
  struct fg_profile p;
  fg_profile_init(&p);
  if (fg_parse_jfr((const uint8_t *)data, len, "overloads.jfr", false, &p, err, sizeof err) != 0)
    fail_msg("%s", err);
  assert_int_equal(p.nstacks, 2);
  assert_int_equal(p.nvariants, 1);
  uint64_t by[2] = {0};
  for (uint32_t i = 0; i < p.nstacks; i++) {
    const uint32_t *f = fg_stack_frames(&p, &p.stacks[i]);
    assert_string_equal(p.names[f[1]], "pkg/Work.mix");
    assert_null(fg_profile_descriptor(&p, f[0]));
    const char *d = fg_profile_descriptor(&p, f[1]);
    assert_non_null(d);
    by[strcmp(d, "(J)J") == 0] += p.stacks[i].count;
  }
  assert_int_equal(by[0], 2);
  assert_int_equal(by[1], 4);

  char *text;
  size_t text_len;
  FILE *out = open_memstream(&text, &text_len);
  struct fg_output_settings cfg = {0};
  struct fg_profile m;
  assert_int_equal(fg_profile_merge_variants(&p, &m), 0);
  assert_int_equal(fg_write_collapsed(out, &m, &cfg), 0);
  fclose(out);
  assert_string_equal(text, "pkg/Work.run;pkg/Work.mix 6\n");
  free(text);
  fg_profile_free(&m);
  fg_profile_free(&p);
  free(data);
}

/* ---- work and memory bounded by the file's size ---- */

/* Parses o in a child (address space limited to 1 GB, killed past max_cpu s of CPU):
 * its CPU time, wall time and peak RSS above a child that parses nothing. The
 * child's exit: 0 read, 1 refused; anything else, it crashed or was killed. */
static int bounded_parse(const struct buf *o, bool lines, double max_cpu, double *seconds, double *wall, long *rss_kb)
{
  struct rusage base, ru;
  int status;
  pid_t pid = fork();
  assert_true(pid >= 0);
  if (pid == 0)
    _exit(0);
  assert_int_equal(wait4(pid, &status, 0, &base), pid);
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) {
    struct rlimit as = {1ul << 30, 1ul << 30}, cpu = {(rlim_t)max_cpu + 1, (rlim_t)max_cpu + 2};
    setrlimit(RLIMIT_AS, &as);
    setrlimit(RLIMIT_CPU, &cpu);   /* SIGXCPU ends a reader past its bound, however loaded the machine */
    alarm(600);
    struct fg_profile p;
    char err[512];
    int rc = parse(o, lines, &p, err, sizeof err);
    _exit(rc == 0 ? 0 : 1);
  }
  assert_int_equal(wait4(pid, &status, 0, &ru), pid);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  /* CPU time, user and system: what the reader did, whatever else the machine runs */
  *seconds = (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) + (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
  *wall = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
  *rss_kb = ru.ru_maxrss - base.ru_maxrss;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* Holds a parse of o to the bounds: 1 s of CPU and 64 MB, plus 1 s a
 * megabyte and 64 bytes a byte of the file (the reader may build 32 a byte). */
static void assert_bounded(const struct buf *o, const char *what)
{
  for (int lines = 0; lines < 2; lines++) {
    double seconds, wall;
    long rss_kb;
    double mb = (double)o->n / (1 << 20), max_s = 1.0 + mb, max_kb = 65536 + 64.0 * (double)o->n / 1024;
    int rc = bounded_parse(o, lines, max_s, &seconds, &wall, &rss_kb);
    print_message("%s (%.1f MB, lines %d): exit %d, %.2f s of CPU (%.2f s wall), %ld KB more\n", what, mb, lines, rc,
                  seconds, wall, rss_kb);
    if (rc > 1)
      fail_msg("%s: the reader crashed or was killed (%d)", what, rc);
    if (seconds > max_s || (double)rss_kb > max_kb)
      fail_msg("%s: %.2f s (at most %.2f), %ld KB (at most %.0f)", what, seconds, max_s, rss_kb, max_kb);
  }
}

/* A String pool entry of a string of len bytes: room after the entries before it. */
static void big_string_pool(struct buf *cp, size_t len)
{
  varint(cp, T_STRING);
  varint(cp, 1);
  varint(cp, 1);
  char *text = malloc(len + 1);
  memset(text, 'x', len);
  text[len] = '\0';
  utf8(cp, text);
  free(text);
}

/* Arrays of a class with no fields (a value of it takes no bytes), each
 * claiming as many elements as the bytes left: "every element takes a
 * byte" was the bound, and a file of 2 MB took minutes. */
static void zero_byte_elements_are_bounded(void **state)
{
  (void)state;
  static const struct jcls extra[] = {
    {T_EMPTY, "Empty", {0}}, {T_HOLDER, "Holder", {"e:30a"}}, {T_NEST, "Nest", {"h:31a"}},
  };
  const uint32_t entries = 200000, count = (1u << 21) - 1;   /* a count in three bytes */
  for (int nested = 0; nested < 2; nested++) {
    struct buf ev = {0}, cp = {0}, o = {0};
    checkpoint_head(&cp, 2);
    if (!nested) {   /* Holder pool: entries of one array each */
      varint(&cp, T_HOLDER);
      varint(&cp, entries);
      for (uint32_t i = 0; i < entries; i++) {
        varint(&cp, i + 1);
        varint(&cp, count);
      }
    } else {   /* one Nest: an array of Holders, each an array of Empty */
      varint(&cp, T_NEST);
      varint(&cp, 1);
      varint(&cp, 1);
      varint(&cp, entries);
      for (uint32_t i = 0; i < entries; i++)
        varint(&cp, count);
    }
    big_string_pool(&cp, count);
    event(&ev, 1, &cp);
    one_stack_pools(&ev, 1);
    sample(&ev, 1, 1, 1);
    chunk(&o, &ev, extra, 3);
    assert_bounded(&o, nested ? "nested arrays of zero-byte elements" : "arrays of zero-byte elements");
    struct fg_profile p;
    char err[512];
    if (parse(&o, false, &p, err, sizeof err) != 0)   /* nothing wrong with them: read */
      fail_msg("%s", err);
    fg_profile_free(&p);
    free(cp.b);
    free(ev.b);
    free(o.b);
  }
}

/* Stack traces of frames with no fields: each frame was a frame "[unknown]"
 * made of no byte, and a file of 1 MB grew past 3 GB. Refused, at once. */
static void field_less_frames_are_refused(void **state)
{
  (void)state;
  static const struct jcls extra[] = {{T_FRAME, "jdk.types.StackFrame", {0}}};
  const uint32_t stacks = 100000, count = (1u << 21) - 1;
  struct buf ev = {0}, cp = {0}, o = {0};
  checkpoint_head(&cp, 2);
  varint(&cp, T_STACK);
  varint(&cp, stacks);
  for (uint32_t i = 0; i < stacks; i++) {
    varint(&cp, i + 1);
    uint8_t no = 0;
    put(&cp, &no, 1);
    varint(&cp, count);
  }
  big_string_pool(&cp, count);
  event(&ev, 1, &cp);
  for (uint32_t i = 0; i < stacks; i++)
    sample(&ev, 1, 0, i + 1);
  chunk(&o, &ev, extra, 1);
  assert_bounded(&o, "field-less frames");
  assert_refused(&o, "field-less frames");
  free(cp.b);
  free(ev.b);
  free(o.b);
}

/* Counts far past the bytes left, in every place a count is read. */
static void huge_counts_are_refused(void **state)
{
  (void)state;
  for (int where = 0; where < 4; where++) {
    struct buf ev = {0}, cp = {0}, o = {0};
    checkpoint_head(&cp, where == 0 ? UINT64_MAX / 2 : 1);
    if (where == 1) {   /* entries of a pool */
      varint(&cp, T_SYMBOL);
      varint(&cp, 1ull << 62);
    } else if (where == 2) {   /* a string's length */
      varint(&cp, T_SYMBOL);
      varint(&cp, 1);
      varint(&cp, 1);
      uint8_t enc = 4;
      put(&cp, &enc, 1);
      varint(&cp, 1ull << 62);
    } else if (where == 3) {   /* a stack's frames */
      varint(&cp, T_STACK);
      varint(&cp, 1);
      varint(&cp, 1);
      uint8_t no = 0;
      put(&cp, &no, 1);
      varint(&cp, UINT64_MAX);
    }
    event(&ev, 1, &cp);
    sample(&ev, 1, 0, 1);
    chunk(&o, &ev, NULL, 0);
    assert_refused(&o, "a huge count");
    assert_bounded(&o, "a huge count");
    free(cp.b);
    free(ev.b);
    free(o.b);
  }
}

/* 200 000 threads, a sample each: each thread was looked for among all
 * before it (6 s); now hashed. */
static void many_threads_are_read_in_linear_time(void **state)
{
  (void)state;
  const uint32_t threads = 200000;
  struct buf ev = {0}, cp = {0}, o = {0};
  one_stack_pools(&ev, 2);
  checkpoint_head(&cp, 1);
  varint(&cp, T_THREAD);
  varint(&cp, threads);
  for (uint32_t i = 0; i < threads; i++) {
    char name[32];
    snprintf(name, sizeof name, "t%u", i);
    varint(&cp, i + 2);
    utf8(&cp, name);
    varint(&cp, i + 100);
    varint(&cp, i + 2);
  }
  event(&ev, 1, &cp);
  for (uint32_t i = 0; i < threads; i++)
    sample(&ev, 1000000000 + i, i + 2, 1);
  chunk(&o, &ev, NULL, 0);
  assert_bounded(&o, "200 000 threads");
  struct fg_profile p;
  char err[512];
  if (parse(&o, false, &p, err, sizeof err) != 0)
    fail_msg("%s", err);
  assert_int_equal(p.nthreads, threads);
  assert_int_equal(p.nstacks, threads);
  assert_int_equal(fg_profile_total(&p), threads);
  fg_profile_free(&p);
  free(cp.b);
  free(ev.b);
  free(o.b);
}

/* A sample with no stack (key 0): the collapsed writer printed an
 * unterminated buffer. Every byte written is one the profile holds. */
static void a_sample_without_frames_is_written_cleanly(void **state)
{
  (void)state;
  struct buf ev = {0}, o = {0};
  one_stack_pools(&ev, 1);
  sample(&ev, 1, 1, 0);
  sample(&ev, 1, 1, 0);
  sample(&ev, 1, 1, 1);
  chunk(&o, &ev, NULL, 0);
  keep_seed(&o, "hand-made-no-frames.jfr");
  struct fg_profile p;
  char err[512];
  if (parse(&o, false, &p, err, sizeof err) != 0)
    fail_msg("%s", err);
  for (int per_thread = 0; per_thread < 2; per_thread++) {
    char *text;
    size_t len;
    FILE *out = open_memstream(&text, &len);
    struct fg_output_settings cfg = {.per_thread = per_thread};
    assert_int_equal(fg_write_collapsed(out, &p, &cfg), 0);
    fclose(out);
    assert_string_equal(text, per_thread ? "[main tid=7];A.a 1\n[main tid=7];[no_stack] 2\n" : "A.a 1\n[no_stack] 2\n");
    free(text);
  }
  fg_profile_free(&p);
  free(ev.b);
  free(o.b);
}

/* 100 000 overloads of one method name, one stack through them all: the
 * profile finds a name's overloads on one probe sequence, so each new one
 * walked all before it. Past a few hundred they are one frame. */
static void many_overloads_are_bounded(void **state)
{
  (void)state;
  static const struct jcls extra[] = {{T_METHOD, "jdk.types.Method", {"type:9p", "name:10p", "descriptor:10p"}}};
  const uint32_t methods = 100000;
  struct buf ev = {0}, cp = {0}, o = {0};
  checkpoint_head(&cp, 5);
  varint(&cp, T_THREAD);
  varint(&cp, 1);
  varint(&cp, 1);
  utf8(&cp, "main");
  varint(&cp, 7);
  varint(&cp, 1);
  varint(&cp, T_SYMBOL);
  varint(&cp, methods + 2);
  varint(&cp, 1);
  utf8(&cp, "A");
  varint(&cp, 2);
  utf8(&cp, "a");
  for (uint32_t i = 0; i < methods; i++) {
    char d[32];
    snprintf(d, sizeof d, "(I%u)V", i);
    varint(&cp, i + 3);
    utf8(&cp, d);
  }
  varint(&cp, T_CLASS);
  varint(&cp, 1);
  varint(&cp, 1);
  varint(&cp, 1);
  varint(&cp, T_METHOD);
  varint(&cp, methods);
  for (uint32_t i = 0; i < methods; i++) {
    varint(&cp, i + 1);
    varint(&cp, 1);
    varint(&cp, 2);
    varint(&cp, i + 3);
  }
  varint(&cp, T_STACK);
  varint(&cp, 1);
  varint(&cp, 1);
  uint8_t no = 0;
  put(&cp, &no, 1);
  varint(&cp, methods);
  for (uint32_t i = 0; i < methods; i++) {
    varint(&cp, i + 1);
    varint(&cp, 0);
  }
  event(&ev, 1, &cp);
  sample(&ev, 1, 1, 1);
  chunk(&o, &ev, extra, 1);
  assert_bounded(&o, "100 000 overloads");
  struct fg_profile p;
  char err[512];
  if (parse(&o, false, &p, err, sizeof err) != 0)
    fail_msg("%s", err);
  assert_int_equal(p.nstacks, 1);
  assert_int_equal(p.stacks[0].nframes, methods);
  assert_true(p.nvariants >= 200 && p.nvariants <= 300);   /* a few hundred kept apart, the rest one frame */
  fg_profile_free(&p);
  free(cp.b);
  free(ev.b);
  free(o.b);
}

/* Each input the fuzzer found crashing (tests/fuzz/corpus/jfr_reader/crash-*)
 * is refused with one line naming a byte, or read and written by every
 * writer, its collapsed stacks read back. */
static void the_fuzzers_crashers_are_handled(void **state)
{
  (void)state;
  const char *dir = "tests/fuzz/corpus/jfr_reader";
  char list[600];
  snprintf(list, sizeof list, "ls %s/crash-* 2>/dev/null", dir);
  FILE *names = popen(list, "r");
  assert_non_null(names);
  char path[512];
  int seen = 0;
  while (fgets(path, sizeof path, names)) {
    path[strcspn(path, "\n")] = '\0';
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    struct buf o = {0};
    char chunk_of[4096];
    size_t got;
    while ((got = fread(chunk_of, 1, sizeof chunk_of, f)) > 0)
      put(&o, chunk_of, got);
    fclose(f);
    for (int lines = 0; lines < 2; lines++) {
      struct fg_profile p;
      char err[512];
      int rc = parse(&o, lines, &p, err, sizeof err);
      if (rc != 0 && (!strstr(err, "made.jfr: ") || strchr(err, '\n')))
        fail_msg("%s: '%s'", path, err);
      if (p.nstacks > 0) {   /* what was read, also before an error, goes through every writer */
        char *text;
        size_t len;
        FILE *out = open_memstream(&text, &len);
        struct fg_output_settings cfg = {.per_thread = lines};
        assert_int_equal(fg_write_collapsed(out, &p, &cfg), 0);
        fclose(out);
        struct fg_profile back;
        fg_profile_init(&back);
        if (fg_parse_collapsed(text, len, "back", &back, err, sizeof err) != 0)
          fail_msg("%s: its collapsed stacks do not read back: %s", path, err);
        fg_profile_free(&back);
        free(text);
        FILE *null = fopen("/dev/null", "w");
        fg_write_callgraph(null, &p, &cfg);
        fg_write_flamegraph_html(null, &p, &cfg);
        fg_write_pprof(null, &p, &cfg);
        fg_write_speedscope(null, &p, &cfg);
        fg_write_jfr(null, &p, &cfg);
        fclose(null);
      }
      fg_profile_free(&p);
    }
    free(o.b);
    seen++;
  }
  pclose(names);
  assert_true(seen > 0);   /* run from the repository's root, as scripts/run-tests.sh runs it */
}

/* Where a recording holds two sources of the same events, one is read:
 * the TLAB events (an InNewTLAB sample by its tlabSize, its allocationSize
 * where that is 0; an OutsideTLAB one by its allocationSize) over
 * jdk.ObjectAllocationSample, jdk.ExecutionSample over
 * profiler.WallClockSample (each by its samples) unless FG_JFR_WALL asks;
 * profiler.LiveObject by its allocationSize. What was left out is said. */
static void one_source_a_recording(void **state)
{
  (void)state;
  struct buf ev = {0}, o = {0};
  one_stack_pools(&ev, 2);
  sample(&ev, 1, 1, 1);
  source_event(&ev, T_WALL, (uint64_t[]){5}, 1);
  source_event(&ev, T_WALL, (uint64_t[]){0}, 1);   /* stands for nothing */
  source_event(&ev, T_ALLOC_SAMPLE, (uint64_t[]){1, 1000}, 2);
  source_event(&ev, T_NEW_TLAB, (uint64_t[]){1, 24, 4096}, 3);
  source_event(&ev, T_NEW_TLAB, (uint64_t[]){1, 64, 0}, 3);
  source_event(&ev, T_OUTSIDE_TLAB, (uint64_t[]){1, 9999}, 2);
  source_event(&ev, T_LIVE, (uint64_t[]){1, 777, 1}, 3);
  chunk(&o, &ev, source_classes, sizeof source_classes / sizeof source_classes[0]);
  keep_seed(&o, "hand-made-sources.jfr");
  struct fg_profile p;
  char err[512];
  assert_int_equal(parse(&o, false, &p, err, sizeof err), 0);
  assert_int_equal(event_total(&p, FG_STACK_CPU), 1);
  assert_int_equal(event_total(&p, FG_STACK_ALLOC), 4096 + 64 + 9999);
  assert_int_equal(event_total(&p, FG_STACK_LIVE), 777);
  assert_non_null(strstr(p.stats.event_detail, "its 1 jdk.ObjectAllocationSample events left out"));
  assert_non_null(strstr(p.stats.event_detail, "its 2 profiler.WallClockSample events left out"));
  fg_profile_free(&p);
  fg_profile_init(&p);
  assert_int_equal(fg_parse_jfr(o.b, o.n, "made.jfr", FG_JFR_WALL, &p, err, sizeof err), 0);
  assert_int_equal(event_total(&p, FG_STACK_CPU), 5);
  assert_non_null(strstr(p.stats.event_detail, "its 1 jdk.ExecutionSample events left out"));
  fg_profile_free(&p);
  free(o.b);

  /* no TLAB event, no execution sample: the allocation samples and the wall samples */
  struct buf ev2 = {0}, o2 = {0};
  one_stack_pools(&ev2, 1);
  source_event(&ev2, T_WALL, (uint64_t[]){3}, 1);
  source_event(&ev2, T_ALLOC_SAMPLE, (uint64_t[]){1, 1000}, 2);
  chunk(&o2, &ev2, source_classes, sizeof source_classes / sizeof source_classes[0]);
  assert_int_equal(parse(&o2, false, &p, err, sizeof err), 0);
  assert_int_equal(event_total(&p, FG_STACK_CPU), 3);
  assert_int_equal(event_total(&p, FG_STACK_ALLOC), 1000);
  assert_null(strstr(p.stats.event_detail, "left out"));
  fg_profile_free(&p);
  free(o2.b);
  free(ev2.b);

  /* --event wall on a recording without wall samples: one line */
  struct buf ev3 = {0}, o3 = {0};
  one_stack_pools(&ev3, 1);
  sample(&ev3, 1, 1, 1);
  chunk(&o3, &ev3, source_classes, sizeof source_classes / sizeof source_classes[0]);
  fg_profile_init(&p);
  assert_int_equal(fg_parse_jfr(o3.b, o3.n, "made.jfr", FG_JFR_WALL, &p, err, sizeof err), -1);
  assert_non_null(strstr(err, "made.jfr: --event wall: no profiler.WallClockSample event"));
  fg_profile_free(&p);
  free(o3.b);
  free(ev3.b);
  free(ev.b);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(fgagents_recordings_read_back_exactly),
    cmocka_unit_test(a_safepoint_spans_begin_to_end),
    cmocka_unit_test(a_leak_recording_replays_to_its_leaks),
    cmocka_unit_test(cut_or_corrupt_recordings_are_refused),
    cmocka_unit_test(a_recording_without_known_events_is_refused),
    cmocka_unit_test(lines_name_frames_at_their_lines_and_bcis),
    cmocka_unit_test(overloads_are_read_apart),
    cmocka_unit_test(hand_made_recordings_are_read),
    cmocka_unit_test(an_event_shorter_than_its_header_is_refused),
    cmocka_unit_test(zero_byte_elements_are_bounded),
    cmocka_unit_test(field_less_frames_are_refused),
    cmocka_unit_test(huge_counts_are_refused),
    cmocka_unit_test(many_threads_are_read_in_linear_time),
    cmocka_unit_test(a_sample_without_frames_is_written_cleanly),
    cmocka_unit_test(many_overloads_are_bounded),
    cmocka_unit_test(the_fuzzers_crashers_are_handled),
    cmocka_unit_test(one_source_a_recording),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
