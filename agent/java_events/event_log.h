/* Allocation and lock events on their way to the profile. The JVM reports
 * them through JVMTI callbacks on the very thread that allocated or waited
 * (SampledObjectAlloc, MonitorContendedEntered, the park hook): not signal
 * handlers, so a short mutex and the heap are allowed there, at the rate of
 * the events (an allocation sample every alloc= bytes, a lock wait of at
 * least lock=). Each event's stack (the class, then the Java frames) goes
 * into the session's trace table like a CPU sample's; the log keeps which
 * thread record, stack, time and weight, and the drainer moves the log into
 * the profile at each pass (buffer/drainer_events.c).
 *
 * Class names: each class name met gets an id (interned once), so that a
 * trace holds the class as a frame like any other. Ids stay for the JVM's
 * life (the trace table, which holds them, does), and nothing is freed
 * before the log: application threads in callbacks and the drainer read
 * the table under its lock, never a name that goes away. It is bounded two
 * ways: a hidden class is named without the address suffix the JVM gives
 * each definition ("Foo$$Lambda.0x0000000801234c00" and JDK 17's
 * "Foo$$Lambda$14.0x..." are "Foo$$Lambda"), so that classes defined again
 * and again, lambdas and method handles' forms among them, are one name
 * each; and it holds at most FG_EVENT_CLASSES_MAX names (fg/stats.h; of at most 512
 * bytes: 8 MB), past which a new name is "[other class]", counted. */
#ifndef FG_EVENT_LOG_H
#define FG_EVENT_LOG_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include "fg/profile.h"
#include "fg/stats.h"
#include "fg/trace_table.h"

struct fg_thread;

struct fg_event_record {
  struct fg_thread *thread;     /* the registry's record of the thread it happened on; NULL: a thread
                                   with none (one attaching, still in its Thread's constructor) */
  uint64_t serial;              /* that record's registration then */
  int tid;                      /* the thread's */
  uint32_t merged;              /* later events of the same thread and stack added into it: the shard's
                                   room for the pass was spent (weight and events hold theirs too) */
  const struct fg_trace *trace; /* the class (frame 0), then the Java frames, leaf first */
  uint64_t time_ns;             /* CLOCK_MONOTONIC at its end (a merged record's: its first event's) */
  uint64_t weight;              /* bytes (alloc), nanoseconds waited (lock) */
  uint64_t events;              /* the objects or waits it stands for */
  uint8_t event;                /* enum fg_stack_event */
  uint8_t park;                 /* lock: a park on a java.util.concurrent lock, not a monitor */
  uint8_t walk;                 /* enum fg_event_walk: how its stack was walked */
};

/* The log's memory budget. A shard holds at most FG_EVENT_LOG_RECORDS
 * records between two drainer passes (64 bytes each, grown as they come)
 * and, once half an event's share is spent in a pass, an index of
 * FG_EVENT_LOG_INDEX 4-byte slots (kept): 8 shards x (2 MB + 256 KB) =
 * 18 MB at most, and the
 * records' 16 MB again in the drainer's hands while it moves a pass's into
 * the profile.
 *
 * Of a shard's records allocations take at most FG_EVENT_LOG_ALLOC_MAX,
 * lock waits FG_EVENT_LOG_LOCK_MAX: a lock wait is never refused for
 * allocations' sake. Once half an event's share is spent (the drainer fell
 * behind: on a host with more runnable threads than CPUs it gets a thread's
 * share of CPU while every application thread adds events), an event is
 * added into the pass's record of the same thread and stack when there is
 * one (the index), its weight and count kept, only its own time lost, and
 * the rest of the share is kept for stacks the pass has no record of; when
 * that is spent too such an event is lost, counted as log_full with its
 * weight. A shard half full wakes the drainer (wake_fd). */
#define FG_EVENT_LOG_RECORDS (1u << 15)
#define FG_EVENT_LOG_ALLOC_MAX (FG_EVENT_LOG_RECORDS / 4 * 3)
#define FG_EVENT_LOG_LOCK_MAX (FG_EVENT_LOG_RECORDS - FG_EVENT_LOG_ALLOC_MAX)
#define FG_EVENT_LOG_INDEX (2 * FG_EVENT_LOG_RECORDS)
/* Threads log into shards of their own (by their record's serial), so that
 * two threads allocating on two CPUs do not pass one lock's line back and
 * forth at every sample. */
