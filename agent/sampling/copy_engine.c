/* walker=copy's engine; see copy_engine.h. */
#include "copy_engine.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "fg/clock.h"
#include "fg/sample_record.h"
#include "copy_record.h"
#include "jitter.h"
#include "sample_store.h"

/* the largest record: a 32 KB copy with its registers and kernel frames */
#define ROOM_BYTES 65536

/* One thread's ring as the engine reads it. */
struct reading {
  struct fg_copy_engine *e;
  int tid;
  struct fg_thread *t;            /* its record: Java, a pool one, or NULL */
  const struct fg_perf_reach *reach;
};

static int live_with(struct fg_thread *t, int tid)
{
  return t->tid == tid && atomic_load_explicit(&t->state, memory_order_acquire) == FG_THREAD_LIVE;
}

/* tid's Java record, or the pool record it holds; NULL when neither. Under
 * the registry's lock. */
static struct fg_thread *record_of(const struct fg_copy_engine *e, int tid)
{
  const struct fg_registry *r = e->registry;
  for (uint32_t i = 0; i < r->n; i++)
    if (live_with(r->all[i], tid))
      return r->all[i];
  const struct fg_thread_pool *p = e->sampler->pool;
  for (uint32_t i = 0; p && i < p->n; i++)
    if (live_with(p->records[i], tid))
      return p->records[i];
  return NULL;
}

/* The thread's record for a sample whose sp is sp: a pool record is
 * claimed at the thread's first sample, as its handler would. */
static struct fg_thread *record_for(struct reading *c, uintptr_t sp)
{
  struct fg_sampler *s = c->e->sampler;
  if (!c->t && s->pool && (c->t = fg_thread_pool_claim(s->pool, c->tid)) != NULL)
    c->t->claim_sp = sp;   /* as the handler notes it: the drainer finds the stack's bounds by it */
  return c->t;
}

/* The kernel's frames of the sample, leaf first, markers left out. */
static int kernel_frames(const struct fg_copy_sample *smp, ASGCT_CallFrame *f, uint8_t *types)
{
  int n = 0;
  for (uint32_t i = 0; i < smp->callchain_n && n < FG_MAX_KERNEL_FRAMES; i++) {
    uint64_t ip = smp->callchain[i];
    if (ip >= (uint64_t)PERF_CONTEXT_MAX)
      continue;   /* PERF_CONTEXT_KERNEL and its kind */
    f[n] = (ASGCT_CallFrame){0, (jmethodID)(uintptr_t)ip};
    types[n++] = FG_FRAME_KERNEL_PC;
  }
  return n;
}

static void on_sample(void *ctx, const uint8_t *rec, size_t size)
{
  struct reading *c = ctx;
  struct fg_copy_engine *e = c->e;
  struct fg_sampler *s = e->sampler;
  int enabled = atomic_load_explicit(&s->enabled, memory_order_acquire);
  if (enabled == FG_SAMPLER_PAUSED) {
    atomic_fetch_add_explicit(&s->paused, 1, memory_order_relaxed);
    return;
  }
  if (!enabled)
    return;
  struct fg_copy_sample smp;
  int read = fg_copy_record_read(rec, size, e->timer->copy_callchain, &smp);
  struct fg_thread *t = record_for(c, read == 0 ? smp.copy.sp : 0);
  if (!t) {   /* no record left for it */
    fg_store_foreign(s, c->tid);
    return;
  }
  uint64_t start = fg_clock_ns(CLOCK_MONOTONIC);
  fg_store_add(&t->taken, 1);
  uint64_t period = fg_jitter_next(&t->jitter, s->interval_ns, (uint64_t)c->tid);
  if (period)
    fg_perf_threads_period(c->reach, period);
  if (read != 0) {   /* not a record the kernel writes: lost, as an overrun */
    fg_store_add(&t->overruns, 1);
    return;
  }
  int k = kernel_frames(&smp, e->frames, e->types);
  struct fg_walk walk = {0, FG_SAMPLE_FAILED, FG_TICK_UNKNOWN_NOT_JAVA};
  if (smp.user && smp.copy.stack)
    walk = fg_walk_copy(&s->walker, t->env, &smp.copy, e->frames + k, e->types + k);
  uint32_t flags = walk.flags;
  if (flags & FG_SAMPLE_FAILED)
    flags = fg_sample_flags_with_tick(flags, walk.tick);
  const struct fg_trace *trace = fg_trace_table_put_known(s->traces, e->frames, e->types, (uint32_t)(k + walk.n),
                                                          flags, NULL);
  fg_store_sample(s, t, trace, smp.time_ns, 1, (int)smp.cpu, 0);
  fg_store_add(&t->handler_ns, fg_clock_ns(CLOCK_MONOTONIC) - start);
}

