/* Thread registry; see threads.h. */
#include "jvmti/threads.h"
#include "fg/utf8.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

__thread struct fg_thread *fg_current_thread __attribute__((tls_model("initial-exec")));

int fg_registry_init(struct fg_registry *r, size_t ring_bytes, int frames)
{
  memset(r, 0, sizeof *r);
  r->ring_bytes = ring_bytes;
  r->frames = frames;
  return pthread_mutex_init(&r->lock, NULL) == 0 ? 0 : -1;
}

void fg_registry_resize(struct fg_registry *r, size_t ring_bytes, int frames)
{
  pthread_mutex_lock(&r->lock);
  r->ring_bytes = ring_bytes;
  r->frames = frames;
  pthread_mutex_unlock(&r->lock);
}

/* Types, frames, then the kept walk's arrays, in one mapping: pages a walk
 * never reaches cost nothing, and a walk of up to about 200 frames touches
 * one page of types and frames. */
struct fg_scratch *fg_scratch_new(int frames)
{
  struct fg_scratch *s = aligned_alloc(64, (sizeof *s + 63) & ~(size_t)63);
  if (!s)
    return NULL;
  memset(s, 0, sizeof *s);
  size_t types = ((size_t)frames + 15) & ~(size_t)15;
  size_t walk = types + (size_t)frames * sizeof *s->frames;
  s->mapped = walk + fg_walk_cache_bytes(frames);
  void *p = mmap(NULL, s->mapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) {
    free(s);
    return NULL;
  }
  s->types = p;
  s->frames = (ASGCT_CallFrame *)((char *)p + types);
  s->capacity = frames;
  fg_walk_cache_init(&s->kept, (char *)p + walk, frames);
  return s;
}

void fg_scratch_free(struct fg_scratch *s)
{
  if (!s)
    return;
  munmap(s->types, s->mapped);
  free(s);
}

struct fg_thread *fg_thread_new(size_t ring_bytes, int frames)
{
  struct fg_thread *t = calloc(1, sizeof *t);
  if (!t)
    return NULL;
  t->wall_stat_fd = t->wall_schedstat_fd = -1;
  struct fg_scratch *s = fg_scratch_new(frames);
  atomic_init(&t->scratch, s);
  if (!s || fg_ring_init(&t->ring, ring_bytes) != 0) {
    fg_thread_free(t);
    return NULL;
  }
  return t;
}

void fg_thread_free(struct fg_thread *t)
{
  fg_ring_destroy(&t->ring);
  fg_scratch_free(atomic_load(&t->scratch));
  fg_scratch_free(atomic_load(&t->bigger));
  fg_scratch_free(atomic_load(&t->retired));
  free(t);
}

void fg_thread_clear_overflow(struct fg_thread *t)
{
  for (int i = 0; i < FG_OVERFLOW_SLOTS; i++) {
    atomic_store(&t->overflow[i].key, 0);
    atomic_store(&t->overflow[i].weight, 0);
  }
}

int fg_jvm_thread_records_init(struct fg_jvm_thread_records *p, uint32_t n, size_t ring_bytes, int frames)
{
  memset(p, 0, sizeof *p);
  p->records = calloc(n, sizeof *p->records);
  if (!p->records)
    return -1;
  for (; p->n < n; p->n++)
    if (!(p->records[p->n] = fg_thread_new(ring_bytes, frames))) {
      for (uint32_t i = 0; i < p->n; i++)   /* what was made so far */
        fg_thread_free(p->records[i]);
      free(p->records);
      memset(p, 0, sizeof *p);
      return -1;
    }
  /* JVM thread records' serials start at 2^63 - 1 and count up, far from the registry's */
  atomic_store(&p->next_serial, UINT64_MAX / 2);
  return 0;
}

struct fg_thread *fg_jvm_thread_records_claim(struct fg_jvm_thread_records *p, int tid)
{
  for (uint32_t i = 0; i < p->n; i++) {
    struct fg_thread *t = p->records[i];
    int expected = FG_THREAD_FREE;
    if (atomic_load_explicit(&t->state, memory_order_relaxed) != FG_THREAD_FREE ||
        !atomic_compare_exchange_strong(&t->state, &expected, FG_THREAD_CLAIMING))
      continue;
    /* The drainer leaves a CLAIMING record alone; LIVE publishes these. */
    t->serial = atomic_fetch_add(&p->next_serial, 1);
    t->env = NULL;
    t->tid = tid;
    t->java_id = 0;   /* a JVM thread: no java.lang.Thread */
    __atomic_store_n(&t->stack_hi, 0, __ATOMIC_RELEASE);
    t->stack_lo = 0;
    /* counters go on from the last claim (the drainer counts differences);
     * the back-off starts afresh: the drainer took its carry at ENDED */
    memset(&t->backoff, 0, sizeof t->backoff);
    memset(&t->clock_watch, 0, sizeof t->clock_watch);   /* another thread's figures */
    atomic_store(&t->clock_wish, FG_CLOCK_STAY);
    fg_thread_clear_overflow(t);
    atomic_store_explicit(&t->state, FG_THREAD_LIVE, memory_order_release);
    return t;
  }
  return NULL;
}

/* A recycled record's counters start again; the drainer took the old ones
 * (and any back-off carry) before it freed the record. */
