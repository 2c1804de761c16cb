/* Each thread's perf counter as its handler reaches it; see perf_threads.h.
 * The handler's calls are async-signal-safe: atomics, memcpy, one ioctl. */
#include "sampling/perf/perf_threads.h"

#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

struct fg_perf_threads *fg_perf_threads_new(int rings)
{
  struct fg_perf_threads *k = calloc(1, sizeof *k);
  if (!k)
    return NULL;
  k->page_bytes = (size_t)sysconf(_SC_PAGESIZE);
  /* one record a signal, read at once: a page holds several deep ones */
  k->data_bytes = rings ? k->page_bytes : 0;
  k->callchain = rings;
  return k;
}

struct fg_perf_threads *fg_perf_threads_new_copies(size_t ring_bytes, int callchain, char *err, size_t errlen)
{
  struct fg_perf_threads *k = calloc(1, sizeof *k);
  if (!k) {
    snprintf(err, errlen, "no memory for the counters' table");
    return NULL;
  }
  k->page_bytes = (size_t)sysconf(_SC_PAGESIZE);
  k->data_bytes = callchain ? k->page_bytes : 0;   /* a thread signalled instead: its kernel frames' ring */
  k->callchain = callchain;
  if (fg_cpu_rings_open(&k->rings, ring_bytes, err, errlen) != 0) {
    free(k);
    return NULL;
  }
  return k;
}

void fg_perf_threads_free(struct fg_perf_threads *k)
{
  if (k) {
    fg_perf_threads_reclaim(k);
    fg_cpu_rings_close(&k->rings);   /* nothing when it has none */
  }
  free(k);
}

static uint32_t slot_of(int tid)
{
  return ((uint32_t)tid * 2654435761u) & (FG_PERF_THREAD_SLOTS - 1);
}

#define NEXT(i) (((i) + 1) & (FG_PERF_THREAD_SLOTS - 1))
#define PREV(i) (((i) + FG_PERF_THREAD_SLOTS - 1) & (FG_PERF_THREAD_SLOTS - 1))
#define REMOVED (-1)
#define RETIRED (-2)

/* The slot holding tid, or -1; *probes the slots read. Every tid sits
 * within FG_PERF_PROBE_MAX slots of its home, with no empty slot between
 * (put_entry), so the search ends at the first empty one or after that many. */
static int find_counting(const struct fg_perf_threads *k, int tid, int *probes)
{
  uint32_t i = slot_of(tid);
  for (*probes = 1; *probes <= FG_PERF_PROBE_MAX; ++*probes, i = NEXT(i)) {
    int at = atomic_load_explicit(&k->entry[i].tid, memory_order_acquire);
    if (at == tid)
      return (int)i;
    if (at == 0)
      return -1;
  }
  *probes = FG_PERF_PROBE_MAX;
  return -1;
}

static int find(const struct fg_perf_threads *k, int tid)
{
  int probes;
  return find_counting(k, tid, &probes);
}

int fg_perf_threads_probes(const struct fg_perf_threads *k, int tid)
{
  int probes;
  find_counting(k, tid, &probes);
  return probes;
}

int fg_perf_threads_removed(const struct fg_perf_threads *k)
{
  int n = 0;
  for (int i = 0; i < FG_PERF_THREAD_SLOTS; i++)
    n += atomic_load_explicit(&k->entry[i].tid, memory_order_relaxed) == REMOVED;
  return n;
}

/* tid's entry, in the first removed or empty slot within FG_PERF_PROBE_MAX
 * of its home: 0, or -1 when there is none. */
static int put_entry(struct fg_perf_threads *k, int tid, struct perf_event_mmap_page *page, int fd, int *cpu_fds)
{
  uint32_t i = slot_of(tid);
  for (uint32_t probes = 0; probes < FG_PERF_PROBE_MAX; probes++, i = NEXT(i)) {
    struct fg_perf_entry *e = &k->entry[i];
    int at = atomic_load_explicit(&e->tid, memory_order_relaxed);
    if (at == 0 || at == REMOVED) {
      atomic_store_explicit(&e->page, page, memory_order_relaxed);
      atomic_store_explicit(&e->fd, fd, memory_order_relaxed);
      atomic_store_explicit(&e->cpu_fds, cpu_fds, memory_order_relaxed);
      e->lost_counted = 0;
      e->home_tid = tid;
      atomic_store_explicit(&e->tid, tid, memory_order_release);   /* the rest before the key */
      return 0;
    }
  }
  return -1;
}

/* Whether some live or retired entry's probe chain passes through slot q:
 * one after q, before the next empty slot, whose home is at q or before. */
static int chain_through(const struct fg_perf_threads *k, uint32_t q)
{
  uint32_t p = NEXT(q);
  for (uint32_t d = 1; d < FG_PERF_PROBE_MAX; d++, p = NEXT(p)) {
    const struct fg_perf_entry *e = &k->entry[p];
    int at = atomic_load_explicit(&e->tid, memory_order_relaxed);
    if (at == 0)
      return 0;
    if (at != REMOVED && ((p - slot_of(e->home_tid)) & (FG_PERF_THREAD_SLOTS - 1)) >= d)
      return 1;   /* its home is d or more slots back: at q or before */
  }
  return 0;   /* farther entries sit within FG_PERF_PROBE_MAX of their homes, past q */
}

