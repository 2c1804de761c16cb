/* The code map; see code_map.h. */
#include "hotspot/code_map.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int fg_code_map_init(struct fg_code_map *m)
{
  memset(m, 0, sizeof *m);
  atomic_store(&m->lo, UINTPTR_MAX);
  m->wants.wake_fd = -1;
  m->wants.stubs = &m->stubs;
  m->wants.nm_compile_id = -1;
  m->wants.generation = &m->generation;
  return pthread_mutex_init(&m->lock, NULL) == 0 ? 0 : -1;
}

static void free_list(struct fg_code_list *l)
{
  for (int i = 0; i < FG_CODE_CHUNKS; i++)
    free(l->chunks[i]);
  free(l->granule);
  memset(l, 0, sizeof *l);
}

void fg_code_map_free(struct fg_code_map *m)
{
  free_list(&m->stubs);
  free_list(&m->methods);
}

static struct fg_code_blob *entry(const struct fg_code_list *l, uint32_t i)
{
  return &l->chunks[i / FG_CODE_CHUNK][i % FG_CODE_CHUNK];
}

/* Puts entry i into the granules it starts in and runs into. Under the lock. */
static void index_entry(struct fg_code_list *l, uint32_t i)
{
  uint32_t n = atomic_load_explicit(&l->granules, memory_order_relaxed);
  struct fg_code_blob *b = entry(l, i);
  if (!n || b->start < l->index_lo || b->end <= b->start)
    return;
  uintptr_t first = (b->start - l->index_lo) >> FG_CODE_GRANULE_SHIFT;
  uintptr_t last = (b->end - 1 - l->index_lo) >> FG_CODE_GRANULE_SHIFT;
  if (last >= n)
    return;
  if (last - first > l->widest)
    l->widest = (uint32_t)(last - first);
  b->prev = atomic_load_explicit(&l->granule[first].starts, memory_order_relaxed);
  atomic_store_explicit(&l->granule[first].starts, i + 1, memory_order_release);
  for (uintptr_t g = first + 1; g <= last; g++)
    atomic_store_explicit(&l->granule[g].covers, i + 1, memory_order_release);
}

static void index_list(struct fg_code_list *l, uintptr_t lo, uintptr_t hi)
{
  size_t n = ((hi - lo) >> FG_CODE_GRANULE_SHIFT) + 1;
  if (l->granule || n > UINT32_MAX)
    return;
  l->granule = calloc(n, sizeof *l->granule);
  if (!l->granule)
    return;   /* lookups stay linear */
  l->index_lo = lo;
  atomic_store_explicit(&l->granules, (uint32_t)n, memory_order_release);
  uint32_t count = atomic_load(&l->count);
  for (uint32_t i = 0; i < count; i++)
    index_entry(l, i);
}

void fg_code_map_set_bounds(struct fg_code_map *m, uintptr_t lo, uintptr_t hi)
{
  pthread_mutex_lock(&m->lock);
  atomic_store(&m->lo, lo);
  atomic_store(&m->hi, hi);
  atomic_store(&m->bounds_fixed, 1);
  if (hi > lo) {
    index_list(&m->stubs, lo, hi);
    index_list(&m->methods, lo, hi);
  }
  pthread_mutex_unlock(&m->lock);
}

/* Whether a live entry of l holds a pc of [start, end): any entry when
 * stubs, else a method not unloaded. It starts in one of the granules from
 * `widest` before start's up to end's. 1 when l is not indexed yet (no
 * telling). Under the lock. */
static int holds_live(const struct fg_code_list *l, uintptr_t start, uintptr_t end, int stubs)
{
  uint32_t n = atomic_load_explicit(&l->granules, memory_order_relaxed);
  if (!n)
    return atomic_load_explicit(&l->count, memory_order_relaxed) > 0;
  if (end <= l->index_lo)
    return 0;
  uintptr_t first = start > l->index_lo ? (start - l->index_lo) >> FG_CODE_GRANULE_SHIFT : 0;
  uintptr_t last = (end - 1 - l->index_lo) >> FG_CODE_GRANULE_SHIFT;
  uintptr_t from = first > l->widest ? first - l->widest : 0;
  for (uintptr_t g = from; g <= last && g < n; g++) {
    for (uint32_t e = atomic_load_explicit(&l->granule[g].starts, memory_order_relaxed); e; e = entry(l, e - 1)->prev) {
      const struct fg_code_blob *b = entry(l, e - 1);
      if (b->start < end && b->end > start && (stubs || atomic_load_explicit(&b->method, memory_order_relaxed)))
        return 1;
    }
  }
  return 0;
}

