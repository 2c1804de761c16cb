/* What a thread's clock costs at each context switch: two threads pinned to
 * one CPU pass a byte back and forth over pipes ROUNDS times (two switches a
 * round), each thread with the clock named, and the round's time printed in
 * microseconds. Clocks: none; perf-PERIOD_NS, a perf_events cpu-clock
 * counter signalling its thread (fgagent's clock=perf); posix-PERIOD_NS, a
 * POSIX CPU-time timer (clock=auto's start). SIGPROF is ignored: the signals'
 * own cost is not what is measured, and at a few microseconds a round the
 * threads seldom run a whole period.
 * Usage: switch_cost CLOCK ROUNDS */
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "perf_counter.h"
#include "sampling/cputimer/thread_timer.h"

static const char *clock_name;
static long rounds;
static int there[2], back[2];

static int arm(void)
{
  int tid = (int)syscall(SYS_gettid);
  if (strcmp(clock_name, "none") == 0)
    return 0;
  uint64_t period = strtoull(strchr(clock_name, '-') ? strchr(clock_name, '-') + 1 : "", NULL, 10);
  if (period == 0)
    return -1;
  if (strncmp(clock_name, "posix-", 6) == 0)
    return fg_thread_timer_create(tid, period) < 0 ? -1 : 0;
  if (strncmp(clock_name, "perf-", 5) != 0)
    return -1;
  int fd = floor_perf_open(tid, period, 0);
  return fd < 0 ? -1 : floor_perf_start(fd, tid);
}

static void pin(void)
{
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(0, &one);
  sched_setaffinity(0, sizeof one, &one);
}

static void *answer(void *arg)
{
  (void)arg;
  pin();
  if (arm() != 0)
    exit(2);
  char c;
  for (long i = 0; i < rounds; i++)
    if (read(there[0], &c, 1) != 1 || write(back[1], &c, 1) != 1)
      exit(3);
  return NULL;
}

int main(int argc, char **argv)
{
  if (argc != 3 || (rounds = atol(argv[2])) <= 0) {
    fprintf(stderr, "usage: switch_cost none|perf-PERIOD_NS|posix-PERIOD_NS ROUNDS\n");
    return 1;
  }
  clock_name = argv[1];
  signal(SIGPROF, SIG_IGN);
  if (pipe(there) != 0 || pipe(back) != 0)
    return 1;
  pin();
  pthread_t other;
  if (arm() != 0 || pthread_create(&other, NULL, answer, NULL) != 0) {
    fprintf(stderr, "switch_cost: clock %s refused\n", clock_name);
    return 2;
  }
  char c = 1;
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  for (long i = 0; i < rounds; i++)
    if (write(there[1], &c, 1) != 1 || read(back[0], &c, 1) != 1)
      return 3;
  clock_gettime(CLOCK_MONOTONIC, &t1);
  pthread_join(other, NULL);
  printf("%.3f\n", ((double)(t1.tv_sec - t0.tv_sec) * 1e9 + (double)(t1.tv_nsec - t0.tv_nsec)) / 1e3 / (double)rounds);
  return 0;
}
