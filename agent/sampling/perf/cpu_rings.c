/* walker=copy's ring per CPU; see cpu_rings.h. */
#include "sampling/perf/cpu_rings.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

void fg_perf_ring_copy_out(void *to, const uint8_t *data, size_t size, uint64_t pos, size_t n)
{
  size_t at = (size_t)(pos % size), first = size - at < n ? size - at : n;
  memcpy(to, data + at, first);
  memcpy((uint8_t *)to + first, data, n - first);
}

/* A counter that counts nothing, bound to cpu, whose ring the sampling
 * counters share: on the process's first thread, with their clock (the
 * kernel refuses to mix clocks in a ring). */
static int open_owner(int cpu)
{
  struct perf_event_attr attr;
  memset(&attr, 0, sizeof attr);
  attr.size = sizeof attr;
  attr.type = PERF_TYPE_SOFTWARE;
  attr.config = PERF_COUNT_SW_DUMMY;
  attr.disabled = 1;
  attr.exclude_kernel = 1;   /* allowed whatever perf_event_paranoid */
  attr.exclude_hv = 1;
  attr.use_clockid = 1;
  attr.clockid = CLOCK_MONOTONIC;
  return (int)syscall(SYS_perf_event_open, &attr, getpid(), cpu, -1, PERF_FLAG_FD_CLOEXEC);
}

int fg_cpu_rings_open(struct fg_cpu_rings *r, size_t ring_bytes, char *err, size_t errlen)
{
  memset(r, 0, sizeof *r);
  long n = sysconf(_SC_NPROCESSORS_CONF);
  r->ncpu = n > 0 ? (int)n : 1;
  r->page_bytes = (size_t)sysconf(_SC_PAGESIZE);
  r->data_bytes = ring_bytes;
  r->owner_fd = malloc((size_t)r->ncpu * sizeof *r->owner_fd);
  r->page = calloc((size_t)r->ncpu, sizeof *r->page);
  r->head = calloc((size_t)r->ncpu, sizeof *r->head);
  r->tail = calloc((size_t)r->ncpu, sizeof *r->tail);
  if (r->owner_fd)   /* before any can fail: a close part-way through closes only what was opened */
    for (int c = 0; c < r->ncpu; c++)
      r->owner_fd[c] = -1;
  if (!r->owner_fd || !r->page || !r->head || !r->tail) {
    snprintf(err, errlen, "no memory for %d CPUs' rings", r->ncpu);
    fg_cpu_rings_close(r);
    return -1;
  }
  int rings = 0;
  for (int c = 0; c < r->ncpu; c++) {
    r->owner_fd[c] = open_owner(c);
    if (r->owner_fd[c] < 0) {
      if (errno == ENODEV || errno == EINVAL)
        continue;   /* an offline CPU: nothing runs there */
      snprintf(err, errlen, "perf_event_open for CPU %d's ring: %s", c, strerror(errno));
      fg_cpu_rings_close(r);
      return -1;
    }
    void *page = mmap(NULL, r->page_bytes + ring_bytes, PROT_READ | PROT_WRITE, MAP_SHARED, r->owner_fd[c], 0);
    if (page == MAP_FAILED) {
      snprintf(err, errlen, "a %zu KB ring for CPU %d refused (%s; the locked-memory limit: perf_event_mlock_kb, "
               "then RLIMIT_MEMLOCK)", ring_bytes / 1024, c, strerror(errno));
      fg_cpu_rings_close(r);
      return -1;
    }
    r->page[c] = page;
    rings++;
  }
  if (!rings) {
    snprintf(err, errlen, "perf_event_open refused a ring on every CPU");
    fg_cpu_rings_close(r);
    return -1;
  }
  r->nrings = rings;
  return 0;
}

