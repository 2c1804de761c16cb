/* Per-thread perf_events cpu-clock counters that signal their own thread. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "sampling/copy/copy_record.h"
#include "sampling/cputimer/clock_choice.h"
#include "sampling/cputimer/thread_timer.h"
#include "sampling/timer.h"

int fg_perf_open(int tid, uint64_t interval_ns, int exclude_kernel, int kernel_callchain, uint32_t copy_bytes, int cpu,
                 int output_fd)
{
  struct perf_event_attr attr;
  memset(&attr, 0, sizeof attr);
  attr.size = sizeof attr;
  attr.type = PERF_TYPE_SOFTWARE;
  attr.config = PERF_COUNT_SW_CPU_CLOCK;
  attr.sample_period = interval_ns;
  attr.disabled = 1;
  attr.wakeup_events = 1;
  attr.exclude_kernel = exclude_kernel ? 1 : 0;
  attr.exclude_hv = 1;
  if (kernel_callchain) {   /* the kernel's part of the stack, into the ring perf_threads.c maps */
    attr.sample_type = PERF_SAMPLE_CALLCHAIN;
    attr.exclude_callchain_user = 1;
    attr.sample_max_stack = FG_MAX_KERNEL_FRAMES;
  }
  if (copy_bytes) {   /* walker=copy: registers and stack into the ring, no signal */
    attr.sample_type = fg_copy_sample_type(kernel_callchain);
    attr.sample_regs_user = fg_copy_regs_mask();
    attr.sample_stack_user = copy_bytes;
    attr.use_clockid = 1;
    attr.clockid = CLOCK_MONOTONIC;
    attr.wakeup_events = 0;   /* nobody waits: the engine reads the ring on its own clock */
    attr.read_format = PERF_FORMAT_LOST;   /* samples lost, readable at any time (Linux 6.0) */
  }
  return fg_perf_open_attr(&attr, tid, cpu, output_fd, copy_bytes ? 0 : SIGPROF);
}

