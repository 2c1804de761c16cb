/* Allocation and lock events on their way to the profile; see event_log.h. */
#include "java_events/event_log.h"

#include <stdlib.h>
#include <string.h>

#include "fg/class_name.h"
#include "fg/grow_array.h"
#include "fg/utf8.h"

int fg_event_log_init(struct fg_event_log *l)
{
  memset(l, 0, sizeof *l);
  fg_profile_init(&l->classes);
  int failed = pthread_mutex_init(&l->classes_lock, NULL) != 0;
  for (int i = 0; i < FG_EVENT_LOG_SHARDS; i++)
    failed |= pthread_mutex_init(&l->shards[i].lock, NULL) != 0;
  return failed ? -1 : 0;
}

void fg_event_log_destroy(struct fg_event_log *l)
{
  for (int i = 0; i < FG_EVENT_LOG_SHARDS; i++) {
    free(l->shards[i].records);
    pthread_mutex_destroy(&l->shards[i].lock);
  }
  fg_profile_free(&l->classes);
  pthread_mutex_destroy(&l->classes_lock);
}

static struct fg_event_shard *shard_of(struct fg_event_log *l, uint64_t key)
{
  return &l->shards[key % FG_EVENT_LOG_SHARDS];
}

void fg_event_log_reset(struct fg_event_log *l)
{
  for (int i = 0; i < FG_EVENT_LOG_SHARDS; i++) {
    struct fg_event_shard *s = &l->shards[i];
    pthread_mutex_lock(&s->lock);
    s->n = 0;
    memset(s->counts, 0, sizeof s->counts);
    pthread_mutex_unlock(&s->lock);
  }
  atomic_store(&l->below, 0);
}

int64_t fg_event_log_class(struct fg_event_log *l, const char *sig)
{
  char name[512];
  if (fg_class_frame_name(sig, name, sizeof name) != 0)
    return -1;
  pthread_mutex_lock(&l->classes_lock);
  int64_t id = fg_profile_intern(&l->classes, name, FG_KIND_CLASS);
  pthread_mutex_unlock(&l->classes_lock);
  return id;
}

/* FNV-1a, the length folded in: two signatures meeting in one thread's
 * four ways by chance is a 2^-64 event. */
static uint64_t sig_hash(const char *sig)
{
  uint64_t h = 0xcbf29ce484222325ull;
  size_t n = 0;
  for (; sig[n]; n++)
    h = (h ^ (uint8_t)sig[n]) * 0x100000001b3ull;
  return h ^ ((uint64_t)n << 48) ^ 1;   /* never 0, an empty way's */
}

int64_t fg_event_log_class_cached(struct fg_event_log *l, struct fg_class_cache *c, const char *sig)
{
  if (!c)
    return fg_event_log_class(l, sig);
  uint64_t h = sig_hash(sig);
  for (int i = 0; i < FG_CLASS_CACHE_WAYS; i++)
    if (c->hash[i] == h)
      return c->id[i];
  int64_t id = fg_event_log_class(l, sig);
  if (id >= 0) {
    uint32_t way = c->next++ % FG_CLASS_CACHE_WAYS;
    c->hash[way] = h;
    c->id[way] = id;
  }
  return id;
}

void fg_event_log_class_name(struct fg_event_log *l, uint32_t id, char *out, size_t len)
{
  pthread_mutex_lock(&l->classes_lock);
  fg_utf8_copy(out, len, id < l->classes.nnames ? l->classes.names[id] : "[unknown class]");
  pthread_mutex_unlock(&l->classes_lock);
}

void fg_event_log_add(struct fg_event_log *l, uint64_t key, const struct fg_event_record *r)
{
  struct fg_event_shard *s = shard_of(l, key);
  pthread_mutex_lock(&s->lock);
  struct fg_event_stats *c = &s->counts[r->event];
  c->taken++;
  if (!r->trace || s->n >= FG_EVENT_LOG_MAX ||
      fg_grow_array((void **)&s->records, &s->cap, sizeof *s->records, s->n + 1) != 0)
    c->no_memory++;
  else
    s->records[s->n++] = *r;
  pthread_mutex_unlock(&s->lock);
}

void fg_event_log_lost(struct fg_event_log *l, uint64_t key, enum fg_stack_event e)
{
  struct fg_event_shard *s = shard_of(l, key);
  pthread_mutex_lock(&s->lock);
  s->counts[e].taken++;
  s->counts[e].no_memory++;
  pthread_mutex_unlock(&s->lock);
}

void fg_event_log_difference(struct fg_event_log *l, uint64_t key, enum fg_stack_event e, const char *why)
{
  struct fg_event_shard *s = shard_of(l, key);
  pthread_mutex_lock(&s->lock);
  if (!s->counts[e].difference[0])
    fg_utf8_copy(s->counts[e].difference, sizeof s->counts[e].difference, why);
  pthread_mutex_unlock(&s->lock);
}

void fg_event_log_take(struct fg_event_log *l, struct fg_event_record **out, uint32_t *n,
                       struct fg_event_stats counts[FG_STACK_EVENTS])
{
  struct fg_event_record *taken[FG_EVENT_LOG_SHARDS];
  uint32_t sizes[FG_EVENT_LOG_SHARDS], total = 0, holding = 0;
  memset(counts, 0, FG_STACK_EVENTS * sizeof *counts);
  for (int i = 0; i < FG_EVENT_LOG_SHARDS; i++) {
    struct fg_event_shard *s = &l->shards[i];
    pthread_mutex_lock(&s->lock);
    taken[i] = s->records;
    sizes[i] = s->n;
    s->records = NULL;
    s->n = s->cap = 0;
    for (int e = 0; e < FG_STACK_EVENTS; e++)
      fg_event_stats_add_counts(&counts[e], &s->counts[e]);
    memset(s->counts, 0, sizeof s->counts);
    pthread_mutex_unlock(&s->lock);
    total += sizes[i];
    holding += sizes[i] > 0;
  }
  counts[FG_STACK_LOCK].below = atomic_exchange(&l->below, 0);
  *out = NULL;
  *n = 0;
  if (holding <= 1) {   /* one shard's records as they are */
    for (int i = 0; i < FG_EVENT_LOG_SHARDS; i++) {
      if (sizes[i] > 0) {
        *out = taken[i];
        *n = sizes[i];
      } else {
        free(taken[i]);
      }
    }
    return;
  }
  struct fg_event_record *all = malloc((size_t)total * sizeof *all);
  for (int i = 0; i < FG_EVENT_LOG_SHARDS; i++) {
    if (all && sizes[i] > 0) {
      memcpy(all + *n, taken[i], (size_t)sizes[i] * sizeof *all);
      *n += sizes[i];
    } else if (!all) {   /* the heap refused the merge: the records are lost, and counted */
      for (int e = 0; e < FG_STACK_EVENTS; e++)
        for (uint32_t k = 0; k < sizes[i]; k++)
          counts[e].no_memory += taken[i][k].event == e;
    }
    free(taken[i]);
  }
  *out = all;
}
