/* A kernel event's counters, one a thread; see kernel_counters.h. */
#include "sampling/kernel_events/kernel_counters.h"

#include <dirent.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "fg/error_line.h"
#include "sampling/sampler.h"   /* FG_KEVENT_SIGNAL */
#include "sampling/timer.h"     /* fg_perf_open_attr */

void fg_kevents_init(struct fg_kevents *k, struct fg_fd_room *room)
{
  memset(k, 0, sizeof *k);
  pthread_mutex_init(&k->lock, NULL);
  k->stopped = 1;
  k->room = room;
}

/* Index of tid's entry, or -1. Under the lock. */
static int find(const struct fg_kevents *k, int tid)
{
  for (uint32_t i = 0; i < k->nthreads; i++)
    if (k->threads[i].tid == tid)
      return (int)i;
  return -1;
}

/* The descriptors held, those the table keeps for a handler in flight too. Under the lock. */
static uint64_t held(const struct fg_kevents *k)
{
  return k->held + (k->table ? fg_perf_threads_held(k->table) : 0);
}

/* tid's counter, or -1 with errno. */
static int open_counter(struct fg_kevents *k, int tid)
{
  struct perf_event_attr attr;
  fg_kevent_attr(&k->spec, k->period, k->callchain, &attr);
  attr.exclude_kernel = (unsigned)k->exclude_kernel;
  return fg_perf_open_attr(&attr, tid, -1, -1, FG_KEVENT_SIGNAL);
}

/* tid entered, with a counter when the budget and the kernel allow. Under the lock. */
static void add(struct fg_kevents *k, int tid)
{
  if (tid == k->skip_tid || tid == k->skip_tid2 || k->stopped)
    return;
  if (k->nthreads == k->cap) {
    uint32_t cap = k->cap ? k->cap * 2 : 64;
    struct fg_kevent_thread *grown = realloc(k->threads, cap * sizeof *grown);
    if (!grown) {
      k->refused++;
      return;
    }
    k->threads = grown;
    k->cap = cap;
  }
  int fd = -1;
  if (held(k) + 1 > k->budget) {
    if (k->no_fd++ == 0)
      fprintf(stderr, "fgagent: warning: event=%s: the descriptor budget is spent (%llu counters, the rest of "
              "RLIMIT_NOFILE kept for the application): threads started from now on are not counted (raise "
              "ulimit -n to count them)\n", k->spec.name, (unsigned long long)k->budget);
  } else if ((fd = open_counter(k, tid)) < 0) {
    k->refused++;   /* it ended meanwhile, mostly */
  } else {
    fg_fd_room_note(k->room, fd);
    if (fg_perf_threads_attach(k->table, tid, fd) != 0) {   /* the table is full: no signal it cannot tell */
      close(fd);
      fd = -1;
      k->refused++;
    } else {
      k->held++;
      k->counted++;
    }
  }
  k->threads[k->nthreads++] = (struct fg_kevent_thread){tid, fd, k->generation};
}

static void remove_at(struct fg_kevents *k, uint32_t i)
{
  if (k->threads[i].fd >= 0) {
    ioctl(k->threads[i].fd, PERF_EVENT_IOC_DISABLE, 0);
    if (!fg_perf_threads_detach(k->table, k->threads[i].tid))
      close(k->threads[i].fd);   /* (never: every fd kept here is entered) */
    k->held--;
  }
  k->threads[i] = k->threads[--k->nthreads];
}

int fg_kevents_start(struct fg_kevents *k, const struct fg_kevent_spec *spec, uint64_t period, int callchain,
                     uint64_t budget, char *err, size_t errlen)
{
  struct fg_kevent_spec s = *spec;
  if (fg_kevent_resolve(&s, "", err, errlen) != 0 || fg_kevent_try(&s, err, errlen) != 0)
    return -1;
  pthread_mutex_lock(&k->lock);
  struct fg_perf_threads **table = &k->tables[callchain ? 1 : 0];
  if (!*table)
    *table = fg_perf_threads_new(callchain);
  if (!*table) {
    pthread_mutex_unlock(&k->lock);
    return fg_error_line(err, errlen, "fgagent: event=%s: no memory for its counters' table; not recording it",
                         spec->name);
  }
  k->spec = s;
  k->period = period ? period : s.default_period;
  k->callchain = callchain;
  k->exclude_kernel = s.exclude_kernel;   /* the kernel takes user work only (fg_kevent_try) */
  k->table = *table;
  k->budget = budget;
  k->held = k->counted = k->no_fd = k->refused = 0;
  k->nthreads = 0;
  k->on = 1;   /* stopped until fg_kevents_go: the handler is told of the table first */
  pthread_mutex_unlock(&k->lock);
  return 0;
}

