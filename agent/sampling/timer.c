/* Chooses and arms the clock that delivers SIGPROF: perf_events per thread
 * for event=cpu, with setitimer as the fallback and as event=itimer. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "sampling/timer.h"
#include "sampling/cputimer/clock_choice.h"
#include "sampling/cputimer/thread_timer.h"
#include "sampling/perf/jitter.h"

static int paranoid(void)
{
  int level = -9;
  FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");
  if (f) {
    if (fscanf(f, "%d", &level) != 1)
      level = -9;
    fclose(f);
  }
  return level;
}

uint64_t fg_fd_budget(void)
{
  struct rlimit files;
  return getrlimit(RLIMIT_NOFILE, &files) == 0 && files.rlim_cur != RLIM_INFINITY
             ? (uint64_t)files.rlim_cur / FG_FD_SHARE
             : UINT64_MAX / 2;   /* none: half, so that a sum with what is held cannot wrap */
}

void fg_timer_init(struct fg_timer *t)
{
  memset(t, 0, sizeof *t);
  pthread_mutex_init(&t->lock, NULL);
  t->stopped = 1;   /* no counter before the first start */
}

/* The asked event armed, t's session fields set. Under the lock, stopped. */
static int arm(struct fg_timer *t, enum fg_event asked, uint64_t interval_ns, char *warn, size_t warnlen)
{
  if (asked == FG_EVENT_WALL) {   /* the wall sampler thread signals; no timer here */
    t->event = FG_EVENT_WALL;
    snprintf(t->detail, sizeof t->detail, "wall clock: a sampler thread signals Java threads");
    return 0;
  }
  if (asked == FG_EVENT_CPU) {
    /* Probe on this thread: with kernel time if allowed, else user time only. */
    int self = (int)syscall(SYS_gettid);
    int callchain = t->kernel_frames ? 1 : 0, refused = 0;   /* which of perf_tables */
    char copy_warn[320] = "";
    if (t->copy_bytes) {   /* walker=copy: the same probes with the stack copy */
      int fd = fg_perf_open(self, interval_ns, 0, callchain, t->copy_bytes, -1, -1);
      if (fd < 0 && callchain)
        fd = fg_perf_open(self, interval_ns, 0, callchain = 0, t->copy_bytes, -1, -1);
      if (fd < 0)
        fd = fg_perf_open(self, interval_ns, t->exclude_kernel = 1, 0, t->copy_bytes, -1, -1);
      char why[160];
      snprintf(why, sizeof why, "perf_event_open with a stack copy: %s", strerror(errno));
      if (fd >= 0) {
        uint64_t counts[2];
        int counter_lost = read(fd, counts, sizeof counts) == (ssize_t)sizeof counts;   /* PERF_FORMAT_LOST */
        close(fd);
        if (!t->perf_tables[2] || t->perf_tables[2]->callchain != callchain) {
          fg_perf_threads_free(t->perf_tables[2]);   /* no counter is left writing into its rings */
          t->perf_tables[2] = fg_perf_threads_new_copies(FG_COPY_RING_BYTES, callchain, why, sizeof why);
        }
        if (t->perf_tables[2])
          t->perf_tables[2]->counter_lost = counter_lost;
        if (t->perf_tables[2] && !t->cpu_fds)
          t->cpu_fds = malloc((size_t)t->perf_tables[2]->rings.ncpu * sizeof *t->cpu_fds);
      }
      if (fd >= 0 && t->perf_tables[2] && t->cpu_fds) {
        t->event = FG_EVENT_CPU;
        t->perf = t->perf_tables[2];
        /* the two never together: kernel frames need kernel samples */
        const char *kernel = t->exclude_kernel ? ", user time only (perf_event_paranoid)"
                             : callchain       ? ", with kernel frames"
                                               : "";
        snprintf(t->detail, sizeof t->detail, "perf_events cpu-clock per thread and CPU, no signal, %u KB stack "
                 "copies walked off-thread from a ring a CPU, period varied +-50%% each %u samples%s",
                 (unsigned)(FG_COPY_STACK_BYTES / 1024), FG_JITTER_RUN, kernel);
        if (t->kernel_frames && !callchain)
          snprintf(warn, warnlen, "fgagent: kernel frames off: perf_event_paranoid=%d refuses kernel samples to "
                   "this user (1 or below, or CAP_PERFMON, allows them)", paranoid());
        return 0;
      }
      snprintf(copy_warn, sizeof copy_warn, "fgagent: warning: walker=copy unavailable (%s); walking in the signal "
               "handler (walker=vm)", fd >= 0 && !t->cpu_fds && t->perf_tables[2] ? "no memory" : why);
      t->copy_bytes = 0;
      t->exclude_kernel = 0;
      callchain = t->kernel_frames ? 1 : 0;
    }
    int fd = fg_perf_open(self, interval_ns, 0, callchain, 0, -1, -1);
    if (fd < 0 && callchain) {   /* counting kernel time may still be allowed */
      refused = errno;
      callchain = 0;
      fd = fg_perf_open(self, interval_ns, 0, 0, 0, -1, -1);
    }
    if (fd < 0) {
      t->exclude_kernel = 1;
      fd = fg_perf_open(self, interval_ns, 1, 0, 0, -1, -1);
    }
    if (fd >= 0) {
      close(fd);
      t->event = FG_EVENT_CPU;
      if (!t->perf_tables[callchain])
        t->perf_tables[callchain] = fg_perf_threads_new(callchain);
      t->perf = t->perf_tables[callchain];
      if (!t->perf)
        callchain = 0;
      char varied[48] = "";
      if (t->perf)
        snprintf(varied, sizeof varied, ", period varied +-50%% each %u samples", FG_JITTER_RUN);
      const char *kernel = t->exclude_kernel ? ", user time only (perf_event_paranoid)" : "";
      const char *frames = callchain ? ", with kernel frames" : "";
      if (t->clock == FG_CLOCK_PERF)
        snprintf(t->detail, sizeof t->detail, "perf_events cpu-clock per thread%s%s%s", kernel, varied, frames);
      else if (t->clock == FG_CLOCK_POSIX)
        snprintf(t->detail, sizeof t->detail, "a POSIX CPU timer per thread, firing at the kernel's tick");
      else
        snprintf(t->detail, sizeof t->detail, "a POSIX CPU timer per thread (at the kernel's tick); a perf_events "
                 "cpu-clock counter for threads running %llu ms or more between context switches%s%s%s",
                 (unsigned long long)(FG_CLOCK_COUNTER_NS / 1000000u), kernel, varied, frames);
      if (t->kernel_frames && t->exclude_kernel)
        snprintf(warn, warnlen, "fgagent: kernel frames off: perf_event_paranoid=%d refuses kernel samples to "
                 "this user (1 or below, or CAP_PERFMON, allows them)", paranoid());
      else if (t->kernel_frames && !callchain)
        snprintf(warn, warnlen, "fgagent: kernel frames off: perf_event_open refused kernel callchains (%s)",
                 refused ? strerror(refused) : "no memory for their table");
      if (copy_warn[0])
        snprintf(warn, warnlen, "%s", copy_warn);
      return 0;
    }
    if (t->clock != FG_CLOCK_PERF) {   /* a thread's timer needs no perf_events */
      const char *why = strerror(errno);
      t->event = FG_EVENT_CPU;
      t->perf = NULL;
      t->clock = FG_CLOCK_POSIX;
      snprintf(t->detail, sizeof t->detail, "a POSIX CPU timer per thread, firing at the kernel's tick (no "
               "counters: perf_event_open: %s)", why);
      if (t->kernel_frames)
        snprintf(warn, warnlen, "fgagent: kernel frames off: perf_event_open refused (%s); each thread is "
                 "sampled by a POSIX CPU timer", why);
      return 0;
    }
    snprintf(warn, warnlen, "fgagent: warning: event=cpu unavailable (perf_event_open: %s); "
             "falling back to event=itimer, whose rate the kernel tick limits", strerror(errno));
  }
  if (fg_itimer_arm(interval_ns) != 0) {
    snprintf(warn, warnlen, "fgagent: cannot arm setitimer(ITIMER_PROF): %s", strerror(errno));
    return -1;
  }
  t->event = FG_EVENT_ITIMER;
  snprintf(t->detail, sizeof t->detail, "setitimer ITIMER_PROF, process-wide%s",
           asked == FG_EVENT_CPU ? ", fallback from cpu" : "");
  return 0;
}

