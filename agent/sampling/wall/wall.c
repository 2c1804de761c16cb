/* The wall-clock sampler thread; see wall.h. */
#include "sampling/wall/wall.h"

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "fg/clock.h"
#include "fg/sample_record.h"
#include "sampling/timer.h"
#include "sampling/wall/task_files.h"

#define IDLE_CPU_NS 50000   /* returning from our own handler to sleep costs a few us */

const char *fg_wall_state_frame(uint32_t state)
{
  static const char *const names[] = {"", "[state=running]", "[state=sleeping]", "[state=uninterruptible]",
                                      "[state=stopped]", "[state=other]", "[state=runnable]"};
  return state < sizeof names / sizeof names[0] ? names[state] : "[state=other]";
}

/* Another thread's CPU clock: the kernel's encoding of a per-thread clockid. */
static uint64_t thread_cpu_ns(int tid)
{
  return fg_clock_ns((clockid_t)((~(unsigned)tid << 3) | 6));
}

/* /proc/self/task/TID/<name> into buf (NUL-terminated), through *fd, opened
 * at the first read and kept while the descriptors kept stay within the
 * budget, else opened and closed again for each read; 0 when it cannot be
 * read. Under the registry lock. */
static ssize_t read_task_file(struct fg_wall *w, int *fd, int tid, const char *name, char *buf, size_t len)
{
  int once = -1;
  if (*fd < 0) {
    char path[64];
    snprintf(path, sizeof path, "/proc/self/task/%d/%s", tid, name);
    once = open(path, O_RDONLY | O_CLOEXEC);
    if (once >= 0 && w->fds_kept < w->fd_budget) {
      *fd = once;
      once = -1;
      w->fds_kept++;
    }
  }
  ssize_t n = pread(*fd >= 0 ? *fd : once, buf, len - 1, 0);
  if (once >= 0)
    close(once);
  if (n <= 0)
    return 0;
  buf[n] = '\0';
  return n;
}

/* Closes the descriptors t's looks kept. Under the registry lock. */
static void forget_files(struct fg_wall *w, struct fg_thread *t)
{
  int *fds[] = {&t->wall_stat_fd, &t->wall_schedstat_fd};
  for (int i = 0; i < 2; i++)
    if (*fds[i] >= 0) {
      close(*fds[i]);
      *fds[i] = -1;
      w->fds_kept--;
    }
}

/* The state letter in /proc/self/task/TID/stat, after the ") " closing the name. */
static uint32_t kernel_state(struct fg_wall *w, struct fg_thread *t)
{
  char buf[512];
  if (!read_task_file(w, &t->wall_stat_fd, t->tid, "stat", buf, sizeof buf))
    return FG_STATE_OTHER;
  switch (fg_task_stat_state(buf)) {
  case 'R': return FG_STATE_RUNNING;
  case 'S': return FG_STATE_SLEEPING;
  case 'D': return FG_STATE_UNINTERRUPTIBLE;
  case 'T': case 't': return FG_STATE_STOPPED;
  default: return FG_STATE_OTHER;
  }
}

/* The thread's /proc/self/task/TID/schedstat: time on a CPU, time waiting
 * in a run queue (ns), times it was put on a CPU. 0 when it has none. */
static int read_schedstat(struct fg_wall *w, struct fg_thread *t, uint64_t *run, uint64_t *wait, uint64_t *runs)
{
  char buf[128];
  if (!read_task_file(w, &t->wall_schedstat_fd, t->tid, "schedstat", buf, sizeof buf))
    return 0;
  uint64_t v[3];
  if (!fg_task_schedstat(buf, v))
    return 0;
  *run = v[0];
  *wait = v[1];
  *runs = v[2];
  return 1;
}

/* A thread in R: on a CPU, or waiting for one. Over the time since the
 * last look the scheduler counted dr on a CPU and dw in a run queue. Of a
 * thread's R samples, the share labelled runnable must be its share of R
 * time spent waiting, sum(dw) / sum(dr + dw): the time waited is carried
 * over, and a sample is runnable each time the carry reaches an average
 * R interval (a ratio of sums; labelling each sample by its own interval's
 * dw / (dr + dw) undercounted waiting by 8 points beside two busy loops,
 * the intervals being longer when the thread waits). */
