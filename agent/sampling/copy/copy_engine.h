/* walker=copy's engine: a thread that samples without signals. Each
 * thread's perf_events counters copy its registers and the top of its
 * stack into the ring of the CPU it ran on at every period (timer.h,
 * cpu_rings.h); every FG_COPY_PASS_NS (or four intervals, when shorter:
 * a ring holds 15 samples) the engine reads each CPU's ring,
 * walks each copy (fg_walk_copy) and stores the walk in the thread's own
 * sample ring, as its handler would: the application's threads pay for
 * the timer's interrupt and the kernel's copy, not for the walk.
 *
 * The engine is the one producer of those rings (no handler runs on a
 * thread with no signal; a thread switched to the signal, its stack deeper
 * than the copy, leaves the engine's hands at once, and its copies still in
 * the CPU rings are counted under its thread without a stack). A thread with a Java record (the registry's) has
 * its Java stack walked; one without (GC, JIT, VM threads) its native
 * frames under a JVM thread record, or only a count when none is left. Samples
 * the kernel had no room for (the engine held up past a ring's 15 ms) are
 * counted lost, as overruns: each thread's at its end or sampling's, read
 * from its counters. */
#ifndef FG_COPY_ENGINE_H
#define FG_COPY_ENGINE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include "hotspot/code_discovery.h"
#include "jvmti/threads.h"
#include "sampling/copy/copy_held.h"
#include "sampling/sampler.h"
#include "sampling/timer.h"

#define FG_COPY_PASS_NS 4000000ull

struct fg_copy_engine {
  pthread_mutex_t lock;          /* held for a pass: zero bytes are an unlocked mutex, as the agent's
                                    record comes (a thread may end before any engine started) */
  struct fg_sampler *sampler;
  struct fg_registry *registry;
  struct fg_timer *timer;
  struct fg_code_discovery *discovery;   /* compiled methods read from the code heap; NULL: load events */
  pthread_t thread;
  int started;
  _Atomic int stop;
  _Atomic uint64_t cpu_ns;       /* its thread's CPU so far */
  /* the engine thread's own */
  ASGCT_CallFrame *frames;
  uint8_t *types;
  int capacity;
  uint8_t *room;                 /* a record that wraps round its ring, put together */
  int *tids;                     /* the threads with a counter, as a pass began */
  struct fg_thread **records;    /* their records (look_up_records) */
  int *known_tids;               /* the last lookup under the registry's lock: its threads */
  struct fg_thread **known_records;   /* and their records */
  uint32_t ntids, nknown, tids_cap;
  uint32_t hint;                 /* the place of the last sample's thread */
  uint64_t untold_counted;       /* the table's lost_untold, counted so far */
  struct fg_copy_held held;      /* copies waiting for their code's record */
  uintptr_t read_in_vain[16];    /* pcs the engine's own reading of the code heap found nothing for
                                    (not a method's, or not readable): not read again a walk */
  uint32_t read_in_vain_next;
  _Atomic uint64_t held_n;       /* copies held since the engine started */
  _Atomic uint64_t held_failed;  /* of those, stored with their walk failed */
};

/* Starts the engine's thread for the sampler s, whose timer t copies
 * stacks. 0; -1 with a message in err. */
int fg_copy_engine_start(struct fg_copy_engine *e, struct fg_sampler *s, struct fg_registry *r, struct fg_timer *t,
                         char *err, size_t errlen);

/* The thread tid is ending (its ThreadEnd, on itself), before its record
 * does: the rings are read now, before its counters close, with what they
 * lost, and a pass that has its record finishes first. Nothing when not
 * started. */
void fg_copy_engine_thread_end(struct fg_copy_engine *e, int tid);

/* A last pass over every ring, then the thread joined and its memory freed.
 * Before the timer stops. Nothing when it was not started. */
void fg_copy_engine_stop(struct fg_copy_engine *e);

#endif
