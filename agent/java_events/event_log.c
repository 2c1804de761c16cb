/* Allocation and lock events on their way to the profile; see event_log.h. */
#include "java_events/event_log.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fg/class_name.h"
#include "fg/grow_array.h"
#include "fg/utf8.h"

int fg_event_log_init(struct fg_event_log *l)
{
  memset(l, 0, sizeof *l);
  l->wake_fd = -1;
  l->other_class = -1;
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
    free(l->shards[i].index);
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
    memset(s->of, 0, sizeof s->of);
    s->indexed = 0;
    memset(s->counts, 0, sizeof s->counts);
    pthread_mutex_unlock(&s->lock);
  }
  atomic_store(&l->below, 0);
}

void fg_event_log_wake_with(struct fg_event_log *l, int fd, _Atomic int *pending)
{
  l->wake_pending = pending;
  l->wake_fd = fd;
}

/* A hidden class's frame name without the suffix the JVM gives each
 * definition: JVMTI writes a hidden class's signature as "L" N "." suffix
 * ";" (the suffix "0x" and the hex address of its Klass; a plain class
 * name holds no '.', being in internal form), and JDK 17 to 20 name a
 * lambda's class N$$Lambda$<serial>, the serial counting every lambda
 * class spun. "Foo$$Lambda$14.0x0000000801234c00[]" becomes
 * "Foo$$Lambda[]". */
static void drop_hidden_suffix(char *name)
{
  char *dot = strstr(name, ".0x");
  if (!dot)
    return;
  char *end = dot + 3;
  while ((*end >= '0' && *end <= '9') || (*end >= 'a' && *end <= 'f') || (*end >= 'A' && *end <= 'F'))
    end++;
  if (end == dot + 3 || (*end && *end != '['))
    return;
  memmove(dot, end, strlen(end) + 1);
  char *lambda = NULL;
  for (char *at = strstr(name, "$$Lambda$"); at && at < dot; at = strstr(at + 1, "$$Lambda$"))
    lambda = at;
  if (!lambda)
    return;
  char *digits = lambda + strlen("$$Lambda$"), *after = digits;
  while (*after >= '0' && *after <= '9')
    after++;
  if (after > digits && after == dot)
    memmove(digits - 1, after, strlen(after) + 1);
}

/* fg_event_log_class, *other set when the id is "[other class]"'s. */
static int64_t class_id(struct fg_event_log *l, const char *sig, int *other)
{
  char name[512];
  *other = 0;
  if (fg_class_frame_name(sig, name, sizeof name) != 0)
    return -1;
  drop_hidden_suffix(name);
  pthread_mutex_lock(&l->classes_lock);
  int64_t id = fg_profile_find(&l->classes, name, FG_KIND_CLASS);
  if (id < 0 && l->classes.nnames < FG_EVENT_CLASSES_MAX) {
    id = fg_profile_intern(&l->classes, name, FG_KIND_CLASS);
  } else if (id < 0) {   /* full: one name for every class past it */
    if (l->other_class < 0)
      l->other_class = fg_profile_intern(&l->classes, "[other class]", FG_KIND_CLASS);
    id = l->other_class;
    *other = 1;
    atomic_fetch_add_explicit(&l->named_other, 1, memory_order_relaxed);
  }
  pthread_mutex_unlock(&l->classes_lock);
  return id;
}

int64_t fg_event_log_class(struct fg_event_log *l, const char *sig)
{
  int other;
  return class_id(l, sig, &other);
}

