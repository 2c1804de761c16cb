/* A thread's perf counter as its handler reaches it, on real perf_events
 * counters of this thread (skipped where perf_events or kernel samples are
 * refused): the kernel frames its ring holds, the period it moves, the page
 * whose sequence it reads, all through one lookup a signal; nothing once the
 * entry is gone. */
#include "unit.h"

#include <dirent.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "fg/clock.h"
#include "sampling/perf/perf_threads.h"
#include "sampling/timer.h"

static struct fg_perf_threads *table;
static volatile int signals, with_frames, tid;
static volatile uint64_t first_pc;
static int fd = -1;
static struct sigaction old;

/* What fgagent's handler does with its thread's ring: the newest sample's frames. */
static void on_sigprof(int sig, siginfo_t *info, void *uc)
{
  (void)sig;
  (void)info;
  (void)uc;
  uint64_t pcs[FG_MAX_KERNEL_FRAMES];
  struct fg_perf_reach perf;
  fg_perf_threads_enter(table, tid, &perf);
  int n = fg_perf_threads_kernel_frames(table, &perf, pcs, FG_MAX_KERNEL_FRAMES);
  fg_perf_threads_leave(&perf);
  signals++;
  if (n > 0) {
    with_frames++;
    first_pc = pcs[n - 1];
  }
}

/* This thread's counter every period_ns of its CPU (recording kernel
 * callchains when rings), entered in a fresh table, its signals to
 * on_sigprof. 0 when perf_event_open refuses it here. */
static int arm(uint64_t period_ns, int rings)
{
  signals = with_frames = 0;
  tid = (int)syscall(SYS_gettid);
  fd = fg_perf_open(tid, period_ns, !rings, rings, 0, -1, -1);
  if (fd < 0) {
    printf("    skipped: perf_event_open%s refused here\n", rings ? " with kernel samples" : "");
    return 0;
  }
  table = fg_perf_threads_new(rings);
  assert_non_null(table);
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_sigprof;
  sa.sa_flags = SA_SIGINFO | SA_RESTART;
  sigaction(SIGPROF, &sa, &old);
  assert_int_equal(fg_perf_threads_attach(table, tid, fd), 0);
  return 1;
}

static void disarm(void)
{
  ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
  close(fd);
  sigaction(SIGPROF, &old, NULL);
  free(table);
}

/* A thread in getdents64 most of the time: most signals bring kernel frames,
 * every one a kernel address; after detach, none. */
static void the_ring_holds_each_signals_kernel_frames(void **state)
{
  (void)state;
  if (!arm(200000, 1))
    return;
  while (signals < 300) {
    DIR *d = opendir("/usr/lib");
    while (d && readdir(d))
      ;
    if (d)
      closedir(d);
  }
  ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
  printf("    %d of %d signals with kernel frames\n", with_frames, signals);
  assert_true(with_frames * 4 >= signals);   /* this loop lives in the kernel */
  assert_true(first_pc >= 0xffff800000000000ull);
  fg_perf_threads_detach(table, tid);
  struct fg_perf_reach perf;
  fg_perf_threads_enter(table, tid, &perf);
  uint64_t pcs[4];
  assert_null(perf.page);
  assert_int_equal(fg_perf_threads_kernel_frames(table, &perf, pcs, 4), 0);
  fg_perf_threads_leave(&perf);
  disarm();
}

/* This thread's CPU time per signal over the next n signals. */
static double cpu_per_signal(int n)
{
  int from = signals;
  uint64_t start = fg_clock_ns(CLOCK_THREAD_CPUTIME_ID);
  volatile uint64_t x = 1;
  while (signals - from < n)
    x = x * 6364136223846793005ull + 1;
  return (double)(fg_clock_ns(CLOCK_THREAD_CPUTIME_ID) - start) / n;
}

/* Counted in CPU time, so a busy machine does not move it: at 1 ms, then 4 ms. */
static void the_handler_moves_its_threads_period(void **state)
{
  (void)state;
  if (!arm(1000000, 0))
    return;
  uint32_t seq;
  struct fg_perf_reach perf, other;
  fg_perf_threads_enter(table, tid, &perf);
  assert_int_equal(perf.fd, fd);
  assert_int_equal(fg_perf_threads_seq(&perf, &seq), 1);   /* the page is mapped without a ring */
  assert_int_equal(fg_perf_threads_kernel_frames(table, &perf, NULL, 0), 0);
  double at_1ms = cpu_per_signal(100);
  assert_int_equal(fg_perf_threads_period(&perf, 4000000), 1);
  cpu_per_signal(2);   /* the intervals the change fell in: part old period, part new */
  double at_4ms = cpu_per_signal(25);
  fg_perf_threads_leave(&perf);
  printf("    %.2f ms then %.2f ms of CPU a signal\n", at_1ms / 1e6, at_4ms / 1e6);
  assert_true(at_4ms > 3 * at_1ms && at_4ms < 5 * at_1ms);
  fg_perf_threads_enter(table, tid + 1, &other);
  assert_int_equal(fg_perf_threads_period(&other, 1000000), 0);   /* no entry: no counter touched */
  fg_perf_threads_leave(&other);
  fg_perf_threads_detach(table, tid);
  fg_perf_threads_enter(table, tid, &perf);
  assert_int_equal(fg_perf_threads_period(&perf, 1000000), 0);
  assert_int_equal(fg_perf_threads_seq(&perf, &seq), 0);
  fg_perf_threads_leave(&perf);
  disarm();
}

/* A thread's end waits only for readers of its own entry: with another
 * thread's handler between enter and leave (on a busy host one is nearly
 * always), it returns at once; an entry detached after a reader counted
 * itself in is read no more by the next enter. Needs no counter: an fd of -1
 * makes an entry without a page. */
static void a_detach_waits_for_its_own_readers_only(void **state)
{
  (void)state;
  struct fg_perf_threads *k = fg_perf_threads_new(0);
  assert_non_null(k);
  assert_int_equal(fg_perf_threads_attach(k, 111, -1), 0);
  assert_int_equal(fg_perf_threads_attach(k, 222, -1), 0);
  struct fg_perf_reach other, own;
  fg_perf_threads_enter(k, 222, &other);   /* another thread's handler, still in */
  assert_non_null(other.entry);
  assert_int_equal(other.fd, -1);
  alarm(10);   /* a detach that waits for every reader never returns: killed */
  fg_perf_threads_detach(k, 111);
  alarm(0);
  fg_perf_threads_enter(k, 111, &own);
  assert_null(own.entry);   /* gone: nothing to read, nothing to leave */
  fg_perf_threads_leave(&own);
  fg_perf_threads_leave(&other);
  assert_int_equal(atomic_load(&other.entry->readers), 0);
  fg_perf_threads_detach(k, 222);
  fg_perf_threads_free(k);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(the_ring_holds_each_signals_kernel_frames),
    cmocka_unit_test(the_handler_moves_its_threads_period),
    cmocka_unit_test(a_detach_waits_for_its_own_readers_only),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
