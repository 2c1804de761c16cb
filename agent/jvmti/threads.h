/* The registry of Java threads we sample: one record per live thread, found
 * by its own signal handler through an initial-exec __thread pointer (never
 * through JNI or JVMTI, which deadlock in a handler under thread churn).
 * Records are recycled after ThreadEnd once the drainer has emptied them, so
 * memory follows the number of live threads, not of threads ever started. */
#ifndef FG_THREADS_H
#define FG_THREADS_H

#include <jvmti.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "fg/forte.h"
#include "fg/ring.h"
#include "fg/trace_table.h"
#include "java_events/event_log.h"
#include "sampling/cputimer/clock_choice.h"
#include "sampling/signal/backoff.h"
#include "sampling/perf/jitter.h"
#include "walk/walk_cache.h"

enum fg_thread_state { FG_THREAD_FREE, FG_THREAD_LIVE, FG_THREAD_ENDED, FG_THREAD_CLAIMING };

/* Room for one walk: its frames and their types. A record starts with room
 * for a few hundred Java frames; when a walk is cut by the room rather than
 * by depth the drainer makes a bigger one, which the handler takes at its
 * next signal (and hands the old one back to be freed). */
struct fg_scratch {
  /* what every signal reads, in the first line (the record is line-aligned) */
  ASGCT_CallFrame *frames;
  uint8_t *types;
  int capacity;                 /* frames */
  struct fg_walk_cache kept;    /* the last walk in this room (walk_cache.h): its first fields too */
  size_t mapped;                /* bytes of frames, types and kept's arrays, mapped together */
};
_Static_assert(offsetof(struct fg_scratch, kept) + offsetof(struct fg_walk_cache, cap) <= 64,
               "a walk too short for the kept walk reads and writes one line of its room");

/* Where samples go when the ring is full (the drainer held up, by a
 * safepoint say): a count per trace and kernel state, without time or CPU.
 * key: the trace pointer | state, 0 = unused; claimed by the handler and
 * kept for the registration (cleared when the record is taken again), so a
 * registration overflows into at most FG_OVERFLOW_SLOTS distinct stacks. */
#define FG_OVERFLOW_SLOTS 32
struct fg_overflow {
  _Atomic uint64_t key;
  _Atomic uint64_t weight;      /* added by the handler, taken by the drainer */
};

struct fg_thread {
  /* set while registering, before the __thread pointer is published */
  uint64_t serial;              /* unique per registration */
  JNIEnv *env;
  int tid;
  int64_t java_id;              /* java.lang.Thread's id, read at registration; 0: not a Java thread */
  struct fg_ring ring;
  _Atomic(struct fg_scratch *) scratch;   /* the handler's; read by the drainer for its size */
  _Atomic(struct fg_scratch *) bigger;    /* made by the drainer, taken by the handler */
  _Atomic(struct fg_scratch *) retired;   /* given back by the handler, freed by the drainer */
  _Atomic int scratch_short;    /* a walk was cut by the scratch's room, not by depth */
  uintptr_t stack_lo, stack_hi; /* the thread's stack, for the walker's guarded reads */
  uintptr_t claim_sp;           /* JVM thread records: an sp seen at claim, to find the stack by */

  /* written only by this thread's signal handler */
  _Atomic uint64_t taken;
  _Atomic uint64_t overruns;    /* samples lost: ring and overflow slots full */
  _Atomic uint64_t refused;     /* samples lost: a new trace over memlimit */
  _Atomic uint64_t handler_ns;  /* time spent in walk_and_store, the period change included, of
                                   the walks whose time is proven (fg_walk_time_unproven) */
  _Atomic uint64_t unproven;    /* walks left out of handler_ns: slow by the wall clock alone */
  _Atomic uint64_t counter_ns;  /* of handler_ns, what a perf_events counter's signals took */
  _Atomic uint64_t counter_walks;   /* those walks (proven ones) */
  _Atomic uint64_t skipped;     /* signals skipped by the back-off */
  _Atomic uint64_t depth_cuts;  /* times the time budget halved the walk depth */
  struct fg_backoff backoff;    /* zeroed with the record; read by the drainer once ENDED */
  struct fg_jitter jitter;      /* event=cpu: its counter's period; zeroed with the record */
  _Atomic uint64_t folded;      /* event=cpu: intervals its timer's signals stood for beside their own */
  _Atomic uint64_t tail;        /* event=cpu: intervals of CPU after its timer's last signal, as it ended
                                   (fg_session_detach_thread), for the drainer to store with its last sample */
  uint64_t cpu_base_ns;         /* its CPU clock as it registered, and the timer's session then: */
  uint64_t cpu_base_session;    /* where the intervals it should have had count from */
  struct fg_clock_watch clock_watch;   /* clock=auto: its figures at the last judgement */
  _Atomic int clock_wish;       /* clock=auto: enum fg_clock_wish, carried out and cleared by the drainer */

