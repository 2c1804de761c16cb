/* JFR's constant pools for a profile: every thread, stack trace, method,
 * class, package and symbol the samples refer to, written in one checkpoint
 * event. A frame name becomes a Method: "pkg/C.m:42" is method m of class
 * pkg/C in package pkg at line 42; a native, kernel or marker frame is a
 * method of a class with an empty name; a class frame (alloc, lock) is its
 * event's class, not a frame. A method's descriptor is the one its name
 * was interned with, or noted for it (fg_profile_descriptor); where none is
 * known (collapsed stacks) it is "()L;" (no parameters known, a return of
 * unknown type). */
#include <stdlib.h>
#include <string.h>

#include "fg/class_name.h"
#include "fg/grow_array.h"
#include "fg/event_kinds.h"
#include "fg/profile.h"
#include "output/frame_name.h"
#include "output/jfr_chunk.h"

#define UNKNOWN_DESCRIPTOR "()L;"
enum { STATE_RUNNABLE = 1, STATE_UNKNOWN = 2, STATE_SLEEPING = 3 };   /* ThreadState keys */

/* event=wall: the thread's state from its stack's leaf, the kernel's state
 * the wall sampler read ("[state=sleeping]": waiting on anything, a lock,
 * I/O or a sleep, which the kernel does not tell apart); running or
 * runnable is RUNNABLE; any other, or none, UNKNOWN. */
static uint64_t wall_state(const struct fg_profile *p, uint32_t stack)
{
  const struct fg_stack *s = &p->stacks[stack];
  const char *leaf = s->nframes ? p->names[fg_stack_frames(p, s)[s->nframes - 1]] : "";
  if (strcmp(leaf, "[state=running]") == 0 || strcmp(leaf, "[state=runnable]") == 0)
    return STATE_RUNNABLE;
  if (strcmp(leaf, "[state=sleeping]") == 0 || strcmp(leaf, "[state=uninterruptible]") == 0)
    return STATE_SLEEPING;
  return STATE_UNKNOWN;
}

void jfr_sample(struct fg_bytes *body, const struct fg_profile *p, uint64_t ticks, uint32_t stack, int wall)
{
  jfr_put_long(body, T_EXECUTION_SAMPLE);
  jfr_put_long(body, ticks);
  jfr_put_long(body, p->stacks[stack].thread + 1);
  jfr_put_long(body, wall ? wall_state(p, stack) : STATE_RUNNABLE);
  jfr_put_long(body, stack + 1);
}

/* Each pool's entries: an intern table gives keys (index + 1), a record per key. */
struct method_rec {
  uint32_t cls, name, descriptor;
};
struct class_rec {
  uint32_t name, package;
};

struct jfr_pools {
  struct fg_profile symbols, methods, classes, packages;
  struct method_rec *method;
  struct class_rec *cls;
  uint32_t *package;   /* its name's symbol */
  uint32_t method_cap, cls_cap, package_cap;
  /* by the profile's name id: its Method key and line; a class frame's Class key */
  uint32_t *name_method, *name_class;
  int32_t *name_line;
  int failed;
};

/* The key of s[0..n) in table; *added says whether it is new. 0 when out of memory. */
static uint32_t key_of(struct jfr_pools *t, struct fg_profile *table, const char *s, size_t n, int *added)
{
  uint32_t before = table->nnames;
  int64_t id = fg_profile_intern_n(table, s, n, FG_KIND_MARKER);
  if (id < 0) {
    t->failed = 1;
    return 0;
  }
  *added = table->nnames != before;
  return (uint32_t)id + 1;
}

static uint32_t symbol(struct jfr_pools *t, const char *s, size_t n)
{
  int added;
  return key_of(t, &t->symbols, s, n, &added);
}

static uint32_t package(struct jfr_pools *t, const char *s, size_t n)
{
  if (n == 0)
    return 0;   /* the unnamed package: null */
  int added;
  uint32_t key = key_of(t, &t->packages, s, n, &added);
  if (key && added) {
    if (fg_grow_array((void **)&t->package, &t->package_cap, sizeof *t->package, key) != 0) {
      t->failed = 1;
      return 0;
    }
    t->package[key - 1] = symbol(t, s, n);
  }
  return key;
}

static uint32_t class_key(struct jfr_pools *t, const struct fg_java_name *j)
{
  int added;
  uint32_t key = key_of(t, &t->classes, j->cls, j->cls_len, &added);
  if (key && added) {
    if (fg_grow_array((void **)&t->cls, &t->cls_cap, sizeof *t->cls, key) != 0) {
      t->failed = 1;
      return 0;
    }
    t->cls[key - 1] = (struct class_rec){symbol(t, j->cls, j->cls_len), package(t, j->package, j->package_len)};
  }
  return key;
}

