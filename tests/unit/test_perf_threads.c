/* A thread's perf counter as its handler reaches it, on real perf_events
 * counters of this thread (skipped where perf_events or kernel samples are
 * refused): the kernel frames its ring holds, the period it moves, the page
 * whose sequence it reads, all through one lookup a signal; nothing once the
 * entry is gone. */
#include "unit.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fg/clock.h"
#include "sampling/cputimer/thread_timer.h"
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

/* The counter was detached: the table closed its fd. */
static void disarm(void)
{
  assert_int_equal(fg_perf_threads_reclaim(table), 0);
  assert_true(fcntl(fd, F_GETFD) < 0);
  sigaction(SIGPROF, &old, NULL);
  fg_perf_threads_free(table);
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

/* A thread's end waits for no handler, not even its own thread's still
 * between enter and leave (preempted at nice 19, or stopped under a
 * debugger): the entry is gone for every later enter at once, but its fd
 * stays open until that reader left and a reclaim (under the timer's lock,
 * never in a handler) found it so. Another reader's entry is untouched. */
static void a_detach_waits_for_no_reader(void **state)
{
  (void)state;
  struct fg_perf_threads *k = fg_perf_threads_new(0);
  assert_non_null(k);
  int own_fd = open("/dev/null", O_RDONLY | O_CLOEXEC), other_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
  assert_int_equal(fg_perf_threads_attach(k, 111, own_fd), 0);
  assert_int_equal(fg_perf_threads_attach(k, 222, other_fd), 0);
  struct fg_perf_reach stuck, other, again;
  fg_perf_threads_enter(k, 111, &stuck);   /* a handler of 111's own, never leaving for now */
  fg_perf_threads_enter(k, 222, &other);
  assert_int_equal(stuck.fd, own_fd);
  alarm(5);   /* a detach that waits for its reader never returns: killed */
  assert_int_equal(fg_perf_threads_detach(k, 111), 1);
  alarm(0);
  fg_perf_threads_enter(k, 111, &again);
  assert_null(again.entry);   /* gone for every later reader */
  fg_perf_threads_leave(&again);
  assert_int_equal(fg_perf_threads_held(k), 1);   /* its fd, still counted in the budget */
  assert_int_equal(fg_perf_threads_reclaim(k), 1);
  assert_true(fcntl(own_fd, F_GETFD) >= 0);   /* the reader may still use it */
  assert_int_equal(fg_perf_threads_attach(k, 111, -1), 0);   /* its tid again, a new entry meanwhile */
  fg_perf_threads_leave(&stuck);
  assert_int_equal(fg_perf_threads_reclaim(k), 0);
  assert_true(fcntl(own_fd, F_GETFD) < 0);   /* closed by the table */
  assert_int_equal(fg_perf_threads_held(k), 0);
  fg_perf_threads_enter(k, 111, &again);
  assert_non_null(again.entry);
  assert_int_equal(again.fd, -1);   /* the new entry's */
  fg_perf_threads_leave(&again);
  fg_perf_threads_leave(&other);
  assert_true(fcntl(other_fd, F_GETFD) >= 0);
  assert_int_equal(fg_perf_threads_detach(k, 222), 1);
  assert_int_equal(fg_perf_threads_detach(k, 111), 1);
  assert_int_equal(fg_perf_threads_detach(k, 333), 0);   /* none: the caller keeps its fd */
  assert_int_equal(fg_perf_threads_reclaim(k), 0);
  assert_true(fcntl(other_fd, F_GETFD) < 0);
  fg_perf_threads_free(k);
}

static uint64_t next_random(uint64_t *x)
{
  *x = *x * 6364136223846793005ull + 1442695040888963407ull;
  return *x >> 33;
}

/* The slots a lookup of every tid in [from, from + n) reads, at most and on
 * average, into *max and *mean. */
static void probes_of(const struct fg_perf_threads *k, int from, int n, int *max, double *mean)
{
  uint64_t sum = 0;
  *max = 0;
  for (int tid = from; tid < from + n; tid++) {
    int p = fg_perf_threads_probes(k, tid);
    sum += (uint64_t)p;
    if (p > *max)
      *max = p;
  }
  *mean = (double)sum / n;
}

/* A JVM that creates threads for months: 200 000 threads each get an entry
 * and lose it, up to 600 alive at once in random order, a few hundred of
 * them living through all the rest. Removed slots become empty again, so a
 * lookup of a thread with no entry (one on a POSIX timer, at every signal)
 * reads as few slots at the end as after the first thousand threads, and
 * never more than FG_PERF_PROBE_MAX; every live thread is still found. */
static void removed_slots_become_empty_again(void **state)
{
  (void)state;
  struct fg_perf_threads *k = fg_perf_threads_new(0);
  assert_non_null(k);
  enum { LIVE = 600, LONG = 200, THREADS = 200000 };
  int live[LIVE], nlive = 0, next_tid = 1000;
  uint64_t x = 42;
  int early_max = 0, late_max;
  double early_mean = 0, late_mean;
  for (int started = 0; started < THREADS; started++) {
    if (nlive == LIVE) {   /* one ends, not one of the long-lived first LONG */
      int at = LONG + (int)(next_random(&x) % (LIVE - LONG));
      assert_int_equal(fg_perf_threads_detach(k, live[at]), 1);
      live[at] = live[--nlive];
    }
    next_tid += 1 + (int)(next_random(&x) % 7);   /* other threads (on timers) and processes between */
    if (next_tid > 4000000)
      next_tid = 1000;   /* pid_max's wrap: tids come round again */
    assert_int_equal(fg_perf_threads_attach(k, next_tid, -1), 0);
    live[nlive++] = next_tid;
    if (started == 1000)
      probes_of(k, 5000000, 10000, &early_max, &early_mean);
  }
  probes_of(k, 5000000, 10000, &late_max, &late_mean);
  printf("    a lookup of a thread without an entry: %.2f slots (at most %d) after 1000 threads, "
         "%.2f (at most %d) after %d; %d removed slots left\n", early_mean, early_max, late_mean, late_max,
         THREADS, fg_perf_threads_removed(k));
  assert_true(late_max <= FG_PERF_PROBE_MAX);
  assert_true(late_mean <= 1.5 * early_mean + 0.5);
  assert_true(fg_perf_threads_removed(k) <= LIVE);   /* only those inside a live entry's chain */
  for (int i = 0; i < nlive; i++) {
    struct fg_perf_reach r;
    fg_perf_threads_enter(k, live[i], &r);
    assert_non_null(r.entry);
    fg_perf_threads_leave(&r);
  }
  for (int i = 0; i < nlive; i++)
    fg_perf_threads_detach(k, live[i]);
  assert_int_equal(fg_perf_threads_removed(k), 0);   /* all empty again */
  fg_perf_threads_free(k);
}

/* Tids that share a home slot (8192 apart): the table takes
 * FG_PERF_PROBE_MAX of them, refuses the next (counted), and takes it again
 * once one of them ended. */
static void a_probe_chain_is_bounded(void **state)
{
  (void)state;
  struct fg_perf_threads *k = fg_perf_threads_new(0);
  assert_non_null(k);
  for (int i = 0; i < FG_PERF_PROBE_MAX; i++)
    assert_int_equal(fg_perf_threads_attach(k, 7 + i * FG_PERF_THREAD_SLOTS, -1), 0);
  int last = 7 + FG_PERF_PROBE_MAX * FG_PERF_THREAD_SLOTS;
  assert_int_equal(fg_perf_threads_attach(k, last, -1), -1);
  assert_int_equal(fg_perf_threads_probes(k, last), FG_PERF_PROBE_MAX);
  assert_int_equal(fg_perf_threads_detach(k, 7 + 5 * FG_PERF_THREAD_SLOTS), 1);
  assert_int_equal(fg_perf_threads_attach(k, last, -1), 0);
  struct fg_perf_reach r;
  fg_perf_threads_enter(k, last, &r);
  assert_non_null(r.entry);
  fg_perf_threads_leave(&r);
  fg_perf_threads_free(k);
}

static void *note_tid(void *arg)
{
  *(int *)arg = (int)syscall(SYS_gettid);
  return NULL;
}

/* A child process given pid want (ns_last_pid, as root), computing for 1.5 s
 * of CPU unless a signal ends it; its pid, or -1 when another process took
 * want first or ns_last_pid is not ours to write. */
static pid_t child_with_pid(int want)
{
  int f = open("/proc/sys/kernel/ns_last_pid", O_WRONLY | O_CLOEXEC);
  if (f < 0)
    return -1;
  char text[16];
  int len = snprintf(text, sizeof text, "%d", want - 1);
  int wrote = (int)write(f, text, (size_t)len) == len;
  close(f);
  if (!wrote)
    return -1;
  pid_t pid = fork();
  if (pid == 0) {
    if (getpid() == want) {
      signal(SIGPROF, SIG_DFL);
      struct timespec t;
      volatile uint64_t x = 1;
      do {
        for (int i = 0; i < 100000; i++)
          x = x * 6364136223846793005ull + 1;
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
      } while (t.tv_sec < 1 || t.tv_nsec < 500000000);
    }
    _exit(0);
  }
  if (pid == want)
    return pid;
  if (pid > 0)
    waitpid(pid, NULL, 0);
  return -1;
}

/* A thread of ours ended and its tid went to another process (as pid_max
 * wraps on a host that forks all day): the drainer's scan or a clock change
 * that opens a counter for that tid now must refuse it, or the counter
 * measures the other process's thread and sends it SIGPROF, which ends it.
 * A POSIX timer for it is refused by the kernel itself. */
static void a_tid_reused_by_another_process_gets_no_counter(void **state)
{
  (void)state;
  pid_t child = -1;
  int tid = 0;
  for (int tries = 0; tries < 20 && child < 0; tries++) {
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, note_tid, &tid), 0);
    pthread_join(th, NULL);
    child = child_with_pid(tid);
  }
  if (child < 0) {
    printf("    skipped: no process could be given a dead thread's tid here (ns_last_pid)\n");
    skip();   /* shows as skipped, not passed */
  }
  int fd = fg_perf_open(tid, 1000000, 1, 0, 0, -1, -1);
  int open_errno = errno;
  int timer = fg_thread_timer_create(tid, 1000000);
  int status = 0;
  waitpid(child, &status, 0);
  printf("    tid %d, now another process's: counter %s (%s), timer %s; the process %s\n", tid,
         fd < 0 ? "refused" : "opened", fd < 0 ? strerror(open_errno) : "-", timer < 0 ? "refused" : "made",
         WIFSIGNALED(status) ? strsignal(WTERMSIG(status)) : "ran to its end");
  if (fd >= 0)
    close(fd);
  fg_thread_timer_delete(timer);
  assert_true(fd < 0);
  assert_int_equal(open_errno, ESRCH);
  assert_true(timer < 0);
  assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(the_ring_holds_each_signals_kernel_frames),
    cmocka_unit_test(the_handler_moves_its_threads_period),
    cmocka_unit_test(a_detach_waits_for_no_reader),
    cmocka_unit_test(removed_slots_become_empty_again),
    cmocka_unit_test(a_probe_chain_is_bounded),
    cmocka_unit_test(a_tid_reused_by_another_process_gets_no_counter),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
