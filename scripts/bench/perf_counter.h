/* The counters the floor programs arm (mechanism_floor.c, floor_agent.c,
 * floors_paired.c): a perf_events cpu-clock counter on one thread whose
 * overflow, every interval of that thread's CPU time, is SIGPROF to the same
 * thread, optionally recording the kernel's callchain. The same attributes as
 * fgagent's event=cpu (agent/sampling/perf/perf_counters.c), written again because
 * the benchmark's programs link nothing of the agent. And the one a profiler
 * walking off the thread would use: no signal, each overflow a sample record
 * in the counter's ring (the kernel callchain, the user registers and the top
 * of the user stack copied), which another thread empties. */
#ifndef FLOOR_PERF_COUNTER_H
#define FLOOR_PERF_COUNTER_H

#include <fcntl.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Every counter here: cpu-clock, an overflow every interval_ns of the
 * thread's CPU, disabled until enabled, the kernel callchain without the user
 * part when asked for. */
static inline struct perf_event_attr floor_cpu_clock(uint64_t interval_ns)
{
  struct perf_event_attr a;
  memset(&a, 0, sizeof a);
  a.size = sizeof a;
  a.type = PERF_TYPE_SOFTWARE;
  a.config = PERF_COUNT_SW_CPU_CLOCK;
  a.sample_period = interval_ns;
  a.disabled = 1;
  a.exclude_hv = 1;
  a.exclude_callchain_user = 1;
  a.sample_max_stack = 64;
  return a;
}

/* The counter's fd, disabled until floor_perf_start; -1 with errno. */
static inline int floor_perf_open(int tid, uint64_t interval_ns, int with_callchain)
{
  struct perf_event_attr a = floor_cpu_clock(interval_ns);
  a.wakeup_events = 1;
  if (with_callchain)
    a.sample_type = PERF_SAMPLE_CALLCHAIN;
  return (int)syscall(SYS_perf_event_open, &a, tid, -1, -1, PERF_FLAG_FD_CLOEXEC);
}

/* Overflows become SIGPROF to thread tid, from now on. 0, or -1. */
static inline int floor_perf_start(int fd, int tid)
{
  struct f_owner_ex owner = {F_OWNER_TID, tid};
  if (fcntl(fd, F_SETFL, O_ASYNC | O_NONBLOCK) != 0 || fcntl(fd, F_SETSIG, SIGPROF) != 0 ||
      fcntl(fd, F_SETOWN_EX, &owner) != 0)
    return -1;
  return ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
}

/* A counter whose overflows are sample records, no signal: the kernel
 * callchain, and with stack_bytes > 0 the user registers (bp, sp, ip) and
 * that many bytes from the top of the user stack, as perf record
 * --call-graph dwarf takes them. ring_bytes: the ring it will be mapped with
 * (its reader is woken at half of it, not at each record). Disabled; its fd,
 * or -1 with errno. */
static inline int floor_sample_open_on(int tid, int cpu, uint64_t interval_ns, unsigned stack_bytes, size_t ring_bytes)
{
  struct perf_event_attr a = floor_cpu_clock(interval_ns);
  a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CALLCHAIN;
  if (stack_bytes) {
    a.sample_type |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
    a.sample_regs_user = (1u << 6) | (1u << 7) | (1u << 8);   /* bp, sp, ip (asm/perf_regs.h) */
    a.sample_stack_user = stack_bytes;
  }
  a.watermark = 1;
  a.wakeup_watermark = (uint32_t)(ring_bytes / 2);
  return (int)syscall(SYS_perf_event_open, &a, tid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
}

/* The same, counting on any CPU, into a ring of its own. */
static inline int floor_sample_open(int tid, uint64_t interval_ns, unsigned stack_bytes, size_t ring_bytes)
{
  return floor_sample_open_on(tid, -1, interval_ns, stack_bytes, ring_bytes);
}

/* A counter that counts nothing, bound to cpu, whose ring the sample
 * counters on that CPU share (PERF_EVENT_IOC_SET_OUTPUT): walker=copy's
 * ring a CPU (agent/sampling/perf/cpu_rings.c). Its fd, or -1 with errno. */
static inline int floor_ring_owner(int cpu)
{
  struct perf_event_attr a;
  memset(&a, 0, sizeof a);
  a.size = sizeof a;
  a.type = PERF_TYPE_SOFTWARE;
  a.config = PERF_COUNT_SW_DUMMY;
  a.disabled = 1;
  a.exclude_kernel = 1;
  a.exclude_hv = 1;
  return (int)syscall(SYS_perf_event_open, &a, getpid(), cpu, -1, PERF_FLAG_FD_CLOEXEC);
}

/* A counter's ring as mapped: its control page, then size bytes of data. */
struct floor_ring {
  struct perf_event_mmap_page *page;
  size_t size;
};

static inline void floor_ring_copy(const struct floor_ring *r, uint64_t at, void *out, size_t n)
{
  const uint8_t *data = (const uint8_t *)r->page + r->page->data_offset;
  size_t off = at % r->size, first = r->size - off < n ? r->size - off : n;
  memcpy(out, data + off, first);
  memcpy((uint8_t *)out + first, data, n - first);
}

/* Every record in the ring out of it, each sample copied into out (64 KB:
 * a record's most), as a walker working off the copy would before handing
 * the ring back, and given to each (when not NULL); then handed back.
 * Returns the samples; adds the records the kernel dropped for want of room
 * to *lost. */
static inline long floor_ring_empty_each(const struct floor_ring *r, uint8_t *out, long *lost,
                                         void (*each)(void *ctx, const uint8_t *rec), void *ctx)
{
  uint64_t head = __atomic_load_n(&r->page->data_head, __ATOMIC_ACQUIRE), tail = r->page->data_tail;
  long samples = 0;
  while (tail < head) {
    struct perf_event_header h;
    floor_ring_copy(r, tail, &h, sizeof h);
    if (h.type == PERF_RECORD_SAMPLE) {
      floor_ring_copy(r, tail, out, h.size);
      samples++;
      if (each)
        each(ctx, out);
    } else if (h.type == PERF_RECORD_LOST) {
      uint64_t id_lost[2];
      floor_ring_copy(r, tail + sizeof h, id_lost, sizeof id_lost);
      *lost += (long)id_lost[1];
    }
    tail += h.size ? h.size : 8;
  }
  __atomic_store_n(&r->page->data_tail, tail, __ATOMIC_RELEASE);
  return samples;
}

static inline long floor_ring_empty(const struct floor_ring *r, uint8_t *out, long *lost)
{
  return floor_ring_empty_each(r, out, lost, NULL, NULL);
}

#endif
