/* What happened to every signal: the accounting the summary prints.
 * Invariant once sampling has stopped and every buffer is drained:
 *   taken == fg_stats_stored(s) + fg_stats_lost(s).
 * Stored samples are counted by weight: a signal the back-off skipped is
 * credited to its thread's next sample (sampling/signal/backoff.h), so it is stored
 * with it; when the thread ends (or sampling stops) first, to its last one;
 * lost only when the thread stored none. */
#ifndef FG_STATS_H
#define FG_STATS_H

#include <stdint.h>
#include <string.h>

#include "fg/forte.h"

#define FG_VERIFY_EXAMPLES 3

/* Most class names the agent's event log holds (java_events/event_log.h). */
#define FG_EVENT_CLASSES_MAX (1u << 14)

/* An allocation or lock profile's accounting (the summary's alloc and lock
 * sections). Invariant once drained:
 *   taken == stored + no_thread + no_memory + no_class + log_full. */
struct fg_event_stats {
  int on;                                  /* the session records this event */
  uint64_t interval;                       /* alloc: the mean bytes between samples asked; lock: the shortest
                                              wait recorded, ns */
  uint64_t taken;                          /* events the JVM reported (lock: waits at least that long) */
  uint64_t stored;                         /* in the profile */
  uint64_t no_thread;                      /* lost: its thread's record taken by a new thread before the drainer
                                              came (a thread with no record at all is kept under its tid) */
  uint64_t no_memory;                      /* lost: a new stack refused (over memlimit, or the heap refused) */
  uint64_t no_class;                       /* lost: JVMTI did not name the object's or lock's class */
  uint64_t log_full;                       /* lost: the event log's share for a drainer pass spent, and no record
                                              of the same thread and stack in it to add the event into */
  uint64_t merged;                         /* of stored, added into a record of the same thread and stack when
                                              the log's share was spent: weight kept, own time lost */
  uint64_t lost_weight;                    /* what the lost stand for: bytes, or nanoseconds waited */
  uint64_t classes;                        /* class names the event log holds (alloc and lock share them) */
  uint64_t other_class;                    /* alloc: class lookups named "[other class]", the table full */
  uint64_t weight;                         /* what the stored stand for: bytes, or nanoseconds waited */
  uint64_t events;                         /* ... and objects, or waits */
  uint64_t no_stack;                       /* stored with no Java frame: the JVM gave no stack */
  uint64_t below;                          /* lock: waits shorter than the threshold, not recorded */
  uint64_t parks;                          /* lock: stored parks on java.util.concurrent locks (the rest: monitors) */
  int verified;                            /* option verify: stacks fgagent walked were checked (differ) */
  uint64_t walked;                         /* stored with a stack fgagent's walker took (the rest: GetStackTrace's) */
  uint64_t differ;                         /* verify: of those, stacks GetStackTrace gave otherwise */
  char difference[320];                    /* verify: the first such, described; "" when none */
  int leak;                                /* nativemem,leak: the stored are the samples not freed by the end */
  uint64_t freed;                          /* nativemem,leak: of taken, freed before the end (not leaks) */
  uint64_t frees_unrecorded;               /* nativemem,leak: of freed, the allocations a recording does not
                                              hold, nor their frees (the queue full, or the trail's budget spent) */
  uint64_t frees_queue_full;               /* nativemem,leak: of frees_unrecorded, those the queue had no room for */
  uint64_t frees_late;                     /* nativemem,leak: of freed, frees no hook saw (libc's own calls, a
                                              library's slot not patched yet), found when the address came back */
  uint64_t tracked;                        /* live: samples whose objects the table kept a weak reference to */
  uint64_t collected;                      /* live: of them, objects found collected (dropped) */
  uint64_t untracked;                      /* live: samples not tracked, the table of weak references full */
};

#define FG_KERNEL_EVENTS_MAX 4   /* kernel events a session records at once (event=NAME) */
#define FG_KERNEL_EVENTS_MAX_TEXT "4"

/* event=NAME of a kernel event: its name and its counters' threads. */
struct fg_kevent_stats {
  char name[320];                          /* as asked: "page-faults", "sched:sched_switch"; "" when none */
  uint64_t threads;                        /* threads given its counter */
  uint64_t no_fd;                          /* ... given none, its descriptor budget spent */
  uint64_t refused;                        /* ... whose counter the kernel refused (ended meanwhile, mostly) */
  uint64_t fd_budget;                      /* ... that budget */
  int user_only;                           /* ... counting user work only (perf_event_paranoid, no capability) */
};

/* Adds from's counts of events taken and lost, and its first difference
 * when to has none, to to's: an event log's shards into one take, takes
 * into the session's stats. */
