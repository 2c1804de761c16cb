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
#include <stdint.h>

#include "fg/forte.h"
#include "fg/ring.h"
#include "../sampling/backoff.h"

enum fg_thread_state { FG_THREAD_FREE, FG_THREAD_LIVE, FG_THREAD_ENDED, FG_THREAD_CLAIMING };

struct fg_thread {
  /* set while registering, before the __thread pointer is published */
  uint64_t serial;              /* unique per registration */
  JNIEnv *env;
  int tid;
  struct fg_ring ring;
  ASGCT_CallFrame *scratch;     /* one walk's frames (fg_walk_capacity) */
  uint8_t *types;               /* and their types */
  uintptr_t stack_lo, stack_hi; /* the thread's stack, for the walker's guarded reads */
  uintptr_t claim_sp;           /* pool records: an sp seen at claim, to find the stack by */

  /* written only by this thread's signal handler */
  _Atomic uint64_t taken;
  _Atomic uint64_t overruns;    /* samples lost, with the skipped signals they carried */
  _Atomic uint64_t handler_ns;  /* time spent walking and storing */
  _Atomic uint64_t skipped;     /* signals skipped by the back-off */
  _Atomic uint64_t depth_cuts;  /* times the time budget halved the walk depth */
  struct fg_backoff backoff;    /* zeroed with the record; read by the drainer once ENDED */

  /* event=wall: the thread's kernel state, set by the wall sampler just
   * before it signals the thread; copied into the sample */
  _Atomic uint32_t wall_state;
  _Atomic uint64_t cpu_at_sample; /* the thread's CPU clock as its last wall sample ended */

  /* the wall sampler's (under the registry lock) */
  uint64_t wall_serial;         /* the registration the fields below belong to */
  int wall_stat_fd;             /* /proc/self/task/TID/stat, -1 until opened */
  uint64_t wall_last_ns;
  uint32_t wall_last_state;

  /* registry's, under its lock */
  _Atomic int state;
  char name[256];

  /* drainer's */
  uint64_t counted_taken, counted_overruns, counted_handler_ns, counted_skipped, counted_depth_cuts;
  uint64_t profile_serial;      /* serial that profile_thread belongs to */
  uint32_t profile_thread;
  int64_t pool_frame;           /* pool records: the "[thread name]" frame id */
  uint32_t *last_frames;        /* event=wall: the last stack, for an idle thread's repeats */
  uint32_t last_nframes, last_cap;
};

/* The calling thread's record, or NULL. Read by the signal handler. */
extern __thread struct fg_thread *fg_current_thread __attribute__((tls_model("initial-exec")));

struct fg_registry {
  pthread_mutex_t lock;
  struct fg_thread **all;       /* every record ever made, live, ended or free */
  uint32_t n, cap;
  uint64_t next_serial;
  size_t ring_bytes;
  int frames;                   /* scratch frames per record */
};

int fg_registry_init(struct fg_registry *r, size_t ring_bytes, int frames);

/* A record with its ring and scratch space, state FREE; NULL when out of memory. */
struct fg_thread *fg_thread_new(size_t ring_bytes, int frames);

/* Records for threads without a JNIEnv (GC, JIT compiler, VM threads): a
 * signal handler on such a thread claims one for itself with a
 * compare-and-swap, so that its native stacks are kept like a Java thread's.
 * Made at load, never grown. */
struct fg_thread_pool {
  struct fg_thread **records;
  uint32_t n;
  _Atomic uint64_t next_serial;
};

int fg_thread_pool_init(struct fg_thread_pool *p, uint32_t n, size_t ring_bytes, int frames);

/* Async-signal-safe: a FREE record made LIVE for tid, or NULL when none is left. */
struct fg_thread *fg_thread_pool_claim(struct fg_thread_pool *p, int tid);

/* Registers the calling thread with its JNIEnv; idempotent for the same env
 * (main gets VMInit then ThreadStart), re-registers when the env changed
 * (at exit the main OS thread comes back as DestroyJavaVM). Returns the
 * record, or NULL when out of memory. */
struct fg_thread *fg_registry_attach(struct fg_registry *r, JNIEnv *env, int tid, const char *name);

/* The calling thread is ending: its handler stops using the record, which the
 * drainer frees once it has taken every sample. */
void fg_registry_detach(struct fg_registry *r, const char *final_name);

#endif