static void reset_counts(struct fg_thread *t)
{
  atomic_store(&t->taken, 0);
  atomic_store(&t->overruns, 0);
  atomic_store(&t->refused, 0);
  atomic_store(&t->handler_ns, 0);
  atomic_store(&t->unproven, 0);
  atomic_store(&t->counter_ns, 0);
  atomic_store(&t->counter_walks, 0);
  atomic_store(&t->skipped, 0);
  atomic_store(&t->depth_cuts, 0);
  memset(&t->backoff, 0, sizeof t->backoff);
  memset(&t->clock_watch, 0, sizeof t->clock_watch);
  atomic_store(&t->clock_wish, FG_CLOCK_STAY);
  atomic_store(&t->folded, 0);
  atomic_store(&t->tail, 0);
  t->counted_folded = 0;
  fg_thread_clear_overflow(t);
  t->counted_taken = t->counted_overruns = t->counted_refused = t->counted_handler_ns = t->counted_unproven = 0;
  t->counted_skipped = t->counted_depth_cuts = t->counted_counter_ns = t->counted_counter_walks = 0;
}

/* A free record, or a new one. Under the lock. */
static struct fg_thread *take_record(struct fg_registry *r)
{
  for (uint32_t i = 0; i < r->n; i++)
    if (atomic_load(&r->all[i]->state) == FG_THREAD_FREE)
      return r->all[i];
  if (r->n == r->cap) {
    uint32_t cap = r->cap ? r->cap * 2 : 64;
    struct fg_thread **all = realloc(r->all, cap * sizeof *all);
    if (!all)
      return NULL;
    r->all = all;
    r->cap = cap;
  }
  struct fg_thread *t = fg_thread_new(r->ring_bytes, r->frames);
  if (!t)
    return NULL;
  r->all[r->n++] = t;
  return t;
}

/* A taken record made a new registration's. Under the lock. */
static void fill_record(struct fg_registry *r, struct fg_thread *t, JNIEnv *env, int tid, int64_t java_id,
                        const char *name)
{
  /* A recycled record was emptied by the drainer before it was freed. */
  fg_ring_reset(&t->ring);
  t->serial = ++r->next_serial;
  t->env = env;
  t->tid = tid;
  t->java_id = java_id;
  fg_utf8_copy(t->name, sizeof t->name, name ? name : "");
  reset_counts(t);
  t->claim_sp = 0;
}

/* The calling thread's stack, for the walker's guarded reads. */
static void stack_bounds(struct fg_thread *t)
{
  pthread_attr_t attr;
  void *addr;
  size_t size;
  t->stack_lo = t->stack_hi = 0;
  if (pthread_getattr_np(pthread_self(), &attr) != 0)
    return;
  if (pthread_attr_getstack(&attr, &addr, &size) == 0) {
    t->stack_lo = (uintptr_t)addr;
    t->stack_hi = (uintptr_t)addr + size;
  }
  pthread_attr_destroy(&attr);
}

struct fg_thread *fg_registry_attach(struct fg_registry *r, JNIEnv *env, int tid, int64_t java_id, const char *name)
{
  struct fg_thread *t = fg_current_thread;
  if (t && t->env == env)
    return t;
  if (t)
    fg_registry_detach(r, NULL);

  pthread_mutex_lock(&r->lock);
  t = take_record(r);
  if (t) {
    fill_record(r, t, env, tid, java_id, name);
    stack_bounds(t);
    /* Publish before LIVE: from here on this thread's handler samples into t,
     * and a signal sent by whoever sees t live (the wall sampler waits for
     * each one it sends to be taken) finds t, not a JVM thread record. Samples
     * taken before LIVE wait in the ring: the drainer looks at t only under
     * this lock, after LIVE. */
    atomic_signal_fence(memory_order_seq_cst);
    fg_current_thread = t;
    atomic_signal_fence(memory_order_seq_cst);
    atomic_store(&t->state, FG_THREAD_LIVE);
  }
  pthread_mutex_unlock(&r->lock);
  return t;
}

struct fg_thread *fg_registry_add_other(struct fg_registry *r, JNIEnv *env, int tid, int64_t java_id, const char *name)
{
  pthread_mutex_lock(&r->lock);
  struct fg_thread *t = take_record(r);
  if (t) {
    fill_record(r, t, env, tid, java_id, name);
    t->stack_lo = 0;   /* found by the drainer once the thread's handler noted an sp */
    __atomic_store_n(&t->stack_hi, 0, __ATOMIC_RELEASE);
    atomic_store(&t->state, FG_THREAD_LIVE);
  }
  pthread_mutex_unlock(&r->lock);
  return t;
}

void fg_registry_end_other(struct fg_registry *r, struct fg_thread *t)
{
  pthread_mutex_lock(&r->lock);
  atomic_store(&t->state, FG_THREAD_ENDED);
  pthread_mutex_unlock(&r->lock);
}

void fg_registry_detach(struct fg_registry *r, const char *final_name)
{
  struct fg_thread *t = fg_current_thread;
  if (!t)
    return;
  /* A handler runs on this very thread, so once the pointer is cleared (and
   * the compiler may not move the store), no handler can touch t again. */
  atomic_signal_fence(memory_order_seq_cst);
  fg_current_thread = NULL;
  atomic_signal_fence(memory_order_seq_cst);
  pthread_mutex_lock(&r->lock);
  if (final_name && *final_name)
    fg_utf8_copy(t->name, sizeof t->name, final_name);
  atomic_store(&t->state, FG_THREAD_ENDED);
  pthread_mutex_unlock(&r->lock);
}