static inline void fg_event_stats_add_counts(struct fg_event_stats *to, const struct fg_event_stats *from)
{
  to->taken += from->taken;
  to->no_thread += from->no_thread;
  to->no_memory += from->no_memory;
  to->no_class += from->no_class;
  to->log_full += from->log_full;
  to->lost_weight += from->lost_weight;
  to->other_class += from->other_class;
  to->below += from->below;
  if (!to->difference[0])
    memcpy(to->difference, from->difference, sizeof to->difference);
}

struct fg_stats {
  uint64_t taken;                          /* signals that reached the handler */
  uint64_t java;                           /* stored with >= 1 Java frame */
  uint64_t failed[FG_TICK_COUNT + 1];      /* stored as a [tick] frame, by tick index */
  uint64_t no_jnienv;                      /* stored under a thread with no JNIEnv (GC, JIT, VM) */
  uint64_t overruns;                       /* lost: the thread's ring and overflow slots were full */
  uint64_t refused;                        /* lost: a new stack over memlimit */
  uint64_t overflowed;                     /* stored through a full ring's overflow slots (no time) */
  uint64_t traces;                         /* distinct stacks stored */
  uint64_t trace_bytes;                    /* memory holding them */
  uint64_t memlimit;                       /* its limit, 0: none */
  uint64_t no_slot;                        /* lost: no slot left for a thread with no JNIEnv */
  uint64_t skipped_lost;                   /* lost: skipped by the back-off, the thread stored no sample */
  uint64_t paused_lost;                    /* lost: signals while loop= switched intervals */
  uint64_t repeats_lost;                   /* lost: event=wall, an idle thread's repeat the ring had no room for */
  uint64_t skipped;                        /* signals the back-off skipped (stored as weight or lost) */
  uint64_t skipped_to_last;                /* of those, stored with their thread's last sample: it ended first */
  uint64_t depth_cuts;                     /* times a thread's walk depth was halved by the time budget */
  uint64_t budget_cut;                     /* stored samples whose walk the time budget cut short */
  uint64_t truncated;                      /* stored, but deeper than depth */
  uint64_t recovered;                      /* Java stacks ASGCT failed on and fgagent's walker found */
  uint64_t vm_walked;                      /* walker=vm: Java stacks fgagent's own walker read */
  uint64_t copy_cut;                       /* walker=copy: Java stacks cut where the stack's copy ended */
  uint64_t copy_no_ring;                   /* walker=copy: threads signalled instead, their counters refused */
  uint64_t copy_too_deep;                  /* walker=copy: threads signalled instead, their stack deeper than the copy */
  uint64_t copy_held;                      /* walker=copy: copies held back for their code's record (copy_held.h) */
  uint64_t copy_held_failed;               /* walker=copy: of those, stored with the walk still failed */
  uint64_t code_map_dropped;               /* compiled methods and stubs the full code map did not record (so far) */
  int code_from_heap;                      /* compiled methods read from the code heap (else CompiledMethodLoad) */
  uint64_t code_found, code_unnamed, code_gone;   /* with it: read as samples met them, not read (a
                                                     method without a jmethodID), swept */
  uint64_t code_checked, code_differ, code_unread;   /* verify: methods held to CompiledMethodLoad's records,
                                                       those that differ, those the heap did not give */
  char code_first[240];                    /* the first that differs */
  uint64_t code_header_only;               /* stacks with a frame a walk met in a method not read yet and
                                              freed before it was named: the method alone, or a marker */
  uint64_t code_unnamed_stacks;            /* stacks with such a frame in a method no jmethodID names: a
                                              marker */
  uint64_t methods_mapped;                 /* walker=vm/copy: methods in the Method* map now */
  uint64_t methods_gone;                   /* walker=vm/copy: methods it let go as their classes were unloaded */
  int methods_follow_classes;              /* class unloading is seen (JVMTI ObjectFree) */
  uint64_t threads_no_fd;                  /* event=cpu: threads given no counter, the descriptor budget spent */
  uint64_t fd_budget;                      /* event=cpu: that budget (the counters' share of RLIMIT_NOFILE) */
  uint64_t native_cut;                     /* native frames that stop short of the Java ones */
  uint64_t wall_signals;                   /* event=wall: threads signalled */
  uint64_t wall_repeats;                   /* event=wall: idle threads counted again, not woken */
  uint64_t wall_joined;                    /* event=wall: ticks added to a pending signal's sample */
  uint64_t wall_per_tick;                  /* event=wall: most threads looked at per tick */
  uint64_t kernel_no_ring;                 /* event=cpu: threads given no kernel-frame ring (table full, mmap refused) */
  uint64_t folded;                         /* event=cpu: of taken, intervals a POSIX CPU timer's signal stood for
                                              beside its own (si_overrun: the kernel checks them at its tick) */
  uint64_t tail_to_last;                   /* event=cpu: of folded, the CPU time a thread on a timer ran after its
                                              last signal before it ended, in intervals, stored with its last sample */
  uint64_t tail_lost;                      /* ... lost: the thread stored no sample */
  int clock;                               /* event=cpu: enum fg_clock_mode asked (auto, perf, posix) */
  uint64_t clock_timers, clock_counters;   /* event=cpu: threads on a POSIX CPU timer, on a counter, at the end */
  uint64_t clock_to_counter, clock_to_timer;   /* clock=auto: threads moved to a counter, back to a timer */
  uint64_t clock_counter_refused;          /* clock=auto: moves to a counter not made, the descriptor budget spent */
  uint64_t clock_timer_refused;            /* event=cpu: threads given a counter, their timer refused
                                              (RLIMIT_SIGPENDING, or half of it spent) */

