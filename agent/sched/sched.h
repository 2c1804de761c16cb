/* sched: kernel context-switch records for every profiled Java thread, one
 * perf_events dummy counter per thread with context_switch=1 and a small
 * ring buffer, read by the drainer (never by the signal handler) and decoded
 * by fg/switch_decoder.h into per-thread on-CPU time, off-CPU time and
 * switch counts. When perf_events is not permitted, sched says so once at
 * start and the session carries on without it. */
#ifndef FG_SCHED_H
#define FG_SCHED_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "fg/switch_decoder.h"

struct fg_profile;

struct fg_sched_thread {
  int tid;
  int fd;                       /* -1 once closed */
  uint8_t *ring;                /* the mmap: a control page, then data */
  size_t ring_len;
  struct fg_switch_stream stream;
  uint64_t opened_ns, closed_ns;  /* CLOCK_MONOTONIC: the span observed */
  uint64_t on_cpu_ns;
  uint64_t switch_outs;
  uint64_t longest_off_ns;      /* the longest off-CPU period */
  uint64_t longest_off_start;   /* when it began: the switch-out (CLOCK_MONOTONIC) */
  uint64_t last_out_ns;         /* the last switch-out seen, 0 if none or back in */
  bool ended;                   /* ThreadEnd seen: drain, then close */
  char name[64];                /* the Java thread's name, its final one once ended */
  char error[200];              /* the decoder's error, if it stopped */
};

struct fg_sched {
  bool enabled;
  pthread_mutex_t lock;         /* guards threads */
  struct fg_sched_thread *threads;
  uint32_t n, cap;
  uint8_t *scratch;             /* one ring's data, linearised */
  size_t scratch_len;
  uint64_t open_failures;
};

/* Probes perf_events. false (and one line in warn) when not permitted. */
bool fg_sched_start(struct fg_sched *s, char *warn, size_t warnlen);
void fg_sched_thread_start(struct fg_sched *s, int tid, const char *name);
void fg_sched_thread_end(struct fg_sched *s, int tid, const char *final_name);
/* Reads and decodes every ring (drainer thread). */
void fg_sched_drain(struct fg_sched *s);
/* The last drain, closes everything. */
void fg_sched_stop(struct fg_sched *s);
/* Per-thread on/off-CPU totals under each registration's own name; with
 * the profile's timeline, the stack the thread was in when its longest
 * off-CPU period began (its last sample before that switch-out). */
int fg_sched_write_summary(FILE *out, const struct fg_sched *s, const struct fg_profile *p);

#endif