/* Adds a blob, under the lock; -1 when the map is full (the caller still owns scopes then). */
static int append(struct fg_code_map *m, struct fg_code_list *l, const char *name,
                  jmethodID method, uintptr_t start, uintptr_t end, const struct fg_pc_scopes *scopes,
                  const struct fg_deopt_sites *deopt, const struct fg_code_origin *origin)
{
  /* before it is added: whether it shadows what a kept answer may name */
  int shadows = holds_live(&m->methods, start, end, 0) || holds_live(&m->stubs, start, end, 1);
  uint32_t n = atomic_load_explicit(&l->count, memory_order_relaxed);
  uint32_t chunk = n / FG_CODE_CHUNK;
  if (chunk >= FG_CODE_CHUNKS) {
    m->dropped++;
    return -1;
  }
  if (!l->chunks[chunk] && !(l->chunks[chunk] = calloc(FG_CODE_CHUNK, sizeof *l->chunks[chunk]))) {
    m->dropped++;
    return -1;
  }
  struct fg_code_blob *b = &l->chunks[chunk][n % FG_CODE_CHUNK];
  b->start = start;
  b->end = end;
  snprintf(b->name, sizeof b->name, "%s", name ? name : "");
  b->scopes = scopes;
  b->prev = 0;
  atomic_store_explicit(&b->stale, 0, memory_order_relaxed);
  /* the code is read once, here, not in the signal handler */
  const uint8_t *code = (const uint8_t *)start;
  size_t len = end - start;
  fg_frame_layout_of(code, len < 128 ? len : 128, &b->layout);
  if (origin && !b->layout.frame_bytes && !b->layout.rbp_based && origin->frame_bytes) {
    memset(&b->layout, 0, sizeof b->layout);   /* built before any pc it runs at: no prologue to stop in */
    b->layout.frame_bytes = origin->frame_bytes;
  }
  b->enter = method ? -1 : (int16_t)fg_stub_enter_at(code, len);
  if (b->enter < 0 || fg_realigned_frame_of(code, len, (size_t)b->enter, &b->realigned) != 0)
    memset(&b->realigned, 0, sizeof b->realigned);
  b->i2c_end = !method && name && strncmp(name, "I2C/C2I adapters", 16) == 0 ? (uint16_t)fg_i2c_end(code, len) : 0;
  size_t tail = b->i2c_end ? fg_c2i_tail(code, len, b->i2c_end) : 0;
  b->c2i_tail = tail <= UINT16_MAX ? (uint16_t)tail : 0;
  /* push -1 (imm8 or imm32), then push rbp; mov rbp, rsp */
  b->cookie = !method && name && strstr(name, "entry_barrier") && len > 6 && (code[0] == 0x6a || code[0] == 0x68) &&
                      code[code[0] == 0x6a ? 2 : 5] == 0x55
                  ? (uint8_t)(code[0] == 0x6a ? 2 : 5)
                  : 0;
  b->deopt = deopt ? *deopt : (struct fg_deopt_sites){.orig_pc = -1};
  b->nm = origin ? origin->nm : 0;
  b->compile_id = origin ? origin->compile_id : 0;
  atomic_store_explicit(&b->method, method, memory_order_relaxed);
  if (!atomic_load(&m->bounds_fixed)) {
    if (start < atomic_load(&m->lo))
      atomic_store(&m->lo, start);
    if (end > atomic_load(&m->hi))
      atomic_store(&m->hi, end);
  }
  atomic_store_explicit(&l->count, n + 1, memory_order_release);
  index_entry(l, n);
  if (shadows)
    atomic_fetch_add_explicit(&m->generation, 1, memory_order_release);
  return 0;
}

void fg_code_map_add_stub(struct fg_code_map *m, const char *name, const void *addr, int32_t len)
{
  if (!addr || len <= 0)
    return;
  pthread_mutex_lock(&m->lock);
  append(m, &m->stubs, name, NULL, (uintptr_t)addr, (uintptr_t)addr + (uint32_t)len, NULL, NULL, NULL);
  pthread_mutex_unlock(&m->lock);
}

void fg_code_map_add_method(struct fg_code_map *m, jmethodID method, const void *addr, int32_t len,
                            const void *compile_info, const struct fg_deopt_sites *deopt,
                            const struct fg_code_origin *origin)
{
  if (!addr || len <= 0 || !method)
    return;
  struct fg_pc_scopes *scopes = fg_pc_scopes_build(compile_info, (uintptr_t)addr, (size_t)len);
  pthread_mutex_lock(&m->lock);
  int added = append(m, &m->methods, NULL, method, (uintptr_t)addr, (uintptr_t)addr + (uint32_t)len, scopes, deopt,
                     origin);
  pthread_mutex_unlock(&m->lock);
  if (added != 0)
    free(scopes);   /* the map is full: nobody will read them */
}