static int java_kind(enum fg_frame_kind k)
{
  return k == FG_KIND_JAVA || k == FG_KIND_INTERPRETED || k == FG_KIND_COMPILED || k == FG_KIND_INLINED;
}

/* The Method key of a frame name (its ":line" suffix taken off into *line). */
static uint32_t method_key(struct jfr_pools *t, const char *name, enum fg_frame_kind kind, const char *descriptor,
                           int32_t *line)
{
  char function[1024], keyed[2100];
  int64_t l = fg_frame_split_line(name, function, sizeof function);
  *line = l > 0 && l <= INT32_MAX ? (int32_t)l : -1;
  struct fg_java_name j;
  /* a Java method, or a Java native method ("pkg/C.m"); C and kernel symbols are not split */
  int java = fg_frame_split_java(function, &j) == 0 &&
             (java_kind(kind) || (kind == FG_KIND_NATIVE && memchr(j.cls, '/', j.cls_len)));
  if (!java)
    j = (struct fg_java_name){.cls = "", .method = function, .package = "", .method_len = strlen(function)};
  /* the same text as a Java and as a C name are two methods, and so are overloads */
  const char *d = java && descriptor ? descriptor : UNKNOWN_DESCRIPTOR;
  snprintf(keyed, sizeof keyed, "%s %s", function, d);
  uint32_t before = t->methods.nnames;
  int64_t id = fg_profile_intern(&t->methods, keyed, java ? FG_KIND_JAVA : FG_KIND_NATIVE);
  if (id < 0) {
    t->failed = 1;
    return 0;
  }
  uint32_t key = (uint32_t)id + 1;
  if (t->methods.nnames != before) {
    if (fg_grow_array((void **)&t->method, &t->method_cap, sizeof *t->method, key) != 0) {
      t->failed = 1;
      return 0;
    }
    t->method[key - 1] = (struct method_rec){class_key(t, &j), symbol(t, j.method, j.method_len), symbol(t, d, strlen(d))};
  }
  return key;
}

/* The Class key of a class frame ("java/lang/String", "byte[]"): JFR's
 * binary name ("[B"), in its package (an array is in none). */
static uint32_t class_frame_key(struct jfr_pools *t, const char *frame)
{
  char name[600];
  if (fg_class_jfr_name(frame, name, sizeof name) != 0)
    return 0;
  const char *slash = name[0] == '[' ? NULL : strrchr(name, '/');
  struct fg_java_name j = {.cls = name, .cls_len = strlen(name), .package = name,
                           .package_len = slash ? (size_t)(slash - name) : 0};
  return class_key(t, &j);
}

struct jfr_pools *jfr_pools_new(const struct fg_profile *p)
{
  struct jfr_pools *t = calloc(1, sizeof *t);
  if (!t)
    return NULL;
  fg_profile_init(&t->symbols);
  fg_profile_init(&t->methods);
  fg_profile_init(&t->classes);
  fg_profile_init(&t->packages);
  size_t n = p->nnames ? p->nnames : 1;
  t->name_method = calloc(n, sizeof *t->name_method);
  t->name_class = calloc(n, sizeof *t->name_class);
  t->name_line = calloc(n, sizeof *t->name_line);
  t->failed = !t->name_method || !t->name_class || !t->name_line;
  for (uint32_t i = 0; !t->failed && i < p->nnames; i++) {
    if (fg_profile_kind(p, i) == FG_KIND_CLASS)
      t->name_class[i] = class_frame_key(t, p->names[i]);
    else
      t->name_method[i] = method_key(t, p->names[i], fg_profile_kind(p, i), fg_profile_descriptor(p, i),
                                     &t->name_line[i]);
  }
  return t;
}

void jfr_pools_free(struct jfr_pools *t)
{
  if (!t)
    return;
  free(t->name_method);
  free(t->name_class);
  free(t->name_line);
  free(t->method);
  free(t->cls);
  free(t->package);
  fg_profile_free(&t->symbols);
  fg_profile_free(&t->methods);
  fg_profile_free(&t->classes);
  fg_profile_free(&t->packages);
  free(t);
}

/* Whether stack's wait was a park: its top Java frame, under the class, is Unsafe.park. */
static int parked(const struct fg_profile *p, const struct fg_stack *s)
{
  static const char park[] = "jdk/internal/misc/Unsafe.park";
  if (s->nframes < 2)
    return 0;
  const char *top = p->names[fg_stack_frames(p, s)[s->nframes - 2]];
  return strncmp(top, park, sizeof park - 1) == 0 && (top[sizeof park - 1] == '\0' || top[sizeof park - 1] == ':');
}

