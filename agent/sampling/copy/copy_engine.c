/* walker=copy's engine; see copy_engine.h. */
#include "sampling/copy/copy_engine.h"

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
#include "sampling/copy/copy_held.h"
#include "hotspot/code_discovery.h"
#include "sampling/copy/copy_record.h"
#include "sampling/perf/jitter.h"
#include "sampling/sample_store.h"

/* the largest record: a 32 KB copy with its registers and kernel frames */
#define ROOM_BYTES 65536

/* A thread whose record this pass does not know yet. */
#define UNKNOWN ((struct fg_thread *)1)

static int live_with(struct fg_thread *t, int tid)
{
  return t->tid == tid && atomic_load_explicit(&t->state, memory_order_acquire) == FG_THREAD_LIVE;
}

/* tid's Java record, or the JVM thread record it holds; NULL when neither. Under
 * the registry's lock. */
static struct fg_thread *record_of(const struct fg_copy_engine *e, int tid)
{
  const struct fg_registry *r = e->registry;
  for (uint32_t i = 0; i < r->n; i++)
    if (live_with(r->all[i], tid))
      return r->all[i];
  const struct fg_jvm_thread_records *p = e->sampler->jvm_records;
  for (uint32_t i = 0; p && i < p->n; i++)
    if (live_with(p->records[i], tid))
      return p->records[i];
  return NULL;
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

/* The threads whose counters copy their stacks now. */
static int take_tids(struct fg_copy_engine *e)
{
  struct fg_timer *tm = e->timer;
  pthread_mutex_lock(&tm->lock);
  if (tm->nfds > e->tids_cap && grow(e, tm->nfds) != 0) {
    pthread_mutex_unlock(&tm->lock);
    return -1;
  }
  uint32_t n = 0;
  for (uint32_t i = 0; i < tm->nfds; i++)
    if (tm->fds[i].fd == FG_FD_COPYING)   /* a thread signalled instead has its handler as its ring's one producer */
      e->tids[n++] = tm->fds[i].tid;
  e->ntids = n;
  pthread_mutex_unlock(&tm->lock);
  return 0;
}

/* Each thread's record, records[i] for tids[i], looked up under the
 * registry's lock. The drainer holds that lock for its whole pass (names,
 * symbol tables: 30-50 ms at its first kernel frame), longer than a ring
 * holds samples: unless wait, when it is taken a thread keeps the record
 * the last lookup found (checked still its own at each sample), and one
 * the last lookup did not see is UNKNOWN until a sample of it needs it. */
static void look_up_records(struct fg_copy_engine *e, int wait)
{
  if (wait ? pthread_mutex_lock(&e->registry->lock) == 0 : pthread_mutex_trylock(&e->registry->lock) == 0) {
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

/* tid's place in the pass's arrays, or -1 when it has no counter now (it
 * ended since its sample). */
static int place_of(struct fg_copy_engine *e, int tid)
{
  if (e->hint < e->ntids && e->tids[e->hint] == tid)
    return (int)e->hint;
  for (uint32_t i = 0; i < e->ntids; i++)
    if (e->tids[i] == tid)
      return (int)(e->hint = i);
  return -1;
}

/* The record of the thread at place i for a sample whose sp is sp, or NULL
 * when none is left for it. A record the last lookup found that is no
 * longer its thread's, or one it did not find, is looked up again, waiting
 * for the lock; a thread without a Java record claims a JVM thread record at its
 * first sample, as its handler would. */
static struct fg_thread *record_for(struct fg_copy_engine *e, int i, int tid, uintptr_t sp)
{
  struct fg_thread *t = e->records[i];
  if (t == UNKNOWN || (t && !live_with(t, tid))) {
    look_up_records(e, 1);
    t = e->records[i];
  }
  struct fg_sampler *s = e->sampler;
  if (!t && s->jvm_records && (t = fg_jvm_thread_records_claim(s->jvm_records, tid)) != NULL) {
    t->claim_sp = sp;   /* as the handler notes it: the drainer finds the stack's bounds by it */
    e->records[i] = t;
    for (uint32_t j = 0; j < e->nknown; j++)   /* a pass that finds the lock taken claims no second one */
      if (e->known_tids[j] == tid)
        e->known_records[j] = t;
  }
  return t;
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

/* Samples lost whose thread nobody knows, counted as overruns. */
static void lost_unowned(struct fg_copy_engine *e, uint64_t n)
{
  if (n)
    atomic_fetch_add_explicit(&e->sampler->lost_unowned, n, memory_order_relaxed);
}

/* The thread's counter on cpu overflows next after period. */
static void vary_period(struct fg_copy_engine *e, int tid, int cpu, uint64_t period)
{
  struct fg_perf_threads *perf = e->timer->perf;
  struct fg_perf_reach reach;
  fg_perf_threads_enter(perf, tid, &reach);
  fg_perf_threads_period_on(perf, &reach, cpu, period);
  fg_perf_threads_leave(&reach);
}

/* What the counters of the thread at place i lost since last told: to its
 * record, or with no thread's when it has none. */
static void count_lost(struct fg_copy_engine *e, int i)
{
  struct fg_perf_threads *perf = e->timer->perf;
  struct fg_perf_reach reach;
  fg_perf_threads_enter(perf, e->tids[i], &reach);
  uint64_t lost = fg_perf_threads_lost(perf, &reach);
  fg_perf_threads_leave(&reach);
  struct fg_thread *t = lost ? record_for(e, i, e->tids[i], 0) : NULL;
  if (t) {
    fg_store_add(&t->taken, lost);
    fg_store_add(&t->overruns, lost);
  } else {
    lost_unowned(e, lost);
  }
}

/* What walk_and_store did with a copy. */
static uint32_t methods_known(const struct fg_copy_engine *e)
{
  return atomic_load_explicit(&e->sampler->walker.code->methods.count, memory_order_acquire);
}

/* Whether the engine's own read of the code at pc found nothing lately. */
static int read_in_vain(const struct fg_copy_engine *e, uintptr_t pc)
{
  for (int i = 0; i < 16; i++)
    if (e->read_in_vain[i] == pc)
      return 1;
  return 0;
}

enum stored { HELD, STORED, STORED_FAILED };

/* Walks the copy of the thread at place i, whose record is t, and stores
 * the walk in its ring (STORED, or STORED_FAILED when the walk failed). A
 * walk that stopped at code with no record yet is not stored, unless last:
 * HELD, for the caller to hold the copy (copy_held.h). */
static enum stored walk_and_store(struct fg_copy_engine *e, int i, struct fg_thread *t,
                                  const struct fg_copy_sample *smp, int last)
{
  struct fg_sampler *s = e->sampler;
  uint64_t start = fg_clock_ns(CLOCK_MONOTONIC);
  int k = kernel_frames(smp, e->frames, e->types);
  struct fg_walk walk = {0, FG_SAMPLE_FAILED, FG_TICK_UNKNOWN_NOT_JAVA, 0};
  uint32_t before = methods_known(e);   /* a method read while it walks may be one it missed */
  if (smp->user && smp->copy.stack)
    walk = fg_walk_copy(&s->walker, t->env, &smp->copy, e->frames + k, e->types + k);
  if ((walk.flags & FG_SAMPLE_FAILED) && !walk.no_record && smp->user && smp->copy.stack &&
      methods_known(e) != before)
    walk = fg_walk_copy(&s->walker, t->env, &smp->copy, e->frames + k, e->types + k);   /* once more */
  if (walk.no_record && e->discovery && !fg_copy_held_gave_up_on(&e->held, walk.no_record) &&
      !read_in_vain(e, walk.no_record)) {
    /* the code it met read now, on this thread, rather than held for the
     * drainer, which may not get a CPU for tens of ms on a busy host */
    uint32_t known = methods_known(e);
    fg_code_discovery_take(e->discovery);
    if (methods_known(e) != known)
      walk = fg_walk_copy(&s->walker, t->env, &smp->copy, e->frames + k, e->types + k);
    else   /* each copy that stops there would read it again: a few system calls a walk */
      e->read_in_vain[e->read_in_vain_next++ % 16] = walk.no_record;
  }
  if (walk.no_record && !fg_copy_held_gave_up_on(&e->held, walk.no_record)) {
    if (!last) {
      fg_store_add(&t->handler_ns, fg_clock_ns(CLOCK_MONOTONIC) - start);
      return HELD;
    }
    if (fg_clock_ns(CLOCK_MONOTONIC) - smp->time_ns >= FG_COPY_HELD_NS)
      fg_copy_held_give_up(&e->held, walk.no_record);   /* it waited its time for nothing */
  }
  uint32_t flags = walk.flags;
  if (flags & FG_SAMPLE_FAILED)
    flags = fg_sample_flags_with_tick(flags, walk.tick);
  const struct fg_trace *trace = fg_trace_table_put_known(s->traces, e->frames, e->types, (uint32_t)(k + walk.n),
                                                          flags, NULL);
  fg_store_add(&t->taken, 1);
  fg_store_sample(s, t, trace, smp->time_ns, 1, (int)smp->cpu, 0);
  fg_store_add(&t->handler_ns, fg_clock_ns(CLOCK_MONOTONIC) - start);
  if (walk.flags & FG_SAMPLE_COPY_CUT) {   /* deeper than the copy: walked whole in its handler from now on */
    count_lost(e, i);
    if (fg_timer_signal_instead(e->timer, smp->tid))
      e->tids[i] = 0;   /* its copies left in the rings are no longer the engine's to store: counted unregistered */
  }
  return walk.flags & FG_SAMPLE_FAILED ? STORED_FAILED : STORED;
}

/* The copy's thread's place and record, or -1 when its counters have closed
 * since (it ended, or is signalled instead) or no record is left for it:
 * its copy is then counted without a stack. */
static int owner_of(struct fg_copy_engine *e, const struct fg_copy_sample *smp, struct fg_thread **t)
{
  int i = place_of(e, smp->tid);
  *t = i < 0 ? NULL : record_for(e, i, smp->tid, smp->copy.sp);
  if (*t)
    return i;
  fg_store_unregistered(e->sampler, smp->tid);
  return -1;
}


/* fg_copy_held_release's walk: the held copy x walked again and stored,
 * or counted without a stack when its thread has gone. */
static int walk_held(void *ctx, const struct fg_copy_held_entry *x, int last)
{
  struct fg_copy_engine *e = ctx;
  struct fg_copy_sample smp;
  struct fg_thread *t;
  int i;
  if (fg_copy_record_read(x->rec, x->size, e->timer->perf->callchain, &smp) != 0 ||   /* it was read once */
      (i = owner_of(e, &smp, &t)) < 0)
    return 1;
  enum stored done = walk_and_store(e, i, t, &smp, last);
  if (done == STORED_FAILED)
    atomic_fetch_add_explicit(&e->held_failed, 1, memory_order_relaxed);
  return done != HELD;
}

/* The held copies of tid (0: every thread's) that are due, walked again. */
static void release_held(struct fg_copy_engine *e, int tid, int last)
{
  fg_copy_held_release(&e->held, tid, last, methods_known(e), fg_clock_ns(CLOCK_MONOTONIC), walk_held, e);
}

/* Holds the copy rec[0..size) of smp's thread (walked: its walk stopped at
 * code with no record; else it follows a held copy of its thread), the
 * oldest thread's held copies let go first when there is no room; when it
 * cannot be held, its thread's held copies and then it are stored as they
 * walk. */
static void hold(struct fg_copy_engine *e, const uint8_t *rec, size_t size, const struct fg_copy_sample *smp,
                 int walked)
{
  if (e->held.n >= FG_COPY_HELD_MAX)
    release_held(e, e->held.e[0].tid, 1);
  if (fg_copy_held_add(&e->held, smp->tid, rec, size, fg_clock_ns(CLOCK_MONOTONIC), methods_known(e), walked) ==
      0) {
    atomic_fetch_add_explicit(&e->held_n, 1, memory_order_relaxed);
    return;
  }
  release_held(e, smp->tid, 1);
  struct fg_thread *t;
  int i = owner_of(e, smp, &t);
  if (i >= 0)
    walk_and_store(e, i, t, smp, 1);
}

static void on_sample(void *ctx, const uint8_t *rec, size_t size)
{
  struct fg_copy_engine *e = ctx;
  struct fg_sampler *s = e->sampler;
  int enabled = atomic_load_explicit(&s->enabled, memory_order_acquire);
  if (enabled == FG_SAMPLER_PAUSED) {
    atomic_fetch_add_explicit(&s->paused, 1, memory_order_relaxed);
    return;
  }
  if (!enabled)
    return;
  struct fg_copy_sample smp;
  if (fg_copy_record_read(rec, size, e->timer->perf->callchain, &smp) != 0) {
    lost_unowned(e, 1);   /* not a record the kernel writes: lost, whose it was unknown */
    return;
  }
  struct fg_thread *t;
  int i = owner_of(e, &smp, &t);
  if (i < 0)
    return;
  uint64_t period = fg_jitter_next(&t->jitter, s->interval_ns, (uint64_t)smp.tid);
  if (period)
    vary_period(e, smp.tid, (int)smp.cpu, period);
  if (fg_copy_held_has(&e->held, smp.tid))
    hold(e, rec, size, &smp, 0);   /* behind a copy of its thread that is held: its samples keep their order */
  else if (walk_and_store(e, i, t, &smp, 0) == HELD)
    hold(e, rec, size, &smp, 1);
}

/* Every CPU's ring read and its copies walked, then the samples lost by
 * counters closed since. wait: for the registry's lock (a thread's end, on
 * itself). Under the engine's lock, which a Java thread's end waits for
 * (fg_copy_engine_thread_end), so that a record found stays its thread's
 * while the rings are read. Returns 0; -1 when out of memory. */
static int pass(struct fg_copy_engine *e, int wait)
{
  struct fg_perf_threads *perf = e->timer->perf;
  if (!perf || take_tids(e) != 0)
    return -1;
  look_up_records(e, wait);
  release_held(e, 0, 0);   /* before the rings: a thread's held copies are older than its copies there */
  uint64_t lost = 0, too_big = 0;
  fg_cpu_rings_read(&perf->rings, FG_COPY_RECORD_TIME_AT, e->room, ROOM_BYTES, on_sample, e, &lost, &too_big);
  /* the counters' own counts are exact and tell each thread's, at its end */
  lost_unowned(e, (perf->counter_lost ? 0 : lost) + too_big);
  uint64_t untold = atomic_load(&perf->lost_untold);
  lost_unowned(e, untold - e->untold_counted);
  e->untold_counted = untold;
  return 0;
}

/* The engine's walks count as a handler's do (in_handler): a shutdown or a
 * loop's rotation waits for them, and the method map frees a table only
 * once no walk can be in it. Around every pass and every walk outside one. */
static void walking(struct fg_copy_engine *e, int begins)
{
  if (begins)
    atomic_fetch_add(&e->sampler->in_handler, 1);
  else
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
  /* a CPU's ring holds 15 samples: read before it fills at short intervals */
  uint64_t every = 4 * e->sampler->interval_ns < FG_COPY_PASS_NS ? 4 * e->sampler->interval_ns : FG_COPY_PASS_NS;
  while (!atomic_load(&e->stop)) {
    uint64_t began = fg_clock_ns(CLOCK_MONOTONIC);
    pthread_mutex_lock(&e->lock);
    walking(e, 1);
    pass(e, 0);
    walking(e, 0);
    pthread_mutex_unlock(&e->lock);
    if (e->discovery)   /* the code its held copies wait for, read before their next pass */
      fg_code_discovery_take(e->discovery);
    atomic_store(&e->cpu_ns, fg_clock_ns(CLOCK_THREAD_CPUTIME_ID));
    uint64_t spent = fg_clock_ns(CLOCK_MONOTONIC) - began;
    if (spent < every) {
      uint64_t left = every - spent;
      struct timespec ts = {(time_t)(left / 1000000000u), (long)(left % 1000000000u)};
      while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
    }
  }
  pthread_mutex_lock(&e->lock);
  walking(e, 1);
  if (pass(e, 1) == 0) {   /* the last: what the rings hold as sampling ends, and what each thread lost */
    release_held(e, 0, 1);
    for (uint32_t i = 0; i < e->ntids; i++)
      count_lost(e, (int)i);
  }
  walking(e, 0);
  pthread_mutex_unlock(&e->lock);
  atomic_store(&e->cpu_ns, fg_clock_ns(CLOCK_THREAD_CPUTIME_ID));
  return NULL;
}

/* The engine's own buffers, gone. */
static void free_buffers(struct fg_copy_engine *e)
{
  fg_copy_held_clear(&e->held);
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
  e->tids_cap = e->ntids = e->nknown = e->hint = 0;
}

static void discard(void *ctx, const uint8_t *rec, size_t size)
{
  (void)ctx, (void)rec, (void)size;
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
  atomic_store(&e->held_n, 0);
  atomic_store(&e->held_failed, 0);
  struct fg_perf_threads *perf = t->perf;
  uint64_t stale = 0;   /* a ring kept from an earlier session holds its last samples, read by nobody */
  if (perf)
    fg_cpu_rings_read(&perf->rings, FG_COPY_RECORD_TIME_AT, NULL, 0, discard, NULL, &stale, &stale);
  e->untold_counted = perf ? atomic_load(&perf->lost_untold) : 0;
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
  if (e->started) {   /* its own ThreadEnd: the registry's lock may be waited for here */
    walking(e, 1);
    if (pass(e, 1) == 0) {
      release_held(e, tid, 1);
      int i = place_of(e, tid);
      if (i >= 0)
        count_lost(e, i);
    }
    walking(e, 0);
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