/* Samples the kernel dropped for want of room in tid's ring. */
static void count_lost(struct reading *c, uint64_t lost)
{
  struct fg_thread *t = record_for(c, 0);
  if (t) {
    fg_store_add(&t->taken, lost);
    fg_store_add(&t->overruns, lost);
    return;
  }
  for (uint64_t i = 0; i < lost; i++)   /* no record: counted with its thread's other samples */
    fg_store_foreign(c->e->sampler, c->tid);
}

/* tid's ring read, its copies walked into t (its record as found under the
 * registry's lock, or NULL); last: its counter's last read. Under the
 * engine's lock, which a Java thread's end waits for (fg_copy_engine_thread_end),
 * so that t stays the thread's while its ring is read. */
static void read_ring(struct fg_copy_engine *e, struct fg_perf_threads *perf, int tid, struct fg_thread *t, int last)
{
  struct fg_perf_reach reach;
  fg_perf_threads_enter(perf, tid, &reach);
  struct reading c = {e, tid, t, &reach};
  uint64_t lost = 0;
  fg_perf_threads_read(perf, &reach, e->room, ROOM_BYTES, on_sample, &c, last, &lost);
  if (lost)
    count_lost(&c, lost);
  fg_perf_threads_leave(perf);
}

/* Room for n threads in the pass's arrays. 0, or -1 when out of memory. */
static int grow(struct fg_copy_engine *e, uint32_t n)
{
  int *tids = realloc(e->tids, n * sizeof *tids);
  if (tids)
    e->tids = tids;
  int *known_tids = tids ? realloc(e->known_tids, n * sizeof *known_tids) : NULL;
  if (known_tids)
    e->known_tids = known_tids;
  struct fg_thread **records = known_tids ? realloc(e->records, n * sizeof *records) : NULL;
  if (records)
    e->records = records;
  struct fg_thread **known = records ? realloc(e->known_records, n * sizeof *known) : NULL;
  if (!known)
    return -1;
  e->known_records = known;
  e->tids_cap = n;
  return 0;
}

/* The threads with a counter now. */
static int take_tids(struct fg_copy_engine *e)
{
  struct fg_timer *tm = e->timer;
  pthread_mutex_lock(&tm->lock);
  if (tm->nfds > e->tids_cap && grow(e, tm->nfds) != 0) {
    pthread_mutex_unlock(&tm->lock);
    return -1;
  }
  for (uint32_t i = 0; i < tm->nfds; i++)
    e->tids[i] = tm->fds[i].tid;
  e->ntids = tm->nfds;
  pthread_mutex_unlock(&tm->lock);
  return 0;
}

/* A thread whose record this pass does not know: its ring waits for the next. */
#define UNKNOWN ((struct fg_thread *)1)

/* Each thread's record, records[i] for tids[i], looked up under the
 * registry's lock. The drainer holds that lock for its whole pass (names,
 * symbol tables: 30-50 ms at its first kernel frame), longer than a ring
 * holds samples: when it is taken, a thread keeps the record the last
 * lookup found (still its own: a Java thread's end waits for the engine's
 * lock before its record ends), and a thread the last lookup did not see
 * waits. */
static void look_up_records(struct fg_copy_engine *e)
{
  if (pthread_mutex_trylock(&e->registry->lock) == 0) {
    for (uint32_t i = 0; i < e->ntids; i++)
      e->records[i] = record_of(e, e->tids[i]);
    pthread_mutex_unlock(&e->registry->lock);
    memcpy(e->known_tids, e->tids, e->ntids * sizeof *e->tids);
    memcpy(e->known_records, e->records, e->ntids * sizeof *e->records);
    e->nknown = e->ntids;
    return;
  }
  for (uint32_t i = 0; i < e->ntids; i++) {
    e->records[i] = UNKNOWN;
    for (uint32_t j = 0; j < e->nknown; j++) {
      uint32_t at = (i + j) % e->nknown;   /* the same place, unless threads came or went */
      if (e->known_tids[at] == e->tids[i]) {
        e->records[i] = e->known_records[at];
        break;
      }
    }
  }
}