void fg_code_map_remove_method(struct fg_code_map *m, jmethodID method, const void *addr)
{
  pthread_mutex_lock(&m->lock);
  struct fg_code_blob *b = (struct fg_code_blob *)fg_code_map_find(&m->methods, (uintptr_t)addr);
  if (b && b->start == (uintptr_t)addr && atomic_load(&b->method) == method) {
    atomic_store(&b->method, NULL);
    atomic_fetch_add_explicit(&m->generation, 1, memory_order_release);
  }
  pthread_mutex_unlock(&m->lock);
}

static const struct fg_code_blob *find_linear(const struct fg_code_list *l, uintptr_t pc)
{
  uint32_t n = atomic_load_explicit(&l->count, memory_order_acquire);
  for (uint32_t i = n; i-- > 0;) {
    const struct fg_code_blob *b = entry(l, i);
    if (pc >= b->start && pc < b->end)
      return b;
  }
  return NULL;
}

/* Live entries never overlap, so the entry holding pc started in pc's
 * granule or is the one running into it; a dead entry whose memory was
 * reused is older than the entry now there. Newest first along a chain. */
const struct fg_code_blob *fg_code_map_find(const struct fg_code_list *l, uintptr_t pc)
{
  const struct fg_code_blob *b = fg_code_map_lookup(l, pc);
  struct fg_code_wants *w = atomic_load_explicit(&l->wants, memory_order_relaxed);
  if (!w)
    return b;
  if (b && atomic_load_explicit(&b->method, memory_order_relaxed) && fg_code_blob_stale(w, b)) {
    /* answers kept about its pcs (pc_cache.h, walk_cache.h) are wrong now */
    if (!atomic_exchange_explicit(&((struct fg_code_blob *)(uintptr_t)b)->stale, 1, memory_order_relaxed) &&
        w->generation)
      atomic_fetch_add_explicit(w->generation, 1, memory_order_release);
    b = NULL;
  }
  if ((!b || !atomic_load_explicit(&b->method, memory_order_relaxed)) && pc >= l->index_lo &&
      ((pc - l->index_lo) >> FG_CODE_GRANULE_SHIFT) < atomic_load_explicit(&l->granules, memory_order_relaxed) &&
      !(w->stubs && fg_code_map_lookup(w->stubs, pc))) {
    _Atomic uintptr_t *slot = &w->pc[(pc >> 4) % FG_CODE_WANTS];
    if (atomic_load_explicit(slot, memory_order_relaxed) != pc) {   /* a line other threads read, written once */
      atomic_store_explicit(slot, pc, memory_order_relaxed);
      if (w->wake_fd >= 0 && w->wake_pending && !atomic_exchange_explicit(w->wake_pending, 1, memory_order_relaxed)) {
        uint64_t one = 1;
        ssize_t rc = write(w->wake_fd, &one, sizeof one);
        (void)rc;   /* a full counter still wakes it */
      }
    }
  }
  return b;
}

const struct fg_code_blob *fg_code_map_lookup(const struct fg_code_list *l, uintptr_t pc)
{
  uint32_t n = atomic_load_explicit(&l->granules, memory_order_acquire);
  if (!n)
    return find_linear(l, pc);
  if (pc < l->index_lo || ((pc - l->index_lo) >> FG_CODE_GRANULE_SHIFT) >= n)
    return NULL;
  uintptr_t g = (pc - l->index_lo) >> FG_CODE_GRANULE_SHIFT;
  uint32_t found = 0;
  const struct fg_code_granule *at = &l->granule[g];
  for (uint32_t e = atomic_load_explicit(&at->starts, memory_order_acquire); e; e = entry(l, e - 1)->prev) {
    const struct fg_code_blob *b = entry(l, e - 1);
    if (pc >= b->start && pc < b->end) {
      found = e;
      break;
    }
  }
  uint32_t c = atomic_load_explicit(&at->covers, memory_order_acquire);
  if (c > found && pc >= entry(l, c - 1)->start && pc < entry(l, c - 1)->end)
    found = c;
  return found ? entry(l, found - 1) : NULL;
}

uint32_t fg_code_map_sweep(struct fg_code_map *m, uint32_t *next, uint32_t n,
                           int (*gone)(void *ctx, const struct fg_code_blob *b), void *ctx)
{
  struct fg_code_list *l = &m->methods;
  uint32_t count = atomic_load_explicit(&l->count, memory_order_acquire), emptied = 0;
  if (!count)
    return 0;
  pthread_mutex_lock(&m->lock);
  for (uint32_t k = 0; k < n && k < count; k++) {
    if (*next >= count)
      *next = 0;
    struct fg_code_blob *b = entry(l, (*next)++);
    if (b->nm && atomic_load_explicit(&b->method, memory_order_relaxed) && gone(ctx, b)) {
      atomic_store(&b->method, NULL);
      emptied++;
    }
  }
  if (emptied)
    atomic_fetch_add_explicit(&m->generation, 1, memory_order_release);
  pthread_mutex_unlock(&m->lock);
  return emptied;
}