void jfr_event(struct fg_bytes *body, const struct jfr_pools *t, const struct fg_profile *p, uint32_t stack,
               uint64_t ticks, uint64_t weight)
{
  const struct fg_stack *s = &p->stacks[stack];
  uint32_t leaf = s->nframes ? fg_stack_frames(p, s)[s->nframes - 1] : 0;
  uint64_t cls = s->nframes && fg_profile_kind(p, leaf) == FG_KIND_CLASS ? t->name_class[leaf] : 0;
  if (s->event == FG_STACK_ALLOC) {
    jfr_put_long(body, T_ALLOC_SAMPLE);
    jfr_put_long(body, ticks);
    jfr_put_long(body, s->thread + 1);   /* eventThread */
    jfr_put_long(body, stack + 1);
    jfr_put_long(body, cls);             /* objectClass */
    jfr_put_long(body, weight);          /* weight: bytes */
    return;
  }
  if (s->event == FG_STACK_LIVE) {
    jfr_put_long(body, T_LIVE_OBJECT);
    jfr_put_long(body, ticks);
    jfr_put_long(body, s->thread + 1);   /* eventThread: the allocating thread */
    jfr_put_long(body, stack + 1);
    jfr_put_long(body, cls);             /* objectClass */
    jfr_put_long(body, weight);          /* allocationSize: bytes */
    jfr_put_long(body, ticks);           /* allocationTime: not kept per stack, the report's */
    return;
  }
  int park = parked(p, s);
  uint64_t start = ticks > weight ? ticks - weight : 0;
  jfr_put_long(body, park ? T_THREAD_PARK : T_MONITOR_ENTER);
  jfr_put_long(body, start);
  jfr_put_long(body, ticks - start);     /* duration */
  jfr_put_long(body, s->thread + 1);
  jfr_put_long(body, stack + 1);
  jfr_put_long(body, cls);               /* monitorClass, parkedClass */
  if (!park)
    jfr_put_long(body, 0);               /* previousOwner: not known */
  jfr_put_long(body, 0);                 /* address: not kept */
}

void jfr_kernel_event(struct fg_bytes *body, const struct fg_profile *p, uint32_t stack, uint64_t ticks,
                      uint64_t count)
{
  jfr_put_long(body, T_KERNEL_EVENT);
  jfr_put_long(body, ticks);
  jfr_put_long(body, p->stacks[stack].thread + 1);   /* eventThread */
  jfr_put_long(body, stack + 1);
  jfr_put_cstring(body, fg_event_title_name(&p->stats, (enum fg_stack_event)p->stacks[stack].event));   /* event */
  jfr_put_long(body, count);                        /* count: the events the sample stands for */
}

/* ---- the checkpoint ---- */

/* A pool's type and count; none when empty (the reader refuses an empty pool). */
static void pool_start(struct fg_bytes *o, int *npools, uint64_t type, uint64_t count)
{
  if (count == 0)
    return;
  jfr_put_long(o, type);
  jfr_put_int(o, (int32_t)count);
  ++*npools;
}

static const char *const frame_types[FG_KIND_COUNT] = {
  [FG_KIND_JAVA] = "Java", [FG_KIND_NATIVE] = "Native", [FG_KIND_MARKER] = "Marker",
  [FG_KIND_THREAD] = "Thread", [FG_KIND_INTERPRETED] = "Interpreted", [FG_KIND_COMPILED] = "JIT compiled",
  [FG_KIND_INLINED] = "Inlined", [FG_KIND_KERNEL] = "Kernel", [FG_KIND_CLASS] = "Class",
};

static void stack_traces(struct fg_bytes *o, const struct fg_profile *p, const uint32_t *methods,
                         const int32_t *lines)
{
  for (uint32_t i = 0; i < p->nstacks; i++) {
    const struct fg_stack *s = &p->stacks[i];
    const uint32_t *frames = fg_stack_frames(p, s);
    jfr_put_long(o, i + 1);
    uint8_t truncated = s->nframes > 0 && strcmp(p->names[frames[0]], "[truncated]") == 0;
    fg_bytes_raw(o, &truncated, 1);
    /* an alloc or lock stack's class is its event's field, not a frame */
    uint32_t n = s->nframes - (s->nframes && fg_profile_kind(p, frames[s->nframes - 1]) == FG_KIND_CLASS);
    jfr_put_int(o, (int32_t)n);
    for (uint32_t f = n; f-- > 0;) {   /* the leaf first */
      uint32_t name = frames[f];
      jfr_put_long(o, methods[name]);
      jfr_put_int(o, lines[name]);
      jfr_put_int(o, fg_profile_bci(p, name));   /* -1 unless interned at one (lines) */
      jfr_put_long(o, (uint64_t)fg_profile_kind(p, name) + 1);
    }
  }
}