int fg_perf_open_attr(struct perf_event_attr *attr_in, int tid, int cpu, int output_fd, int signo)
{
  struct perf_event_attr attr = *attr_in;

  /* Another thread's tid names it only while it lives: one that ended may
   * have its tid taken by a thread of any process, whose counter would
   * measure it and send it SIGPROF (its default action ends that process).
   * The thread's /proc/self/task directory is held around the open: it
   * resolves only for a thread of this process, and keeps naming that very
   * thread (not a later one with its tid), so a lookup in it after the open
   * succeeds only if the thread lived all along, and the counter, made
   * disabled, is the thread's. (A POSIX timer needs no such care: the
   * kernel takes only a thread of the caller's own process for its clock
   * and its signal, good_sigevent and posix_cpu_timer_create.) */
  int alive = -1;
  if (tid != (int)syscall(SYS_gettid)) {
    char path[48];
    snprintf(path, sizeof path, "/proc/self/task/%d", tid);
    alive = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (alive < 0 && (errno == ENOENT || errno == ESRCH) && access("/proc/self/task", F_OK) == 0) {
      errno = ESRCH;   /* not a thread of this process (any more) */
      return -1;
    }
    if (alive < 0 && (errno == EMFILE || errno == ENFILE))
      return -1;   /* out of descriptors: said as such, not as a thread that ended */
  }
  int fd = (int)syscall(SYS_perf_event_open, &attr, tid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
  if (fd < 0 && (attr.read_format & PERF_FORMAT_LOST) && errno == EINVAL) {   /* an older kernel: its PERF_RECORD_LOST only */
    attr.read_format = 0;
    fd = (int)syscall(SYS_perf_event_open, &attr, tid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
  }
  if (alive >= 0) {
    int lived = faccessat(alive, "stat", F_OK, 0) == 0;
    close(alive);
    if (fd >= 0 && !lived) {
      close(fd);
      fd = -1;
      errno = ESRCH;   /* it ended: the counter may be another's */
    }
  } else if (fd >= 0 && tid != (int)syscall(SYS_gettid) && syscall(SYS_tgkill, getpid(), tid, 0) != 0) {
    close(fd);   /* no /proc: at least a thread of ours by that tid now */
    fd = -1;
    errno = ESRCH;
  }
  if (fd < 0)
    return -1;
  struct f_owner_ex owner = {F_OWNER_TID, tid};
  /* signals its thread, unless its samples are copies the engine reads */
  if ((signo && (fcntl(fd, F_SETFL, O_ASYNC | O_NONBLOCK) != 0 || fcntl(fd, F_SETSIG, signo) != 0 ||
                       fcntl(fd, F_SETOWN_EX, &owner) != 0)) ||
      (output_fd >= 0 && ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, output_fd) != 0) ||
      ioctl(fd, PERF_EVENT_IOC_ENABLE, 0) != 0) {
    int saved = errno;
    close(fd);
    errno = saved;
    return -1;
  }
  return fd;
}

/* Index of tid in the table, or -1. Under the lock. */
static int find(struct fg_timer *t, int tid)
{
  for (uint32_t i = 0; i < t->nfds; i++)
    if (t->fds[i].tid == tid)
      return (int)i;
  return -1;
}

/* tid's counter fd (FG_FD_COPYING: its counters a CPU) gone: out of the
 * perf table, which closes it once no handler reads it (never waiting for
 * one), or closed here when the table never had it. Under the lock. */
static void close_counter(struct fg_timer *t, int tid, int fd)
{
  int owned = t->perf && fg_perf_threads_detach(t->perf, tid);
  if (fd >= 0 && !owned)
    close(fd);
}

/* What retired perf entries hold, closed once no handler reads them. Under the lock. */
static void reclaim(struct fg_timer *t)
{
  if (t->perf && t->perf->nretired)
    fg_perf_threads_reclaim(t->perf);
}

static void remove_at(struct fg_timer *t, uint32_t i)
{
  int fd = t->fds[i].fd;
  if (fd == FG_FD_COPYING)
    t->copy_threads--;
  if (fd == FG_FD_TIMER) {
    fg_thread_timer_delete(t->fds[i].timer);
    t->timers--;
  } else if (fd == FG_FD_NONE)
    t->unsampled--;
  else
    close_counter(t, t->fds[i].tid, fd);
  t->fds[i] = t->fds[--t->nfds];
}

/* Closes fds[0..n); -1, errno kept. */
static int close_all_of(const int *fds, int n)
{
  int saved = errno;
  for (int c = 0; c < n; c++)
    if (fds[c] >= 0)
      close(fds[c]);
  errno = saved;
  return -1;
}

/* The descriptors the counters hold now: one a signalling thread, one a
 * CPU for a copying thread, and walker=copy's rings' own. Under the lock. */
static uint64_t fds_held(const struct fg_timer *t)
{
  uint64_t nrings = t->copy_bytes && t->perf ? (uint64_t)t->perf->rings.nrings : 0;
  uint64_t retired = t->perf ? fg_perf_threads_held(t->perf) : 0;   /* closed once no handler reads them */
  return (t->nfds - t->copy_threads - t->unsampled - t->timers) + (uint64_t)t->copy_threads * nrings + nrings +
         t->opening + retired;
}

/* Whether n more descriptors keep the counters within want of the budget
 * (FG_FD_SHARE of the open-file limit: the rest is the application's). */
static int within_budget(const struct fg_timer *t, uint64_t n, uint64_t want)
{
  return fds_held(t) + n <= want;
}

/* walker=copy: tid's counter on each CPU, writing into that CPU's ring,
 * entered in the table. 0; -1 with errno when one was refused (none is
 * left open), EMFILE when they would take copying past three quarters of
 * the descriptor budget (the last quarter is for threads signalled). */
static int add_copying(struct fg_timer *t, int tid)
{
  const struct fg_cpu_rings *rings = &t->perf->rings;
  if (!within_budget(t, (uint64_t)rings->nrings, t->fd_budget / 4 * 3)) {
    errno = EMFILE;
    return -1;
  }
  int *fds = t->cpu_fds;
  int opened = 0;
  for (int c = 0; c < rings->ncpu; c++) {
    int out = fg_cpu_rings_fd(rings, c);
    fds[c] = out < 0 ? -1 : fg_perf_open(tid, t->interval_ns, t->exclude_kernel, t->perf->callchain, t->copy_bytes,
                                         c, out);
    if (out >= 0 && fds[c] < 0)
      return close_all_of(fds, opened);
    fg_fd_room_note(&t->fd_room, fds[c]);
    opened = c + 1;
  }
  if (fg_perf_threads_attach_cpus(t->perf, tid, fds) == 0) {
    t->copy_threads++;
    return 0;
  }
  errno = EMFILE;   /* the table's: as full as a process out of files */
  return close_all_of(fds, opened);
}

/* tid left without a counter, the budget spent: entered as such (a scan
 * then passes over it), counted once, said once a session. Under the
 * lock, with room in the table. */
static void refuse(struct fg_timer *t, int tid)
{
  t->fds[t->nfds++] = (struct fg_perf_fd){tid, FG_FD_NONE, t->generation, -1};
  t->unsampled++;
  t->no_fd++;
  struct rlimit files;   /* the limit itself: the budget may be shared with a kernel event's (event=NAME) */
  if (t->no_fd == 1)
    fprintf(stderr, "fgagent: warning: the descriptor budget is spent (%llu of RLIMIT_NOFILE %llu, the rest kept for "
            "the application): threads started from now on are not sampled; the summary counts them (raise "
            "ulimit -n to sample them)\n", (unsigned long long)t->fd_budget,
            getrlimit(RLIMIT_NOFILE, &files) == 0 ? (unsigned long long)files.rlim_cur : 0ull);
}

/* walker=copy: tid's counter signalling it instead, entered in the table
 * (its page, with the kernel's callchain when kept, and its fd for the
 * period's variation). Its fd, or -1. */
static int open_signalling(struct fg_timer *t, int tid)
{
  if (!within_budget(t, 1, t->fd_budget)) {
    errno = EMFILE;
    return -1;
  }
  int fd = fg_perf_open(tid, t->interval_ns, t->exclude_kernel, t->perf->callchain, 0, -1, -1);
  if (fd < 0) {
    t->open_failures++;
    return -1;
  }
  fg_fd_room_note(&t->fd_room, fd);
  fg_perf_threads_attach(t->perf, tid, fd);
  return fd;
}

/* Room for one more entry in the table. 0, or -1 (counted) when out of
 * memory. Under the lock. */
static int make_room(struct fg_timer *t)
{
  if (t->nfds < t->cap)
    return 0;
  uint32_t cap = t->cap ? t->cap * 2 : 64;
  struct fg_perf_fd *fds = realloc(t->fds, cap * sizeof *fds);
  if (!fds) {
    t->open_failures++;
    return -1;
  }
  t->fds = fds;
  t->cap = cap;
  return 0;
}

/* Thread tid's signalling counter, opened, set up and mapped with the lock
 * let go (tens of microseconds a starting thread would otherwise wait for),
 * counted in the budget meanwhile: its fd or -1, *page its mapping (NULL:
 * none), *session the session it was opened for. Entered and left with the
 * lock held. */
static int open_unlocked(struct fg_timer *t, int tid, void **page, uint64_t *session)
{
  t->opening++;
  *session = t->starts;
  uint64_t interval = t->interval_ns;
  int exclude_kernel = t->exclude_kernel;
  struct fg_perf_threads *perf = t->perf;   /* walker=vm's tables live as long as the agent */
  pthread_mutex_unlock(&t->lock);
  int fd = fg_perf_open(tid, interval, exclude_kernel, fg_perf_threads_rings(perf), 0, -1, -1);
  fg_fd_room_note(&t->fd_room, fd);
  *page = fd >= 0 && perf ? fg_perf_threads_map(perf, fd) : NULL;
  pthread_mutex_lock(&t->lock);
  t->opening--;
  return fd;
}

/* Thread tid's signalling counter (open_unlocked: the system calls outside
 * the lock, which starting threads would otherwise wait for one after
 * another), its descriptor reserved from the budget first and the entry
 * made after, unless the session stopped or restarted meanwhile or a scan
 * gave tid one. Entered and left with the lock held, room and budget
 * checked by add. */
static void add_signalling(struct fg_timer *t, int tid)
{
  struct fg_perf_threads *perf = t->perf;
  void *page;
  uint64_t session;
  int fd = open_unlocked(t, tid, &page, &session);
  if (fd < 0) {
    t->open_failures++;   /* the thread may have just ended */
    return;
  }
  if (t->stopped || t->starts != session || find(t, tid) >= 0 || make_room(t) != 0) {
    fg_perf_threads_unmap(perf, page);
    close(fd);
    return;
  }
  if (perf)   /* if refused, the thread is sampled without jitter or kernel frames */
    fg_perf_threads_put(perf, tid, fd, page);
  t->fds[t->nfds++] = (struct fg_perf_fd){tid, fd, t->generation, -1};
}

/* tid's POSIX CPU timer, entered in the table. 0, or -1 with errno when
 * the kernel refused it or the budget is spent (EAGAIN): half of what the
 * user had free under RLIMIT_SIGPENDING at the last look.
 * Under the lock, with room in the table. */
static int add_timer(struct fg_timer *t, int tid)
{
  if (t->timers >= t->timer_budget) {
    errno = EAGAIN;
    return -1;
  }
  int id = fg_thread_timer_create(tid, t->interval_ns);
  if (id < 0)
    return -1;
  t->fds[t->nfds++] = (struct fg_perf_fd){tid, FG_FD_TIMER, t->generation, id};
  t->timers++;
  return 0;
}

/* tid's counters, entered in the table: walker=copy's under the lock,
 * a signalling one with the lock let go around its open (add_signalling).
 * Under the lock. */
static void add(struct fg_timer *t, int tid)
{
  if (tid == t->skip_tid || tid == t->skip_tid2 || t->stopped)   /* a ThreadStart racing VMDeath arms nothing */
    return;
  if (make_room(t) != 0)
    return;
  if (!t->copy_bytes && t->clock != FG_CLOCK_PERF) {
    if (add_timer(t, tid) == 0)
      return;
    if (errno == EINVAL || errno == ESRCH) {   /* it has just ended */
      t->open_failures++;
      return;
    }
    t->timer_refused++;   /* a counter instead, when the descriptors allow */
  }
  if (!within_budget(t, 1, t->fd_budget)) {   /* not even a signalling counter */
    refuse(t, tid);
    return;
  }
  if (!t->copy_bytes) {
    add_signalling(t, tid);
    return;
  }
  int fd = FG_FD_COPYING;
  if (add_copying(t, tid) != 0) {
    if (errno == ESRCH) {   /* it has just ended */
      t->open_failures++;
      return;
    }
    /* walker=copy, its counters refused (past their share of the budget,
     * or by the kernel): its samples would vanish, so it is signalled
     * instead and walked in its handler, as with walker=vm */
    if ((fd = open_signalling(t, tid)) < 0) {
      if (errno == EMFILE)
        refuse(t, tid);
      return;
    }
    t->copy_no_ring++;
  }
  t->fds[t->nfds++] = (struct fg_perf_fd){tid, fd, t->generation, -1};
}

/* Closes tid's counter if it has one. Under the lock. */
static void drop(struct fg_timer *t, int tid)
{
  int i = find(t, tid);
  if (i >= 0)
    remove_at(t, (uint32_t)i);
}

/* event, like every session field, is read under the lock: a session may
 * be starting again on another thread */
void fg_timer_thread_start(struct fg_timer *t, int tid)
{
  pthread_mutex_lock(&t->lock);
  if (t->event == FG_EVENT_CPU) {
    drop(t, tid);   /* it may be a dead thread's, whose id was reused */
    add(t, tid);
    reclaim(t);
  }
  pthread_mutex_unlock(&t->lock);
}

int fg_timer_thread_end(struct fg_timer *t, int tid)
{
  int on_timer = 0;
  pthread_mutex_lock(&t->lock);
  if (t->event == FG_EVENT_CPU) {
    int i = find(t, tid);
    on_timer = i >= 0 && t->fds[i].fd == FG_FD_TIMER && !t->stopped;
    if (i >= 0)
      remove_at(t, (uint32_t)i);
    reclaim(t);
  }
  pthread_mutex_unlock(&t->lock);
  return on_timer;
}

int fg_timer_signal_instead(struct fg_timer *t, int tid)
{
  pthread_mutex_lock(&t->lock);
  int i = find(t, tid), done = 0;
  if (i >= 0 && t->fds[i].fd == FG_FD_COPYING && !t->stopped) {
    int seen = t->fds[i].seen;
    remove_at(t, (uint32_t)i);   /* its counters closed, what they lost untold counted with no thread's */
    int fd = open_signalling(t, tid);
    if (fd >= 0) {
      t->fds[t->nfds++] = (struct fg_perf_fd){tid, fd, seen, -1};   /* room: one was just removed */
      t->copy_too_deep++;
      done = 1;
    }
  }
  pthread_mutex_unlock(&t->lock);
  return done;
}

void fg_timer_never_sample(struct fg_timer *t, int tid)
{
  pthread_mutex_lock(&t->lock);
  t->skip_tid2 = tid;
  drop(t, tid);
  pthread_mutex_unlock(&t->lock);
}

void fg_timer_scan(struct fg_timer *t)
{
  DIR *d = opendir("/proc/self/task");
  if (!d)
    return;
  pthread_mutex_lock(&t->lock);
  if (t->event != FG_EVENT_CPU || t->stopped) {
    pthread_mutex_unlock(&t->lock);
    closedir(d);
    return;
  }
  int gen = ++t->generation;
  uint64_t session = t->starts;
  if (!t->copy_bytes && t->clock != FG_CLOCK_PERF)   /* what the user's other processes queued since */
    t->timer_budget = fg_thread_timer_budget(t->timers);
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    int tid = atoi(e->d_name);
    if (tid <= 0)
      continue;
    int i = find(t, tid);
    if (i >= 0)
      t->fds[i].seen = gen;
    else
      add(t, tid);   /* a signalling counter lets the lock go around its open: a thread starting meanwhile waits for none */
    if (t->stopped || t->starts != session)
      break;   /* stopped, or another session since: not this scan's table any more */
  }
  closedir(d);
  for (uint32_t i = 0; t->starts == session && i < t->nfds;) {
    if (t->fds[i].seen != gen)
      remove_at(t, i);
    else
      i++;
  }
  reclaim(t);   /* the drainer's pass: what a handler held at a thread's end */
  pthread_mutex_unlock(&t->lock);
}

