/* POSIX CPU-time timers, one a thread (thread_timer.h). The kernel's timer
 * calls are made directly: glibc's timer_t wraps the kernel's id only for
 * some notifications, and its CPU clock of another thread needs a pthread_t. */
#include <errno.h>
#include <fcntl.h>
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

int fg_thread_timer_sigq(const char *status, size_t len, uint64_t *queued, uint64_t *limit)
{
  static const char key[] = "\nSigQ:";
  for (size_t i = 0; i + sizeof key - 1 <= len; i++) {
    if (memcmp(status + i, key, sizeof key - 1) != 0)
      continue;
    size_t at = i + sizeof key - 1;
    while (at < len && (status[at] == '\t' || status[at] == ' '))
      at++;
    uint64_t v[2] = {0, 0};
    for (int n = 0; n < 2; n++) {
      size_t from = at;
      while (at < len && status[at] >= '0' && status[at] <= '9' && at - from < 20) {
        uint64_t d = (uint64_t)(status[at] - '0');
        v[n] = v[n] > (UINT64_MAX - d) / 10 ? UINT64_MAX : v[n] * 10 + d;   /* RLIM_INFINITY prints as 2^64-1 */
        at++;
      }
      if (at == from || (n == 0 && (at >= len || status[at++] != '/')))
        return -1;
    }
    *queued = v[0];
    *limit = v[1];
    return 0;
  }
  return -1;
}

uint64_t fg_thread_timer_room(uint64_t queued, uint64_t limit, uint64_t ours)
{
  if (limit >= UINT64_MAX / 2)
    return UINT64_MAX / 2;   /* no limit */
  return ours + (limit > queued ? (limit - queued) / 2 : 0);
}

uint64_t fg_thread_timer_budget(uint64_t ours)
{
  char status[4096];
  ssize_t got = -1;
  int fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC);
  if (fd >= 0) {
    got = read(fd, status, sizeof status);   /* SigQ sits in the first 2 KB */
    close(fd);
  }
  uint64_t queued, limit;
  if (got > 0 && fg_thread_timer_sigq(status, (size_t)got, &queued, &limit) == 0)
    return fg_thread_timer_room(queued, limit, ours);
  struct rlimit pending;   /* no /proc: the limit alone, as if the user had no other signal queued */
  return getrlimit(RLIMIT_SIGPENDING, &pending) == 0 && pending.rlim_cur != RLIM_INFINITY
             ? fg_thread_timer_room(ours, (uint64_t)pending.rlim_cur, ours)
             : UINT64_MAX / 2;
}