int fg_timer_start(struct fg_timer *t, enum fg_event asked, enum fg_clock_mode clock, uint64_t interval_ns,
                   int kernel_frames, uint32_t copy_bytes, char *warn, size_t warnlen)
{
  warn[0] = '\0';
  /* A thread starting or ending now waits here, and finds the timer
   * stopped until it is armed: every field a session sets is set anew,
   * the tables and the room for a thread's counters kept. */
  pthread_mutex_lock(&t->lock);
  t->event = asked;
  t->interval_ns = interval_ns;
  t->kernel_frames = kernel_frames;
  t->copy_bytes = copy_bytes;
  t->exclude_kernel = 0;
  t->perf = NULL;
  t->copy_no_ring = t->copy_too_deep = t->open_failures = t->no_fd = 0;
  t->fd_budget = fg_fd_budget();
  t->clock = copy_bytes ? FG_CLOCK_PERF : clock;   /* walker=copy's samples come from counters */
  t->timers = 0;
  t->timer_budget = fg_thread_timer_budget(0);   /* the last session's timers are deleted */
  t->to_counter = t->to_timer = t->timer_refused = t->counter_refused = 0;
  t->timers_at_stop = t->counters_at_stop = 0;
  t->copy_threads = t->nfds = t->unsampled = 0;
  t->skip_tid = t->skip_tid2 = 0;
  t->generation = 0;
  t->starts++;
  t->detail[0] = '\0';
  int rc = arm(t, asked, interval_ns, warn, warnlen);
  t->stopped = rc != 0;
  pthread_mutex_unlock(&t->lock);
  if (rc == 0 && t->event == FG_EVENT_CPU && t->clock == FG_CLOCK_PERF)
    fg_fd_room_keep(&t->fd_room);   /* a counter for every thread: room before the running ones get theirs */
  return rc;
}

void fg_timer_keep_fd_room(struct fg_timer *t)
{
  if (atomic_load_explicit(&t->fd_room.high, memory_order_relaxed) > 0)   /* counters were opened */
    fg_fd_room_keep(&t->fd_room);
}

void fg_timer_release(struct fg_timer *t)
{
  pthread_mutex_lock(&t->lock);
  if (t->perf == t->perf_tables[2])
    t->perf = NULL;
  fg_perf_threads_free(t->perf_tables[2]);   /* its rings unmapped, their own counters closed */
  t->perf_tables[2] = NULL;
  pthread_mutex_unlock(&t->lock);
}

void fg_timer_stop(struct fg_timer *t)
{
  if (t->event == FG_EVENT_CPU) {
    fg_perf_close_all(t);   /* stopped under its lock */
    return;
  }
  if (t->event == FG_EVENT_ITIMER)
    fg_itimer_disarm();
  pthread_mutex_lock(&t->lock);
  t->stopped = 1;
  pthread_mutex_unlock(&t->lock);
}
