/* The counter both floor programs arm (mechanism_floor.c, floor_agent.c): a
 * perf_events cpu-clock counter on one thread whose overflow, every
 * interval of that thread's CPU time, is SIGPROF to the same thread,
 * optionally recording the kernel's callchain. The same attributes as
 * fgagent's event=cpu (agent/sampling/timer_perf.c), written again because
 * the benchmark's programs link nothing of the agent. */
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

/* The counter's fd, disabled until floor_perf_start; -1 with errno. */
static inline int floor_perf_open(int tid, uint64_t interval_ns, int with_callchain)
{
  struct perf_event_attr a;
  memset(&a, 0, sizeof a);
  a.size = sizeof a;
  a.type = PERF_TYPE_SOFTWARE;
  a.config = PERF_COUNT_SW_CPU_CLOCK;
  a.sample_period = interval_ns;
  a.disabled = 1;
  a.wakeup_events = 1;
  a.exclude_hv = 1;
  if (with_callchain) {
    a.sample_type = PERF_SAMPLE_CALLCHAIN;
    a.exclude_callchain_user = 1;
    a.sample_max_stack = 64;
  }
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

#endif
