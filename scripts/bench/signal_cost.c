/* What the kernel charges to deliver one SIGPROF from a per-thread perf_events
 * cpu-clock counter (fgagent's event=cpu) to an empty handler. Runs a fixed
 * loop with and without the counter, paired and interleaved, and prints the
 * median extra time per signal:
 *   SIGNAL_COST_US 4.21 (pairs 21, signals per run 3012)
 * Usage: signal_cost [PAIRS] */
#define _GNU_SOURCE
#include <fcntl.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static volatile long signals;

static void on_sigprof(int sig, siginfo_t *info, void *uc)
{
  (void)sig;
  (void)info;
  (void)uc;
  signals++;
}

static double loop_ms(void)
{
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  volatile double x = 0;
  for (long i = 0; i < 150000000; i++)
    x += (double)i * 0.5;
  clock_gettime(CLOCK_MONOTONIC, &t1);
  return (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6;
}

static int open_counter(void)
{
  struct perf_event_attr a;
  memset(&a, 0, sizeof a);
  a.size = sizeof a;
  a.type = PERF_TYPE_SOFTWARE;
  a.config = PERF_COUNT_SW_CPU_CLOCK;
  a.sample_period = 100000; /* 100 us */
  a.disabled = 1;
  a.wakeup_events = 1;
  a.exclude_hv = 1;
  int fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
  if (fd < 0) {
    a.exclude_kernel = 1;
    fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
  }
  if (fd < 0)
    return -1;
  struct f_owner_ex owner = {F_OWNER_TID, (int)syscall(SYS_gettid)};
  fcntl(fd, F_SETFL, O_ASYNC | O_NONBLOCK);
  fcntl(fd, F_SETSIG, SIGPROF);
  fcntl(fd, F_SETOWN_EX, &owner);
  return fd;
}

static int by_value(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
  int pairs = argc > 1 ? atoi(argv[1]) : 21;
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_sigprof;
  sa.sa_flags = SA_SIGINFO | SA_RESTART;
  sigaction(SIGPROF, &sa, NULL);
  double *cost = calloc((size_t)pairs, sizeof *cost);
  long per_run = 0;
  loop_ms(); /* warm up */
  for (int p = 0; p < pairs; p++) {
    int fd = open_counter();
    if (fd < 0) {
      perror("perf_event_open");
      return 1;
    }
    double without, with;
    long before = signals;
    if (p % 2) {
      without = loop_ms();
      ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
      with = loop_ms();
      ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
    } else {
      ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
      with = loop_ms();
      ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
      without = loop_ms();
    }
    close(fd);
    per_run = signals - before;
    cost[p] = (with - without) * 1e3 / (double)(per_run ? per_run : 1);
  }
  qsort(cost, (size_t)pairs, sizeof *cost, by_value);
  printf("SIGNAL_COST_US %.2f (pairs %d, signals per run %ld, quartiles %.2f .. %.2f)\n",
         cost[pairs / 2], pairs, per_run, cost[pairs / 4], cost[(3 * pairs) / 4]);
  return 0;
}
