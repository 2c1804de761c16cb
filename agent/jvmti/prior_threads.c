/* Java threads running before attach; see prior_threads.h. */
#include "jvmti/prior_threads.h"

#include <limits.h>
#include <stdlib.h>

int fg_prior_threads_init(struct fg_prior_threads *l, uint32_t n, pthread_key_t key, long env_offset)
{
  uint32_t cap = 16;
  while (cap < 2 * n)
    cap *= 2;
  l->slots = calloc(cap, sizeof *l->slots);
  l->capacity = l->slots ? cap : 0;
  l->key = key;
  l->env_offset = env_offset;
  l->ready = 0;
  return l->slots ? 0 : -1;
}

int fg_prior_threads_add(struct fg_prior_threads *l, JNIEnv *env, struct fg_thread *record)
{
  uint32_t mask = l->capacity - 1;
  for (uint32_t i = (uint32_t)((uintptr_t)env >> 4) & mask, n = 0; n < l->capacity; i = (i + 1) & mask, n++) {
    if (l->slots[i].record)
      continue;
    l->slots[i].record = record;
    atomic_store_explicit(&l->slots[i].env, env, memory_order_release);
    return 0;
  }
  return -1;
}

struct fg_thread *fg_prior_threads_remove(struct fg_prior_threads *l, JNIEnv *env)
{
  uint32_t mask = l->capacity - 1;
  for (uint32_t i = (uint32_t)((uintptr_t)env >> 4) & mask, n = 0; l->slots && n < l->capacity;
       i = (i + 1) & mask, n++) {
    if (atomic_load(&l->slots[i].env) == env) {
      atomic_store(&l->slots[i].env, NULL);   /* the record stays: the probe goes on past it */
      return l->slots[i].record;
    }
    if (!l->slots[i].record)
      return NULL;
  }
  return NULL;
}

int fg_prior_threads_find_key(void *vm_thread, pthread_key_t *key)
{
  for (pthread_key_t k = 0; k < PTHREAD_KEYS_MAX; k++)
    if (pthread_getspecific(k) == vm_thread) {
      *key = k;
      return 0;
    }
  return -1;
}
