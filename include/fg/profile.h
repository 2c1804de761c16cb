/* The aggregated profile: unique stacks per thread with their sample counts,
 * frame names interned once. Everything an output needs, nothing of the JVM:
 * outputs are pure functions of it and are tested without one. */
#ifndef FG_PROFILE_H
#define FG_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fg/stats.h"

enum fg_frame_kind {
  FG_KIND_JAVA,        /* a Java method, how it ran unknown */
  FG_KIND_NATIVE,      /* native code: a Java method declared native, or C/C++ */
  FG_KIND_MARKER,      /* [GC_active], [truncated], ...: not code */
  FG_KIND_THREAD,      /* [thread name]: samples of a thread with no JNIEnv */
  FG_KIND_INTERPRETED, /* Java, interpreted (_[0] in annotated collapsed stacks) */
  FG_KIND_COMPILED,    /* Java, JIT-compiled (_[j], _[1]) */
  FG_KIND_INLINED,     /* Java, inlined into its caller (_[i]) */
  FG_KIND_KERNEL,      /* kernel code (_[k]) */
  FG_KIND_CLASS,       /* alloc: the class allocated; lock: the lock's class (fg/class_name.h) */
};
#define FG_KIND_COUNT 9

/* "java", "native", "marker", ... for outputs that name kinds. */
const char *fg_kind_name(enum fg_frame_kind kind);

struct fg_thread_info {
  int tid;           /* OS thread id */
  int64_t java_id;   /* java.lang.Thread's id; 0: not a Java thread, or not known */
  char *name;
};

/* What a stack's count measures. A profile holds the stacks of every event
 * a session records; an output writes one event's (fg_profile_select), a
 * .jfr file all of them. */
enum fg_stack_event {
  FG_STACK_CPU,    /* samples of event=cpu, itimer or wall (stats.event says which) */
  FG_STACK_ALLOC,  /* bytes allocated (estimated from samples); the leaf frame is the class */
  FG_STACK_LOCK,   /* nanoseconds waited for a contended lock; the leaf frame is the lock's class */
  FG_STACK_NATIVEMEM,  /* bytes native code allocated (malloc and its kin), or of them not freed (leak) */
  FG_STACK_NATIVELOCK, /* nanoseconds waited for a contended pthread mutex or rwlock */
  FG_STACK_LIVE,       /* bytes of sampled Java objects still alive at the dump; the leaf frame is the class */
  FG_STACK_KERNEL,     /* occurrences of a kernel (perf) event: the first of FG_KERNEL_EVENTS_MAX kinds,
                          FG_STACK_KERNEL + i the session's kernel event i, stats.kevent[i] names it */
};
#define FG_STACK_EVENTS (FG_STACK_KERNEL + FG_KERNEL_EVENTS_MAX)

/* Which kernel event kind e is (0 .. FG_KERNEL_EVENTS_MAX - 1), or -1 when
 * it is none. */
static inline int fg_stack_kernel_index(int e)
{
  return e >= FG_STACK_KERNEL && e < FG_STACK_EVENTS ? e - FG_STACK_KERNEL : -1;
}

/* "cpu", "alloc", "lock", "nativemem", "nativelock", "live", "kernel"
 * (FG_STACK_CPU's samples may be itimer's or wall's: stats.event says).
 * Everything else known of a kind: fg/event_kinds.h. */
const char *fg_stack_event_name(enum fg_stack_event e);
/* The unit of a count: "samples", "bytes", "nanoseconds", "events". */
const char *fg_stack_event_unit(enum fg_stack_event e);

struct fg_stack {
  uint32_t thread;   /* index into threads */
  uint32_t nframes;
  size_t first;      /* index of the root frame in frame_pool */
  uint64_t count;    /* samples, bytes or nanoseconds (event) */
  uint64_t events;   /* alloc: the objects the samples stand for; lock: the waits; cpu: 0 */
  uint64_t hash;
  uint8_t event;     /* enum fg_stack_event */
};

struct fg_id_index {  /* open addressing over entry ids; 0 = empty, else id + 1 */
  uint32_t *slots;
  uint32_t capacity;
  uint32_t used;
};

