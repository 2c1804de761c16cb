/* event=NAME of a kernel event (event_spec.h): one perf_events counter a
 * thread, sampling every period events, whose overflow sends
 * FG_KEVENT_SIGNAL (sampler.h) to its own thread with the counter's fd in
 * si_fd; the handler checks that fd is the thread's (its entry in table), walks the
 * stack there and stores it as a kernel event's sample
 * (FG_SAMPLE_KERNEL_EVENT). A session records up to FG_KERNEL_EVENTS_MAX
 * events, a struct fg_kevents each with its own table: a thread has a
 * counter of each, every fd its own, so the table whose entry holds si_fd
 * says which event's sample it is (its index in the trace's flags,
 * FG_SAMPLE_KERNEL_SHIFT). A tracepoint's or probe's signal comes as the
 * thread returns to user space from the kernel work that hit it: the Java
 * frames are those that made the system call or touched the page.
 *
 * Counters follow threads as event=cpu's do: Java threads get theirs at
 * their start, the rest by a scan of /proc/self/task at each drainer pass;
 * a thread's ends with it. Each comes from the descriptor budget (a share
 * of RLIMIT_NOFILE, the session's kernel events sharing it evenly:
 * fg_kevents_share); past it a thread is not counted,
 * said once, counted (no_fd). The table (perf_threads.h) owns an entry's
 * fd once entered: a handler in flight holds back its close. */
#ifndef FG_KERNEL_COUNTERS_H
#define FG_KERNEL_COUNTERS_H

#include <pthread.h>
#include <stdint.h>

#include "sampling/kernel_events/event_spec.h"
#include "sampling/perf/fd_room.h"
#include "sampling/perf/perf_threads.h"

struct fg_kevent_thread {
  int tid;
  int fd;     /* -1: none (the budget was spent as it came, or the kernel refused it) */
  int seen;   /* the scan generation that last saw it */
};

struct fg_kevents {
  pthread_mutex_t lock;             /* guards everything below */
  int on;                           /* a session records this kernel event (kept past its stop, for its
                                       accounting, until fg_kevents_forget) */
  int stopped;
  struct fg_kevent_spec spec;       /* its attr points into it (a probe's name) */
  uint64_t period;                  /* events a sample stands for */
  int callchain;                    /* option kernel: each sample records the kernel's callchain */
  int exclude_kernel;               /* paranoid: the counters count user work only */
  struct fg_perf_threads *table;    /* this session's: tid -> counter, for the handler */
  struct fg_perf_threads *tables[2];   /* without and with callchain rings, allocated at first need, kept */
  struct fg_kevent_thread *threads;
  uint32_t nthreads, cap;
  int generation;
  int skip_tid, skip_tid2;          /* fgagent's own threads */
  uint64_t budget;                  /* most descriptors the counters hold */
  uint64_t held;                    /* descriptors held now */
  uint64_t counted;                 /* threads given a counter */
  uint64_t no_fd;                   /* threads given none, the budget spent */
  uint64_t refused;                 /* threads whose counter the kernel refused (ended meanwhile, mostly) */
  struct fg_fd_room *room;          /* the descriptor table grown ahead (event=cpu's, shared) */
};

void fg_kevents_init(struct fg_kevents *k, struct fg_fd_room *room);
/* A session's kernel event: spec parsed, resolved here, tried on the
 * calling thread; budget descriptors at most. 0, or -1 with one line in
 * err (nothing recorded). No counter is opened until fg_kevents_go, once
 * the handler knows k->table: a signal never comes before it can be told. */
int fg_kevents_start(struct fg_kevents *k, const struct fg_kevent_spec *spec, uint64_t period, int callchain,
                     uint64_t budget, char *err, size_t errlen);
void fg_kevents_go(struct fg_kevents *k);
/* Between start and go: budget descriptors at most, its share of one the
 * session's kernel events share. */
void fg_kevents_share(struct fg_kevents *k, uint64_t budget);
/* A stopped session's event forgotten: k->on cleared, for a next session
 * that does not record it (its accounting is read after fg_kevents_stop). */
void fg_kevents_forget(struct fg_kevents *k);
/* Thread tid's counter (a stale one of a reused tid replaced). */
void fg_kevents_thread_start(struct fg_kevents *k, int tid);
void fg_kevents_thread_end(struct fg_kevents *k, int tid);
/* fgagent's own thread tid: never counted. */
void fg_kevents_never(struct fg_kevents *k, int tid);
/* Counters for threads not seen yet, none for those gone; descriptors the
 * handlers held back, closed. The drainer's, between passes. */
void fg_kevents_scan(struct fg_kevents *k);
/* Every counter closed (once no handler reads it). */
void fg_kevents_stop(struct fg_kevents *k);

#endif
