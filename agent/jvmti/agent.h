/* The agent's context: everything one profiling session owns. JVMTI
 * callbacks carry no user pointer, so agent.c keeps the one instance and
 * hands it to every module explicitly. */
#ifndef FG_AGENT_H
#define FG_AGENT_H

#include <jvmti.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <time.h>

#include "fg/unregistered_threads.h"
#include "fg/options.h"
#include "fg/profile.h"
#include "buffer/drainer.h"
#include "profile/method_names.h"
#include "sampling/copy/copy_engine.h"
#include "sampling/sampler.h"
#include "sampling/kernel_events/kernel_counters.h"
#include "sampling/timer.h"
#include "sampling/wall/wall.h"
#include "native/symbols.h"
#include "native/unwind_refresher.h"
#include "native/unwind_tables.h"
#include "walk/pc_cache.h"
#include "hotspot/code_map.h"
#include "hotspot/method_map.h"
#include "hotspot/vm_deopt.h"
#include "hotspot/vm_offsets.h"
#include "sched/sched.h"
#include "jvmti/prior_threads.h"
#include "jvmti/threads.h"
#include "java_events/event_log.h"
#include "java_events/live_objects.h"
#include "fg/gc_pauses.h"
#include "hotspot/code_discovery.h"
#include "hotspot/code_heap.h"
#include "verify/code_records.h"

/* A session's state (session_state.c says who changes it, and when). */
enum fg_session_state { FG_SESSION_IDLE, FG_SESSION_LIVE, FG_SESSION_EXITED };

struct fg_agent {
  jvmtiEnv *jvmti;
  /* The session's options. Written only (a) before the JVMTI callbacks are
   * set (Agent_OnLoad, the first attach) and (b) by a start, the session
   * lock held and no session LIVE, under opts_lock: no alloc or lock
   * callback runs then (fg_java_events_stop waited them out), the drainer
   * and samplers are stopped, and the one reader left, a thread's end
   * (settle_timer_tail), reads under opts_lock. Every other reader runs
   * under the session lock or inside a LIVE session. */
  struct fg_options opts;
  pthread_mutex_t opts_lock;
  pthread_mutex_t session_lock;   /* held for a whole command, VMInit's start and the exit (session_state.c) */
  _Atomic int state;              /* enum fg_session_state: written under session_lock */
  _Atomic int exiting;            /* the JVM's exit has begun: commands are refused */
  struct fg_sampler sampler;
  struct fg_unregistered_threads unregistered;
  struct fg_registry registry;
  struct fg_timer timer;
  struct fg_kevents kevents[FG_KERNEL_EVENTS_MAX];   /* event=NAME of each kernel event, kevents[k] of
                               opts.kevent[k]: its counters (kernel_events/kernel_counters.h) */
  int kevent_on;               /* the kernel events this session records (kevents[k].on each) */
  struct fg_drainer drainer;
  struct fg_profile profile;
  struct fg_method_names names;
  struct fg_code_map code;     /* stubs and compiled methods, for the walker */
  struct fg_vm_offsets vm;     /* walker=vm: what it reads in HotSpot's frames */
  struct fg_vm_deopt deopt;    /* walker=vm: where deoptimized frames keep their pc (from Agent_OnLoad) */
  struct fg_code_heap heap;    /* how to read compiled methods from the code heap (from Agent_OnLoad) */
  struct fg_code_discovery discovery;   /* the drainer's reading of them, in sessions that can */
  int method_loads;            /* the code map is filled by CompiledMethodLoad: the session cannot read the heap */
  int loads_on;                /* CompiledMethodLoad is enabled (to fill the map, or to check the heap's reading) */
  _Atomic int code_checking;   /* verify, with the heap read: the events check, add nothing */
  struct fg_code_records code_records;   /* what that check found */
  struct fg_symbols *jvm_symbols;   /* libjvm's local functions, from Agent_OnLoad to the first start */
  struct fg_edge_verifier *verifier;   /* option verify at load: kept for the sessions that ask it */
  struct fg_method_map methods;   /* walker=vm: Method* -> jmethodID, bytecode range */
  struct fg_pc_cache pcs;      /* walker=vm: pcs met in earlier walks */
  struct fg_unwind_tables unwind;   /* cstack=native: every library's DWARF unwind rows */
  struct fg_copy_engine copy_engine;   /* walker=copy: its thread, while sampling runs */
  struct fg_unwind_refresher unwind_refresher;   /* cstack=native: its thread, while sampling runs */
  struct fg_jvm_thread_records jvm_records;  /* records for threads with no JNIEnv (cstack=native) */
  struct fg_trace_table traces;   /* every stack sampled, stored once */
  struct fg_sched sched;       /* context-switch records (sched) */
  struct fg_wall wall;         /* event=wall's sampler thread */
  struct fg_prior_threads prior; /* attach: Java threads running before it */
  struct fg_event_log events;   /* alloc and lock: their records on the way to the profile */

