/* The aggregated profile: interned frame names and a table of unique stacks. */
#include "fg/event_kinds.h"
#include "fg/profile.h"
#include "fg/huge_pages.h"
#include "fg/grow_array.h"
#include "fg/utf8.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

static uint64_t mix(uint64_t h, uint64_t v)
{
  h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
  h *= 0xff51afd7ed558ccdull;
  return h ^ (h >> 33);
}

/* The secret every hash of the indexes starts from, drawn once a process:
 * names and stacks come from files anyone may write (collapsed stacks,
 * OTLP, JFR), and with a hash known in advance a crafted file puts every
 * entry in one probe chain (30 000 stacks: 1.07 s against 0.09 s). The
 * indexes are only looked up, never walked: ids, and so every output's
 * order, do not depend on it. */
static uint64_t secret(void)
{
  static _Atomic uint64_t drawn;
  uint64_t s = atomic_load_explicit(&drawn, memory_order_relaxed);
  if (s)
    return s;
  if (getrandom(&s, sizeof s, GRND_NONBLOCK) != (ssize_t)sizeof s) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    s = mix((uint64_t)ts.tv_nsec, (uint64_t)(uintptr_t)&ts ^ (uint64_t)ts.tv_sec);
  }
  s |= 1;   /* never 0, the mark of not drawn */
  uint64_t none = 0;
  if (!atomic_compare_exchange_strong_explicit(&drawn, &none, s, memory_order_relaxed, memory_order_relaxed))
    s = none;   /* another thread drew first: one secret for every profile, so copies between them hold */
  return s;
}

/* A word at a time through mix, from the secret: no two texts collide but
 * by the secret. */
static uint64_t hash_bytes(const char *s, size_t len, uint64_t seed)
{
  uint64_t h = mix(secret(), seed);
  size_t i = 0;
  for (; i + 8 <= len; i += 8) {
    uint64_t w;
    memcpy(&w, s + i, sizeof w);
    h = mix(h, w);
  }
  uint64_t tail = 0;
  memcpy(&tail, s + i, len - i);
  return mix(mix(h, tail), len);
}

/* Index helpers: hash_of(id) gives an entry's stored hash. */
static int index_rebuild(struct fg_id_index *ix, uint32_t capacity, const void *entries,
                         uint64_t (*hash_of)(const void *, uint32_t), uint32_t count)
{
  uint32_t *slots = calloc(capacity, sizeof *slots);
  if (!slots)
    return -1;
  for (uint32_t id = 0; id < count; id++) {
    uint32_t i = (uint32_t)hash_of(entries, id) & (capacity - 1);
    while (slots[i])
      i = (i + 1) & (capacity - 1);
    slots[i] = id + 1;
  }
  free(ix->slots);
  ix->slots = slots;
  ix->capacity = capacity;
  ix->used = count;
  return 0;
}

static int index_reserve(struct fg_id_index *ix, const void *entries,
                         uint64_t (*hash_of)(const void *, uint32_t), uint32_t count)
{
  if ((uint64_t)(count + 1) * 2 <= ix->capacity)
    return 0;
  return index_rebuild(ix, ix->capacity ? ix->capacity * 2 : 256, entries, hash_of, count);
}

static uint64_t name_hash_of(const void *entries, uint32_t id)
{
  return ((const uint64_t *)entries)[id];
}

static uint64_t stack_hash_of(const void *entries, uint32_t id)
{
  return ((const struct fg_stack *)entries)[id].hash;
}

void fg_profile_init(struct fg_profile *p)
{
  memset(p, 0, sizeof *p);
}

void fg_profile_free(struct fg_profile *p)
{
  for (uint32_t i = 0; i < p->nnames; i++) {
    free(p->names[i]);
    free(p->files ? p->files[i] : NULL);
    free(p->descriptors ? p->descriptors[i] : NULL);
  }
  free(p->files);
  free(p->descriptors);
  for (uint32_t i = 0; i < p->nthreads; i++)
    free(p->threads[i].name);
  free(p->names);
  free(p->kinds);
  free(p->bcis);
  free(p->keyed);
  free(p->name_hashes);
  free(p->name_index.slots);
  free(p->threads);
  free(p->stacks);
  free(p->stack_index.slots);
  free(p->timeline.entries);
  free(p->marks.m);
  free(p->trail.e);
  free(p->frame_pool);
  memset(p, 0, sizeof *p);
}