/* Every thread's ring read and its copies walked (last: sampling ends). */
static void pass(struct fg_copy_engine *e, int last)
{
  struct fg_perf_threads *perf = e->timer->perf;
  if (!perf || take_tids(e) != 0)
    return;
  look_up_records(e);
  atomic_fetch_add(&e->sampler->in_handler, 1);
  for (uint32_t i = 0; i < e->ntids; i++)
    if (e->records[i] != UNKNOWN)
      read_ring(e, perf, e->tids[i], e->records[i], last);
  atomic_fetch_sub(&e->sampler->in_handler, 1);
}

static void *engine_main(void *arg)
{
  struct fg_copy_engine *e = arg;
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGPROF);
  pthread_sigmask(SIG_BLOCK, &set, NULL);
  fg_timer_never_sample(e->timer, (int)syscall(SYS_gettid));
  while (!atomic_load(&e->stop)) {
    uint64_t began = fg_clock_ns(CLOCK_MONOTONIC);
    pthread_mutex_lock(&e->lock);
    pass(e, 0);
    pthread_mutex_unlock(&e->lock);
    atomic_store(&e->cpu_ns, fg_clock_ns(CLOCK_THREAD_CPUTIME_ID));
    uint64_t spent = fg_clock_ns(CLOCK_MONOTONIC) - began;
    if (spent < FG_COPY_PASS_NS) {
      uint64_t left = FG_COPY_PASS_NS - spent;
      struct timespec ts = {(time_t)(left / 1000000000u), (long)(left % 1000000000u)};
      while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
    }
  }
  pthread_mutex_lock(&e->lock);
  pass(e, 1);   /* the last: what the rings hold as sampling ends */
  pthread_mutex_unlock(&e->lock);
  atomic_store(&e->cpu_ns, fg_clock_ns(CLOCK_THREAD_CPUTIME_ID));
  return NULL;
}

/* The engine's own buffers, gone. */
static void free_buffers(struct fg_copy_engine *e)
{
  free(e->frames);
  free(e->types);
  free(e->room);
  free(e->tids);
  free(e->records);
  free(e->known_tids);
  free(e->known_records);
  e->frames = NULL;
  e->types = NULL;
  e->room = NULL;
  e->tids = e->known_tids = NULL;
  e->records = e->known_records = NULL;
  e->tids_cap = e->ntids = e->nknown = 0;
}

int fg_copy_engine_start(struct fg_copy_engine *e, struct fg_sampler *s, struct fg_registry *r, struct fg_timer *t,
                         char *err, size_t errlen)
{
  pthread_mutex_lock(&e->lock);   /* a thread ending now waits, then finds it started */
  e->sampler = s;
  e->registry = r;
  e->timer = t;
  e->capacity = fg_copy_walk_capacity(&s->walker) + FG_MAX_KERNEL_FRAMES;
  e->frames = calloc((size_t)e->capacity, sizeof *e->frames);
  e->types = calloc((size_t)e->capacity, 1);
  e->room = malloc(ROOM_BYTES);
  atomic_store(&e->stop, 0);
  atomic_store(&e->cpu_ns, 0);
  int rc = e->frames && e->types && e->room ? pthread_create(&e->thread, NULL, engine_main, e) : ENOMEM;
  if (rc != 0) {
    snprintf(err, errlen, "fgagent: cannot start walker=copy's engine thread (%s)", strerror(rc));
    free_buffers(e);
  }
  e->started = rc == 0;
  pthread_mutex_unlock(&e->lock);
  return rc == 0 ? 0 : -1;
}

void fg_copy_engine_thread_end(struct fg_copy_engine *e, int tid)
{
  pthread_mutex_lock(&e->lock);
  struct fg_perf_threads *perf = e->started ? e->timer->perf : NULL;
  if (perf) {   /* its own ThreadEnd: the registry's lock may be waited for here */
    pthread_mutex_lock(&e->registry->lock);
    struct fg_thread *t = record_of(e, tid);
    pthread_mutex_unlock(&e->registry->lock);
    read_ring(e, perf, tid, t, 1);
  }
  pthread_mutex_unlock(&e->lock);
}

void fg_copy_engine_stop(struct fg_copy_engine *e)
{
  if (!e->started)
    return;
  atomic_store(&e->stop, 1);
  pthread_join(e->thread, NULL);
  pthread_mutex_lock(&e->lock);
  e->started = 0;
  free_buffers(e);
  pthread_mutex_unlock(&e->lock);
}