static uint32_t running_or_runnable(struct fg_thread *t, int have_schedstat, uint64_t run, uint64_t wait)
{
  if (!have_schedstat)
    return FG_STATE_RUNNING;   /* a kernel without schedstat: R as it was */
  uint64_t dr = run - t->wall_run_ns, dw = wait - t->wall_wait_ns;
  int first = t->wall_run_ns == 0 && t->wall_wait_ns == 0;
  t->wall_run_ns = run;
  t->wall_wait_ns = wait;
  if (first || dr + dw == 0)
    return FG_STATE_RUNNING;
  t->wall_r_ns += dr + dw;
  t->wall_r_looks++;
  t->wall_waited_ns += dw;
  uint64_t average = t->wall_r_ns / t->wall_r_looks;
  if (t->wall_waited_ns < average)
    return FG_STATE_RUNNING;
  t->wall_waited_ns -= average;
  return FG_STATE_RUNNABLE;
}

static void repeat(struct fg_wall *w, struct fg_thread *t, const struct fg_trace *trace)
{
  uint64_t *rec = fg_ring_reserve(&w->repeats, 5);
  if (!rec) {
    atomic_fetch_add(&w->repeats_lost, 1);
    return;
  }
  rec[0] = fg_ring_header(5, FG_RECORD_REPEAT);
  rec[1] = (uint64_t)(uintptr_t)t;
  rec[2] = t->serial;
  rec[3] = t->wall_last_state;
  rec[4] = (uint64_t)(uintptr_t)trace;
  fg_ring_commit(&w->repeats, 5);
  atomic_fetch_add(&w->repeats_taken, 1);
}

/* The stack to count again for a thread that, asleep when signalled at an
 * earlier look, has done nothing since but run our handler, or NULL: its CPU
 * clock has not moved past the handler's end, it was put on a CPU once since
 * that signal (a thread that woke and slept again elsewhere, using less CPU
 * than that, was put on one more often), and the handler kept its sample's
 * stack. A thread on a CPU or waiting for one when signalled went on running
 * after the handler: never counted again. */
static const struct fg_trace *idle_since_signal(struct fg_thread *t, int have_schedstat, uint64_t run,
                                                uint64_t runs)
{
  if (t->wall_last_state == FG_STATE_RUNNING || t->wall_last_state == FG_STATE_RUNNABLE)
    return NULL;
  uint64_t after = atomic_load_explicit(&t->cpu_at_sample, memory_order_acquire);
  const struct fg_trace *trace = atomic_load_explicit(&t->wall_trace, memory_order_relaxed);
  if (!after || !trace)
    return NULL;
  if (!have_schedstat)   /* a kernel without schedstat: the clock alone */
    return thread_cpu_ns(t->tid) < after + IDLE_CPU_NS ? trace : NULL;
  return run < after + IDLE_CPU_NS && runs == t->wall_runs_idle ? trace : NULL;
}

/* One look at one thread. Under the registry lock. */
static void visit(struct fg_wall *w, struct fg_thread *t, uint64_t now, pid_t pid)
{
  if (t->wall_serial != t->serial) {   /* a new registration in this record */
    forget_files(w, t);
    t->wall_run_ns = t->wall_wait_ns = t->wall_r_ns = t->wall_r_looks = t->wall_waited_ns = 0;
    t->wall_runs_idle = 0;
    /* no signal of an earlier registration or session is waited for: one sent
     * just before a stop was dropped with SIGPROF ignored */
    atomic_store(&t->wall_handled, t->wall_signals);
    t->wall_serial = t->serial;
    t->wall_last_ns = now - w->interval_ns;
    t->wall_last_state = FG_STATE_NONE;
  }
  atomic_fetch_add(&w->sampled_ns, now - t->wall_last_ns);
  t->wall_last_ns = now;
  if (t->wall_last_state != FG_STATE_NONE &&
      atomic_load_explicit(&t->wall_handled, memory_order_acquire) != t->wall_signals) {
    /* the last signal's handler has not run (the thread waits for a CPU): it
     * has not moved since, and a second signal would merge with the first,
     * so this tick goes into the sample that handler will take */
    atomic_fetch_add_explicit(&t->wall_owed, 1, memory_order_relaxed);
    atomic_fetch_add(&w->joined, 1);
    return;
  }
  uint64_t run = 0, wait = 0, runs = 0;
  int have = read_schedstat(w, t, &run, &wait, &runs);
  const struct fg_trace *idle = t->wall_last_state != FG_STATE_NONE ? idle_since_signal(t, have, run, runs) : NULL;
  if (idle) {
    repeat(w, t, idle);   /* asleep where it was: do not wake it */
    return;
  }
  uint32_t state = kernel_state(w, t);
  if (state == FG_STATE_RUNNING)
    state = running_or_runnable(t, have, run, wait);
  t->wall_runs_idle = have ? runs + 1 : 0;   /* put on a CPU once more: for our handler */
  t->wall_last_state = state;
  atomic_store(&t->wall_state, state);
  atomic_store_explicit(&t->wall_signalled, ++t->wall_signals, memory_order_release);
  if (syscall(SYS_tgkill, pid, t->tid, SIGPROF) == 0)
    atomic_fetch_add(&w->signals, 1);
  else
    atomic_store_explicit(&t->wall_handled, t->wall_signals, memory_order_relaxed);   /* nothing to wait for */
}

