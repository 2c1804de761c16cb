/* event=cpu: each thread's perf_events counter as its own SIGPROF handler
 * reaches it, found by thread id in a fixed open-addressed table: the
 * counter's fd, for the handler to move its next sample (fg_perf_threads_period),
 * and the counter's mapped page, whose sequence tells the handler whether
 * the thread was switched out (fg_perf_threads_seq). With kernel frames the
 * mapping also holds a small ring into which the counter records the kernel's
 * callchain at each overflow (PERF_SAMPLE_CALLCHAIN, user part excluded);
 * the handler reads the newest record (fg_perf_threads_kernel_frames).
 *
 * A handler looks its thread up once a signal (fg_perf_threads_enter, left
 * with fg_perf_threads_leave) and uses what it found for every call in
 * between: at 1 ms a signal finds the table cold, and each entry's thread,
 * fd and page share one cache line.
 *
 * The timer adds and removes entries under its lock; handlers only read their
 * own thread's entry, without locks. A removed entry's fd and page belong to
 * the table: the entry is retired at once (no later enter finds it), and its
 * fd is closed and its page unmapped by fg_perf_threads_reclaim, under the
 * timer's lock, once no reader of that entry is between fg_perf_threads_enter
 * and fg_perf_threads_leave. Nobody waits for a handler: one preempted on an
 * oversubscribed host, or stopped under a debugger, holds back its own fd's
 * close, not every thread start and end behind the timer's lock. Each entry
 * counts its own readers (with a handler in flight on every CPU, a count for
 * the whole table is never zero).
 *
 * The table is open-addressed with linear probing, every tid within
 * FG_PERF_PROBE_MAX slots of its home: a lookup reads at most that many,
 * whatever the table's history. A removed slot becomes empty again as soon
 * as no entry's probe chain (from its home to its slot) passes through it,
 * so removed slots survive only inside the chain of a live or retired entry:
 * a JVM that starts threads for months keeps its lookups as short as on its
 * first day, a thread with no entry (on a POSIX timer) stopping at the first
 * empty slot.
 *
 * walker=copy's table holds one counter a CPU for each thread instead, each
 * writing into its CPU's ring (cpu_rings.h), which the copy engine reads;
 * it varies a counter's period (fg_perf_threads_period_on) and counts what
 * a thread's counters lost (fg_perf_threads_lost). */
#ifndef FG_PERF_THREADS_H
#define FG_PERF_THREADS_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "fg/options.h"   /* FG_MAX_KERNEL_FRAMES: most kernel frames a sample keeps */
#include "sampling/perf/cpu_rings.h"
#define FG_PERF_THREAD_SLOTS 8192   /* threads with an entry at once; later ones are sampled without */
#define FG_PERF_PROBE_MAX 64        /* slots from its home a tid may sit: a lookup reads no more */

struct perf_event_mmap_page;

struct fg_perf_entry {
  _Atomic int tid;                         /* 0: empty; -1: removed; -2: retired, its fd and page not
                                              reclaimed yet; else the thread */
  _Atomic int fd;
  struct perf_event_mmap_page *_Atomic page;   /* NULL when not mapped */
  int *_Atomic cpu_fds;                    /* walker=copy: its counter on each CPU (-1: none), by CPU
                                              number; NULL otherwise */
  uint64_t lost_counted;                   /* walker=copy: its counters' lost samples told so far */
  _Atomic int readers;                     /* between enter and leave with this entry */
  int home_tid;                            /* the tid it was put for, retired or not (under the timer's lock) */
};

struct fg_perf_threads {
  struct fg_perf_entry entry[FG_PERF_THREAD_SLOTS];
  size_t page_bytes, data_bytes;           /* data_bytes 0: no ring */
  int callchain;                           /* the counters record kernel callchains */
  struct fg_cpu_rings rings;               /* walker=copy's, one a CPU */
  int counter_lost;                        /* its counters count their lost samples (Linux 6.0):
                                              the rings' PERF_RECORD_LOST are not counted again */
  _Atomic uint64_t lost_untold;            /* walker=copy: lost by counters closed before
                                              fg_perf_threads_lost told them */
  _Atomic uint64_t no_slot;                /* threads refused: table full (or mmap failed: no page) */
  uint16_t retired[FG_PERF_THREAD_SLOTS];  /* the retired slots, nretired of them (under the timer's lock) */
  uint32_t nretired;
  uint32_t retired_fds;                    /* the descriptors they still hold */
};

/* A table, or NULL when out of memory. rings: counters record kernel
 * callchains (fg_perf_open's kernel_callchain), each gets a one-page ring. */
struct fg_perf_threads *fg_perf_threads_new(int rings);
/* walker=copy's: each CPU gets a ring of ring_bytes (a power of two pages)
 * for its samples' stack copies; callchain: with kernel callchains. NULL
 * with a message in err when the rings are refused. */
struct fg_perf_threads *fg_perf_threads_new_copies(size_t ring_bytes, int callchain, char *err, size_t errlen);
/* The table and its rings, gone; after every counter was detached and no
 * handler reads one (what retired entries still hold is closed). */