#define FG_EVENT_LOG_SHARDS 8

struct fg_event_shard {
  pthread_mutex_t lock;
  struct fg_event_record *records;
  uint32_t n, cap;
  uint32_t of[FG_STACK_EVENTS];   /* records of each event */
  uint32_t *index;                /* NULL, or FG_EVENT_LOG_INDEX slots: record + 1, 0 empty */
  int indexed;                    /* index holds this pass's records (built when the shard first filled) */
  struct fg_event_stats counts[FG_STACK_EVENTS];   /* taken and lost since the last take */
} __attribute__((aligned(64)));

struct fg_event_log {
  struct fg_event_shard shards[FG_EVENT_LOG_SHARDS];
  _Atomic uint64_t below;       /* lock: waits shorter than lock= since the last take (no lock taken for them) */
  int wake_fd;                  /* the drainer's eventfd, -1: none (it comes at its next pass) */
  _Atomic int *wake_pending;    /* set by the waker, cleared by the drainer when it wakes */
  pthread_mutex_t classes_lock;
  /* class ids: names[i] is class i's frame name ("java.lang.String", "byte[]") */
  struct fg_profile classes;    /* used as a string table: id = index */
  int64_t other_class;          /* the id of "[other class]", -1 until the table is full */
  _Atomic uint64_t named_other; /* lookups named so since the last take */
};

int fg_event_log_init(struct fg_event_log *l);
void fg_event_log_destroy(struct fg_event_log *l);
/* Forgets the records and counts (a new session's); class ids stay. */
void fg_event_log_reset(struct fg_event_log *l);
/* A shard half full writes to fd (-1: none) unless *pending is set, and sets it. */
void fg_event_log_wake_with(struct fg_event_log *l, int fd, _Atomic int *pending);

/* The id of the class with JVM signature sig, added if new (that of
 * "[other class]" when the table is full); -1 when it is not a signature or
 * memory ran out. Ids are never reused: a thread may keep the ones it met
 * (fg_class_cache). */
int64_t fg_event_log_class(struct fg_event_log *l, const char *sig);
/* The class names held now. */
uint32_t fg_event_log_classes(struct fg_event_log *l);
/* The frame name of class id into out ("[unknown class]" for an id never
 * given). */
void fg_event_log_class_name(struct fg_event_log *l, uint32_t id, char *out, size_t len);

/* Adds r into the shard of key (the thread's; r->trace NULL: its stack was
 * refused, counted no_memory), or into a record of the same thread and
 * stack when r's event has spent its share of the shard (log_full when
 * there is none). */
void fg_event_log_add(struct fg_event_log *l, uint64_t key, const struct fg_event_record *r);
/* Counts an event that never got as far as a record, JVMTI did not name its
 * class (no_class), with its weight; no_thread is the drainer's. */
void fg_event_log_lost(struct fg_event_log *l, uint64_t key, enum fg_stack_event e, uint64_t weight, uint64_t events);

/* Takes the records so far of every shard (the caller frees *out) and the
 * counts since the last take (alloc's other_class: the class lookups named
 * "[other class]"). */
void fg_event_log_take(struct fg_event_log *l, struct fg_event_record **out, uint32_t *n,
                       struct fg_event_stats counts[FG_STACK_EVENTS]);

/* verify: notes that event e's stack fgagent walked differs from the JVM's
 * (the first one's description is kept for the summary). */
void fg_event_log_difference(struct fg_event_log *l, uint64_t key, enum fg_stack_event e, const char *why);

/* A thread's last classes met, so that an event of a class it met needs no
 * lock: keyed by a hash of the class's signature and its length. */
#define FG_CLASS_CACHE_WAYS 4
struct fg_class_cache {
  uint64_t hash[FG_CLASS_CACHE_WAYS];
  int64_t id[FG_CLASS_CACHE_WAYS];
  uint32_t next;
};
/* fg_event_log_class through the thread's cache c (NULL: none). */
int64_t fg_event_log_class_cached(struct fg_event_log *l, struct fg_class_cache *c, const char *sig);

#endif