static void *wall_main(void *arg)
{
  struct fg_wall *w = arg;
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGPROF);
  pthread_sigmask(SIG_BLOCK, &set, NULL);
  pid_t pid = getpid();
  uint64_t next = fg_clock_ns(CLOCK_MONOTONIC);
  while (!atomic_load(&w->stop)) {
    next += w->interval_ns;
    uint64_t now = fg_clock_ns(CLOCK_MONOTONIC);
    struct fg_registry *r = w->registry;
    pthread_mutex_lock(&r->lock);
    int visited = 0;
    for (uint32_t step = 0; step < r->n && visited < w->per_tick; step++) {
      struct fg_thread *t = r->all[(w->cursor + step) % r->n];
      if (atomic_load(&t->state) != FG_THREAD_LIVE) {
        forget_files(w, t);   /* its thread has ended: its descriptors are the application's again */
        continue;
      }
      visit(w, t, now, pid);
      visited++;
      if (visited == w->per_tick)
        w->cursor = (w->cursor + step + 1) % r->n;
    }
    pthread_mutex_unlock(&r->lock);
    atomic_store(&w->cpu_ns, fg_clock_ns(CLOCK_THREAD_CPUTIME_ID));
    now = fg_clock_ns(CLOCK_MONOTONIC);
    if (next > now) {
      struct timespec ts = {(time_t)((next - now) / 1000000000ull), (long)((next - now) % 1000000000ull)};
      nanosleep(&ts, NULL);
    } else {
      next = now;   /* fell behind: do not burst */
    }
  }
  return NULL;
}

int fg_wall_start(struct fg_wall *w, struct fg_registry *r, uint64_t interval_ns, int per_tick)
{
  pthread_mutex_lock(&r->lock);   /* a new session (attach: start after stop) looks at every thread afresh */
  for (uint32_t i = 0; i < r->n; i++)
    r->all[i]->wall_serial = 0;
  pthread_mutex_unlock(&r->lock);
  w->registry = r;
  w->interval_ns = interval_ns;
  w->per_tick = per_tick;
  w->fd_budget = fg_fd_budget();
  w->fds_kept = 0;
  if (fg_ring_init(&w->repeats, 256 * 1024) != 0)
    return -1;
  if (pthread_create(&w->thread, NULL, wall_main, w) != 0)
    return -1;
  w->started = 1;
  return 0;
}

void fg_wall_stop(struct fg_wall *w)
{
  if (!w->started)
    return;
  atomic_store(&w->stop, 1);
  pthread_join(w->thread, NULL);
  w->started = 0;
  pthread_mutex_lock(&w->registry->lock);   /* no descriptor outlives the session */
  for (uint32_t i = 0; i < w->registry->n; i++)
    forget_files(w, w->registry->all[i]);
  pthread_mutex_unlock(&w->registry->lock);
}

void fg_wall_destroy(struct fg_wall *w)
{
  fg_wall_stop(w);
  if (w->repeats.capacity)
    fg_ring_destroy(&w->repeats);
  memset(w, 0, sizeof *w);
}