  uint64_t interval_ns;                    /* asked */
  uint64_t cpu_ns;                         /* CPU time of the profiled threads while sampling
                                              (event=wall: the threads' wall time sampled) */
  uint64_t profiler_cpu_ns;                /* CPU time of fgagent's own thread */
  uint64_t handler_ns;                     /* the handler's time, from the period change to its last counter,
                                              of the walks timed but those unproven */
  uint64_t walks;                          /* signals on registered threads: walks timed */
  uint64_t unproven;                       /* walks slow by the wall clock alone, left out of handler_ns: the
                                              thread was most likely switched out inside the handler */
  uint64_t counter_handler_ns;             /* of handler_ns, the walks a perf_events counter's signal asked for
                                              (it reads the kernel's frames; a POSIX timer's does not) */
  uint64_t counter_walks;                  /* those walks, the unproven left out */
  uint64_t wall_ns;                        /* how long sampling ran */
  uint64_t start_ns;                       /* CLOCK_MONOTONIC when it began (samples' times are on it) */
  uint64_t start_epoch_ns;                 /* CLOCK_REALTIME then: ns since 1970, 0 unknown */
  /* option verify: Java caller -> callee edges checked against the caller's bytecode */
  uint64_t verify_edges;                   /* edges looked at (0: verify was off) */
  uint64_t verify_call;                    /* an invoke of the callee's name */
  uint64_t verify_dynamic;                 /* invokedynamic, method handles, generated code */
  uint64_t verify_vm;                      /* called by the VM there: class init/loading, implicit exceptions */
  uint64_t verify_unchecked;               /* no bci, no bytecode (native, unloaded) */
  uint64_t verify_wrong;                   /* no way for the caller's instruction to call the callee */
  uint64_t verify_wrong_recovered;         /* of those, in stacks fgagent's walker recovered */
  uint64_t verify_copy_stubs;              /* arraycopy stubs under a Java frame */
  uint64_t verify_copy_fused;              /* of those, under an instruction that is no copy */
  uint64_t verify_copy_alone;              /* arraycopy stubs under a compiled method named alone (no debug
                                              record at the stub's return address) */
  char verify_examples[FG_VERIFY_EXAMPLES][320];   /* the first wrong edges, "" past the last */
  char walker[160];                        /* the walker asked for and, when it could not be had, why */
  char event[16];                          /* "cpu", "itimer" or "wall" */
  int cpu_off;                             /* no event was sampled: alloc or lock alone */
  struct fg_event_stats alloc, lock;
  struct fg_event_stats nativemem, nativelock, live;   /* fg/event_kinds.h: fg_stats_event */
  struct fg_event_stats kernel[FG_KERNEL_EVENTS_MAX];   /* kernel event i's, kind FG_STACK_KERNEL + i */
  struct fg_kevent_stats kevent[FG_KERNEL_EVENTS_MAX];  /* what names and counted kernel event i */
  char event_detail[320];                  /* how the timer was made, fallbacks */
};

/* The events an event profile lost. */
static inline uint64_t fg_event_stats_lost(const struct fg_event_stats *e)
{
  return e->no_thread + e->no_memory + e->no_class + e->log_full;
}

static inline uint64_t fg_stats_failed_total(const struct fg_stats *s)
{
  uint64_t n = 0;
  for (int i = 0; i <= FG_TICK_COUNT; i++)
    n += s->failed[i];
  return n;
}

static inline uint64_t fg_stats_stored(const struct fg_stats *s)
{
  return s->java + fg_stats_failed_total(s) + s->no_jnienv;
}

/* The time one sample stands for: the achieved interval when it was
 * measured, else the interval asked (0 when neither is known). */
static inline uint64_t fg_stats_ns_per_sample(const struct fg_stats *s)
{
  if (s->cpu_ns > 0 && s->taken > 0)
    return s->cpu_ns / s->taken;
  return s->interval_ns;
}

static inline uint64_t fg_stats_lost(const struct fg_stats *s)
{
  return s->overruns + s->refused + s->no_slot + s->skipped_lost + s->paused_lost + s->repeats_lost + s->tail_lost;
}

#endif