int fg_timeline_reserve(struct fg_timeline *t, uint64_t n)
{
  uint64_t want = t->n + (n < t->max - t->n ? n : t->max - t->n);
  if (want <= t->cap)
    return 0;
  struct fg_timeline_entry *e = realloc(t->entries, (size_t)want * sizeof *e);
  if (!e)
    return -1;
  t->entries = e;
  t->cap = (uint32_t)want;
  fg_huge_pages_hint(e, (size_t)want * sizeof *e);
  return 0;
}

int fg_native_trail_add(struct fg_native_trail *t, const struct fg_native_trail_entry *e)
{
  if (e->freed_ns && t->n >= t->max) {
    t->dropped++;
    return 0;
  }
  if (fg_grow_array((void **)&t->e, &t->cap, sizeof *t->e, (size_t)t->n + 1) != 0)
    return -1;
  t->e[t->n++] = *e;
  return 0;
}

int fg_marks_add(struct fg_marks *m, enum fg_mark_kind kind, uint64_t time_ns, uint64_t duration_ns,
                 const char *label)
{
  if (m->n >= m->max) {
    m->dropped++;
    return 0;
  }
  if (m->n == m->cap) {
    uint32_t cap = m->cap ? m->cap * 2 : 256;
    if (cap > m->max)
      cap = m->max;
    struct fg_mark *g = realloc(m->m, (size_t)cap * sizeof *g);
    if (!g)
      return -1;
    m->m = g;
    m->cap = cap;
  }
  struct fg_mark *k = &m->m[m->n++];
  k->time_ns = time_ns;
  k->duration_ns = duration_ns;
  k->kind = (uint8_t)kind;
  fg_utf8_copy(k->label, sizeof k->label, label ? label : "");
  return 0;
}

const char *fg_mark_kind_name(enum fg_mark_kind kind)
{
  return kind == FG_MARK_GC_PAUSE ? "gc pause" : kind == FG_MARK_GC ? "gc" : "safepoint";
}

int64_t fg_profile_intern(struct fg_profile *p, const char *name, enum fg_frame_kind kind)
{
  return fg_profile_intern_n(p, name, strlen(name), kind);
}

/* Room in every per-name array for one name more. */
static int grow_names(struct fg_profile *p)
{
  uint32_t n = p->nnames + 1, cap = p->names_cap;
  if (fg_grow_array((void **)&p->names, &cap, sizeof *p->names, n) != 0)
    return -1;
#define GROW(a)                                                    \
  do {                                                             \
    cap = p->names_cap;                                            \
    if (fg_grow_array((void **)&p->a, &cap, sizeof *p->a, n) != 0) \
      return -1;                                                   \
  } while (0)
  GROW(kinds);
  GROW(bcis);
  GROW(name_hashes);
  GROW(files);
  GROW(descriptors);
  GROW(keyed);
#undef GROW
  p->names_cap = cap;
  return 0;
}

/* The id of name (len bytes) of kind at bci (-1: none) for the method of
 * descriptor (NULL: none), added if new. A name's hash leaves its descriptor
 * out, so that the names of one text, kind and bci share a probe sequence
 * and a new one finds its overloads on the way. */
static int64_t intern_key(struct fg_profile *p, const char *name, size_t len, enum fg_frame_kind kind, int32_t bci,
                          const char *descriptor)
{
  if (!fg_utf8_valid(name, len)) {   /* names are kept as strict UTF-8, so every output is */
    size_t clean_len;
    char *clean = fg_utf8_sanitize(name, len, &clean_len);
    if (!clean)
      return -1;
    int64_t id = intern_key(p, clean, clean_len, kind, bci, descriptor);
    free(clean);
    return id;
  }
  if (bci < 0)
    bci = -1;
  if (descriptor && !descriptor[0])
    descriptor = NULL;
  uint64_t h = hash_bytes(name, len, kind);
  if (bci >= 0)
    h = mix(h, (uint64_t)bci + 1);
  if (index_reserve(&p->name_index, p->name_hashes, name_hash_of, p->nnames) != 0)
    return -1;
  uint32_t mask = p->name_index.capacity - 1, i = (uint32_t)h & mask;
  int overload = 0;   /* the same text, kind and bci for a method of another descriptor */
  for (; p->name_index.slots[i]; i = (i + 1) & mask) {
    uint32_t id = p->name_index.slots[i] - 1;
    if (p->name_hashes[id] != h || p->kinds[id] != kind || p->bcis[id] != bci ||
        strncmp(p->names[id], name, len) != 0 || p->names[id][len] != '\0')
      continue;
    const char *d = p->keyed[id] ? p->descriptors[id] : NULL;
    if (d == descriptor || (d && descriptor && strcmp(d, descriptor) == 0))
      return id;
    overload = 1;
  }
  if (grow_names(p) != 0)
    return -1;
  char *copy = strndup(name, len), *desc = descriptor ? strdup(descriptor) : NULL;
  if (!copy || (descriptor && !desc)) {
    free(copy);
    free(desc);
    return -1;
  }
  uint32_t id = p->nnames++;
  p->names[id] = copy;
  p->files[id] = NULL;
  p->descriptors[id] = desc;
  p->keyed[id] = desc != NULL;
  p->kinds[id] = (uint8_t)kind;
  p->bcis[id] = bci;
  p->nvariants += bci >= 0 || overload;
  p->name_hashes[id] = h;
  p->name_index.slots[i] = id + 1;
  p->name_index.used++;
  return id;
}