uint32_t fg_event_log_classes(struct fg_event_log *l)
{
  pthread_mutex_lock(&l->classes_lock);
  uint32_t n = l->classes.nnames;
  pthread_mutex_unlock(&l->classes_lock);
  return n;
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
  int other;
  if (!c)
    return class_id(l, sig, &other);
  uint64_t h = sig_hash(sig);
  for (int i = 0; i < FG_CLASS_CACHE_WAYS; i++)
    if (c->hash[i] == h)
      return c->id[i];
  int64_t id = class_id(l, sig, &other);
  if (id >= 0 && !other) {   /* one named [other class] is looked up again: counted each time */
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

/* A record's place in the index: its thread, stack and kind. */
static uint32_t record_hash(const struct fg_event_record *r)
{
  uint64_t h = (uint64_t)(uintptr_t)r->trace * 0x9e3779b97f4a7c15ull;
  h ^= (r->serial + (uint64_t)(uint32_t)r->tid * 0x100000001b3ull) * 0xc2b2ae3d27d4eb4full;
  h ^= (uint64_t)r->event << 1 ^ (uint64_t)r->park << 3 ^ (uint64_t)r->walk << 5;
  return (uint32_t)(h ^ h >> 29 ^ h >> 47);
}

static int same_record(const struct fg_event_record *a, const struct fg_event_record *b)
{
  return a->trace == b->trace && a->thread == b->thread && a->serial == b->serial && a->tid == b->tid &&
         a->event == b->event && a->park == b->park && a->walk == b->walk;
}

/* The index's slot of r: the one holding a record like it, or the empty
 * one where it goes (the index is at most half full: never none). */
static uint32_t *slot_of(struct fg_event_shard *s, const struct fg_event_record *r)
{
  const uint32_t mask = FG_EVENT_LOG_INDEX - 1;
  uint32_t i = record_hash(r) & mask;
  while (s->index[i] && !same_record(&s->records[s->index[i] - 1], r))
    i = (i + 1) & mask;
  return &s->index[i];
}

/* The index of s's records, built the first time in a pass that half an
 * event's share is spent; 0, or -1 when the heap refused it. */
static int build_index(struct fg_event_shard *s)
{
  if (s->indexed)
    return 0;
  if (!s->index && !(s->index = malloc(FG_EVENT_LOG_INDEX * sizeof *s->index)))
    return -1;
  memset(s->index, 0, FG_EVENT_LOG_INDEX * sizeof *s->index);
  for (uint32_t k = 0; k < s->n; k++) {
    uint32_t *at = slot_of(s, &s->records[k]);
    if (!*at)
      *at = k + 1;
  }
  s->indexed = 1;
  return 0;
}

static uint32_t share_of(enum fg_stack_event e)
{
  return e == FG_STACK_LOCK ? FG_EVENT_LOG_LOCK_MAX : FG_EVENT_LOG_ALLOC_MAX;
}

static void wake_drainer(struct fg_event_log *l)
{
  if (l->wake_fd < 0 || !l->wake_pending || atomic_load_explicit(l->wake_pending, memory_order_relaxed) ||
      atomic_exchange_explicit(l->wake_pending, 1, memory_order_relaxed))
    return;
  uint64_t one = 1;
  ssize_t rc = write(l->wake_fd, &one, sizeof one);
  (void)rc;
}

void fg_event_log_add(struct fg_event_log *l, uint64_t key, const struct fg_event_record *r)
{
  struct fg_event_shard *s = shard_of(l, key);
  int wake = 0;
  pthread_mutex_lock(&s->lock);
  struct fg_event_stats *c = &s->counts[r->event];
  c->taken++;
  uint32_t share = share_of(r->event), *at = NULL;
  if (r->trace && s->of[r->event] >= share / 2 && build_index(s) == 0) {
    at = slot_of(s, r);   /* half its share spent: the rest kept for stacks the pass has no record of */
    if (*at && s->records[*at - 1].merged < UINT32_MAX) {   /* a full count takes a record of its own */
      struct fg_event_record *into = &s->records[*at - 1];
      into->weight += r->weight;
      into->events += r->events;
      into->merged++;
      pthread_mutex_unlock(&s->lock);
      wake_drainer(l);
      return;
    }
  }
  if (!r->trace || (s->of[r->event] < share &&
                    fg_grow_array((void **)&s->records, &s->cap, sizeof *s->records, s->n + 1) != 0)) {
    c->no_memory++;   /* its new stack refused, or the heap refused the record */
    c->lost_weight += r->weight;
  } else if (s->of[r->event] < share) {
    s->records[s->n] = *r;
    s->records[s->n].merged = 0;
    if (s->indexed && !*(at = slot_of(s, r)))
      *at = s->n + 1;
    s->n++;
    wake = ++s->of[r->event] >= share / 2;
  } else {   /* its share spent, and no record like it */
    c->log_full++;
    c->lost_weight += r->weight;
    wake = 1;
  }
  pthread_mutex_unlock(&s->lock);
  if (wake)
    wake_drainer(l);
}

void fg_event_log_lost(struct fg_event_log *l, uint64_t key, enum fg_stack_event e, uint64_t weight, uint64_t events)
{
  (void)events;
  struct fg_event_shard *s = shard_of(l, key);
  pthread_mutex_lock(&s->lock);
  s->counts[e].taken++;
  s->counts[e].no_class++;
  s->counts[e].lost_weight += weight;
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
    memset(s->of, 0, sizeof s->of);
    s->indexed = 0;
    for (int e = 0; e < FG_STACK_EVENTS; e++)
      fg_event_stats_add_counts(&counts[e], &s->counts[e]);
    memset(s->counts, 0, sizeof s->counts);
    pthread_mutex_unlock(&s->lock);
    total += sizes[i];
    holding += sizes[i] > 0;
  }
  counts[FG_STACK_LOCK].below = atomic_exchange(&l->below, 0);
  counts[FG_STACK_ALLOC].other_class = atomic_exchange(&l->named_other, 0);
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
      for (uint32_t k = 0; k < sizes[i]; k++) {
        struct fg_event_stats *c = &counts[taken[i][k].event];
        c->no_memory += 1 + (uint64_t)taken[i][k].merged;
        c->lost_weight += taken[i][k].weight;
      }
    }
    free(taken[i]);
  }
  *out = all;
}