/* clock=auto: tid's timer replaced by a signalling counter, opened outside
 * the lock (as add_signalling does) and entered only if tid is still on the
 * timer it had in this session. Under the lock, tid on a timer. */
static void timer_to_counter(struct fg_timer *t, int tid)
{
  if (!within_budget(t, 1, t->fd_budget)) {
    t->counter_refused++;   /* the descriptors are the application's: it stays on its timer */
    return;
  }
  struct fg_perf_threads *perf = t->perf;
  void *page;
  uint64_t session;
  int fd = open_unlocked(t, tid, &page, &session);
  int i = find(t, tid);
  if (fd < 0 || t->stopped || t->starts != session || i < 0 || t->fds[i].fd != FG_FD_TIMER) {
    if (fd >= 0) {
      fg_perf_threads_unmap(perf, page);
      close(fd);
    }
    return;
  }
  if (perf)
    fg_perf_threads_put(perf, tid, fd, page);
  fg_thread_timer_delete(t->fds[i].timer);   /* after the counter is armed: no CPU time goes unsampled */
  t->timers--;
  t->fds[i].fd = fd;
  t->fds[i].timer = -1;
  t->to_counter++;
}

/* clock=auto: tid's signalling counter replaced by a timer. Under the lock. */
static void counter_to_timer(struct fg_timer *t, uint32_t i)
{
  if (t->timers >= t->timer_budget)
    return;
  int id = fg_thread_timer_create(t->fds[i].tid, t->interval_ns);
  if (id < 0)
    return;
  close_counter(t, t->fds[i].tid, t->fds[i].fd);
  t->fds[i].fd = FG_FD_TIMER;
  t->fds[i].timer = id;
  t->timers++;
  t->to_timer++;
}