void fg_kevents_share(struct fg_kevents *k, uint64_t budget)
{
  pthread_mutex_lock(&k->lock);
  k->budget = budget;
  pthread_mutex_unlock(&k->lock);
}

void fg_kevents_forget(struct fg_kevents *k)
{
  pthread_mutex_lock(&k->lock);
  if (k->stopped)
    k->on = 0;
  pthread_mutex_unlock(&k->lock);
}

void fg_kevents_go(struct fg_kevents *k)
{
  pthread_mutex_lock(&k->lock);
  k->stopped = 0;
  pthread_mutex_unlock(&k->lock);
}

void fg_kevents_thread_start(struct fg_kevents *k, int tid)
{
  pthread_mutex_lock(&k->lock);
  if (k->on && !k->stopped) {
    int i = find(k, tid);
    if (i >= 0)
      remove_at(k, (uint32_t)i);   /* a dead thread's, its tid reused */
    add(k, tid);
    fg_perf_threads_reclaim(k->table);
  }
  pthread_mutex_unlock(&k->lock);
}

void fg_kevents_thread_end(struct fg_kevents *k, int tid)
{
  pthread_mutex_lock(&k->lock);
  int i = k->on ? find(k, tid) : -1;
  if (i >= 0) {
    remove_at(k, (uint32_t)i);
    fg_perf_threads_reclaim(k->table);
  }
  pthread_mutex_unlock(&k->lock);
}

void fg_kevents_never(struct fg_kevents *k, int tid)
{
  pthread_mutex_lock(&k->lock);
  if (!k->skip_tid)
    k->skip_tid = tid;
  else
    k->skip_tid2 = tid;
  int i = k->on ? find(k, tid) : -1;
  if (i >= 0)
    remove_at(k, (uint32_t)i);
  pthread_mutex_unlock(&k->lock);
}

void fg_kevents_scan(struct fg_kevents *k)
{
  pthread_mutex_lock(&k->lock);
  int on = k->on && !k->stopped;
  pthread_mutex_unlock(&k->lock);
  if (!on)
    return;
  DIR *d = opendir("/proc/self/task");
  if (!d)
    return;
  pthread_mutex_lock(&k->lock);
  if (!k->on || k->stopped) {
    pthread_mutex_unlock(&k->lock);
    closedir(d);
    return;
  }
  int gen = ++k->generation;
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    int tid = atoi(e->d_name);
    if (tid <= 0)
      continue;
    int i = find(k, tid);
    if (i >= 0)
      k->threads[i].seen = gen;
    else
      add(k, tid);
  }
  closedir(d);
  for (uint32_t i = 0; i < k->nthreads;) {
    if (k->threads[i].seen != gen && k->threads[i].tid != k->skip_tid && k->threads[i].tid != k->skip_tid2)
      remove_at(k, i);
    else
      i++;
  }
  fg_perf_threads_reclaim(k->table);
  pthread_mutex_unlock(&k->lock);
}

void fg_kevents_stop(struct fg_kevents *k)
{
  pthread_mutex_lock(&k->lock);
  k->stopped = 1;
  while (k->nthreads)
    remove_at(k, k->nthreads - 1);
  /* every descriptor back before the stop returns; a handler held up
   * (preempted, under a debugger) holds up this stop alone */
  while (k->table && fg_perf_threads_reclaim(k->table) > 0) {
    pthread_mutex_unlock(&k->lock);
    sched_yield();
    pthread_mutex_lock(&k->lock);
  }
  pthread_mutex_unlock(&k->lock);
}
