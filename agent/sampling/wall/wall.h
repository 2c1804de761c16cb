/* event=wall: a sampler thread that, every interval, looks at up to
 * wall_threads registered Java threads (round robin, so the cost per tick is
 * bounded however many threads there are) whatever their state:
 *  - the thread's kernel state is read from /proc/self/task/TID/stat (R, S,
 *    D, ...: the kernel's, not Java's, which calls a thread in Socket.read
 *    RUNNABLE) and handed to the thread's own handler with SIGPROF, which
 *    walks the stack as usual. R covers a thread on a CPU and one waiting
 *    for a CPU: the scheduler's own account (/proc/self/task/TID/schedstat,
 *    time on a CPU and time waiting in a run queue) tells them apart: a
 *    thread's R samples are runnable in the share of its R time it waited;
 *  - a thread asleep when signalled that has done nothing since but run our
 *    handler is asleep where it was: it is not woken, that sample's stack is
 *    counted again. Nothing: its CPU time (schedstat's) has not moved past
 *    the value the handler noted, and it was put on a CPU once since the
 *    signal (a thread that woke and slept again elsewhere on a few
 *    microseconds of CPU was put on one more often). Only a whole stack
 *    stored in the ring is counted again: one refused by memlimit, cut by
 *    the handler's room or left in an overflow slot has the thread signalled
 *    at the next look. A thread on a CPU or waiting for one when signalled
 *    ran on after the handler: it is signalled again;
 *  - a thread whose last signal's handler has not run yet (it waits for a
 *    CPU) is not signalled again, which would merge with the pending signal:
 *    the tick is added to the weight of the sample that handler takes.
 * So a thread parked for 30 s costs one schedstat read a tick, not a signal. */
#ifndef FG_WALL_H
#define FG_WALL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include "fg/ring.h"
#include "jvmti/threads.h"

#define FG_RECORD_REPEAT 2u   /* in the wall ring: [header, thread pointer, serial, state, trace] */

enum fg_wall_state {
  FG_STATE_NONE = 0,          /* not a wall sample */
  FG_STATE_RUNNING,           /* R: on a CPU */
  FG_STATE_SLEEPING,          /* S: interruptible sleep (lock, park, sleep, socket read, ...) */
  FG_STATE_UNINTERRUPTIBLE,   /* D: disk or other uninterruptible wait */
  FG_STATE_STOPPED,           /* T, t: stopped or traced */
  FG_STATE_OTHER,
  FG_STATE_RUNNABLE,          /* R, but waiting in a run queue for a CPU (a busy machine) */
};

/* "[state=running]", ... */
const char *fg_wall_state_frame(uint32_t state);

struct fg_wall {
  struct fg_registry *registry;
  uint64_t interval_ns;
  int per_tick;
  pthread_t thread;
  _Atomic int stop;
  int started;
  uint32_t cursor;
  struct fg_ring repeats;          /* sampler -> drainer: idle threads' repeated samples */
  _Atomic uint64_t signals;        /* threads signalled */
  _Atomic uint64_t repeats_taken;  /* idle threads counted without a signal */
  _Atomic uint64_t joined;         /* ticks added to a signal whose handler had not run yet */
  _Atomic uint64_t repeats_lost;   /* the repeat ring was full */
  _Atomic uint64_t sampled_ns;     /* thread wall time the samples stand for */
  _Atomic uint64_t cpu_ns;         /* the sampler thread's own CPU time */
  uint64_t fd_budget;              /* most /proc descriptors kept open: a share of RLIMIT_NOFILE (FG_FD_SHARE) */
  uint64_t fds_kept;               /* kept now, two a thread at most (under the registry lock) */
};

int fg_wall_start(struct fg_wall *w, struct fg_registry *r, uint64_t interval_ns, int per_tick);
void fg_wall_stop(struct fg_wall *w);
/* Stops it and frees its ring: the struct is as new (attach: start after stop). */
void fg_wall_destroy(struct fg_wall *w);

#endif
