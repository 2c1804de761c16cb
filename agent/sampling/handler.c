/* The SIGPROF handler: one stack walk per signal, written into the current
 * thread's ring.
 *
 * Async-signal-safe code only. It may call: AsyncGetCallTrace (made for this),
 * the fg_ring producer functions, fg_foreign_add, fg_sample_encode, the
 * gettid syscall, clock_gettime(CLOCK_MONOTONIC) and C11 atomics. It never calls JNI or JVMTI (not even
 * GetEnv: on thread churn that deadlocks the JVM inside malloc), never
 * allocates, never locks, never uses stdio, and restores errno. */
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "fg/sample_record.h"
#include "sampler.h"
#include "../jvmti/threads.h"

static struct fg_sampler *active_sampler;

static void count_foreign(struct fg_sampler *s)
{
  atomic_fetch_add_explicit(&s->foreign_taken, 1, memory_order_relaxed);
  fg_foreign_add(s->foreign, (int)syscall(SYS_gettid));
}

static void bump(_Atomic uint64_t *counter)
{
  /* single writer: this thread */
  atomic_store_explicit(counter, atomic_load_explicit(counter, memory_order_relaxed) + 1,
                        memory_order_relaxed);
}

static uint64_t now_ns(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);   /* vDSO: no syscall, async-signal-safe */
  return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void walk_and_store(struct fg_sampler *s, struct fg_thread *t, void *ucontext)
{
  uint64_t start = now_ns();
  bump(&t->taken);
  ASGCT_CallTrace trace = {t->env, 0, t->scratch};
  /* ASGCT fills at most depth frames and says nothing of what it left out:
   * ask for one more than we keep to know that a stack was cut. */
  s->asgct(&trace, s->depth + 1, ucontext);
  int32_t n = trace.num_frames;
  uint32_t flags = 0;
  if (n > s->depth) {
    n = s->depth;        /* keep the leaf side; the root side is lost */
    flags |= FG_SAMPLE_TRUNCATED;
  }
  uint32_t words = fg_sample_words(n > 0 ? (uint32_t)n : 0);
  uint64_t *w = fg_ring_reserve(&t->ring, words);
  if (w) {
    fg_sample_encode(w, t->serial, n, flags, t->scratch);
    fg_ring_commit(&t->ring, words);
  } else {
    bump(&t->overruns);
  }
  /* fgagent's own cost, reported in the summary (single writer: this thread) */
  atomic_store_explicit(&t->handler_ns,
                        atomic_load_explicit(&t->handler_ns, memory_order_relaxed) + now_ns() - start,
                        memory_order_relaxed);
}

static void on_sigprof(int signo, siginfo_t *info, void *ucontext)
{
  (void)signo;
  (void)info;
  int saved_errno = errno;
  struct fg_sampler *s = active_sampler;
  if (s) {
    atomic_fetch_add(&s->in_handler, 1);
    if (atomic_load_explicit(&s->enabled, memory_order_acquire)) {
      struct fg_thread *t = fg_current_thread;
      if (t)
        walk_and_store(s, t, ucontext);
      else
        count_foreign(s);
    }
    atomic_fetch_sub(&s->in_handler, 1);
  }
  errno = saved_errno;
}

int fg_sampler_install(struct fg_sampler *s)
{
  active_sampler = s;
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_sigprof;
  sa.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset(&sa.sa_mask);
  atomic_store(&s->enabled, 1);
  return sigaction(SIGPROF, &sa, NULL);
}

void fg_sampler_shutdown(struct fg_sampler *s)
{
  atomic_store(&s->enabled, 0);
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = SIG_IGN;
  sigaction(SIGPROF, &sa, NULL);
  while (atomic_load(&s->in_handler) > 0)
    sched_yield();
}
