/* POSIX CPU timers a thread: SIGPROF to that very thread each interval of
 * its CPU time, from SI_TIMER, the signals and their si_overrun adding up to
 * the thread's CPU time / interval; made for another thread of the process;
 * silent once deleted; and the clock choice's verdicts on real figures. */
#include "unit.h"

#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sampling/cputimer/clock_choice.h"
#include "sampling/cputimer/thread_timer.h"

static _Atomic int signals, intervals, other_tid, wrong_code;
static _Atomic uint64_t cpu_at_last_signal;   /* the timed thread's CPU time at its last signal */

static uint64_t thread_cpu_ns(void)
{
  struct timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static void on_prof(int sig, siginfo_t *info, void *uc)
{
  (void)sig;
  (void)uc;
  if (info->si_code != SI_TIMER)
    atomic_fetch_add(&wrong_code, 1);
  if ((int)syscall(SYS_gettid) != atomic_load(&other_tid))
    return;   /* counted only on the thread the timer is for */
  atomic_fetch_add(&signals, 1);
  atomic_fetch_add(&intervals, 1 + (info->si_overrun > 0 ? info->si_overrun : 0));
  atomic_store(&cpu_at_last_signal, thread_cpu_ns());
}

static volatile uint64_t sink;

static void burn_ns(uint64_t ns)
{
  uint64_t until = thread_cpu_ns() + ns;
  uint64_t x = 1;
  while (thread_cpu_ns() < until)
    for (int i = 0; i < 10000; i++)
      x = x * 6364136223846793005u + 1442695040888963407u;
  sink = x;
}

static void install(void)
{
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_prof;
  sa.sa_flags = SA_SIGINFO | SA_RESTART;
  sigaction(SIGPROF, &sa, NULL);
  atomic_store(&signals, 0);
  atomic_store(&intervals, 0);
  atomic_store(&wrong_code, 0);
}

static void signals_add_up_to_the_threads_cpu_time(void **state)
{
  (void)state;
  install();
  atomic_store(&other_tid, (int)syscall(SYS_gettid));
  uint64_t start = thread_cpu_ns();
  int id = fg_thread_timer_create((int)syscall(SYS_gettid), 1000000);
  assert_true(id >= 0);
  burn_ns(300000000);   /* 300 intervals */
  fg_thread_timer_delete(id);
  /* every interval up to the last signal is in its overruns; what ran after
   * it, until the delete, is not signalled (the timer is checked only at the
   * ticks that find the thread running) */
  int n = atomic_load(&intervals);
  uint64_t signalled = atomic_load(&cpu_at_last_signal) - start;
  assert_true(signalled >= 200000000u);
  assert_true(n >= (int)(signalled / 1000000) - 1 && n <= (int)(signalled / 1000000) + 1);
  assert_true(atomic_load(&signals) >= 300 / 20);   /* at most a tick apart: HZ 100 or more */
  assert_int_equal(atomic_load(&wrong_code), 0);
  int before = atomic_load(&intervals);
  burn_ns(50000000);
  assert_int_equal(atomic_load(&intervals), before);   /* deleted: silent */
}

static _Atomic int spin_go, spin_tid;
static _Atomic uint64_t spin_cpu_at_go;

static void *spinner(void *arg)
{
  (void)arg;
  atomic_store(&spin_tid, (int)syscall(SYS_gettid));
  while (!atomic_load(&spin_go))
    ;
  atomic_store(&spin_cpu_at_go, thread_cpu_ns());
  burn_ns(200000000);
  return NULL;
}

/* Made by one thread for another, as fgagent's drainer does for threads it
 * finds: the other thread's CPU time is counted and it gets the signals. */
static void made_for_another_thread(void **state)
{
  (void)state;
  install();
  pthread_t th;
  atomic_store(&spin_tid, 0);
  atomic_store(&spin_go, 0);
  assert_int_equal(pthread_create(&th, NULL, spinner, NULL), 0);
  while (!atomic_load(&spin_tid))
    ;
  atomic_store(&other_tid, atomic_load(&spin_tid));
  int id = fg_thread_timer_create(atomic_load(&spin_tid), 2000000);
  assert_true(id >= 0);
  atomic_store(&spin_go, 1);
  pthread_join(th, NULL);
  fg_thread_timer_delete(id);
  /* the timer counted the spinner's CPU from before the go (it spun waiting
   * while this thread made the timer) to its last signal, 2 ms an interval;
   * what it ran after that signal, up to its end, is never signalled (the
   * timer is checked only at ticks that find the thread running: beside busy
   * processes that can be several ticks of its CPU apart) */
  int n = atomic_load(&intervals);
  uint64_t last = atomic_load(&cpu_at_last_signal), go = atomic_load(&spin_cpu_at_go);
  assert_true(last >= go + 100000000u);   /* most of the 200 ms signalled */
  assert_true(n >= (int)((last - go) / 2000000) - 1 && n <= (int)(last / 2000000) + 1);
}

static void a_dead_thread_gets_none(void **state)
{
  (void)state;
  assert_int_equal(fg_thread_timer_create(0x3fffffff, 1000000), -1);
}

/* SigQ's line read: queued and limit, an unlimited one as 2^64-1; none or
 * a broken one refused. */
static void sigq_is_read_from_the_status(void **state)
{
  (void)state;
  uint64_t q, l;
  const char *text = "Name:\tjava\nShdPnd:\t0000000000000000\nSigQ:\t12/63432\nSigPnd:\t0\n";
  assert_int_equal(fg_thread_timer_sigq(text, strlen(text), &q, &l), 0);
  assert_int_equal(q, 12);
  assert_int_equal(l, 63432);
  text = "x\nSigQ:\t3/18446744073709551615\n";
  assert_int_equal(fg_thread_timer_sigq(text, strlen(text), &q, &l), 0);
  assert_true(l == UINT64_MAX);
  assert_true(fg_thread_timer_room(q, l, 0) == UINT64_MAX / 2);
  text = "x\nSigQ:\t3/";
  assert_int_equal(fg_thread_timer_sigq(text, strlen(text), &q, &l), -1);
  text = "x\nSigQ:\t3 63432\n";
  assert_int_equal(fg_thread_timer_sigq(text, strlen(text), &q, &l), -1);
  assert_int_equal(fg_thread_timer_sigq("Name:\tx\n", 8, &q, &l), -1);
  assert_int_equal(fg_thread_timer_room(40, 100, 0), 30);
  assert_int_equal(fg_thread_timer_room(70, 100, 10), 25);   /* 10 held, 30 free: 15 more */
  assert_int_equal(fg_thread_timer_room(120, 100, 10), 10);  /* none free: none more */
}

/* In a process of uid, with RLIMIT_SIGPENDING at limit: n timers on its own
 * thread, each holding a signal queued in advance. Their count, or -1. */
static int timers_as(uid_t uid, rlim_t limit, int n)
{
  struct rlimit r = {limit, limit};
  if (setrlimit(RLIMIT_SIGPENDING, &r) != 0 || setgid(uid) != 0 || setuid(uid) != 0)
    return -1;
  int made = 0;
  while (made < n && fg_thread_timer_create((int)syscall(SYS_gettid), 3600000000000ull) >= 0)
    made++;
  return made;
}

/* RLIMIT_SIGPENDING counts the user's signals, not the process's: with
 * another process of the same user holding 40 of its 100, fgagent's budget
 * is half of the 60 left (30), not half the limit (50), and the timers it
 * then makes leave the user room. Needs root, to run both as an unused uid. */
static void the_budget_is_half_of_what_the_user_has_free(void **state)
{
  (void)state;
  if (geteuid() != 0) {
    printf("    skipped: not root, no unused uid to count in\n");
    return;
  }
  uid_t uid = 61000 + (uid_t)(getpid() % 4000);   /* no other process of this uid: its count is ours */
  int ready[2], hold[2], answer[2];
  assert_int_equal(pipe(ready), 0);
  assert_int_equal(pipe(hold), 0);
  assert_int_equal(pipe(answer), 0);
  pid_t other = fork();
  if (other == 0) {   /* another process of the user: 40 timers, held until told */
    close(hold[1]);
    char made = (char)timers_as(uid, 100, 40);
    if (write(ready[1], &made, 1) != 1)
      _exit(1);
    char c;
    _exit(read(hold[0], &c, 1) < 0);
  }
  char made = 0;
  assert_int_equal(read(ready[0], &made, 1), 1);
  assert_int_equal(made, 40);
  pid_t agent = fork();
  if (agent == 0) {   /* fgagent's process: its budget, then that many timers and the room left */
    uint64_t figures[3] = {0, 0, 0};
    if (timers_as(uid, 100, 0) == 0) {
      figures[0] = fg_thread_timer_budget(0);
      figures[1] = (uint64_t)timers_as(uid, 100, (int)figures[0]);
      figures[2] = fg_thread_timer_budget(figures[1]);
    }
    _exit(write(answer[1], figures, sizeof figures) != (ssize_t)sizeof figures);
  }
  uint64_t figures[3];
  assert_int_equal(read(answer[0], figures, sizeof figures), sizeof figures);
  close(hold[1]);
  waitpid(other, NULL, 0);
  waitpid(agent, NULL, 0);
  printf("    40 of 100 held by another process of the user: a budget of %llu (half the limit: 50), %llu made, "
         "then a budget of %llu\n", (unsigned long long)figures[0], (unsigned long long)figures[1],
         (unsigned long long)figures[2]);
  assert_int_equal(figures[0], 30);
  assert_int_equal(figures[1], 30);
  assert_int_equal(figures[2], 30 + 15);   /* 30 held, 30 free: half of those */
}

/* The verdicts on figures: CPU per switch against the two bounds, the
 * window waited for. */
static void clock_verdicts(void **state)
{
  (void)state;
  assert_int_equal(fg_clock_decide(20000000, 5, 1), FG_CLOCK_TO_COUNTER);   /* 4 ms a switch */
  assert_int_equal(fg_clock_decide(20000000, 0, 1), FG_CLOCK_TO_COUNTER);
  assert_int_equal(fg_clock_decide(20000000, 20, 1), FG_CLOCK_TO_COUNTER);  /* 1 ms */
  assert_int_equal(fg_clock_decide(20000000, 40, 1), FG_CLOCK_STAY);        /* 0.5 ms: between the bounds */
  assert_int_equal(fg_clock_decide(20000000, 100, 0), FG_CLOCK_TO_TIMER);   /* 0.2 ms */
  assert_int_equal(fg_clock_decide(20000000, 40, 0), FG_CLOCK_STAY);
  assert_int_equal(fg_clock_decide(20000000, 0, 0), FG_CLOCK_STAY);
  struct fg_clock_watch w = {0};
  assert_int_equal(fg_clock_judge(&w, 5000000, 10, 1), FG_CLOCK_STAY);   /* the window starts */
  assert_int_equal(fg_clock_judge(&w, 15000000, 10, 1), FG_CLOCK_STAY);  /* 10 ms: not yet judged */
  assert_int_equal(w.cpu_ns, 5000000);
  assert_int_equal(fg_clock_judge(&w, 30000000, 12, 1), FG_CLOCK_TO_COUNTER);   /* 25 ms, 2 switches */
  assert_int_equal(w.cpu_ns, 30000000);
  assert_int_equal(fg_clock_judge(&w, 52000000, 112, 0), FG_CLOCK_TO_TIMER);     /* 22 ms, 100 switches */
}

static _Atomic int ping;

static void *ponger(void *arg)
{
  (void)arg;
  for (;;) {   /* until ping is -1 */
    int p;
    while ((p = atomic_load(&ping)) == 0)
      sched_yield();
    if (p < 0)
      return NULL;
    atomic_store(&ping, 0);
  }
}

/* fg_clock_look on the calling thread's own figures: a thread that only
 * computes earns a counter; one that hands off every few microseconds is
 * sent back to a timer. */
static void looks_judge_the_threads_own_figures(void **state)
{
  (void)state;
  struct fg_clock_watch w = {0};
  enum fg_clock_wish v = FG_CLOCK_STAY;
  for (int i = 0; i < 50 && v == FG_CLOCK_STAY; i++) {
    burn_ns(1000000);
    v = fg_clock_look(&w, 1);
  }
  assert_int_equal(v, FG_CLOCK_TO_COUNTER);
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(0, &one);
  sched_setaffinity(0, sizeof one, &one);   /* both on one CPU: each handoff a switch */
  pthread_t th;
  atomic_store(&ping, 0);
  assert_int_equal(pthread_create(&th, NULL, ponger, NULL), 0);
  memset(&w, 0, sizeof w);
  v = FG_CLOCK_STAY;
  /* until a window of FG_CLOCK_WINDOW_NS of this thread's CPU is judged:
   * the handoffs it takes depend on how fast the host switches */
  for (int i = 0; i < 1000000 && v == FG_CLOCK_STAY; i++) {
    atomic_store(&ping, 1);
    while (atomic_load(&ping) != 0)
      sched_yield();
    v = fg_clock_look(&w, 0);
  }
  atomic_store(&ping, -1);   /* the ponger leaves */
  pthread_join(th, NULL);
  assert_int_equal(v, FG_CLOCK_TO_TIMER);
}

/* A thread on a timer is looked at at every signal (one a tick at most),
 * one on a counter at every 8th; a thread computing from its start, its
 * timer signalling once a tick (4 ms), so earns its counter at its 6th
 * signal (the first look, then a window of 20 ms), not 8 ticks after it. */
static void a_computing_thread_earns_its_counter_within_a_window(void **state)
{
  (void)state;
  struct fg_clock_watch w = {0};
  for (int i = 0; i < 5; i++)
    assert_true(fg_clock_looks_now(&w, 1));
  int looks = 0;
  for (int i = 0; i < 16; i++)
    looks += fg_clock_looks_now(&w, 0);
  assert_int_equal(looks, 2);
  memset(&w, 0, sizeof w);
  int signal = 0;
  enum fg_clock_wish v = FG_CLOCK_STAY;
  while (signal < 20 && v == FG_CLOCK_STAY) {
    signal++;
    if (fg_clock_looks_now(&w, 1))
      v = fg_clock_judge(&w, (uint64_t)signal * 4000000u, 1, 1);
  }
  assert_int_equal(v, FG_CLOCK_TO_COUNTER);
  assert_int_equal(signal, 6);   /* 4 ms at the first look, 24 ms at the 6th (every 8th look: the 16th) */
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(signals_add_up_to_the_threads_cpu_time),
      cmocka_unit_test(a_computing_thread_earns_its_counter_within_a_window),
      cmocka_unit_test(made_for_another_thread),
      cmocka_unit_test(a_dead_thread_gets_none),
      cmocka_unit_test(sigq_is_read_from_the_status),
      cmocka_unit_test(the_budget_is_half_of_what_the_user_has_free),
      cmocka_unit_test(clock_verdicts),
      cmocka_unit_test(looks_judge_the_threads_own_figures),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