/* Samples in the order they were taken, for the call graph's timeline mode:
 * kept only when max > 0, at most max of them (then counted as dropped). */
struct fg_timeline_entry {
  uint64_t time_ns;                /* CLOCK_MONOTONIC */
  uint64_t weight : 48;            /* the samples it stands for (the back-off's, wall repeats); alloc and
                                      lock: the bytes or nanoseconds */
  uint64_t cpu : 16;
  uint32_t thread;
  uint32_t stack;                  /* index into stacks */
};

struct fg_timeline {
  struct fg_timeline_entry *entries;
  uint32_t n, cap, max;
  uint64_t dropped;
};

/* What the JVM did besides running code, on the timeline's clock: a GC
 * pause, a whole collection, a safepoint. The heatmap draws them beside the
 * samples, so that a gap says why it is a gap. */
enum fg_mark_kind { FG_MARK_GC_PAUSE, FG_MARK_GC, FG_MARK_SAFEPOINT };
#define FG_MARK_KINDS 3

struct fg_mark {
  uint64_t time_ns;                /* its start, on the timeline's clock */
  uint64_t duration_ns;
  uint8_t kind;                    /* enum fg_mark_kind */
  char label[47];                  /* "G1New: G1 Evacuation Pause", cut to fit */
};

struct fg_marks {
  struct fg_mark *m;
  uint32_t n, cap, max;            /* at most max kept (0: none), then counted as dropped */
  uint64_t dropped;
};

/* Room for n more entries (up to max) made at once, in huge pages where
 * the kernel gives them: a reader that counted its samples first fills
 * it without growing it. 0, or -1 when out of memory (nothing changed). */
int fg_timeline_reserve(struct fg_timeline *t, uint64_t n);

/* Adds a mark when there is room; 0, or -1 when out of memory. */
int fg_marks_add(struct fg_marks *m, enum fg_mark_kind kind, uint64_t time_ns, uint64_t duration_ns,
                 const char *label);
/* "gc pause", "gc", "safepoint". */
const char *fg_mark_kind_name(enum fg_mark_kind kind);

/* nativemem,leak: each sampled allocation of the session with its address,
 * and when it was freed (0: not by the end), so that a recording holds its
 * frees (profiler.Free) and a leak report can be made from it as from
 * async-profiler's. The stacks of the freed ones are in stacks with no
 * count of their own. At most max entries of freed ones (then counted as
 * dropped); the allocations left at the end are bounded by leak's table. */
struct fg_native_trail_entry {
  uint64_t time_ns;                /* the allocation's, CLOCK_MONOTONIC */
  uint64_t freed_ns;               /* its free's; 0: not freed by the end */
  uint64_t addr;
  uint64_t weight;                 /* the bytes its sample stands for */
  uint32_t stack;                  /* index into stacks */
  uint32_t thread;
};

struct fg_native_trail {
  struct fg_native_trail_entry *e;
  uint32_t n, cap, max;
  uint64_t dropped;                /* freed ones past max */
};

/* Appends an entry (a freed one only while fewer than max are held); 0, or -1 when out of memory. */
int fg_native_trail_add(struct fg_native_trail *t, const struct fg_native_trail_entry *e);

struct fg_profile {
  enum fg_stack_event event;       /* after fg_profile_select: the event of every stack; else FG_STACK_CPU */
  char **names;
  char **files;                    /* source file of each name, or NULL */
  char **descriptors;              /* a Java method's descriptor ("(JJ)J"); NULL unknown; "": several (overloads) */
  uint8_t *keyed;                  /* 1: the name was interned with its descriptor (fg_profile_intern_method) */
  uint8_t *kinds;
  int32_t *bcis;                   /* the bytecode index a Java frame name was interned at, or -1 */
  uint32_t nvariants;              /* names a text output merges with others: with a bytecode index, or
                                      interned beside an overload (fg_profile_merge_variants) */
  uint64_t *name_hashes;
  uint32_t nnames, names_cap;
  struct fg_id_index name_index;

