/* alloc,live's table of weak references to sampled objects; see live_objects.h. */
#include "java_events/live_objects.h"

#include <stdlib.h>
#include <string.h>

#include "fg/clock.h"

int fg_live_objects_start(struct fg_live_objects *l)
{
  struct fg_live_entry *e = calloc(FG_LIVE_MAX, sizeof *e);
  if (!e)
    return -1;
  for (uint32_t i = 0; i < FG_LIVE_MAX; i++)
    e[i].next_free = i + 1;   /* the last one's is FG_LIVE_MAX: none */
  pthread_mutex_lock(&l->lock);
  l->e = e;
  l->first_free = 0;
  l->used = 0;
  l->swept_ns = 0;
  l->tracked = l->collected = l->untracked = l->no_class = l->no_stack = 0;
  pthread_mutex_unlock(&l->lock);
  return 0;
}

/* Slot i back on the free list, its reference deleted. Under the lock. */
static void drop(struct fg_live_objects *l, JNIEnv *jni, uint32_t i)
{
  (*jni)->DeleteWeakGlobalRef(jni, l->e[i].ref);
  l->e[i].ref = NULL;
  l->e[i].next_free = l->first_free;
  l->first_free = i;
  l->used--;
}

/* A full table: the slots of objects the collector cleared freed, at most
 * every FG_LIVE_SWEEP_NS (each sweep checks every slot). Under the lock. */
static void sweep(struct fg_live_objects *l, JNIEnv *jni)
{
  uint64_t now = fg_clock_ns(CLOCK_MONOTONIC);
  if (l->swept_ns && now - l->swept_ns < FG_LIVE_SWEEP_NS)
    return;
  l->swept_ns = now;
  for (uint32_t i = 0; i < FG_LIVE_MAX; i++)
    if (l->e[i].ref && (*jni)->IsSameObject(jni, l->e[i].ref, NULL)) {
      drop(l, jni, i);
      l->collected++;
    }
}

void fg_live_objects_add(struct fg_live_objects *l, JNIEnv *jni, jobject object, const struct fg_trace *trace,
                         struct fg_thread *t, uint64_t serial, int tid, uint64_t weight, uint64_t events)
{
  jweak ref = (*jni)->NewWeakGlobalRef(jni, object);
  if (!ref && (*jni)->ExceptionCheck(jni))
    (*jni)->ExceptionClear(jni);   /* the JVM's OutOfMemoryError is ours, not the allocating code's to meet */
  pthread_mutex_lock(&l->lock);
  if (l->e && l->first_free == FG_LIVE_MAX)
    sweep(l, jni);
  if (!l->e || !ref || l->first_free == FG_LIVE_MAX) {
    l->untracked += l->e != NULL;
    pthread_mutex_unlock(&l->lock);
    if (ref)
      (*jni)->DeleteWeakGlobalRef(jni, ref);
    return;
  }
  uint32_t i = l->first_free;
  l->first_free = l->e[i].next_free;
  l->e[i] = (struct fg_live_entry){.ref = ref, .trace = trace, .thread = t, .serial = serial, .tid = tid,
                                   .next_free = FG_LIVE_MAX, .weight = weight, .events = events};
  l->used++;
  l->tracked++;
  pthread_mutex_unlock(&l->lock);
}

void fg_live_objects_refused(struct fg_live_objects *l, int no_class)
{
  pthread_mutex_lock(&l->lock);
  if (l->e) {
    l->no_class += no_class != 0;
    l->no_stack += no_class == 0;
  }
  pthread_mutex_unlock(&l->lock);
}

struct fg_live_counts fg_live_objects_each(struct fg_live_objects *l, JNIEnv *jni,
                                           void (*each)(void *ctx, const struct fg_live_entry *e), void *ctx)
{
  struct fg_live_counts c = {0};
  pthread_mutex_lock(&l->lock);
  uint32_t n = 0;
  /* the alive ones copied out, so that the callbacks' allocations do not wait while they are named */
  struct fg_live_entry *alive = l->e && l->used ? malloc((size_t)l->used * sizeof *alive) : NULL;
  for (uint32_t i = 0; l->e && i < FG_LIVE_MAX; i++) {
    if (!l->e[i].ref)
      continue;
    if ((*jni)->IsSameObject(jni, l->e[i].ref, NULL)) {
      drop(l, jni, i);
      l->collected++;
    } else if (alive) {
      alive[n++] = l->e[i];
    } else {
      c.unreported++;
      c.unreported_weight += l->e[i].weight;
    }
  }
  c.tracked = l->tracked;
  c.collected = l->collected;
  c.untracked = l->untracked;
  c.no_class = l->no_class;
  c.no_stack = l->no_stack;
  pthread_mutex_unlock(&l->lock);
  for (uint32_t i = 0; i < n; i++)
    each(ctx, &alive[i]);
  free(alive);
  return c;
}

void fg_live_objects_stop(struct fg_live_objects *l, JNIEnv *jni)
{
  pthread_mutex_lock(&l->lock);
  for (uint32_t i = 0; l->e && jni && i < FG_LIVE_MAX; i++)   /* no jni: the JVM goes, and its references */
    if (l->e[i].ref)
      (*jni)->DeleteWeakGlobalRef(jni, l->e[i].ref);
  free(l->e);
  l->e = NULL;
  l->used = 0;
  pthread_mutex_unlock(&l->lock);
}
