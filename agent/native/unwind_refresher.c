/* The unwind tables' refresher thread; see unwind_refresher.h. */
#include "native/unwind_refresher.h"

#include <poll.h>
#include <signal.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "fg/clock.h"

static void *refresher_main(void *arg)
{
  struct fg_unwind_refresher *r = arg;
  pthread_setname_np(pthread_self(), "fgagent unwind");
  sigset_t set;   /* never interrupted by a sample: it walks no Java and its counter's signals wait */
  sigemptyset(&set);
  sigaddset(&set, SIGPROF);
  pthread_sigmask(SIG_BLOCK, &set, NULL);
  int ms = (int)((r->period_ns + 999999) / 1000000);
  struct pollfd p = {r->tables->wake_fd, POLLIN, 0};
  while (!atomic_load(&r->stop)) {
    if (poll(&p, 1, ms) > 0) {
      uint64_t count;
      ssize_t rc = read(p.fd, &count, sizeof count);
      (void)rc;
    }
    if (!atomic_load(&r->stop))
      fg_unwind_tables_refresh(r->tables);
    atomic_store(&r->cpu_ns, fg_clock_ns(CLOCK_THREAD_CPUTIME_ID));
  }
  return NULL;
}

int fg_unwind_refresher_start(struct fg_unwind_refresher *r, struct fg_unwind_tables *t, uint64_t period_ns)
{
  r->tables = t;
  r->period_ns = period_ns;
  atomic_store(&r->stop, 0);
  atomic_store(&r->cpu_ns, 0);   /* a new thread's clock */
  r->started = 0;
  int fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (fd < 0)
    return -1;
  atomic_store(&t->wake_fd, fd);
  if (pthread_create(&r->thread, NULL, refresher_main, r) != 0) {
    atomic_store(&t->wake_fd, -1);
    close(fd);
    return -1;
  }
  r->started = 1;
  return 0;
}

void fg_unwind_refresher_stop(struct fg_unwind_refresher *r)
{
  if (!r->started)
    return;
  atomic_store(&r->stop, 1);
  int fd = atomic_exchange(&r->tables->wake_fd, -1);
  uint64_t one = 1;
  ssize_t rc = write(fd, &one, sizeof one);   /* out of its poll now, not at the period's end */
  (void)rc;
  pthread_join(r->thread, NULL);
  close(fd);
  r->started = 0;
}
