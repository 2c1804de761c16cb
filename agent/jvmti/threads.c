/* Thread registry; see threads.h. */
#include "threads.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

__thread struct fg_thread *fg_current_thread __attribute__((tls_model("initial-exec")));

int fg_registry_init(struct fg_registry *r, size_t ring_bytes, int depth)
{
  memset(r, 0, sizeof *r);
  r->ring_bytes = ring_bytes;
  r->depth = depth;
  return pthread_mutex_init(&r->lock, NULL) == 0 ? 0 : -1;
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
  struct fg_thread *t = calloc(1, sizeof *t);
  if (!t)
    return NULL;
  t->scratch = calloc((size_t)r->depth + 1, sizeof *t->scratch);
  if (!t->scratch || fg_ring_init(&t->ring, r->ring_bytes) != 0) {
    free(t->scratch);
    free(t);
    return NULL;
  }
  r->all[r->n++] = t;
  return t;
}

struct fg_thread *fg_registry_attach(struct fg_registry *r, JNIEnv *env, int tid, const char *name)
{
  struct fg_thread *t = fg_current_thread;
  if (t && t->env == env)
    return t;
  if (t)
    fg_registry_detach(r, NULL);

  pthread_mutex_lock(&r->lock);
  t = take_record(r);
  if (t) {
    /* A recycled record was emptied by the drainer before it was freed. */
    fg_ring_reset(&t->ring);
    t->serial = ++r->next_serial;
    t->env = env;
    t->tid = tid;
    snprintf(t->name, sizeof t->name, "%s", name ? name : "");
    atomic_store(&t->taken, 0);
    atomic_store(&t->overruns, 0);
    atomic_store(&t->handler_ns, 0);
    t->counted_taken = t->counted_overruns = t->counted_handler_ns = 0;
    atomic_store(&t->state, FG_THREAD_LIVE);
  }
  pthread_mutex_unlock(&r->lock);
  /* Publish last: from here on this thread's handler samples into t. */
  atomic_signal_fence(memory_order_seq_cst);
  fg_current_thread = t;
  atomic_signal_fence(memory_order_seq_cst);
  return t;
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
    snprintf(t->name, sizeof t->name, "%s", final_name);
  atomic_store(&t->state, FG_THREAD_ENDED);
  pthread_mutex_unlock(&r->lock);
}
