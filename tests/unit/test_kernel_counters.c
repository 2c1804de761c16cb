/* A kernel event's counters on this very process: a thread's counter
 * entered for the handler, its overflow sending FG_KEVENT_SIGNAL with its fd in
 * si_fd to that thread; the descriptor budget, past which a thread gets
 * none (counted); a thread's end and the stop closing every descriptor. */
#include "unit.h"

#include <dirent.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "sampling/kernel_events/kernel_counters.h"
#include "sampling/sampler.h"   /* FG_KEVENT_SIGNAL */

static int open_count(void)
{
  DIR *d = opendir("/proc/self/fd");
  int n = 0;
  struct dirent *e;
  while (d && (e = readdir(d)) != NULL)
    n += e->d_name[0] != '.';
  if (d)
    closedir(d);
  return n;
}

static _Atomic int signals, own_fd_signals;
static _Atomic int expected_fd = -1;

static void on_prof(int signo, siginfo_t *info, void *uc)
{
  (void)signo;
  (void)uc;
  atomic_fetch_add(&signals, 1);
  if (info->si_code > 0 && info->si_fd == atomic_load(&expected_fd))
    atomic_fetch_add(&own_fd_signals, 1);
}

static void fault_pages(int n)
{
  for (int i = 0; i < n; i++) {
    char *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    assert_true(p != MAP_FAILED);
    p[0] = 1;
    munmap(p, 4096);
  }
}

static void a_threads_counter_signals_it_with_its_fd(void **state)
{
  (void)state;
  struct sigaction sa = {0};
  sa.sa_sigaction = on_prof;
  sa.sa_flags = SA_SIGINFO | SA_RESTART;
  sigaction(FG_KEVENT_SIGNAL, &sa, NULL);
  struct fg_fd_room room = {0};
  struct fg_kevents k;
  fg_kevents_init(&k, &room);
  struct fg_kevent_spec spec;
  char err[512];
  assert_int_equal(fg_kevent_parse("page-faults", &spec, err, sizeof err), 0);
  int before = open_count();
  if (fg_kevents_start(&k, &spec, 10, 0, 100, err, sizeof err) != 0)
    skip();   /* perf_events refused here */
  fg_kevents_go(&k);
  int tid = (int)gettid();
  fg_kevents_thread_start(&k, tid);
  struct fg_perf_reach r;
  fg_perf_threads_enter(k.table, tid, &r);
  assert_true(r.fd >= 0);
  atomic_store(&expected_fd, r.fd);
  fg_perf_threads_leave(&r);
  fault_pages(1000);
  assert_true(atomic_load(&own_fd_signals) >= 90);   /* a signal every 10 faults, on this thread */
  assert_int_equal(atomic_load(&own_fd_signals), atomic_load(&signals));
  assert_int_equal(k.counted, 1);
  fg_kevents_thread_end(&k, tid);
  fg_perf_threads_enter(k.table, tid, &r);
  assert_int_equal(r.fd, -1);   /* gone from the table at the thread's end */
  fg_perf_threads_leave(&r);
  fg_kevents_stop(&k);
  assert_int_equal(open_count(), before);
  signal(FG_KEVENT_SIGNAL, SIG_IGN);
}

static void *parked(void *arg)
{
  pthread_barrier_t *b = arg;
  pthread_barrier_wait(b);   /* counted */
  pthread_barrier_wait(b);   /* let go */
  return NULL;
}

static void the_budget_is_kept_and_every_descriptor_returned(void **state)
{
  (void)state;
  signal(FG_KEVENT_SIGNAL, SIG_IGN);
  struct fg_fd_room room = {0};
  struct fg_kevents k;
  fg_kevents_init(&k, &room);
  struct fg_kevent_spec spec;
  char err[512];
  assert_int_equal(fg_kevent_parse("context-switches", &spec, err, sizeof err), 0);
  pthread_barrier_t b;
  pthread_barrier_init(&b, NULL, 4);
  pthread_t th[3];
  for (int i = 0; i < 3; i++)
    pthread_create(&th[i], NULL, parked, &b);
  pthread_barrier_wait(&b);
  int before = open_count();
  if (fg_kevents_start(&k, &spec, 1000, 1, 2, err, sizeof err) != 0)
    skip();
  fg_kevents_go(&k);
  fg_kevents_scan(&k);   /* this thread and three others: two get a counter */
  assert_int_equal(k.counted, 2);
  assert_int_equal(k.no_fd, 2);
  assert_int_equal(k.held, 2);
  assert_int_equal(open_count(), before + 2);
  fg_kevents_stop(&k);
  assert_int_equal(k.held, 0);
  assert_int_equal(open_count(), before);
  fg_kevents_scan(&k);   /* stopped: nothing opens */
  assert_int_equal(open_count(), before);
  pthread_barrier_wait(&b);
  for (int i = 0; i < 3; i++)
    pthread_join(th[i], NULL);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(a_threads_counter_signals_it_with_its_fd),
      cmocka_unit_test(the_budget_is_kept_and_every_descriptor_returned),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
