/* Agent options: "key=value,key=value" as given after -agentpath:...= */
#ifndef FG_OPTIONS_H
#define FG_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fg/stats.h"   /* FG_KERNEL_EVENTS_MAX */

enum fg_event { FG_EVENT_CPU, FG_EVENT_ITIMER, FG_EVENT_WALL };
enum fg_cstack { FG_CSTACK_NATIVE, FG_CSTACK_NO };
enum fg_walker_kind { FG_WALKER_ASGCT, FG_WALKER_VM, FG_WALKER_COPY };
/* event=cpu: the clock that signals each thread (sampling/cputimer/clock_choice.h) */
enum fg_clock_mode { FG_CLOCK_AUTO, FG_CLOCK_PERF, FG_CLOCK_POSIX };

#define FG_MAX_FILES 8
#define FG_DEFAULT_INTERVAL_NS 10000000ull /* 10 ms */
#define FG_DEFAULT_DEPTH 8192   /* a thread's walk room grows to it only when its stacks are that deep */
/* Without ringsize, a thread's ring holds FG_RING_HOLD_NS of samples at the
 * interval, a power of two from FG_MIN_RING_BYTES to FG_MAX_AUTO_RING_BYTES:
 * the drainer's pass (every 50 ms) then empties it before it is half full,
 * where the handler wakes the drainer itself, a system call that cost the
 * sampled thread 15-20 us here (1 in 40 samples at 250 us with 4k rings). */
#define FG_RING_HOLD_NS 200000000ull
#define FG_MIN_RING_BYTES (4u * 1024u)       /* a page: 102 samples */
#define FG_MAX_AUTO_RING_BYTES (64u * 1024u)   /* what 200 us, the shortest interval, needs */
#define FG_MAX_NATIVE_DEPTH 128
#define FG_MAX_KERNEL_FRAMES 64   /* event=cpu: the kernel's part of a sample, at most */
#define FG_MAX_RECOVERED_FRAMES 66   /* a stub and a compiled method's inlined frames */
#define FG_DEFAULT_WALL_THREADS 64
#define FG_TIMELINE_MAX 200000   /* samples kept in time order with timeline */
#define FG_JFR_TIMELINE_MAX 4000000   /* with a .jfr file: 96 MB at most, 1 ms on 8 threads for 500 s */
#define FG_DEFAULT_FILE "fgagent-%p.txt"
#define FG_DEFAULT_ALLOC_BYTES (512u * 1024u)   /* alloc: a sample about every 512 KiB a thread allocates */
#define FG_DEFAULT_LOCK_NS 10000u               /* lock: waits of 10 us and longer */
#define FG_DEFAULT_NATIVEMEM_BYTES (512u * 1024u) /* nativemem: a sample about every 512 KiB a thread mallocs */
#define FG_DEFAULT_NATIVELOCK_NS 10000u           /* nativelock: waits of 10 us and longer */