void fg_timer_set_clock(struct fg_timer *t, int tid, int wish)
{
  pthread_mutex_lock(&t->lock);
  int i = find(t, tid);
  if (i >= 0 && !t->stopped && t->event == FG_EVENT_CPU && t->clock == FG_CLOCK_AUTO) {
    if (wish == FG_CLOCK_TO_COUNTER && t->fds[i].fd == FG_FD_TIMER)
      timer_to_counter(t, tid);
    else if (wish == FG_CLOCK_TO_TIMER && t->fds[i].fd >= 0)
      counter_to_timer(t, (uint32_t)i);
  }
  pthread_mutex_unlock(&t->lock);
}

/* The table's threads with counters now. Under the lock. */
static uint64_t counters_now(const struct fg_timer *t)
{
  return t->nfds - t->timers - t->unsampled;
}

void fg_timer_clock_counts(struct fg_timer *t, uint64_t *timers, uint64_t *counters)
{
  pthread_mutex_lock(&t->lock);
  *timers = t->stopped ? t->timers_at_stop : t->timers;
  *counters = t->stopped ? t->counters_at_stop : counters_now(t);
  pthread_mutex_unlock(&t->lock);
}

void fg_perf_close_all(struct fg_timer *t)
{
  pthread_mutex_lock(&t->lock);
  if (!t->stopped) {
    t->timers_at_stop = t->timers;
    t->counters_at_stop = counters_now(t);
  }
  t->stopped = 1;
  for (uint32_t i = 0; i < t->nfds; i++) {
    if (t->fds[i].fd == FG_FD_TIMER) {
      fg_thread_timer_delete(t->fds[i].timer);
      continue;
    }
    if (t->fds[i].fd >= 0)
      ioctl(t->fds[i].fd, PERF_EVENT_IOC_DISABLE, 0);
    if (t->fds[i].fd != FG_FD_NONE)
      close_counter(t, t->fds[i].tid, t->fds[i].fd);
  }
  t->nfds = 0;
  t->copy_threads = t->unsampled = t->timers = 0;
  /* walker=copy's table is released, and a next start may replace it, only
   * after this returns: a session's stop and start are never concurrent */
  struct fg_perf_threads *perf = t->perf;
  /* Every descriptor back before the stop returns: those a handler still
   * reads are closed once it leaves. The lock is let go between looks, so a
   * handler held up (preempted, or stopped under a debugger) holds up this
   * stop alone, never a thread's start or end. */
  while (perf && fg_perf_threads_reclaim(perf) > 0) {
    pthread_mutex_unlock(&t->lock);
    sched_yield();
    pthread_mutex_lock(&t->lock);
  }
  pthread_mutex_unlock(&t->lock);
}