  /* event=wall: the thread's kernel state, set by the wall sampler just
   * before it signals the thread; copied into the sample */
  _Atomic uint32_t wall_state;
  _Atomic uint64_t wall_signalled; /* the wall sampler's signal number, set just before it signals */
  _Atomic uint64_t wall_handled;  /* the number of the signal the handler last took, set as it ends */
  _Atomic uint32_t wall_owed;     /* ticks its pending signal stood for, added to that sample's weight */
  _Atomic uint64_t cpu_at_sample; /* the thread's CPU clock as its last wall sample ended */
  _Atomic(const struct fg_trace *) wall_trace;   /* that sample's stack if it reached the ring, else NULL */

  /* alloc and lock: the classes this thread's events met last; this thread's */
  struct fg_class_cache classes;

  /* after every field each signal reads, so that those share few cache
   * lines: at 1 ms apart the handler finds them all cold */
  struct fg_overflow overflow[FG_OVERFLOW_SLOTS];

  /* the wall sampler's (under the registry lock) */
  uint64_t wall_serial;         /* the registration the fields below belong to */
  int wall_stat_fd;             /* /proc/self/task/TID/stat, -1 until opened */
  int wall_schedstat_fd;        /* /proc/self/task/TID/schedstat, -1 until opened */
  uint64_t wall_run_ns, wall_wait_ns;   /* its figures at the last look */
  uint64_t wall_runs_idle;      /* schedstat's times run once the last signal's handler ran; 0: unknown */
  uint64_t wall_signals;        /* signals sent it (wall_signalled's source) */
  uint64_t wall_r_ns, wall_r_looks, wall_waited_ns;   /* R time and looks so far, waiting not yet labelled */
  uint64_t wall_last_ns;
  uint32_t wall_last_state;

  /* registry's, under its lock */
  _Atomic int state;
  char name[256];

  /* drainer's */
  uint64_t counted_folded;
  uint64_t counted_taken, counted_overruns, counted_refused, counted_handler_ns, counted_skipped, counted_depth_cuts;
  uint64_t counted_unproven, counted_counter_ns, counted_counter_walks;
  uint64_t profile_serial;      /* serial that profile_thread belongs to */
  uint64_t last_serial;         /* the registration last_trace belongs to */
  const struct fg_trace *last_trace;   /* its last sample drained: the back-off's carry goes there at its end */
  uint32_t last_state;
  uint32_t profile_thread;
  int64_t jvm_frame;           /* JVM thread records: the "[thread name]" frame id */
};

/* The calling thread's record, or NULL. Read by the signal handler. */
extern __thread struct fg_thread *fg_current_thread __attribute__((tls_model("initial-exec")));

struct fg_registry {
  pthread_mutex_t lock;
  struct fg_thread **all;       /* every record ever made, live, ended or free */
  uint32_t n, cap;
  uint64_t next_serial;
  size_t ring_bytes;
  int frames;                   /* a new record's scratch frames */
};

int fg_registry_init(struct fg_registry *r, size_t ring_bytes, int frames);
/* The ring and scratch sizes of records made from now on (a session's
 * options); a record recycled keeps its own, and its scratch grows as walks
 * need. */
void fg_registry_resize(struct fg_registry *r, size_t ring_bytes, int frames);

/* Room for frames frames, or NULL. */
struct fg_scratch *fg_scratch_new(int frames);
void fg_scratch_free(struct fg_scratch *s);

/* A record with its ring and scratch space, state FREE; NULL when out of memory. */
struct fg_thread *fg_thread_new(size_t ring_bytes, int frames);
void fg_thread_free(struct fg_thread *t);
/* Empties the overflow slots of a record no handler and no drainer uses. */
void fg_thread_clear_overflow(struct fg_thread *t);

/* Records for threads without a JNIEnv (GC, JIT compiler, VM threads): a
 * signal handler on such a thread claims one for itself with a
 * compare-and-swap, so that its native stacks are kept like a Java thread's.
 * Made at load, never grown. */
struct fg_jvm_thread_records {
  struct fg_thread **records;
  uint32_t n;
  _Atomic uint64_t next_serial;
};

int fg_jvm_thread_records_init(struct fg_jvm_thread_records *p, uint32_t n, size_t ring_bytes, int frames);

/* Async-signal-safe: a FREE record made LIVE for tid, or NULL when none is left. */
struct fg_thread *fg_jvm_thread_records_claim(struct fg_jvm_thread_records *p, int tid);

/* Registers the calling thread with its JNIEnv; idempotent for the same env
 * (main gets VMInit then ThreadStart), re-registers when the env changed
 * (at exit the main OS thread comes back as DestroyJavaVM). Returns the
 * record, or NULL when out of memory. */
struct fg_thread *fg_registry_attach(struct fg_registry *r, JNIEnv *env, int tid, int64_t java_id, const char *name);

/* The calling thread is ending: its handler stops using the record, which the
 * drainer frees once it has taken every sample. */
void fg_registry_detach(struct fg_registry *r, const char *final_name);

/* A record for another, already running Java thread (attach): LIVE, with
 * its JNIEnv, tid (0 when unknown) and name; not the caller's. NULL when out
 * of memory. Its stack bounds are found once its handler notes an sp. */
struct fg_thread *fg_registry_add_other(struct fg_registry *r, JNIEnv *env, int tid, int64_t java_id, const char *name);
/* That thread ended before its handler ever took the record. */
void fg_registry_end_other(struct fg_registry *r, struct fg_thread *t);

#endif