  struct fg_thread_info *threads;
  uint32_t nthreads, threads_cap;

  struct fg_stack *stacks;
  uint32_t nstacks, stacks_cap;
  struct fg_id_index stack_index;
  uint32_t *frame_pool;            /* frame name ids, root first, per stack */
  size_t pool_len, pool_cap;

  struct fg_stats stats;           /* accounting that travels with the profile */
  struct fg_timeline timeline;
  struct fg_marks marks;           /* read from a recording, or the agent's GC pauses; fg_profile_select copies them, other copies leave them out */
  struct fg_native_trail trail;    /* nativemem,leak's allocations and frees with their addresses; copies leave
                                      it out but fg_profile_select_trail's */
};

void fg_profile_init(struct fg_profile *p);
void fg_profile_free(struct fg_profile *p);

/* The id of name with that kind, added if new; -1 if out of memory. */
int64_t fg_profile_intern(struct fg_profile *p, const char *name, enum fg_frame_kind kind);
/* The id of name with that kind when it is interned already (as
 * fg_profile_intern would give it), else -1; adds nothing. */
int64_t fg_profile_find(const struct fg_profile *p, const char *name, enum fg_frame_kind kind);
/* The same for the len bytes at name (no NUL needed). */
int64_t fg_profile_intern_n(struct fg_profile *p, const char *name, size_t len, enum fg_frame_kind kind);
/* The id of a Java frame's name at bytecode index bci: with bci >= 0, one
 * name of that text for each bci, so that a .jfr file says where in a line
 * each sample was; every other output merges them (fg_profile_merge_variants).
 * bci < 0 is fg_profile_intern. */
int64_t fg_profile_intern_at(struct fg_profile *p, const char *name, enum fg_frame_kind kind, int32_t bci);
/* The same for the method of descriptor ("(J)J"; NULL or "": unknown): one
 * name for each descriptor too, so that a .jfr file names overloads apart
 * (without lines they share text and bci); every other output merges them. */
int64_t fg_profile_intern_method(struct fg_profile *p, const char *name, enum fg_frame_kind kind, int32_t bci,
                                 const char *descriptor);
const char *fg_profile_name(const struct fg_profile *p, uint32_t id);
/* The bytecode index name id was interned at, or -1. */
int32_t fg_profile_bci(const struct fg_profile *p, uint32_t id);
/* The source file of a frame name, NULL if unknown; set it once known. */
const char *fg_profile_file(const struct fg_profile *p, uint32_t id);
int fg_profile_set_file(struct fg_profile *p, uint32_t id, const char *file);
enum fg_frame_kind fg_profile_kind(const struct fg_profile *p, uint32_t id);
/* The JVM descriptor of the method name id stands for ("(Ljava/lang/String;)V"),
 * or NULL when unknown or when overloads with other descriptors share the
 * name (the frames of text outputs name methods without signatures). */
const char *fg_profile_descriptor(const struct fg_profile *p, uint32_t id);
/* Notes that name id stood for a method of descriptor (NULL: nothing
 * known; "": several); a name interned with its own keeps it. 0, or -1 when
 * out of memory. */
int fg_profile_note_descriptor(struct fg_profile *p, uint32_t id, const char *descriptor);

/* A new thread's index; -1 if out of memory. */
int64_t fg_profile_add_thread(struct fg_profile *p, int tid, const char *name);
int fg_profile_rename_thread(struct fg_profile *p, uint32_t thread, const char *name);

/* Adds count samples of the stack frames[0..n) (root first) on thread. */
int fg_profile_add(struct fg_profile *p, uint32_t thread, const uint32_t *frames, uint32_t n,
                   uint64_t count);

/* The same for one sample taken at time_ns on cpu, standing for count
 * samples (its weight), kept once in the timeline too. */
int fg_profile_add_timed(struct fg_profile *p, uint32_t thread, const uint32_t *frames, uint32_t n,
                         uint64_t count, uint64_t time_ns, uint32_t cpu);

/* The index of the stack frames[0..n) (root first) on thread, added with
 * count 0 if new; -1 if out of memory. */
