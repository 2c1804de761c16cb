/* What the SIGPROF handler needs, set up before any timer is armed. */
#ifndef FG_SAMPLER_H
#define FG_SAMPLER_H

#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>

#include "fg/forte.h"
#include "fg/stats.h"   /* FG_KERNEL_EVENTS_MAX */
#include "fg/unregistered_threads.h"
#include "fg/trace_table.h"
#include "jvmti/prior_threads.h"
#include "jvmti/threads.h"
#include "walk/walker.h"

#define FG_SAMPLER_PAUSED 2
#define FG_SPARE_ROOMS 4   /* full-size walk rooms kept ready for threads whose walks are cut */

struct fg_sampler {
  struct fg_walker walker;            /* ASGCT and what fgagent adds to it */
  struct fg_trace_table *traces;      /* every stack, stored once */
  int scratch_reserve;                /* frames a walk needs beside depth's Java ones */
  /* made by the drainer at each pass (only it stores one), taken by a
   * handler (exchanged for NULL) for a thread whose last walk its room cut:
   * the next walk has the whole room at once, however long the drainer's
   * pass. Untouched pages cost nothing. */
  _Atomic(struct fg_scratch *) spare_rooms[FG_SPARE_ROOMS];
  int wake_fd;                        /* an eventfd the drainer waits on; -1 none */
  _Atomic int wake_pending;           /* the handler wrote to it and the drainer has not woken yet */
  struct fg_jvm_thread_records *jvm_records; /* records for threads without a JNIEnv (cstack=native) */
  struct fg_prior_threads *prior;      /* Java threads running before attach; NULL at -agentpath */
  struct fg_unregistered_threads *unregistered; /* counts for threads without a record */
  struct fg_perf_threads *perf;       /* event=cpu's counters (period, page, kernel callchains); else NULL */
  struct fg_perf_threads *kevents[FG_KERNEL_EVENTS_MAX];   /* kernel event k's counters
                                         (kernel_events/kernel_counters.h): a signal whose si_fd is its thread's
                                         entry in kevents[k] is event k's sample; NULL: k not recorded */
  int sigprof_installed;              /* the handler is on SIGPROF (fg_sampler_install) */
  int kevent_signal_installed;        /* ... on FG_KEVENT_SIGNAL (fg_sampler_install_kevents) */
  _Atomic uint64_t kevent_lost[FG_KERNEL_EVENTS_MAX];   /* kernel event k's samples lost: ring and overflow
                                         slots full, a stack over memlimit */
  _Atomic uint64_t kevent_no_thread[FG_KERNEL_EVENTS_MAX];   /* ... of threads with no record */
  int clock_auto;                     /* clock=auto: handlers judge which clock serves their thread */
  uint64_t interval_ns;               /* between signals, for the back-off's share */
  uint32_t session;                   /* counts sessions from 1: a record's back-off from an earlier one,
                                         sized by its depth, starts again (fg_backoff_for_session) */
  _Atomic uint64_t unregistered_taken;     /* signals that landed on such threads */
  _Atomic uint64_t lost_unowned;      /* walker=copy: samples lost whose thread is unknown */
  const struct fg_pc_slot *pc_slots;  /* walker.pcs's slots, beside what every signal reads, for
                                         fg_pc_cache_prefetch; NULL: none */
  _Atomic int enabled;                /* 1: sampling; 0: a late signal does nothing;
                                         FG_SAMPLER_PAUSED: a signal only counts itself in paused */
  _Atomic uint64_t paused;            /* signals while paused (loop='s switch between intervals) */
  _Atomic int in_handler;             /* handlers running now, for shutdown */
};

/* Installs the SIGPROF handler for s; *replaced_unregistered says whether another
 * handler was there (another profiler, JFR's CPU-time sampler). Returns -1
 * with errno on failure. */
int fg_sampler_install(struct fg_sampler *s, int *replaced_unregistered);

/* The signal a kernel event's counters send (event=NAME), apart from
 * SIGPROF: two standard signals pending on a thread merge into one, so a
 * clock's and a counter's would lose one of the two (event=wall's sampler
 * waits for its signal to be taken). SIGURG: no JVM uses it, a socket
 * sends it only to an owner set with F_SETOWN, and its default action is
 * to ignore it, so a late one after fgagent is gone harms nothing. */
#define FG_KEVENT_SIGNAL SIGURG
/* The same handler on FG_KEVENT_SIGNAL, for a session with a kernel event. */
int fg_sampler_install_kevents(struct fg_sampler *s, int *replaced_unregistered);

/* Whether SIGPROF still reaches fgagent's handler (JFR's jdk.CPUTimeSample on
 * JDK 25 installs its own, also on SIGPROF, when a recording starts). */
int fg_sampler_owns_signal(void);

/* Stops sampling: late signals are ignored (SIG_IGN, never SIG_DFL, which
 * would kill the JVM; SIGPROF, and FG_KEVENT_SIGNAL when it was installed)
 * and returns once no handler is running any more. */
void fg_sampler_shutdown(struct fg_sampler *s);

/* Holds sampling still, so that every signal counted so far has its sample
 * in a ring: from the return until fg_sampler_resume, signals are only
 * counted (paused). For loop='s switch between intervals. */
void fg_sampler_pause(struct fg_sampler *s);
void fg_sampler_resume(struct fg_sampler *s);

#endif
