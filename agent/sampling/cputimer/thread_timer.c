/* POSIX CPU-time timers, one a thread (thread_timer.h). The kernel's timer
 * calls are made directly: glibc's timer_t wraps the kernel's id only for
 * some notifications, and its CPU clock of another thread needs a pthread_t. */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "sampling/cputimer/thread_timer.h"

/* The kernel's CPU clock of thread tid, as its MAKE_THREAD_CPUCLOCK(tid,
 * CPUCLOCK_SCHED) builds it (glibc's pthread_getcpuclockid makes the same):
 * the precise sum of its run time, not the tick-sampled user/system split. */
static clockid_t thread_cpu_clock(int tid)
{
  return (clockid_t)((~(unsigned)tid << 3) | 4u /* per thread */ | 2u /* sched */);
}

int fg_thread_timer_create(int tid, uint64_t interval_ns)
{
  struct sigevent ev;
  memset(&ev, 0, sizeof ev);
  ev.sigev_notify = SIGEV_THREAD_ID;
  ev.sigev_signo = SIGPROF;
  ev._sigev_un._tid = tid;
  int id = -1;
  if (syscall(SYS_timer_create, thread_cpu_clock(tid), &ev, &id) != 0)
    return -1;
  struct itimerspec every;
  every.it_interval.tv_sec = (time_t)(interval_ns / 1000000000u);
  every.it_interval.tv_nsec = (long)(interval_ns % 1000000000u);
  every.it_value = every.it_interval;
  if (syscall(SYS_timer_settime, id, 0, &every, NULL) != 0) {
    int saved = errno;
    syscall(SYS_timer_delete, id);
    errno = saved;
    return -1;
  }
  return id;
}

void fg_thread_timer_delete(int id)
{
  if (id >= 0)
    syscall(SYS_timer_delete, id);
}

uint64_t fg_thread_timer_budget(void)
{
  struct rlimit pending;
  return getrlimit(RLIMIT_SIGPENDING, &pending) == 0 && pending.rlim_cur != RLIM_INFINITY
             ? (uint64_t)pending.rlim_cur / 2
             : UINT64_MAX / 2;
}
