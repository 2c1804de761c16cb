/* walker=copy's rings: one per CPU, into which every sampled thread's
 * counter on that CPU writes its samples (PERF_EVENT_IOC_SET_OUTPUT), the
 * way `perf record -p` lays them out. A sample copies 32 KB of stack, so a
 * ring per thread pinned 512 KB a thread (50 MB for 100 threads); one per
 * CPU pins 512 KB a CPU whatever the threads, which is what an unprivileged
 * user may lock by default (perf_event_mlock_kb, 516 KB, times the CPUs).
 * A CPU runs at most one sample's worth of CPU time per interval, so its
 * ring holds the same 15 ms of samples as a thread's did.
 *
 * Each ring belongs to a counter that counts nothing (a dummy event on the
 * process's first thread, bound to that CPU): threads come and go, the
 * ring stays. Not async-signal-safe: the copy engine's, one reader at a
 * time. */
#ifndef FG_CPU_RINGS_H
#define FG_CPU_RINGS_H

#include <stddef.h>
#include <stdint.h>

struct perf_event_mmap_page;

struct fg_cpu_rings {
  int ncpu;                            /* CPUs configured: rings are indexed by CPU number */
  int nrings;                          /* CPUs with a ring: a thread's counters */
  int *owner_fd;                       /* the ring's counter; -1: no ring (the CPU was offline) */
  struct perf_event_mmap_page **page;  /* the ring's mapping, its header page first */
  size_t page_bytes, data_bytes;
  uint64_t *head, *tail;               /* a read's positions in each ring */
};

/* Rings of ring_bytes (a power of two pages) for every online CPU. 0; -1
 * with a message in err naming what was refused. */
int fg_cpu_rings_open(struct fg_cpu_rings *r, size_t ring_bytes, char *err, size_t errlen);
/* Unmaps and closes every ring; after every counter writing into them
 * was closed. */
void fg_cpu_rings_close(struct fg_cpu_rings *r);
/* The counter a thread's counter on cpu sends its samples to, or -1. */
int fg_cpu_rings_fd(const struct fg_cpu_rings *r, int cpu);

/* Every record in every ring, then the rings emptied: the samples to
 * on_sample oldest first by the time stamp each holds at offset time_at
 * (a thread that moved between CPUs has its samples in two rings, handed
 * out in the order it ran). One that wraps is put together in room, of
 * room_bytes; one bigger is counted in *too_big. *lost adds the samples the
 * kernel told it had no room for (PERF_RECORD_LOST). Returns the samples
 * read. */
int fg_cpu_rings_read(const struct fg_cpu_rings *r, size_t time_at, uint8_t *room, size_t room_bytes,
                      void (*on_sample)(void *ctx, const uint8_t *rec, size_t size), void *ctx, uint64_t *lost,
                      uint64_t *too_big);

/* n bytes at position pos of a perf ring's data area of size bytes, which
 * wraps. Async-signal-safe. */
void fg_perf_ring_copy_out(void *to, const uint8_t *data, size_t size, uint64_t pos, size_t n);

#endif
