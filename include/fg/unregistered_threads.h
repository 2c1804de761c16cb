/* Samples of threads that have no JNIEnv we know of (GC workers, JIT
 * compilers, the VM thread, threads not yet started as Java threads).
 * AsyncGetCallTrace cannot walk them, but their CPU time is real: the handler
 * counts them per OS thread id in a fixed table, lock-free and multi-producer;
 * the drainer turns the counts into samples under the thread's name. */
#ifndef FG_UNREGISTERED_THREADS_H
#define FG_UNREGISTERED_THREADS_H

#include <stdatomic.h>
#include <stdint.h>

#define FG_UNREGISTERED_SLOTS 4096

struct fg_unregistered_slot {
  _Atomic int tid;            /* 0 = free */
  _Atomic uint64_t count;     /* samples ever counted in this slot */
  uint64_t drained;           /* of which the drainer has taken; the drainer's */
};

struct fg_unregistered_threads {
  struct fg_unregistered_slot slots[FG_UNREGISTERED_SLOTS];
  _Atomic uint64_t no_slot;   /* samples lost because every slot was taken */
};

/* Handler side, async-signal-safe: one more sample for tid. 0, or -1 when
 * the table is full (counted in no_slot). */
int fg_unregistered_add(struct fg_unregistered_threads *ft, int tid);

/* Drainer side: calls visit for every tid with samples not yet taken. */
void fg_unregistered_drain(struct fg_unregistered_threads *ft,
                      void (*visit)(void *ctx, int tid, uint64_t samples), void *ctx);

/* Drainer side: frees the slots of drained threads alive() says are gone. */
void fg_unregistered_reclaim(struct fg_unregistered_threads *ft, int (*alive)(int tid));

#endif