void fg_perf_threads_free(struct fg_perf_threads *k);
/* Whether counters record kernel callchains. */
static inline int fg_perf_threads_rings(const struct fg_perf_threads *k)
{
  return k && k->callchain;
}

/* Enters thread tid's counter fd and maps its page (and ring). 0; -1 when
 * the table is full. A page that cannot be mapped leaves the entry without:
 * no kernel frames and no sequence for that thread, its fd still there. */
int fg_perf_threads_attach(struct fg_perf_threads *k, int tid, int fd);
/* fg_perf_threads_attach in two: the mapping (NULL when refused, counted),
 * which needs no lock, then the entry, under the timer's lock (the page is
 * unmapped when the table is full); fg_perf_threads_unmap undoes a mapping
 * never entered. */
void *fg_perf_threads_map(struct fg_perf_threads *k, int fd);
int fg_perf_threads_put(struct fg_perf_threads *k, int tid, int fd, void *page);
void fg_perf_threads_unmap(struct fg_perf_threads *k, void *page);
/* walker=copy: enters thread tid's counters, fds[c] the one on CPU c (-1:
 * none), whose samples go to c's ring. The entry owns them from now: they
 * are closed at detach. 0; -1 when the table is full or out of memory (the
 * caller still owns and closes them then). */
int fg_perf_threads_attach_cpus(struct fg_perf_threads *k, int tid, const int *fds);
/* Forgets tid's entry: no enter finds it from now on. 1 when it had one:
 * its fd (walker=copy's: its counters, what they lost and no reader told
 * added to lost_untold) and page are the table's, closed and unmapped by a
 * reclaim once no reader is left (at once, when none is in); 0 when it had
 * none, its fd the caller's to close. Never waits. Under the timer's lock. */
int fg_perf_threads_detach(struct fg_perf_threads *k, int tid);
/* Closes and unmaps what retired entries hold once no handler reads them,
 * their slots free again. The number still read. Under the timer's lock,
 * from the timer's own calls (a thread's start or end, the drainer's scan). */
uint32_t fg_perf_threads_reclaim(struct fg_perf_threads *k);
/* The descriptors retired entries still hold (counted in the budget). */
uint32_t fg_perf_threads_held(const struct fg_perf_threads *k);
/* The slots a lookup of tid reads, and the removed slots left; for tests. */
int fg_perf_threads_probes(const struct fg_perf_threads *k, int tid);
int fg_perf_threads_removed(const struct fg_perf_threads *k);

/* What a handler found of its thread's entry: fd -1 and page NULL when
 * the thread has none. Good until fg_perf_threads_leave. */
struct fg_perf_reach {
  int fd;
  struct perf_event_mmap_page *page;
  struct fg_perf_entry *entry;   /* NULL when none: for the copy engine's reads only */
  const int *cpu_fds;            /* walker=copy: the thread's counter on each CPU; NULL when none */
};

/* In the handler, before the calls below: thread tid's entry into *r.
 * Always paired with fg_perf_threads_leave, found or not. Async-signal-safe. */
void fg_perf_threads_enter(struct fg_perf_threads *k, int tid, struct fg_perf_reach *r);
void fg_perf_threads_leave(struct fg_perf_reach *r);

/* The kernel frames of the thread's newest sample, leaf first, into
 * pcs[0..max) (max 0: the ring is only emptied). Empties the ring either
 * way, so it never fills. Async-signal-safe. */
int fg_perf_threads_kernel_frames(const struct fg_perf_threads *k, const struct fg_perf_reach *r, uint64_t *pcs,
                                  int max);

/* walker=copy: the samples the thread's counters lost since the last
 * call (PERF_FORMAT_LOST, Linux 6.0; 0 before). Reading a counter whose
 * thread runs on another CPU interrupts that CPU: for a thread's end (on
 * itself) and sampling's. The copy engine's, one caller at a time. */
uint64_t fg_perf_threads_lost(const struct fg_perf_threads *k, const struct fg_perf_reach *r);

/* The sequence of the thread's counter page, which the kernel moves
 * whenever it rewrites the page, as it does at each of the thread's context
 * switches. 1 and *seq when the thread has a page. Two equal reads around a
 * stretch of the handler: the thread ran it without being switched out.
 * Async-signal-safe. */
int fg_perf_threads_seq(const struct fg_perf_reach *r, uint32_t *seq);

/* The thread's counter overflows next after period_ns of its CPU time from
 * now, and every period_ns after that (PERF_EVENT_IOC_PERIOD, one system
 * call: about 10 us here, timed from the handler). 1 when the thread has
 * an entry and the kernel took it. Async-signal-safe. */
int fg_perf_threads_period(const struct fg_perf_reach *r, uint64_t period_ns);
/* walker=copy: the same for the thread's counter on cpu. */
int fg_perf_threads_period_on(const struct fg_perf_threads *k, const struct fg_perf_reach *r, int cpu,
                              uint64_t period_ns);

#endif
