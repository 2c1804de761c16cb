/* Each thread's perf counter as its handler reaches it; see perf_threads.h.
 * The handler's calls are async-signal-safe: atomics, memcpy, one ioctl. */
#include "sampling/perf/perf_threads.h"

#include <linux/perf_event.h>
#include <sched.h>
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
  if (k)
    fg_cpu_rings_close(&k->rings);   /* nothing when it has none */
  free(k);
}

static uint32_t slot_of(int tid)
{
  return ((uint32_t)tid * 2654435761u) & (FG_PERF_THREAD_SLOTS - 1);
}

/* The slot holding tid, or -1. */
static int find(const struct fg_perf_threads *k, int tid)
{
  uint32_t i = slot_of(tid);
  for (uint32_t probes = 0; probes < FG_PERF_THREAD_SLOTS; probes++, i = (i + 1) & (FG_PERF_THREAD_SLOTS - 1)) {
    int at = atomic_load_explicit(&k->entry[i].tid, memory_order_acquire);
    if (at == tid)
      return (int)i;
    if (at == 0)
      return -1;   /* never used: the probe chain ends here */
  }
  return -1;
}

/* tid's entry, in the first removed or never-used slot on its probe
 * chain: 0, or -1 when the table is full. */
static int put_entry(struct fg_perf_threads *k, int tid, struct perf_event_mmap_page *page, int fd, int *cpu_fds)
{
  uint32_t i = slot_of(tid);
  for (uint32_t probes = 0; probes < FG_PERF_THREAD_SLOTS; probes++, i = (i + 1) & (FG_PERF_THREAD_SLOTS - 1)) {
    struct fg_perf_entry *e = &k->entry[i];
    int at = atomic_load_explicit(&e->tid, memory_order_relaxed);
    if (at == 0 || at == -1) {
      atomic_store_explicit(&e->page, page, memory_order_relaxed);
      atomic_store_explicit(&e->fd, fd, memory_order_relaxed);
      atomic_store_explicit(&e->cpu_fds, cpu_fds, memory_order_relaxed);
      e->lost_counted = 0;
      atomic_store_explicit(&e->tid, tid, memory_order_release);   /* the rest before the key */
      return 0;
    }
  }
  return -1;
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

void fg_perf_threads_detach(struct fg_perf_threads *k, int tid)
{
  int i = find(k, tid);
  if (i < 0)
    return;
  struct fg_perf_entry *e = &k->entry[i];
  struct perf_event_mmap_page *page = atomic_exchange(&e->page, NULL);
  int *fds = atomic_exchange(&e->cpu_fds, NULL);
  if (fds) {   /* what no reader told yet is counted with no thread's */
    uint64_t lost = lost_by(k, fds);
    if (lost > e->lost_counted)
      atomic_fetch_add(&k->lost_untold, lost - e->lost_counted);
  }
  atomic_store(&e->tid, -1);
  /* a reader that counted itself in before the store saw tid and reads on;
   * one after it sees -1 and leaves (both sequentially consistent) */
  while (atomic_load(&e->readers) > 0)
    sched_yield();
  if (page)
    munmap(page, k->page_bytes + k->data_bytes);
  for (int c = 0; fds && c < k->rings.ncpu; c++)
    if (fds[c] >= 0)
      close(fds[c]);
  free(fds);
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
