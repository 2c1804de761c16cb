/* The drainer: moves samples from every thread's ring (and the counts of
 * threads without a JNIEnv) into the aggregated profile, resolving names as
 * it goes. It runs as a JVMTI agent thread with SIGPROF blocked; the last
 * pass runs on the thread that handles VMDeath, after sampling stopped. */
#ifndef FG_DRAINER_H
#define FG_DRAINER_H

#include <jvmti.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include "fg/gc_pauses.h"
#include "fg/profile.h"
#include "fg/trace_stacks.h"
#include "fg/u64_map.h"
#include "native/kernel_symbols.h"
#include "native/symbols.h"
#include "sched/sched.h"
#include "sampling/wall/wall.h"
#include "jvmti/threads.h"
#include "profile/method_names.h"
#include "sampling/sampler.h"
#include "sampling/kernel_events/kernel_counters.h"
#include "sampling/timer.h"
#include "verify/edge_verifier.h"
#include "java_events/event_log.h"
#include "hotspot/code_discovery.h"

struct fg_unregistered_name {
  int tid;                     /* 0 = empty */
  uint32_t profile_thread;
  uint32_t frame;              /* "[thread name]" */
};

struct fg_drainer {
  /* set up by the agent */
  jvmtiEnv *jvmti;
  struct fg_registry *registry;
  struct fg_sampler *sampler;
  struct fg_timer *timer;
  struct fg_kevents *kevents;  /* the kernel events' counters, FG_KERNEL_EVENTS_MAX of them (kernel event k's
                                  kevents[k]): scanned with the timer's */
  struct fg_profile *profile;
  struct fg_method_names *names;
  struct fg_sched *sched;      /* drained each pass; NULL without sched */
  struct fg_wall *wall;        /* event=wall: its ring of idle threads' repeats; else NULL */
  struct fg_edge_verifier *verifier; /* option verify; else NULL */
  struct fg_event_log *events; /* alloc and lock: their records and class names */
  struct fg_code_discovery *discovery;   /* compiled methods read from the code heap; NULL: loads' events */
  struct fg_gc_pauses *gc;     /* the JVM's GC pauses (fg/gc_pauses.h), made marks of the profile */
  int max_frames;              /* most frames one walk writes */
  int java_depth;              /* the Java frames one walk keeps (depth=) */
  uint64_t loop_ns;            /* loop=: every loop_ns, rotate writes the profile and begins the next; 0 */
  void (*rotate)(void *ctx);   /* called on the drainer's thread, its lock held, the rings drained */
  void *rotate_ctx;

  pthread_mutex_t lock;        /* held for a pass: the profile is the holder's */
  JNIEnv *jni;                 /* during a pass: the passing thread's */
  struct fg_symbols *symbols;  /* native pcs -> names */
  struct fg_u64_map native_names; /* pc -> profile name id (user and kernel pcs) */
  struct fg_kernel_symbols ksyms; /* read at the first kernel frame */
  int ksyms_read;
  struct fg_unregistered_name *unregistered_names;
  uint32_t unregistered_capacity, unregistered_used;
  uint64_t unregistered_counted;    /* unregistered_taken already added to stats.taken */
  uint64_t jvm_no_slot;       /* JVM thread records' samples with no thread name: lost */
  uint64_t no_slot_before;     /* the unregistered table's no_slot when this profile began */
  uint64_t wall_signals_before, wall_repeats_before, wall_joined_counted;   /* the wall sampler's, likewise */
  uint64_t wall_repeats_lost_counted;   /* its lost repeats already counted */
  uint64_t interval_start_ns;  /* loop=: when this interval began */
  uint64_t paused_counted;     /* the sampler's paused signals already counted */
  uint64_t kevent_lost_counted[FG_KERNEL_EVENTS_MAX];   /* the sampler's kernel event losses counted */
  uint64_t kevent_no_thread_counted[FG_KERNEL_EVENTS_MAX];
  uint64_t unowned_counted;    /* the sampler's lost_unowned (walker=copy) already counted */
  uint64_t gc_dropped_counted; /* the GC ring's dropped pauses already counted */
  struct fg_trace_stacks stacks;   /* traces to profile stacks, each built once */
  _Atomic uint64_t wakeups;    /* passes a handler's full ring called early */

  int closing;                 /* under lock: the final pass is running */
  int signal_lost;             /* another SIGPROF handler replaced ours (said once) */
  int closed;                  /* under lock: the final pass is done */
  _Atomic int stop;
  _Atomic int running;
  _Atomic uint64_t cpu_ns;     /* the drainer thread's own CPU time so far */
  jobject thread;              /* global ref to its java.lang.Thread */
};

int fg_drainer_init(struct fg_drainer *d);

/* Starts the agent thread. -1 with a message in err. */
int fg_drainer_start(struct fg_drainer *d, JNIEnv *jni, char *err, size_t errlen);

/* The last pass, once sampling has stopped: drains everything with the
 * caller's jni and closes the drainer, so that any later pass (the agent
 * thread may be about to start one) leaves the profile alone. */
void fg_drainer_finish(struct fg_drainer *d, JNIEnv *jni);

/* A pass on the caller's thread that leaves the profile locked, so that the
 * caller can write it out while sampling goes on (dump); release unlocks. */
void fg_drainer_hold(struct fg_drainer *d, JNIEnv *jni);
void fg_drainer_release(struct fg_drainer *d);

struct fg_live_objects;
/* alloc,live: the sampled objects alive now (jni: the caller's) into the
 * profile as live stacks, in place of the last report's (buffer/drainer_live.c).
 * With the profile the caller's: held, the drainer closed, or on its thread. */
void fg_drainer_report_live(struct fg_drainer *d, struct fg_live_objects *l, JNIEnv *jni);

/* After fg_drainer_finish: waits for its thread to leave and empties what
 * belonged to the finished profile, for a new one (attach: start after
 * stop). 0, or -1 when out of memory. */
int fg_drainer_reset(struct fg_drainer *d, JNIEnv *jni);

#endif