struct fg_options {
  uint64_t interval_ns;
  enum fg_event event;
  bool event_asked;              /* event=cpu, itimer or wall was given */
  char kevent[FG_KERNEL_EVENTS_MAX][300];   /* event=NAME of each kernel event (sampling/kernel_events/event_spec.h),
                                    its canonical name, in the order given; "": none from there on */
  uint64_t kevent_period;        /* interval=N without a unit: each kernel event's events between samples;
                                    0: the event's default */
  bool cpu;                      /* the event (cpu, itimer or wall) is sampled: unless alloc or lock alone was asked */
  bool alloc;                    /* alloc: heap allocations sampled (JVMTI SampledObjectAlloc) */
  uint64_t alloc_bytes;          /* alloc=SIZE: the mean bytes between two samples of a thread */
  bool live;                     /* live (with alloc, or alone: alloc's sampling): of the allocations sampled, only
                                    those whose objects are still alive at the dump (java_events/live_objects.h) */
  bool lock;                     /* lock: contended monitors and parks on java.util.concurrent locks */
  uint64_t lock_ns;              /* lock=DURATION: the shortest wait recorded; 0: every one */
  bool nativemem;                /* nativemem: malloc and its kin sampled (agent/native_mem) */
  uint64_t nativemem_bytes;      /* nativemem=SIZE: the mean bytes between two samples of a thread; 0: every call */
  bool leak;                     /* leak: of nativemem's samples, only those not freed by the end */
  bool nativelock;               /* nativelock: contended pthread mutex and rwlock waits */
  uint64_t nativelock_ns;        /* nativelock=DURATION: the shortest wait recorded; 0: every one */
  int depth;                     /* most Java frames kept per sample */
  bool threads;                  /* split outputs per thread */
  bool lines;                    /* frame names carry source line numbers */
  enum fg_cstack cstack;         /* native frames: walked (native) or not (no) */
  bool ann;                      /* Java frames say interpreted/compiled/inlined */
  bool recover;                  /* retry failed AsyncGetCallTrace walks from a popped frame */
  bool kernel;                   /* event=cpu: the kernel's frames on top of each sample */
  enum fg_walker_kind walker;    /* vm: fgagent's own walker first (agent/walk/vm_walker.h); asgct: the JVM's;
                                    copy: fgagent's on the kernel's copy of each sample's stack, off the
                                    thread, no signal (agent/sampling/copy/copy_engine.h); default: vm */
  bool walker_asked;             /* walker= was given */
  enum fg_clock_mode clock;      /* event=cpu, signalled: auto (a POSIX CPU timer a thread, a perf_events counter
                                    for those that run long between context switches), perf (counters only), posix
                                    (timers only) */
  bool clock_asked;              /* clock= was given */
  bool verify;                   /* check every Java edge against the caller's bytecode (agent/verify) */
  bool sched;                    /* kernel context-switch records (perf_events) */
  bool timeline;                 /* .txt outputs: samples in time order per CPU */
  int wall_threads;              /* event=wall: most threads signalled per tick */
  size_t ring_bytes;             /* per-thread sample buffer (five words a sample) */
  uint64_t memlimit;             /* most bytes for the stacks (trace table); 0: none */
  uint64_t loop_ns;              /* continuous mode: write and start afresh every loop_ns; 0: off */
  int nfiles;
  char files[FG_MAX_FILES][512]; /* output patterns, %p and %t unexpanded */
  char log[512];                 /* summary destination; "" = stderr */
};

/* Parses text (NULL or "" gives the defaults). On a bad option returns -1 and
 * writes one line into err naming the option, the value and what is accepted. */
/* Whether fgagent's own walker (and what it needs: the VM's offsets, the
 * method map) is asked for: walker=vm or walker=copy. */
static inline bool fg_options_vm_walker(const struct fg_options *o)
{
  return o->walker == FG_WALKER_VM || o->walker == FG_WALKER_COPY;
}

int fg_options_parse(const char *text, struct fg_options *out, char *err, size_t errlen);

/* How many events a session records: the sampled one (o->cpu), alloc, lock, nativemem, nativelock, the
 * kernel event. */
int fg_options_nevents(const struct fg_options *o);
/* The kernel events given (event=NAME): o->kevent[0 .. n). */
int fg_options_nkevents(const struct fg_options *o);

/* Most frames one walk writes: depth + 1 Java frames, up to 66 recovered
 * ones (a stub and a method's inlined frames), and the native frames when
 * cstack=native. A thread's scratch space grows up to it. */
int fg_options_max_frames(const struct fg_options *o);
/* How many samples the profile keeps in time order: FG_JFR_TIMELINE_MAX with a
 * .jfr file (one event per sample), FG_TIMELINE_MAX with timeline or sched (sched
 * looks up the stacks of off-CPU periods), else 0. */
uint32_t fg_options_timeline_max(const struct fg_options *o);
/* How many of the JVM's own events (GC pauses) the profile keeps as marks:
 * FG_MARKS_MAX when it keeps a timeline (the heatmap and JFR draw them on
 * it), else 0 and the session asks for no GC events. */
#define FG_MARKS_MAX 65536   /* 4 MB at most */
uint32_t fg_options_marks_max(const struct fg_options *o);

/* Frames a thread's scratch space starts with: room for FG_FIRST_WALK_DEPTH
 * Java frames (or depth, if smaller) and everything else a walk writes. */
#define FG_FIRST_WALK_DEPTH 256
int fg_options_first_frames(const struct fg_options *o);


#endif