void fg_cpu_rings_close(struct fg_cpu_rings *r)
{
  for (int c = 0; r->page && r->owner_fd && c < r->ncpu; c++) {
    if (r->page[c])
      munmap(r->page[c], r->page_bytes + r->data_bytes);
    if (r->owner_fd[c] >= 0)
      close(r->owner_fd[c]);
  }
  free(r->owner_fd);
  free(r->page);
  free(r->head);
  free(r->tail);
  r->owner_fd = NULL;
  r->page = NULL;
  r->head = r->tail = NULL;
  r->ncpu = 0;
}

int fg_cpu_rings_fd(const struct fg_cpu_rings *r, int cpu)
{
  return cpu >= 0 && cpu < r->ncpu && r->page[cpu] ? r->owner_fd[cpu] : -1;
}

/* The next sample record in c's ring from *tail (below head), the others
 * before it passed over (PERF_RECORD_LOST added to *lost): its header in
 * *h; 0 when the ring holds no more, or holds a record that is not whole
 * (its rest given up). */
static int next_sample(const struct fg_cpu_rings *r, int c, uint64_t head, uint64_t *tail,
                       struct perf_event_header *h, uint64_t *lost)
{
  const uint8_t *data = (const uint8_t *)r->page[c] + r->page_bytes;
  while (head - *tail >= sizeof *h) {
    fg_perf_ring_copy_out(h, data, r->data_bytes, *tail, sizeof *h);
    if (h->size < sizeof *h || h->size > head - *tail) {
      *tail = head;   /* not a whole record: give up on this ring's contents */
      return 0;
    }
    if (h->type == PERF_RECORD_SAMPLE)
      return 1;
    if (h->type == PERF_RECORD_LOST && h->size >= sizeof *h + 16) {
      uint64_t count;
      fg_perf_ring_copy_out(&count, data, r->data_bytes, *tail + sizeof *h + 8, 8);   /* after the id */
      *lost += count;
    }
    *tail += h->size;
  }
  return 0;
}

int fg_cpu_rings_read(const struct fg_cpu_rings *r, size_t time_at, uint8_t *room, size_t room_bytes,
                      void (*on_sample)(void *ctx, const uint8_t *rec, size_t size), void *ctx, uint64_t *lost,
                      uint64_t *too_big)
{
  uint64_t *head = r->head, *tail = r->tail;
  for (int c = 0; c < r->ncpu; c++)
    if (r->page[c]) {
      head[c] = __atomic_load_n(&r->page[c]->data_head, __ATOMIC_ACQUIRE);
      tail[c] = r->page[c]->data_tail;
    }
  int n = 0;
  for (;;) {   /* the oldest of the rings' next samples each time: a thread's in the order it ran */
    int best = -1;
    uint64_t best_time = 0;
    struct perf_event_header best_h = {0, 0, 0};
    for (int c = 0; c < r->ncpu; c++) {
      struct perf_event_header h;
      uint64_t time = 0;
      if (!r->page[c] || !next_sample(r, c, head[c], &tail[c], &h, lost))
        continue;
      if (h.size >= time_at + 8)
        fg_perf_ring_copy_out(&time, (const uint8_t *)r->page[c] + r->page_bytes, r->data_bytes, tail[c] + time_at, 8);
      if (best < 0 || time < best_time) {
        best = c;
        best_time = time;
        best_h = h;
      }
    }
    if (best < 0)
      break;
    const uint8_t *data = (const uint8_t *)r->page[best] + r->page_bytes;
    size_t at = (size_t)(tail[best] % r->data_bytes);
    if (at + best_h.size <= r->data_bytes) {
      on_sample(ctx, data + at, best_h.size);   /* in one piece: read where it lies */
    } else if (best_h.size <= room_bytes) {
      fg_perf_ring_copy_out(room, data, r->data_bytes, tail[best], best_h.size);
      on_sample(ctx, room, best_h.size);
    } else {
      (*too_big)++;
    }
    tail[best] += best_h.size;
    n++;
  }
  for (int c = 0; c < r->ncpu; c++)
    if (r->page[c])
      __atomic_store_n(&r->page[c]->data_tail, tail[c], __ATOMIC_RELEASE);
  return n;
}