int64_t fg_profile_find(const struct fg_profile *p, const char *name, enum fg_frame_kind kind)
{
  size_t len = strlen(name);
  if (!p->name_index.capacity || !fg_utf8_valid(name, len))   /* an invalid name is kept sanitized: not found */
    return -1;
  uint64_t h = hash_bytes(name, len, kind);
  uint32_t mask = p->name_index.capacity - 1;
  for (uint32_t i = (uint32_t)h & mask; p->name_index.slots[i]; i = (i + 1) & mask) {
    uint32_t id = p->name_index.slots[i] - 1;
    if (p->name_hashes[id] == h && p->kinds[id] == kind && p->bcis[id] == -1 && !p->keyed[id] &&
        strcmp(p->names[id], name) == 0)
      return id;
  }
  return -1;
}

int64_t fg_profile_intern_n(struct fg_profile *p, const char *name, size_t len, enum fg_frame_kind kind)
{
  return intern_key(p, name, len, kind, -1, NULL);
}

int64_t fg_profile_intern_at(struct fg_profile *p, const char *name, enum fg_frame_kind kind, int32_t bci)
{
  return intern_key(p, name, strlen(name), kind, bci, NULL);
}

int64_t fg_profile_intern_method(struct fg_profile *p, const char *name, enum fg_frame_kind kind, int32_t bci,
                                 const char *descriptor)
{
  return intern_key(p, name, strlen(name), kind, bci, descriptor);
}

const char *fg_profile_name(const struct fg_profile *p, uint32_t id)
{
  return id < p->nnames ? p->names[id] : "[bad_frame]";
}

int32_t fg_profile_bci(const struct fg_profile *p, uint32_t id)
{
  return id < p->nnames ? p->bcis[id] : -1;
}

const char *fg_profile_file(const struct fg_profile *p, uint32_t id)
{
  return id < p->nnames ? p->files[id] : NULL;
}

int fg_profile_set_file(struct fg_profile *p, uint32_t id, const char *file)
{
  if (id >= p->nnames)
    return -1;
  char *copy = fg_utf8_sanitize(file, strlen(file), NULL);
  if (!copy)
    return -1;
  free(p->files[id]);
  p->files[id] = copy;
  return 0;
}

const char *fg_profile_descriptor(const struct fg_profile *p, uint32_t id)
{
  return id < p->nnames && p->descriptors[id] && p->descriptors[id][0] ? p->descriptors[id] : NULL;
}

int fg_profile_note_descriptor(struct fg_profile *p, uint32_t id, const char *descriptor)
{
  if (id >= p->nnames || !descriptor)
    return id < p->nnames ? 0 : -1;
  char *d = p->descriptors[id];
  if (p->keyed[id] || (d && (!d[0] || strcmp(d, descriptor) == 0)))
    return 0;   /* its own (fg_profile_intern_method), known, or already two */
  char *copy = strdup(d ? "" : descriptor);   /* a second, other one (or ""): overloads under one name */
  if (!copy)
    return -1;
  free(d);
  p->descriptors[id] = copy;
  return 0;
}

const char *fg_kind_name(enum fg_frame_kind kind)
{
  static const char *const names[FG_KIND_COUNT] = {
    "java", "native", "marker", "thread", "interpreted", "compiled", "inlined", "kernel", "class",
  };
  return (unsigned)kind < FG_KIND_COUNT ? names[kind] : "marker";
}

