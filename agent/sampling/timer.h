/* The clocks that deliver SIGPROF.
 * - itimer: setitimer(ITIMER_PROF), process-wide. The kernel checks CPU
 *   timers at its tick, so on a HZ=250 kernel it fires at most every 4 ms
 *   whatever the interval asked.
 * - cpu: each thread's own clock, by clock= (cputimer/clock_choice.h):
 *   a POSIX CPU-time timer (cputimer/thread_timer.h), or a perf_events
 *   cpu-clock counter, sampling period = the interval, its overflow
 *   delivered as SIGPROF to that very thread (O_ASYNC, F_SETSIG,
 *   F_SETOWN_EX). An hrtimer drives a counter, so 1 ms means 1 ms; a timer
 *   fires at the kernel's tick. clock=auto starts every thread on a timer
 *   and moves those that run long between context switches to a counter
 *   (fg_timer_set_clock). Java threads get theirs at ThreadStart; others
 *   (GC, JIT, VM) are found by scanning /proc/self/task. Falls back to
 *   itimer when perf_events is refused.
 *   Each counter is entered in a table its thread's handler reads
 *   (perf_threads.h), which varies its period (jitter.h) and, with kernel
 *   frames, reads the kernel's callchain the counter records.
 *   With walker=copy a thread gets one counter a CPU
 *   instead, sending no signal: each copies the thread's registers and
 *   stack into its CPU's ring (cpu_rings.h) for the copy engine
 *   (copy_engine.h). A thread whose stack went deeper than the copy is
 *   signalled instead.
 * Descriptors: every counter comes from a budget, a share of the open-file
 * limit (FG_FD_SHARE). walker=copy's take up to three quarters of it; a
 * thread past that is signalled instead, one descriptor; past the whole
 * budget a thread is not sampled, said once and counted (no_fd). */
#ifndef FG_TIMER_H
#define FG_TIMER_H

#include <pthread.h>
#include <stdint.h>

#include "fg/options.h"
#include "sampling/perf/fd_room.h"
#include "sampling/perf/perf_threads.h"

/* walker=copy: the stack each sample copies (it holds 99.3-99.9% of the
 * Java threads' stacks in use, measured on javac and H2), and each CPU's
 * ring: 15 samples, 15 ms at 1 ms, for an engine that reads it every 4. */
#define FG_COPY_STACK_BYTES (32u * 1024)
#define FG_COPY_RING_BYTES ((size_t)512 * 1024)

struct fg_perf_fd {
  int tid;
  int fd;            /* its counter; FG_FD_COPYING: walker=copy's, one a CPU (perf_threads); FG_FD_NONE: none;
                        FG_FD_TIMER: a POSIX CPU timer */
  int seen;          /* scan generation that last saw tid */
  int timer;         /* FG_FD_TIMER: the timer's id */
};

#define FG_FD_COPYING (-1)
#define FG_FD_NONE (-2)   /* given no counter: the descriptor budget was spent as it came */
#define FG_FD_TIMER (-3)

struct fg_timer {
  enum fg_event event;           /* the one in use, after any fallback */
  uint64_t interval_ns;
  int exclude_kernel;            /* perf_event_paranoid refused kernel time */
  int kernel_frames;             /* asked: event=cpu records the kernel's callchain */
  struct fg_perf_threads *perf;  /* event=cpu: every counter, with kernel callchain rings when
                                    recorded; NULL for other events */
  struct fg_perf_threads *perf_tables[3];   /* without and with kernel rings, and walker=copy's:
                                               allocated at the first need, the first two kept across
                                               restarts, walker=copy's released at each stop */
  uint32_t copy_bytes;           /* walker=copy: the stack each sample copies; 0: signals */
  uint64_t copy_no_ring;         /* walker=copy: threads signalled instead, their counters refused */
  uint64_t copy_too_deep;        /* walker=copy: threads signalled instead, their stack deeper than the copy */
  int *cpu_fds;                  /* walker=copy: room for a thread's counters, one a CPU (under the lock;
                                    allocated once, kept across restarts like the tables) */
  uint32_t copy_threads;         /* walker=copy: threads with their counters (under the lock) */
  int skip_tid;                  /* fgagent's own thread: never sampled */
  int skip_tid2;                 /* walker=copy's engine thread, likewise */
  pthread_mutex_t lock;          /* guards fds */
  struct fg_perf_fd *fds;
  uint32_t nfds, cap;
  int generation;
  int stopped;                   /* under the lock: no new counter from fg_timer_stop to the next start */
  uint64_t starts;               /* sessions started: a counter opened outside the lock checks its own */
  uint32_t opening;              /* counters being opened outside the lock, counted in the budget */
  uint64_t open_failures;
  uint64_t fd_budget;            /* most descriptors the counters may hold: the open-file limit / FG_FD_SHARE */
  uint64_t no_fd;                /* threads left unsampled, the budget spent */
  uint32_t unsampled;            /* of the table's entries, FG_FD_NONE's now (under the lock) */
  enum fg_clock_mode clock;      /* the session's clock= */
  uint32_t timers;               /* of the table's entries, FG_FD_TIMER's now (under the lock) */
  uint64_t timer_budget;         /* most timers at once: ours and half of what the user has free under
                                    RLIMIT_SIGPENDING (thread_timer.h), at the start and each scan */
  uint64_t to_counter, to_timer; /* clock=auto: threads moved (fg_timer_set_clock) */
  uint64_t timer_refused;        /* threads given a counter instead, their timer refused */
  uint64_t counter_refused;      /* clock=auto: moves to a counter not made, the descriptor budget spent */
  uint64_t timers_at_stop, counters_at_stop;   /* the threads on each as the session stopped */
  struct fg_fd_room fd_room;     /* the descriptor table grown ahead of the counters, kept across sessions */
  char detail[320];
};