/* Slot i, just removed, and the removed slots before it whose only chain
 * went through it, made empty. Safe beside lookups: a lookup stops at an
 * empty slot, and no tid in the table has its chain through one made so; a
 * lookup that reads it as empty rather than removed ends where it would. */
static void empty_removed(struct fg_perf_threads *k, uint32_t i)
{
  for (uint32_t n = 0; n < FG_PERF_PROBE_MAX; n++, i = PREV(i)) {
    int at = atomic_load_explicit(&k->entry[i].tid, memory_order_relaxed);
    if (at == 0)
      return;   /* the chains before it end here */
    if (at == REMOVED && !chain_through(k, i))
      atomic_store_explicit(&k->entry[i].tid, 0, memory_order_release);
  }
}

void *fg_perf_threads_map(struct fg_perf_threads *k, int fd)
{
  void *page = mmap(NULL, k->page_bytes + k->data_bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (page != MAP_FAILED)
    return page;
  atomic_fetch_add(&k->no_slot, 1);   /* an entry for its fd all the same */
  return NULL;
}

int fg_perf_threads_put(struct fg_perf_threads *k, int tid, int fd, void *page)
{
  if (put_entry(k, tid, page, fd, NULL) == 0)
    return 0;
  if (!page)
    return -1;   /* counted already */
  munmap(page, k->page_bytes + k->data_bytes);
  atomic_fetch_add(&k->no_slot, 1);
  return -1;
}

void fg_perf_threads_unmap(struct fg_perf_threads *k, void *page)
{
  if (page)
    munmap(page, k->page_bytes + k->data_bytes);
}

int fg_perf_threads_attach(struct fg_perf_threads *k, int tid, int fd)
{
  return fg_perf_threads_put(k, tid, fd, fg_perf_threads_map(k, fd));
}

int fg_perf_threads_attach_cpus(struct fg_perf_threads *k, int tid, const int *fds)
{
  int *own = malloc((size_t)k->rings.ncpu * sizeof *own);
  if (!own)
    return -1;
  memcpy(own, fds, (size_t)k->rings.ncpu * sizeof *own);
  if (put_entry(k, tid, NULL, -1, own) == 0)
    return 0;
  free(own);
  atomic_fetch_add(&k->no_slot, 1);
  return -1;
}

/* The samples lost by each of the thread's counters, all told: Linux 6.0's
 * PERF_FORMAT_LOST, 0 before. */
static uint64_t lost_by(const struct fg_perf_threads *k, const int *fds)
{
  uint64_t sum = 0, counts[2];
  for (int c = 0; c < k->rings.ncpu; c++)
    if (fds[c] >= 0 && read(fds[c], counts, sizeof counts) == (ssize_t)sizeof counts)
      sum += counts[1];
  return sum;
}

/* The descriptors entry e holds. */
static uint32_t fds_of(const struct fg_perf_threads *k, const struct fg_perf_entry *e)
{
  const int *fds = atomic_load_explicit(&e->cpu_fds, memory_order_relaxed);
  uint32_t n = atomic_load_explicit(&e->fd, memory_order_relaxed) >= 0;
  for (int c = 0; fds && c < k->rings.ncpu; c++)
    n += fds[c] >= 0;
  return n;
}

/* Retired entry e's fd and counters closed, its page unmapped, its slot
 * removed (and empty when it can be). No reader is in. */
static void reclaim_entry(struct fg_perf_threads *k, uint32_t i)
{
  struct fg_perf_entry *e = &k->entry[i];
  k->retired_fds -= fds_of(k, e);
  struct perf_event_mmap_page *page = atomic_exchange(&e->page, NULL);
  int *fds = atomic_exchange(&e->cpu_fds, NULL);
  int fd = atomic_exchange(&e->fd, -1);
  if (page)
    munmap(page, k->page_bytes + k->data_bytes);
  if (fd >= 0)
    close(fd);
  for (int c = 0; fds && c < k->rings.ncpu; c++)
    if (fds[c] >= 0)
      close(fds[c]);
  free(fds);
  atomic_store_explicit(&e->tid, REMOVED, memory_order_release);
  empty_removed(k, i);
}

uint32_t fg_perf_threads_reclaim(struct fg_perf_threads *k)
{
  uint32_t kept = 0;
  for (uint32_t j = 0; j < k->nretired; j++) {
    uint32_t i = k->retired[j];
    /* a reader that counted itself in saw the entry's tid before it was
     * retired and reads on; one counting itself in after this load sees
     * RETIRED (or what the slot holds next) and leaves (sequentially consistent) */
    if (atomic_load(&k->entry[i].readers) > 0)
      k->retired[kept++] = (uint16_t)i;
    else
      reclaim_entry(k, i);
  }
  k->nretired = kept;
  return kept;
}

uint32_t fg_perf_threads_held(const struct fg_perf_threads *k)
{
  return k->retired_fds;
}

int fg_perf_threads_detach(struct fg_perf_threads *k, int tid)
{
  int i = find(k, tid);
  if (i < 0)
    return 0;
  struct fg_perf_entry *e = &k->entry[i];
  int *fds = atomic_load(&e->cpu_fds);
  if (fds) {   /* what no reader told yet is counted with no thread's */
    uint64_t lost = lost_by(k, fds);
    if (lost > e->lost_counted)
      atomic_fetch_add(&k->lost_untold, lost - e->lost_counted);
  }
  atomic_store(&e->tid, RETIRED);   /* no later enter finds it; the slot is not taken again until reclaimed */
  k->retired_fds += fds_of(k, e);
  k->retired[k->nretired++] = (uint16_t)i;   /* each slot retired at most once: room for all */
  fg_perf_threads_reclaim(k);
  return 1;
}

void fg_perf_threads_enter(struct fg_perf_threads *k, int tid, struct fg_perf_reach *r)
{
  int i = find(k, tid);
  struct fg_perf_entry *e = i < 0 ? NULL : &k->entry[i];
  if (e) {
    atomic_fetch_add(&e->readers, 1);
    if (atomic_load(&e->tid) != tid) {   /* detached between the find and the count: not ours to read */
      atomic_fetch_sub(&e->readers, 1);
      e = NULL;
    }
  }
  r->fd = e ? atomic_load(&e->fd) : -1;
  r->page = e ? atomic_load(&e->page) : NULL;
  r->entry = e;
  r->cpu_fds = e ? atomic_load(&e->cpu_fds) : NULL;
}

void fg_perf_threads_leave(struct fg_perf_reach *r)
{
  if (r->entry)
    atomic_fetch_sub(&r->entry->readers, 1);
}

int fg_perf_threads_kernel_frames(const struct fg_perf_threads *k, const struct fg_perf_reach *r, uint64_t *pcs,
                                  int max)
{
  struct perf_event_mmap_page *m = r->page;
  if (!k->data_bytes || !m)
    return 0;
  int n = 0;
  const uint8_t *data = (const uint8_t *)m + k->page_bytes;
  uint64_t head = __atomic_load_n(&m->data_head, __ATOMIC_ACQUIRE), tail = m->data_tail;
  while (head - tail >= sizeof(struct perf_event_header)) {
    struct perf_event_header h;
    fg_perf_ring_copy_out(&h, data, k->data_bytes, tail, sizeof h);
    if (h.size < sizeof h || h.size > head - tail)
      break;   /* not a whole record: give up on this ring's contents */
    if (h.type == PERF_RECORD_LOST) {
      n = 0;   /* samples after the last one read were lost */
    } else if (h.type == PERF_RECORD_SAMPLE && h.size >= sizeof h + 8) {
      uint64_t nr;
      fg_perf_ring_copy_out(&nr, data, k->data_bytes, tail + sizeof h, 8);
      uint64_t room = (h.size - sizeof h - 8) / 8;
      n = 0;   /* the newest sample's frames win */
      for (uint64_t j = 0; j < nr && j < room && n < max; j++) {
        uint64_t ip;
        fg_perf_ring_copy_out(&ip, data, k->data_bytes, tail + sizeof h + 8 + 8 * j, 8);
        if (ip < (uint64_t)PERF_CONTEXT_MAX)   /* not a context marker (PERF_CONTEXT_KERNEL, ...) */
          pcs[n++] = ip;
      }
    }
    tail += h.size;
  }
  __atomic_store_n(&m->data_tail, head, __ATOMIC_RELEASE);
  return n;
}

uint64_t fg_perf_threads_lost(const struct fg_perf_threads *k, const struct fg_perf_reach *r)
{
  if (!r->entry || !r->cpu_fds)
    return 0;
  uint64_t lost = lost_by(k, r->cpu_fds);
  if (lost <= r->entry->lost_counted)
    return 0;
  uint64_t told = lost - r->entry->lost_counted;
  r->entry->lost_counted = lost;
  return told;
}

int fg_perf_threads_seq(const struct fg_perf_reach *r, uint32_t *seq)
{
  if (r->page)
    *seq = __atomic_load_n(&r->page->lock, __ATOMIC_ACQUIRE);
  return r->page != NULL;
}

int fg_perf_threads_period(const struct fg_perf_reach *r, uint64_t period_ns)
{
  return r->fd >= 0 && ioctl(r->fd, PERF_EVENT_IOC_PERIOD, &period_ns) == 0;
}

int fg_perf_threads_period_on(const struct fg_perf_threads *k, const struct fg_perf_reach *r, int cpu,
                              uint64_t period_ns)
{
  return r->cpu_fds && cpu >= 0 && cpu < k->rings.ncpu && r->cpu_fds[cpu] >= 0 &&
         ioctl(r->cpu_fds[cpu], PERF_EVENT_IOC_PERIOD, &period_ns) == 0;
}
