/* Native memory and lock events from the hooks to the drainer: a bounded
 * queue of fixed records, many producers (any thread inside malloc or
 * pthread_mutex_lock), one consumer (the drainer, under its lock). D. Vyukov's
 * bounded MPMC queue: a producer claims a slot by one compare-and-swap on
 * the head and publishes it with the slot's sequence; no lock, no
 * allocation, nothing that can wait on another thread. A full queue refuses
 * (the caller counts the event lost); a slot claimed and not yet published
 * holds the consumer back until its next pass. */
#ifndef FG_NM_QUEUE_H
#define FG_NM_QUEUE_H

#include <stdatomic.h>
#include <stdint.h>

#include "native_mem/nm_record.h"

struct fg_nm_slot {
  _Atomic uint64_t seq;
  struct fg_nm_record r;
};

struct fg_nm_queue {
  _Atomic uint64_t head;        /* next slot to claim: the producers' */
  char pad[56];
  uint64_t tail;                /* next slot to read: the consumer's */
  uint64_t mask;                /* slots - 1 */
  struct fg_nm_slot *slots;     /* mapped, never unmapped while a hook may run */
};

/* slots: a power of two. 0, or -1 when the memory is refused. */
int fg_nm_queue_init(struct fg_nm_queue *q, uint32_t slots);
/* Empties it; only while no producer runs. */
void fg_nm_queue_reset(struct fg_nm_queue *q);
/* 1 when r went in, 0 when the queue is full. */
int fg_nm_queue_push(struct fg_nm_queue *q, const struct fg_nm_record *r);
/* The oldest published record into *r: 1, or 0 when there is none. */
int fg_nm_queue_pop(struct fg_nm_queue *q, struct fg_nm_record *r);
/* Records pushed and not yet popped, a moment's view. */
uint64_t fg_nm_queue_used(struct fg_nm_queue *q);

#endif