  int cpu_sampling;            /* this session samples event= (SIGPROF handler installed, timer armed) */
  int alloc_on, lock_on;       /* this session records alloc, lock (java_events/java_events.h) */
  int nativemem_on, nativelock_on;   /* ... nativemem, nativelock (native_mem/native_mem.h) */
  int live_on;                 /* alloc,live: the allocations sampled go to live_objects, not to alloc */
  struct fg_live_objects live_objects;
  _Atomic int events_on;       /* their callbacks log */
  _Atomic int events_inflight; /* their callbacks under way */
  uint64_t events_since_ns;    /* CLOCK_MONOTONIC when they were turned on: a wait begun before is not this session's */

  _Atomic int live;            /* VMInit done, sampling on */
  _Atomic int vm_methods;      /* walker=vm with its offsets read: fill the method map */
  int class_unloads;           /* ObjectFree on: classes are tagged, their methods leave the map with them */
  int gc_capable;              /* this JVM gave can_generate_garbage_collection_events */
  int gc_on;                   /* this session enabled GarbageCollectionStart/Finish (gc_events.c) */
  struct fg_gc_pauses gc_pauses;   /* their pauses, on the way to the profile's marks */
  int outputs_failed;          /* the last write: outputs not written where asked */
  time_t start_time;           /* for %t: the session's or loop interval's start */
  unsigned seq;                /* for %n: loop's interval number, from 1 */
  uint64_t start_wall_ns, start_cpu_ns;
  uint64_t start_epoch_ns;     /* CLOCK_REALTIME at start_wall_ns: JFR's chunk start */
  uint64_t drainer_cpu_before, wall_cpu_before, wall_sampled_before;   /* at the interval's start */
  uint64_t refresher_cpu_before;   /* the unwind refresher's CPU clock then */
  uint64_t copy_cpu_before;        /* walker=copy: its engine's, likewise */
};

/* agent.c: the one instance, and what -agentpath and attach both set up
 * (options parsed and checked, tables made, JVMTI events enabled) */
struct fg_agent *fg_agent_instance(void);
int fg_agent_setup(struct fg_agent *a, JavaVM *vm, const char *options, char *err, size_t errlen);
/* fg_agent_setup's -1 when it is JVMTI that is missing: an attach to a JVM
 * still starting (its attach listener answers before the live phase). */
#define FG_SETUP_NO_JVMTI (-2)
/* Everything a->opts needs that no session before made, and every size
 * and switch taken from the options set anew: at each start, before its
 * threads run. 0, or -1 with a line in err. */
int fg_agent_prepare(struct fg_agent *a, char *err, size_t errlen);
/* Each output file writable now; -1 with a message in err. */
int fg_agent_check_outputs(const struct fg_options *o, char *err, size_t errlen);
/* -XX:?DebugNonSafepoints as the JVM was started (its command line and the
 * option variables): 1 on, -1 off, 0 not given. */
int fg_agent_debug_non_safepoints(void);

