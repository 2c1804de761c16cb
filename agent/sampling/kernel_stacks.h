/* Kernel frames for event=cpu: each thread's perf_events counter also records
 * the kernel's callchain at the overflow (PERF_SAMPLE_CALLCHAIN, user part
 * excluded) into a small ring mapped from its fd; the SIGPROF handler that
 * overflow sends reads the newest record from its own thread's ring.
 *
 * The rings are found by thread id in a fixed open-addressed table: the
 * timer adds and removes entries under its lock, handlers only read their
 * own thread's entry, without locks. A ring is unmapped only after its entry
 * is cleared and no handler is between fg_kstacks_read's start and end. */
#ifndef FG_KERNEL_STACKS_H
#define FG_KERNEL_STACKS_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "fg/options.h"   /* FG_MAX_KERNEL_FRAMES: most kernel frames a sample keeps */
#define FG_KSTACK_SLOTS 8192   /* threads with a ring at once; later ones get no kernel frames */

struct perf_event_mmap_page;

struct fg_kernel_stacks {
  _Atomic int tid[FG_KSTACK_SLOTS];   /* 0: never used; -1: removed; else the thread */
  struct perf_event_mmap_page *_Atomic ring[FG_KSTACK_SLOTS];
  size_t page, data_bytes;
  _Atomic int readers;                /* handlers inside fg_kstacks_read */
  _Atomic uint64_t no_slot;           /* threads refused: table full or mmap failed */
};

/* A table, or NULL when out of memory. */
struct fg_kernel_stacks *fg_kstacks_new(void);

/* Maps fd's ring (fd opened with FG_PERF_KERNEL_CALLCHAIN) for thread tid. 0, or -1. */
int fg_kstacks_attach(struct fg_kernel_stacks *k, int tid, int fd);
/* Forgets tid's ring and unmaps it once no handler can be reading it. */
void fg_kstacks_detach(struct fg_kernel_stacks *k, int tid);

/* In the handler: the kernel frames of thread tid's newest sample, leaf
 * first, into pcs[0..max) (max 0: the ring is only emptied). Empties the
 * ring either way, so it never fills. Async-signal-safe. */
int fg_kstacks_read(struct fg_kernel_stacks *k, int tid, uint64_t *pcs, int max);

/* In the handler: the sequence of thread tid's counter page, which the
 * kernel moves whenever it rewrites the page, as it does at each of the
 * thread's context switches. 1 and *seq when tid has a ring. Two equal
 * reads around a stretch of the handler: the thread ran it without being
 * switched out. Async-signal-safe. */
int fg_kstacks_seq(struct fg_kernel_stacks *k, int tid, uint32_t *seq);

#endif