enum fg_frame_kind fg_profile_kind(const struct fg_profile *p, uint32_t id)
{
  return id < p->nnames ? (enum fg_frame_kind)p->kinds[id] : FG_KIND_MARKER;
}

int64_t fg_profile_add_thread(struct fg_profile *p, int tid, const char *name)
{
  if (fg_grow_array((void **)&p->threads, &p->threads_cap, sizeof *p->threads, p->nthreads + 1) != 0)
    return -1;
  char *copy = fg_utf8_sanitize(name ? name : "", name ? strlen(name) : 0, NULL);
  if (!copy)
    return -1;
  p->threads[p->nthreads].tid = tid;
  p->threads[p->nthreads].java_id = 0;
  p->threads[p->nthreads].name = copy;
  return p->nthreads++;
}

int fg_profile_rename_thread(struct fg_profile *p, uint32_t thread, const char *name)
{
  if (thread >= p->nthreads)
    return -1;
  char *copy = fg_utf8_sanitize(name, strlen(name), NULL);
  if (!copy)
    return -1;
  free(p->threads[thread].name);
  p->threads[thread].name = copy;
  return 0;
}

static uint64_t hash_stack(enum fg_stack_event e, uint32_t thread, const uint32_t *frames, uint32_t n)
{
  uint64_t h = mix(secret() + e, thread);
  for (uint32_t i = 0; i < n; i++)
    h = mix(h, frames[i]);
  return mix(h, n);
}

/* Index of the stack, added with count 0 if new; -1 if out of memory. */
static int64_t stack_index(struct fg_profile *p, enum fg_stack_event e, uint32_t thread, const uint32_t *frames,
                           uint32_t n);

const char *fg_stack_event_name(enum fg_stack_event e)
{
  return fg_event_kind(e)->name;
}

const char *fg_stack_event_unit(enum fg_stack_event e)
{
  return fg_event_kind(e)->unit;
}

int fg_profile_add(struct fg_profile *p, uint32_t thread, const uint32_t *frames, uint32_t n,
                   uint64_t count)
{
  int64_t i = stack_index(p, FG_STACK_CPU, thread, frames, n);
  if (i < 0)
    return -1;
  p->stacks[i].count += count;
  return 0;
}

int fg_profile_add_timed(struct fg_profile *p, uint32_t thread, const uint32_t *frames, uint32_t n,
                         uint64_t count, uint64_t time_ns, uint32_t cpu)
{
  int64_t i = stack_index(p, FG_STACK_CPU, thread, frames, n);
  if (i < 0)
    return -1;
  fg_profile_count(p, (uint32_t)i, count, time_ns, cpu);
  return 0;
}

int64_t fg_profile_stack(struct fg_profile *p, uint32_t thread, const uint32_t *frames, uint32_t n)
{
  return stack_index(p, FG_STACK_CPU, thread, frames, n);
}

int64_t fg_profile_event_stack(struct fg_profile *p, enum fg_stack_event e, uint32_t thread, const uint32_t *frames,
                               uint32_t n)
{
  return stack_index(p, e, thread, frames, n);
}

int64_t fg_profile_add_like(struct fg_profile *p, const struct fg_stack *like, uint32_t thread, const uint32_t *frames,
                            uint32_t n)
{
  int64_t k = stack_index(p, (enum fg_stack_event)like->event, thread, frames, n);
  if (k >= 0) {
    p->stacks[k].count += like->count;
    p->stacks[k].events += like->events;
  }
  return k;
}

unsigned fg_profile_events(const struct fg_profile *p)
{
  unsigned bits = 0;
  for (uint32_t i = 0; i < p->nstacks; i++)
    bits |= 1u << p->stacks[i].event;
  return bits;
}

void fg_profile_count(struct fg_profile *p, uint32_t i, uint64_t count, uint64_t time_ns, uint32_t cpu)
{
  p->stacks[i].count += count;
  if (time_ns == 0)
    return;
  uint32_t thread = p->stacks[i].thread;
  struct fg_timeline *t = &p->timeline;
  if (t->n == t->max) {
    t->dropped += t->max > 0;
    return;
  }
  if (fg_grow_array((void **)&t->entries, &t->cap, sizeof *t->entries, t->n + 1) != 0) {
    t->dropped++;
    return;
  }
  const uint64_t most = (1ull << 48) - 1;
  t->entries[t->n++] = (struct fg_timeline_entry){.time_ns = time_ns, .weight = count > most ? most : count,
                                                  .cpu = cpu & 0xffff, .thread = thread, .stack = i};
}