int64_t fg_profile_stack(struct fg_profile *p, uint32_t thread, const uint32_t *frames, uint32_t n);

/* The same for a stack of event e (fg_profile_stack's are FG_STACK_CPU's). */
int64_t fg_profile_event_stack(struct fg_profile *p, enum fg_stack_event e, uint32_t thread, const uint32_t *frames,
                               uint32_t n);
/* Adds stack like's count and events, of its event, as the stack
 * frames[0..n) (root first) on thread: a stack copied into another profile.
 * Its index, or -1 if out of memory. */
int64_t fg_profile_add_like(struct fg_profile *p, const struct fg_stack *like, uint32_t thread, const uint32_t *frames,
                            uint32_t n);
/* Which events have stacks: bit e for event e. */
unsigned fg_profile_events(const struct fg_profile *p);

/* Adds count samples to stack i; one taken at time_ns (0: unknown) on cpu
 * goes into the timeline too. */
void fg_profile_count(struct fg_profile *p, uint32_t i, uint64_t count, uint64_t time_ns, uint32_t cpu);

static inline const uint32_t *fg_stack_frames(const struct fg_profile *p, const struct fg_stack *s)
{
  return p->frame_pool + s->first;
}

uint64_t fg_profile_total(const struct fg_profile *p);

/* Counts count samples of the stack ids[0..n) into p's stats by its root
 * frame: a [tick] marker is a failed walk, a [thread] frame a thread with no
 * JNIEnv, [truncated] a cut Java stack, anything else a Java stack. */
void fg_profile_account(struct fg_profile *p, const uint32_t *ids, uint32_t n, uint64_t count);
/* The tick index (fg/forte.h) a [tick] marker frame id names, else -1: the
 * root of a failed sample. */
int fg_profile_tick_of(const struct fg_profile *p, uint32_t id);
/* Whether name is one of fgagent's marker frames: [tick names], [truncated], ... */
int fg_is_known_marker(const char *name);

/* dst (uninitialised) becomes src with no stack: its names (with their
 * files), threads (same indexes), stats, event and timeline's room. 0, or
 * -1 when out of memory. */
int fg_profile_copy_frame(struct fg_profile *dst, const struct fg_profile *src);

/* dst (uninitialised) becomes src's stacks of event e alone (their
 * timeline entries too), with all of src's names, threads and stats, and
 * dst->event = e. 0, or -1 when out of memory. */
int fg_profile_select(const struct fg_profile *src, enum fg_stack_event e, struct fg_profile *dst);
/* The same, for a recording: nativemem's trail too, with the stacks of
 * allocations freed before the end (no count of their own), which
 * fg_profile_select leaves out. */
int fg_profile_select_trail(const struct fg_profile *src, enum fg_stack_event e, struct fg_profile *dst);
/* Appends src's timeline entries to dst's, each entry's stack i becoming
 * to[i] (UINT32_MAX: left out). 0, or -1 when out of memory. */
int fg_profile_copy_timeline(struct fg_profile *dst, const struct fg_profile *src, const uint32_t *to);

/* Adds every stack of src to dst's thread 0 (which must exist), frame names
 * interned by their text; adds src's stats too. 0, or -1 when out of memory. */
int fg_profile_append(struct fg_profile *dst, const struct fg_profile *src);

/* dst (uninitialised) becomes src with the names that differ only by their
 * bytecode index or descriptor merged into one name without them (its
 * descriptor "" when they had several), their stacks and counts merged too
 * (timeline entries kept, their stacks renumbered); threads, stats and event
 * carry over. The profile every output but JFR writes. 0, or -1 when out of
 * memory. */
int fg_profile_merge_variants(const struct fg_profile *src, struct fg_profile *dst);

/* dst (uninitialised) becomes src with every thread merged into one, named
 * "all"; with thread_roots each stack first gets a "[name tid=N]" frame.
 * Names, files and stats carry over. 0, or -1 when out of memory. */
int fg_profile_merge_threads(const struct fg_profile *src, bool thread_roots, struct fg_profile *dst);

#endif
