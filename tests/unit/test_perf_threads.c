/* A thread's perf counter as its handler reaches it: the period it moves,
 * the page whose sequence it reads, nothing once the entry is gone. */
#include "unit.h"

#include <linux/perf_event.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "../../agent/sampling/perf_threads.h"
#include "../../agent/sampling/timer.h"

static volatile int signals;

static void on_sigprof(int sig, siginfo_t *info, void *uc)
{
  (void)sig;
  (void)info;
  (void)uc;
  signals++;
}

static uint64_t cpu_ns(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* This thread's CPU time per signal over the next n signals. */
static double cpu_per_signal(int n)
{
  int from = signals;
  uint64_t start = cpu_ns();
  volatile uint64_t x = 1;
  while (signals - from < n)
    x = x * 6364136223846793005ull + 1;
  return (double)(cpu_ns() - start) / n;
}

/* Counted in CPU time, so a busy machine does not move it: at 1 ms, then 4 ms. */
static void the_handler_moves_its_threads_period(void **state)
{
  (void)state;
  int tid = (int)syscall(SYS_gettid);
  int fd = fg_perf_open(tid, 1000000, 1, 0);
  if (fd < 0) {
    printf("    skipped: perf_event_open refused here\n");
    return;
  }
  struct fg_perf_threads *table = fg_perf_threads_new(0);
  assert_non_null(table);
  struct sigaction sa, old;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_sigprof;
  sa.sa_flags = SA_SIGINFO | SA_RESTART;
  sigaction(SIGPROF, &sa, &old);
  assert_int_equal(fg_perf_threads_attach(table, tid, fd), 0);
  uint32_t seq;
  assert_int_equal(fg_perf_threads_seq(table, tid, &seq), 1);   /* the page is mapped without a ring */
  assert_int_equal(fg_perf_threads_kernel_frames(table, tid, NULL, 0), 0);
  double at_1ms = cpu_per_signal(100);
  assert_int_equal(fg_perf_threads_period(table, tid, 4000000), 1);
  double at_4ms = cpu_per_signal(25);
  printf("    %.2f ms then %.2f ms of CPU a signal\n", at_1ms / 1e6, at_4ms / 1e6);
  assert_true(at_4ms > 3 * at_1ms && at_4ms < 5 * at_1ms);
  assert_int_equal(fg_perf_threads_period(table, tid + 1, 1000000), 0);   /* no entry: no counter touched */
  fg_perf_threads_detach(table, tid);
  assert_int_equal(fg_perf_threads_period(table, tid, 1000000), 0);
  assert_int_equal(fg_perf_threads_seq(table, tid, &seq), 0);
  ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
  close(fd);
  sigaction(SIGPROF, &old, NULL);
  free(table);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(the_handler_moves_its_threads_period),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
