/* alloc,live: of the allocations alloc samples, the ones whose objects are
 * still alive when the profile is written (a dump, a loop= interval's end,
 * the stop), by site, weighted in bytes as alloc weighs them (each sample
 * stands for size / p bytes, p its object's chance to be sampled).
 *
 * The SampledObjectAlloc callback (on the allocating thread, not a signal
 * handler: JNI and a mutex are allowed there) keeps a JNI weak global
 * reference to each sampled object with its stack, thread and weight in a
 * table of FG_LIVE_MAX entries, made at the session's start and freed at its
 * stop. At a report each reference is checked (IsSameObject(ref, NULL): the
 * collector cleared it); a cleared one is dropped and its slot reused.
 *
 * No GC is forced before a report: a forced full collection would stop the
 * application for as long as it takes, at a moment it did not choose. So
 * live means not yet collected: an object unreachable since the last
 * collection of its generation still counts, until the collector clears it.
 * An application (or a test) that wants reachable only calls System.gc()
 * first.
 *
 * Budget: FG_LIVE_MAX references (a 56-byte entry each, 3.5 MB, and a weak
 * global reference each in the JVM's table). When every slot holds an object
 * still alive, the table is swept for cleared ones at most every
 * FG_LIVE_SWEEP_NS; a sample that finds no slot (or no reference: the JVM
 * out of memory) is counted (untracked) and said in the summary. */
#ifndef FG_LIVE_OBJECTS_H
#define FG_LIVE_OBJECTS_H

#include <jni.h>
#include <pthread.h>
#include <stdint.h>

#include "fg/stats.h"
#include "fg/trace_table.h"

#define FG_LIVE_MAX (1u << 16)
#define FG_LIVE_SWEEP_NS 100000000ull   /* 100 ms */

struct fg_thread;

struct fg_live_entry {
  jweak ref;                    /* NULL: a free slot */
  const struct fg_trace *trace; /* the class, then the Java frames (the session's trace table) */
  struct fg_thread *thread;     /* the allocating thread's record, NULL: a thread with none */
  uint64_t serial;              /* that record's registration then */
  int tid;
  uint32_t next_free;           /* a free slot's next free slot; FG_LIVE_MAX: none */
  uint64_t weight, events;      /* the bytes and objects the sample stands for */
};

struct fg_live_objects {
  pthread_mutex_t lock;
  struct fg_live_entry *e;      /* FG_LIVE_MAX of them; NULL: live is off */
  uint32_t first_free;          /* FG_LIVE_MAX: the table is full */
  uint32_t used;
  uint64_t swept_ns;            /* CLOCK_MONOTONIC of the last sweep of a full table */
  uint64_t tracked;             /* samples kept since the start */
  uint64_t collected;           /* of them, found cleared (at a sweep or a report) and dropped */
  uint64_t untracked;           /* samples not kept: no free slot */
  uint64_t no_class, no_stack;  /* samples not kept: JVMTI named no class, the trace table refused the stack */
};

/* Makes the table for a session with live: 0, or -1 when out of memory. */
int fg_live_objects_start(struct fg_live_objects *l);
/* Keeps a weak reference to object with its stack, thread and weight
 * (SampledObjectAlloc's thread, jni its). */
void fg_live_objects_add(struct fg_live_objects *l, JNIEnv *jni, jobject object, const struct fg_trace *trace,
                         struct fg_thread *t, uint64_t serial, int tid, uint64_t weight, uint64_t events);
struct fg_live_counts {
  uint64_t tracked, collected, untracked;   /* the table's, since the start */
  uint64_t no_class, no_stack;
  uint64_t unreported, unreported_weight;   /* alive, but not handed to each: out of memory */
};

/* Counts a sample not kept: JVMTI named no class (no_class), else its stack refused. */
void fg_live_objects_refused(struct fg_live_objects *l, int no_class);
/* Each entry whose object is still alive to each (jni: the caller's);
 * cleared ones dropped. Invariant of the counts it returns, with alive
 * the entries each was given:
 *   tracked == collected + alive + unreported. */
struct fg_live_counts fg_live_objects_each(struct fg_live_objects *l, JNIEnv *jni,
                                           void (*each)(void *ctx, const struct fg_live_entry *e), void *ctx);
/* Releases every reference and the table (the session's stop: after the
 * callbacks have stopped). */
void fg_live_objects_stop(struct fg_live_objects *l, JNIEnv *jni);

#endif