/* events.c: JVMTI event callbacks and their registration */
int fg_events_enable(struct fg_agent *a, char *err, size_t errlen);

/* gc_events.c: the JVM's GC pauses (JVMTI GarbageCollectionStart/Finish)
 * as marks of the profile, for the sessions whose outputs draw them */
void fg_gc_events_capability(struct fg_agent *a);
void fg_gc_events_callbacks(jvmtiEventCallbacks *cb);
void fg_gc_events_start(struct fg_agent *a);
void fg_gc_events_stop(struct fg_agent *a);

/* classes.c: make jmethodIDs exist before any sample needs them, and the
 * method map follow the classes loaded (tagged; ObjectFree gives the tag) */
void fg_classes_preload_all(struct fg_agent *a, JNIEnv *jni);
void fg_classes_preload(struct fg_agent *a, jclass klass);
void fg_classes_unloaded(struct fg_agent *a, jlong tag);

/* session.c: start at VMInit, stop and write everything at VMDeath */
/* code_source.c: how the code map learns compiled methods. _init at
 * Agent_OnLoad or the first attach (reads the code heap's layout, turns on
 * DebugNonSafepoints); _start at each session's start, once its walker
 * is set up. */
void fg_code_source_init(struct fg_agent *a);
void fg_code_source_start(struct fg_agent *a);

/* session_state.c: the session lock and the state machine. enter: the lock
 * taken for a command, 0; -1 (not taken) once the JVM's exit has begun.
 * vm_init: VMInit's start under it. exit: VMDeath's and Agent_OnUnload's
 * (jni NULL): waits for a command under way, writes a LIVE session, EXITED. */
int fg_session_enter(struct fg_agent *a);
void fg_session_leave(struct fg_agent *a);
void fg_session_vm_init(struct fg_agent *a, JNIEnv *jni, jthread thread);
void fg_session_exit(struct fg_agent *a, JNIEnv *jni, const char *by);

/* The session lock held by the caller (session_state.c). start: IDLE to
 * LIVE (IDLE still when sampling cannot start); finish: a LIVE session's
 * outputs and summary written, IDLE. */
void fg_session_start(struct fg_agent *a, JNIEnv *jni, jthread thread);
void fg_session_finish(struct fg_agent *a, JNIEnv *jni);
/* Writes every output now, sampling going on; -1 when not profiling. */
int fg_session_dump(struct fg_agent *a, JNIEnv *jni);
/* The output files (expanded), ", "-separated. */
int fg_session_outputs(struct fg_agent *a, char *buf, size_t len);
/* One line: profiling or idle, the event, the interval, samples so far. */
int fg_session_status(struct fg_agent *a, char *buf, size_t len);
/* After fg_session_finish, with a->opts the next session's: sets up what
 * they need (fg_agent_prepare), empties the profile and what served it,
 * for fg_session_start. 0, or -1 with a line in err. */
int fg_session_reset(struct fg_agent *a, JNIEnv *jni, char *err, size_t errlen);
/* Where a thread's JNIEnv sits inside its JavaThread: java.lang.Thread's
 * eetop field holds the JavaThread's address. -1 when it cannot be told. */
long fg_session_env_offset(JNIEnv *jni, jthread thread);
/* The thread's Java name (UTF-8), "" when JVMTI does not say. */
void fg_session_thread_name(struct fg_agent *a, JNIEnv *jni, jthread thread, char *buf, size_t len);
/* java.lang.Thread's id of thread (what JFR calls javaThreadId), through JNI: 0 when it cannot be
 * read. At registration, never in a signal handler. */
int64_t fg_session_java_thread_id(JNIEnv *jni, jthread thread);

/* Registers the calling Java thread (idempotent) and gives it a timer. */
void fg_session_attach_thread(struct fg_agent *a, JNIEnv *jni, jthread thread);
void fg_session_detach_thread(struct fg_agent *a, JNIEnv *jni, jthread thread);

#endif