static void threads(struct fg_bytes *o, const struct fg_profile *p)
{
  for (uint32_t i = 0; i < p->nthreads; i++) {
    const char *name = p->threads[i].name ? p->threads[i].name : "";
    jfr_put_long(o, i + 1);
    jfr_put_cstring(o, name);                      /* osName */
    jfr_put_long(o, (uint64_t)(uint32_t)p->threads[i].tid);
    jfr_put_cstring(o, name);                      /* javaName */
    jfr_put_long(o, (uint64_t)p->threads[i].java_id);   /* javaThreadId: 0 for the JVM's own threads */
  }
}

static void methods_classes_packages(struct fg_bytes *o, const struct jfr_pools *t, int *npools)
{
  static const uint8_t no = 0;
  pool_start(o, npools, T_METHOD, t->methods.nnames);
  for (uint32_t i = 0; i < t->methods.nnames; i++) {
    jfr_put_long(o, i + 1);
    jfr_put_long(o, t->method[i].cls);
    jfr_put_long(o, t->method[i].name);
    jfr_put_long(o, t->method[i].descriptor);
    jfr_put_int(o, 0);   /* modifiers: not kept */
    fg_bytes_raw(o, &no, 1);
  }
  pool_start(o, npools, T_CLASS, t->classes.nnames);
  for (uint32_t i = 0; i < t->classes.nnames; i++) {
    jfr_put_long(o, i + 1);
    jfr_put_long(o, 0);   /* classLoader: not kept (null, as the JDK writes the boot loader's) */
    jfr_put_long(o, t->cls[i].name);
    jfr_put_long(o, t->cls[i].package);
    jfr_put_int(o, 0);
    fg_bytes_raw(o, &no, 1);
  }
  pool_start(o, npools, T_PACKAGE, t->packages.nnames);
  for (uint32_t i = 0; i < t->packages.nnames; i++) {
    jfr_put_long(o, i + 1);
    jfr_put_long(o, t->package[i]);
  }
  pool_start(o, npools, T_SYMBOL, t->symbols.nnames);
  for (uint32_t i = 0; i < t->symbols.nnames; i++) {
    jfr_put_long(o, i + 1);
    jfr_put_cstring(o, t->symbols.names[i]);
  }
}

int jfr_checkpoint(struct fg_bytes *o, const struct fg_profile *p, struct jfr_pools *t, uint64_t ticks)
{
  struct fg_bytes pools = {0}, body = {0};
  int npools = 0;
  if (!t->failed && p->nstacks > 0) {
    pool_start(&pools, &npools, T_THREAD, p->nthreads);
    threads(&pools, p);
    pool_start(&pools, &npools, T_THREAD_STATE, 3);
    jfr_put_long(&pools, STATE_RUNNABLE);
    jfr_put_cstring(&pools, "STATE_RUNNABLE");
    jfr_put_long(&pools, STATE_UNKNOWN);
    jfr_put_cstring(&pools, "STATE_UNKNOWN");   /* event=wall: no state read */
    jfr_put_long(&pools, STATE_SLEEPING);
    jfr_put_cstring(&pools, "STATE_SLEEPING");   /* event=wall: off the CPU, waiting */
    pool_start(&pools, &npools, T_FRAME_TYPE, FG_KIND_COUNT);
    for (int k = 0; k < FG_KIND_COUNT; k++) {
      jfr_put_long(&pools, (uint64_t)k + 1);
      jfr_put_cstring(&pools, frame_types[k]);
    }
    pool_start(&pools, &npools, T_STACK_TRACE, p->nstacks);
    stack_traces(&pools, p, t->name_method, t->name_line);
    methods_classes_packages(&pools, t, &npools);
  }
  jfr_put_long(&body, 1);        /* a checkpoint */
  jfr_put_long(&body, ticks);
  jfr_put_long(&body, 0);        /* duration */
  jfr_put_long(&body, 0);        /* delta to the previous checkpoint: none */
  static const uint8_t kind = 0;
  fg_bytes_raw(&body, &kind, 1);
  jfr_put_int(&body, npools);
  fg_bytes_move(&body, &pools);
  jfr_put_event(o, &body);
  int rc = t->failed || body.failed || o->failed ? -1 : 0;
  free(pools.b);
  free(body.b);
  return rc;
}
