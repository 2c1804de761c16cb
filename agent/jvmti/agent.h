/* The agent's context: everything one profiling session owns. JVMTI
 * callbacks carry no user pointer, so agent.c keeps the one instance and
 * hands it to every module explicitly. */
#ifndef FG_AGENT_H
#define FG_AGENT_H

#include <jvmti.h>
#include <stdatomic.h>
#include <stdint.h>
#include <time.h>

#include "fg/foreign_threads.h"
#include "fg/options.h"
#include "fg/profile.h"
#include "../buffer/drainer.h"
#include "../profile/method_names.h"
#include "../sampling/sampler.h"
#include "../sampling/timer.h"
#include "../sampling/wall.h"
#include "../walk/code_map.h"
#include "../walk/method_map.h"
#include "../walk/vm_offsets.h"
#include "../sched/sched.h"
#include "threads.h"

struct fg_agent {
  jvmtiEnv *jvmti;
  struct fg_options opts;
  struct fg_sampler sampler;
  struct fg_foreign_threads foreign;
  struct fg_registry registry;
  struct fg_timer timer;
  struct fg_drainer drainer;
  struct fg_profile profile;
  struct fg_method_names names;
  struct fg_code_map code;     /* stubs and compiled methods, for the walker */
  struct fg_vm_offsets vm;     /* walker=vm: what it reads in HotSpot's frames */
  struct fg_method_map methods;   /* walker=vm: Method* -> jmethodID, bytecode range */
  struct fg_thread_pool pool;  /* records for threads with no JNIEnv (cstack=native) */
  struct fg_trace_table traces;   /* every stack sampled, stored once */
  struct fg_sched sched;       /* context-switch records (sched) */
  struct fg_wall wall;         /* event=wall's sampler thread */

  _Atomic int live;            /* VMInit done, sampling on */
  _Atomic int vm_methods;      /* walker=vm with its offsets read: fill the method map */
  _Atomic int finished;        /* outputs written */
  time_t start_time;           /* for %t */
  uint64_t start_wall_ns, start_cpu_ns;
};

/* events.c: JVMTI event callbacks and their registration */
int fg_events_enable(struct fg_agent *a, char *err, size_t errlen);

/* classes.c: make jmethodIDs exist before any sample needs them */
void fg_classes_preload_all(struct fg_agent *a, JNIEnv *jni);
void fg_classes_preload(struct fg_agent *a, jclass klass);

/* session.c: start at VMInit, stop and write everything at VMDeath */
void fg_session_start(struct fg_agent *a, JNIEnv *jni, jthread thread);
void fg_session_finish(struct fg_agent *a, JNIEnv *jni);

/* Registers the calling Java thread (idempotent) and gives it a timer. */
void fg_session_attach_thread(struct fg_agent *a, JNIEnv *jni, jthread thread);
void fg_session_detach_thread(struct fg_agent *a, JNIEnv *jni, jthread thread);

#endif