static int64_t stack_index(struct fg_profile *p, enum fg_stack_event e, uint32_t thread, const uint32_t *frames,
                           uint32_t n)
{
  uint64_t h = hash_stack(e, thread, frames, n);
  if (index_reserve(&p->stack_index, p->stacks, stack_hash_of, p->nstacks) != 0)
    return -1;
  uint32_t mask = p->stack_index.capacity - 1, i = (uint32_t)h & mask;
  for (; p->stack_index.slots[i]; i = (i + 1) & mask) {
    struct fg_stack *s = &p->stacks[p->stack_index.slots[i] - 1];
    if (s->hash == h && s->thread == thread && s->event == e && s->nframes == n &&
        memcmp(fg_stack_frames(p, s), frames, n * sizeof *frames) == 0)
      return p->stack_index.slots[i] - 1;
  }
  if (fg_grow_array((void **)&p->stacks, &p->stacks_cap, sizeof *p->stacks, p->nstacks + 1) != 0)
    return -1;
  if (p->pool_len + n > p->pool_cap || !p->frame_pool) {   /* never arithmetic on NULL */
    size_t cap = p->pool_cap ? p->pool_cap : 1024;
    while (cap < p->pool_len + n)
      cap *= 2;
    uint32_t *pool = realloc(p->frame_pool, cap * sizeof *pool);
    if (!pool)
      return -1;
    p->frame_pool = pool;
    p->pool_cap = cap;
  }
  if (n)   /* frames may be NULL for an empty stack */
    memcpy(p->frame_pool + p->pool_len, frames, n * sizeof *frames);
  struct fg_stack *s = &p->stacks[p->nstacks];
  s->thread = thread;
  s->nframes = n;
  s->first = p->pool_len;
  s->count = 0;
  s->events = 0;
  s->event = (uint8_t)e;
  s->hash = h;
  p->pool_len += n;
  p->stack_index.slots[i] = ++p->nstacks;
  p->stack_index.used++;
  return p->nstacks - 1;
}

uint64_t fg_profile_total(const struct fg_profile *p)
{
  uint64_t n = 0;
  for (uint32_t i = 0; i < p->nstacks; i++)
    n += p->stacks[i].count;
  return n;
}

int fg_is_known_marker(const char *name)
{
  static const char *const others[] = {"[truncated]", "[unknown_method_id]", "[unloaded_method]",
                                       "[native_cut]"};
  for (size_t i = 0; i < sizeof others / sizeof others[0]; i++)
    if (strcmp(name, others[i]) == 0)
      return 1;
  for (int t = 0; t <= FG_TICK_COUNT; t++) {
    size_t len = strlen(fg_tick_name(t));
    if (name[0] == '[' && strncmp(name + 1, fg_tick_name(t), len) == 0 && name[len + 1] == ']' &&
        name[len + 2] == '\0')
      return 1;
  }
  return 0;
}

int fg_profile_tick_of(const struct fg_profile *p, uint32_t id)
{
  if (fg_profile_kind(p, id) != FG_KIND_MARKER)
    return -1;
  const char *name = fg_profile_name(p, id);
  for (int t = 0; t <= FG_TICK_COUNT; t++) {
    size_t len = strlen(fg_tick_name(t));
    if (name[0] == '[' && strncmp(name + 1, fg_tick_name(t), len) == 0 && name[len + 1] == ']' && !name[len + 2])
      return t;
  }
  return -1;
}

void fg_profile_account(struct fg_profile *p, const uint32_t *ids, uint32_t n, uint64_t count)
{
  struct fg_stats *s = &p->stats;
  s->taken += count;
  if (n == 0) {
    s->java += count;
    return;
  }
  const char *root = fg_profile_name(p, ids[0]);
  enum fg_frame_kind kind = fg_profile_kind(p, ids[0]);
  int tick = fg_profile_tick_of(p, ids[0]);
  if (tick >= 0) {
    s->failed[tick] += count;
    return;
  }
  if (kind == FG_KIND_THREAD) {
    s->no_jnienv += count;
    return;
  }
  if (strcmp(root, "[truncated]") == 0)
    s->truncated += count;
  s->java += count;
}
