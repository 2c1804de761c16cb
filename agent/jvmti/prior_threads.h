/* Java threads that were running before the agent was attached to the JVM
 * (Agent_OnAttach): they never get a ThreadStart event, so no thread of them
 * ever set its own __thread record pointer. At attach each gets a registry
 * record (its JNIEnv, tid and name read from the attaching thread), indexed
 * here by its JNIEnv; the thread's own signal handler finds its JNIEnv from
 * HotSpot's Thread pointer, which HotSpot keeps under a pthread key
 * (pthread_getspecific reads the calling thread's slot: no lock, no
 * allocation), looks it up, and from then on uses the __thread pointer like
 * any thread. The table is filled once, before any timer is armed, and read
 * only after; a thread that ends has its entry cleared. */
#ifndef FG_PRIOR_THREADS_H
#define FG_PRIOR_THREADS_H

#include <jni.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

struct fg_thread;

struct fg_prior_slot {
  _Atomic(JNIEnv *) env;        /* NULL: empty or cleared */
  struct fg_thread *record;
};

struct fg_prior_threads {
  struct fg_prior_slot *slots;
  uint32_t capacity;            /* a power of two, at least twice the threads */
  pthread_key_t key;            /* HotSpot's Thread* of the calling thread */
  long env_offset;              /* JNIEnv's place in a JavaThread */
  int ready;                    /* set before the first timer is armed */
};

/* Room for n threads; 0 or -1 when out of memory. */
int fg_prior_threads_init(struct fg_prior_threads *l, uint32_t n, pthread_key_t key, long env_offset);
/* Adds env's record; 0, or -1 when full. Before ready. */
int fg_prior_threads_add(struct fg_prior_threads *l, JNIEnv *env, struct fg_thread *record);
/* The record of env, taking it out of the table (a thread that ends); NULL when absent. */
struct fg_thread *fg_prior_threads_remove(struct fg_prior_threads *l, JNIEnv *env);

/* Signal handler side: the calling thread's record, or NULL. */
static inline struct fg_thread *fg_prior_threads_find(struct fg_prior_threads *l)
{
  if (!l->ready)
    return NULL;
  char *vm_thread = pthread_getspecific(l->key);
  if (!vm_thread)
    return NULL;
  JNIEnv *env = (JNIEnv *)(vm_thread + l->env_offset);   /* an address, not read */
  uint32_t mask = l->capacity - 1;
  for (uint32_t i = (uint32_t)((uintptr_t)env >> 4) & mask, n = 0; n < l->capacity; i = (i + 1) & mask, n++) {
    JNIEnv *e = atomic_load_explicit(&l->slots[i].env, memory_order_acquire);
    if (e == env)
      return l->slots[i].record;
    if (!e && !l->slots[i].record)
      return NULL;   /* never used: the end of the probe */
  }
  return NULL;
}

/* The pthread key under which HotSpot keeps each thread's Thread*, found by
 * the calling Java thread's own vm_thread; -1 when none holds it. */
int fg_prior_threads_find_key(void *vm_thread, pthread_key_t *key);

#endif
