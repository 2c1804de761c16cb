/* One native memory or native lock event on its way to the profile: what a
 * hook fills in (its stack already a trace in the session's trace table)
 * and the drainer reads back. */
#ifndef FG_NM_RECORD_H
#define FG_NM_RECORD_H

#include <stdint.h>

struct fg_trace;
struct fg_thread;

struct fg_nm_record {
  const struct fg_trace *trace; /* the caller of malloc (or pthread_mutex_lock) and its callers, leaf first */
  struct fg_thread *thread;     /* the registry's record of the thread, NULL: a thread with none */
  uint64_t serial;              /* that record's registration then */
  uint64_t time_ns;             /* CLOCK_MONOTONIC */
  uint64_t weight;              /* bytes the sample stands for, or nanoseconds waited */
  uint64_t events;              /* the calls it stands for */
  uintptr_t addr;               /* nativemem,leak: the allocation's address, on a freed one's record */
  uint64_t freed_ns;            /* nativemem,leak: when it was freed (CLOCK_MONOTONIC); 0: an allocation */
  int32_t tid;
  uint32_t session;             /* fg_nm.session it was recorded in: a free met across a stop and start is the old one's */
  uint8_t event;                /* enum fg_stack_event */
};

#endif