/* fgagent's counters hold at most a half of the process's open-file limit
 * (RLIMIT_NOFILE's soft one, as the session starts): the rest is the
 * application's, whatever the threads. */
#define FG_FD_SHARE 2

/* That budget now: RLIMIT_NOFILE's soft limit / FG_FD_SHARE. */
uint64_t fg_fd_budget(void);

/* The threads on a timer and on a counter now, or as the session stopped. */
void fg_timer_clock_counts(struct fg_timer *t, uint64_t *timers, uint64_t *counters);

/* Once, before any session: the lock, and a timer stopped. */
void fg_timer_init(struct fg_timer *t);
/* Arms the timer for the asked event, every session field set anew (the
 * last session's are left behind); kernel_frames: record the kernel's
 * callchain; copy_bytes: walker=copy's stack copy, 0 for signals. On a
 * fallback writes a warning line into warn (else warn[0] = 0). Returns -1
 * with a message in warn if nothing works. */
int fg_timer_start(struct fg_timer *t, enum fg_event asked, enum fg_clock_mode clock, uint64_t interval_ns,
                   int kernel_frames, uint32_t copy_bytes, char *warn, size_t warnlen);
/* clock=auto: thread tid on the clock its handler wished for (enum
 * fg_clock_wish): a counter opened for it and its timer deleted, or the
 * other way round; nothing when it has neither any more, or the budget
 * or the kernel refuses. fgagent's drainer only. */
void fg_timer_set_clock(struct fg_timer *t, int tid, int wish);
/* event=cpu: the descriptor table grown ahead of the counters (fd_room.h),
 * from fgagent's drainer between passes. */
void fg_timer_keep_fd_room(struct fg_timer *t);
/* event=cpu: give the thread tid its own counter (replacing a stale one). */
void fg_timer_thread_start(struct fg_timer *t, int tid);
/* event=cpu: the thread tid is ending. 1 when it was on a POSIX timer. */
int fg_timer_thread_end(struct fg_timer *t, int tid);
/* walker=copy: thread tid is signalled from now on, its stack walked in
 * its handler as with walker=vm (its stack went deeper than the copy). 1
 * when it was switched; 0 when it has no copying counters (any more). */
int fg_timer_signal_instead(struct fg_timer *t, int tid);
/* event=cpu: the calling thread tid (one of fgagent's) never gets a counter. */
void fg_timer_never_sample(struct fg_timer *t, int tid);
/* event=cpu: counters for threads not seen yet, none for those gone. */
void fg_timer_scan(struct fg_timer *t);
/* Disarms every timer. */
void fg_timer_stop(struct fg_timer *t);
/* After fg_timer_stop, with no handler and no copy engine left: walker=copy's
 * rings go, their pinned memory and descriptors back to the application
 * between sessions (the next start that copies makes them again). */
void fg_timer_release(struct fg_timer *t);

/* itimer primitives */
int fg_itimer_arm(uint64_t interval_ns);
void fg_itimer_disarm(void);

/* perf_events primitives: an armed counter for tid, a thread of this
 * process, never another's that took a dead thread's tid (ESRCH then) (recording the kernel's
 * callchain of each sample when asked; with copy_bytes, walker=copy's:
 * registers and copy_bytes of stack into its ring, no signal), counting on
 * cpu only (-1: any) and writing into output_fd's ring (-1: its own), or -1
 * with errno; and closing every counter in t's table. */
int fg_perf_open(int tid, uint64_t interval_ns, int exclude_kernel, int kernel_callchain, uint32_t copy_bytes, int cpu,
                 int output_fd);
void fg_perf_close_all(struct fg_timer *t);
/* fg_perf_open's open of any counter: attr (disabled, as asked; the caller's
 * is not changed) for tid, made sure to be this process's thread, on cpu
 * (-1: any), into output_fd's ring (-1: its own); signo (0: none): each
 * overflow sends it to tid (F_SETSIG, F_SETOWN_EX), its si_fd the
 * counter's. Enabled. Its fd, or -1 with errno. */
struct perf_event_attr;
int fg_perf_open_attr(struct perf_event_attr *attr, int tid, int cpu, int output_fd, int signo);

#endif
