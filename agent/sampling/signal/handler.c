/* The SIGPROF handler: one stack walk per signal, written into the current
 * thread's ring: a CPU sample, or a kernel event's when the signal is its
 * counter's (event=NAME, kernel_events/kernel_counters.h).
 *
 * Async-signal-safe code only. It may call: the walker (AsyncGetCallTrace,
 * the native unwind tables' step, which may write on the unwind refresher's
 * eventfd, guarded reads), the thread's kept last walk (walk_cache.h),
 * fg_trace_table_put_known (which may mmap), fg_clock_look (getrusage, every few signals), the fg_perf_threads calls on its own thread's counter (looked up
 * once a signal: its kernel frames, its page's sequence, its next period:
 * one ioctl), the same lookup in each kernel event's table (kernel_events/: whose counter sent
 * this signal, by si_fd, and its kernel frames), fg_store_event_sample, the fg_ring producer
 * functions, write on the drainer's eventfd, fg_unregistered_add, fg_jvm_thread_records_claim, fg_sample_encode, the fg_backoff
 * and fg_jitter arithmetic, the gettid syscall, clock_gettime (CLOCK_MONOTONIC;
 * CLOCK_THREAD_CPUTIME_ID in wall mode and for walks the back-off times on it),
 * sched_getcpu, fg_pc_cache_prefetch, fg_parts_* (builds for make bench-parts only: rdtsc, atomics)
 * and C11 atomics. It never calls JNI or JVMTI
 * (not even GetEnv: on thread churn that deadlocks the JVM inside malloc),
 * never allocates, never locks, never uses stdio, and restores errno. */
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include "fg/clock.h"
#include "fg/sample_record.h"
#include "sampling/cputimer/clock_choice.h"
#include "sampling/signal/handler_parts.h"
#include "sampling/perf/jitter.h"
#include "sampling/perf/perf_threads.h"
#include "sampling/sample_store.h"
#include "walk/pc_cache.h"
#include "sampling/sampler.h"

static struct fg_sampler *active_sampler;

/* A spare full-size room, offered to t as its bigger one (unless the
 * drainer offered one meanwhile: then it goes back to the drainer, freed). */
static void offer_spare(struct fg_sampler *s, struct fg_thread *t)
{
  for (int i = 0; i < FG_SPARE_ROOMS; i++) {
    struct fg_scratch *spare = atomic_exchange_explicit(&s->spare_rooms[i], NULL, memory_order_acquire);
    if (!spare)
      continue;
    struct fg_scratch *none = NULL;
    if (!atomic_compare_exchange_strong_explicit(&t->bigger, &none, spare, memory_order_release,
                                                 memory_order_relaxed))
      atomic_store_explicit(&t->retired, spare, memory_order_release);
    return;
  }
}

/* The room for this walk: a bigger one, the drainer's or a spare taken
 * because the last walk was cut, once the old one can be handed back (a
 * room no bigger than the one in use is handed back instead). */
static struct fg_scratch *scratch_for_walk(struct fg_sampler *s, struct fg_thread *t)
{
  struct fg_scratch *now = atomic_load_explicit(&t->scratch, memory_order_relaxed);
  if (atomic_load_explicit(&t->retired, memory_order_acquire))
    return now;   /* the drainer has not freed the last one yet */
  if (!atomic_load_explicit(&t->bigger, memory_order_acquire) &&
      atomic_load_explicit(&t->scratch_short, memory_order_relaxed) &&
      now->capacity < s->walker.depth + s->scratch_reserve)   /* not full-size yet */
    offer_spare(s, t);
  struct fg_scratch *bigger = atomic_load_explicit(&t->bigger, memory_order_acquire);
  if (!bigger || atomic_load_explicit(&t->retired, memory_order_relaxed))
    return now;
  atomic_store_explicit(&t->bigger, NULL, memory_order_relaxed);
  if (bigger->capacity <= now->capacity) {
    atomic_store_explicit(&t->retired, bigger, memory_order_release);
    return now;
  }
  atomic_store_explicit(&t->retired, now, memory_order_release);
  atomic_store_explicit(&t->scratch, bigger, memory_order_release);
  return bigger;
}

/* event=wall: the stack an idle thread's later looks may count again without
 * waking it, NULL when this signal's sample has none in the ring; and that
 * the wall sampler's signal was taken. */
static void keep_for_repeats(struct fg_thread *t, const struct fg_trace *trace)
{
  if (atomic_load_explicit(&t->wall_state, memory_order_relaxed) == 0)
    return;
  atomic_store_explicit(&t->wall_trace, trace, memory_order_relaxed);
  /* where its CPU clock stands, so the wall sampler can tell it has not run since */
  atomic_store_explicit(&t->cpu_at_sample, fg_clock_ns(CLOCK_THREAD_CPUTIME_ID), memory_order_relaxed);
  atomic_store_explicit(&t->wall_handled, atomic_load_explicit(&t->wall_signalled, memory_order_acquire),
                        memory_order_release);
}

/* event=wall: the ticks the wall sampler added while this signal was pending. */
static uint32_t take_owed(struct fg_thread *t)
{
  if (atomic_load_explicit(&t->wall_owed, memory_order_relaxed) == 0)
    return 0;
  return atomic_exchange_explicit(&t->wall_owed, 0, memory_order_relaxed);
}

/* A signal not walked: its kernel frames are dropped, so the ring never fills. */
static void drop_kernel_frames(struct fg_sampler *s, const struct fg_perf_reach *perf)
{
  if (s->perf)
    fg_perf_threads_kernel_frames(s->perf, perf, NULL, 0);
}

/* The kernel frames of this signal's sample, leaf first, into frames[0..max). */
static int kernel_frames(struct fg_sampler *s, const struct fg_perf_reach *perf, ASGCT_CallFrame *frames,
                         uint8_t *types, int max)
{
  if (!fg_perf_threads_rings(s->perf))
    return 0;
  uint64_t pcs[FG_MAX_KERNEL_FRAMES];
  int n = fg_perf_threads_kernel_frames(s->perf, perf, pcs, max < FG_MAX_KERNEL_FRAMES ? max : FG_MAX_KERNEL_FRAMES);
  for (int i = 0; i < n; i++) {
    frames[i] = (ASGCT_CallFrame){0, (jmethodID)(uintptr_t)pcs[i]};
    types[i] = FG_FRAME_KERNEL_PC;
  }
  return n;
}

/* Whether the handler's time counts from its entry: unless the thread was
 * switched out since (its counter's page's sequence, read at entry and now,
 * says so), as it may be when the period change's system call returns with a
 * reschedule pending; then, under load, the time of other threads would be
 * counted, and it counts from the walk's start, as before the period change
 * was counted. */
static int counts_from_entry(const struct fg_sampler *s, int entered_seq, uint32_t seq_entered, int now_seq,
                             uint32_t seq_now)
{
  return !s->perf || (entered_seq && now_seq && seq_now == seq_entered);
}

/* Which clock sent this signal, and the intervals it stands for beside
 * its own: a POSIX CPU timer's (SI_TIMER) comes at the kernel's tick, and
 * si_overrun counts the intervals that ended since its last one. */
struct signal_clock {
  int on_timer;
  uint32_t folded;
};

static struct signal_clock clock_of(const siginfo_t *info)
{
  struct signal_clock c = {0, 0};
  if (info && info->si_code == SI_TIMER) {
    c.on_timer = 1;
    c.folded = info->si_overrun > 0 ? (uint32_t)info->si_overrun : 0;
  }
  return c;
}

/* clock=auto: every few signals, whether t would be better served by the
 * other clock; the drainer carries the wish out, woken for it (a thread
 * waiting on a timer for the drainer's next pass has its samples come
 * folded at the tick all that while). */
static void watch_clock(struct fg_sampler *s, struct fg_thread *t, struct signal_clock c)
{
  if (!s->clock_auto)
    return;
  enum fg_clock_wish wish = fg_clock_look(&t->clock_watch, c.on_timer);
  if (wish == FG_CLOCK_STAY)
    return;
  atomic_store_explicit(&t->clock_wish, (int)wish, memory_order_relaxed);
  fg_store_wake(s);
}

/* One signal's sample of t; perf: its counter, looked up (event=cpu), else
 * NULL; entered: CLOCK_MONOTONIC as the handler began; c: the clock that
 * sent it. */
static void walk_and_store(struct fg_sampler *s, struct fg_thread *t, void *ucontext, const struct fg_perf_reach *perf,
                           uint64_t entered, struct signal_clock c)
{
  struct fg_parts_clock parts;   /* make bench-parts only */
  fg_parts_begin(&parts);
  fg_pc_cache_prefetch(s->pc_slots, (uintptr_t)((ucontext_t *)ucontext)->uc_mcontext.gregs[REG_RIP], 1);
  /* the handler's whole time is reported, from its entry (its counter's
   * lookup included), the period change's too (about 10 us one signal in
   * FG_JITTER_RUN); the back-off times the walk alone */
  uint32_t seq_entered = 0;
  int entered_seq = s->perf && fg_perf_threads_seq(perf, &seq_entered);
  fg_store_add(&t->taken, 1);
  if (c.folded)
    fg_store_add(&t->folded, c.folded);
  watch_clock(s, t, c);
  /* a perf_events counter's signal (event=cpu); event=wall's come from neither clock */
  int from_counter = s->perf && !c.on_timer;
  if (from_counter) {   /* event=cpu: a new period every FG_JITTER_RUN signals, walked or not */
    uint64_t period = fg_jitter_next(&t->jitter, s->interval_ns, (uint64_t)t->tid);
    if (period)
      fg_perf_threads_period(perf, period);
  }
  fg_parts_mark(&parts, FG_PART_PERIOD);
  struct fg_backoff *b = &t->backoff;
  fg_backoff_for_session(b, s->session, s->walker.depth);
  if (fg_backoff_skip(b)) {   /* the last walk was costly: this interval goes to the next sample */
    fg_store_add(&t->skipped, 1);
    fg_backoff_carry_more(b, c.folded);   /* the intervals it stood for go to the next sample too */
    if (!c.on_timer)
      drop_kernel_frames(s, perf);
    keep_for_repeats(t, NULL);
    uint32_t seq_now = 0;
    int now_seq = s->perf && fg_perf_threads_seq(perf, &seq_now);
    if (counts_from_entry(s, entered_seq, seq_entered, now_seq, seq_now)) {
      uint64_t ns = fg_clock_ns(CLOCK_MONOTONIC) - entered;
      fg_store_add(&t->handler_ns, ns);
      if (from_counter)
        fg_store_add(&t->counter_ns, ns);   /* as handler_ns: the skip's time goes with the walks' */
    }
    return;
  }
  int precise = fg_backoff_precise(b);
  uint64_t cpu_start = precise ? fg_clock_ns(CLOCK_THREAD_CPUTIME_ID) : 0;
  uint32_t seq_start = 0, seq_end = 0;
  int alone = !precise && s->perf && fg_perf_threads_seq(perf, &seq_start);
  uint64_t start = fg_clock_ns(CLOCK_MONOTONIC);
  int cpu = sched_getcpu();   /* rseq or vDSO: no lock */
  /* a JVM thread record's bounds are filled in by the drainer: hi last, read first */
  uintptr_t hi = __atomic_load_n(&t->stack_hi, __ATOMIC_ACQUIRE);
  uintptr_t lo = hi ? t->stack_lo : 0;
  struct fg_scratch *room = scratch_for_walk(s, t);
  int fits = room->capacity - s->scratch_reserve;   /* Java frames the room holds */
  int depth = b->depth < fits ? b->depth : fits;
  fg_parts_mark(&parts, FG_PART_BEFORE);
  /* a timer's signal has no callchain: the counter's ring is another signal's */
  int k = c.on_timer ? 0 : kernel_frames(s, perf, room->frames, room->types, FG_MAX_KERNEL_FRAMES);
  fg_parts_mark(&parts, FG_PART_KERNEL);
  struct fg_walk walk = fg_walk_stack(&s->walker, depth, start + FG_WALK_BUDGET_NS / 2, t->env, ucontext,
                                      lo, hi, &room->kept, room->frames + k, room->types + k);
  fg_parts_mark(&parts, t->env ? FG_PART_WALK : FG_PART_WALK_NATIVE);
  uint32_t flags = walk.flags;
  int cut_by_room = (flags & FG_SAMPLE_TRUNCATED) && depth < b->depth;
  if (cut_by_room) {
    /* cut by the room: ask for more, now rather than at the drainer's next
     * pass, so that a deep thread's walks are cut a few times, not for 100 ms */
    if (!atomic_exchange_explicit(&t->scratch_short, 1, memory_order_relaxed))
      fg_store_wake(s);
    if (b->depth >= s->walker.depth)
      flags &= ~FG_SAMPLE_BUDGET;   /* the budget did not cut it */
  }
  if (flags & FG_SAMPLE_FAILED)
    flags = fg_sample_flags_with_tick(flags, walk.tick);
  struct fg_trace_suffix known;   /* the frames the walk took from the thread's last one, already hashed */
  int kept = fg_walk_cache_suffix(&room->kept, &known);
  const struct fg_trace *trace = fg_trace_table_put_known(s->traces, room->frames, room->types,
                                                          (uint32_t)(k + walk.n), flags, kept ? &known : NULL);
  fg_walk_cache_commit(&room->kept, trace);   /* the next walk may stop where it meets this one */
  fg_parts_mark(&parts, FG_PART_TRACE);
  int in_ring = fg_store_sample(s, t, trace, start, fg_backoff_take_weight(b) + take_owed(t) + c.folded, cpu,
                      atomic_load_explicit(&t->wall_state, memory_order_relaxed));
  fg_parts_mark(&parts, FG_PART_RING);
  keep_for_repeats(t, in_ring && !cut_by_room ? trace : NULL);   /* a cut stack is walked again once there is room */
  /* fgagent's own cost, reported in the summary, and what it allows next */
  uint64_t now = fg_clock_ns(CLOCK_MONOTONIC), spent = now - start;
  uint64_t measured = precise ? fg_clock_ns(CLOCK_THREAD_CPUTIME_ID) - cpu_start : spent;
  /* not switched out meanwhile: the wall time was the walk's own */
  int end_seq = s->perf && fg_perf_threads_seq(perf, &seq_end);
  alone = alone && end_seq && seq_end == seq_start;
  enum fg_walk_timing timing = precise ? FG_TIMED_CPU : alone ? FG_TIMED_ALONE : FG_TIMED_WALL;
  struct fg_backoff_verdict v = fg_backoff_after_walk(b, measured, s->interval_ns, s->walker.depth, timing);
  if (v.cut)
    fg_store_add(&t->depth_cuts, 1);
  int from_entry = counts_from_entry(s, entered_seq, seq_entered, end_seq, seq_end);
  if (fg_walk_time_unproven(measured, s->interval_ns, timing)) {
    fg_store_add(&t->unproven, 1);   /* most likely switched out meanwhile: not the handler's time */
  } else {
    /* precise: the walk on the CPU clock, what came before it as the wall clock allows */
    uint64_t ns = precise ? measured + (from_entry ? start - entered : 0) : now - (from_entry ? entered : start);
    fg_store_add(&t->handler_ns, ns);
    if (from_counter) {
      fg_store_add(&t->counter_ns, ns);
      fg_store_add(&t->counter_walks, 1);
    }
  }
  fg_parts_mark(&parts, FG_PART_AFTER);
  fg_parts_add(&parts);
}

/* Kernel event kev's sample (its counter's signal, r its entry in
 * s->kevents[kev]): the stack walked here, under the kernel's callchain of
 * the event when its counter records it, stored as FG_SAMPLE_KERNEL_EVENT
 * with kev in the flags (a trace a kernel event). No back-off and no clock:
 * each sample stands for its period of events, and its cost is the
 * event's rate's, which interval= sets. */
static void walk_kernel_event(struct fg_sampler *s, struct fg_thread *t, void *ucontext, int kev,
                              const struct fg_perf_reach *r)
{
  const struct fg_perf_threads *table = s->kevents[kev];
  uint64_t start = fg_clock_ns(CLOCK_MONOTONIC);
  int cpu = sched_getcpu();
  uintptr_t hi = __atomic_load_n(&t->stack_hi, __ATOMIC_ACQUIRE);
  uintptr_t lo = hi ? t->stack_lo : 0;
  struct fg_scratch *room = scratch_for_walk(s, t);
  int fits = room->capacity - s->scratch_reserve;
  int depth = t->backoff.depth > 0 && t->backoff.depth < fits ? t->backoff.depth : fits;
  int k = 0;
  if (fg_perf_threads_rings(table)) {
    uint64_t pcs[FG_MAX_KERNEL_FRAMES];
    k = fg_perf_threads_kernel_frames(table, r, pcs, FG_MAX_KERNEL_FRAMES);
    for (int i = 0; i < k; i++) {
      room->frames[i] = (ASGCT_CallFrame){0, (jmethodID)(uintptr_t)pcs[i]};
      room->types[i] = FG_FRAME_KERNEL_PC;
    }
  }
  struct fg_walk walk = fg_walk_stack(&s->walker, depth, start + FG_WALK_BUDGET_NS / 2, t->env, ucontext, lo, hi,
                                      &room->kept, room->frames + k, room->types + k);
  uint32_t flags = walk.flags | FG_SAMPLE_KERNEL_EVENT | (uint32_t)kev << FG_SAMPLE_KERNEL_SHIFT;
  if ((flags & FG_SAMPLE_TRUNCATED) && depth < s->walker.depth &&
      !atomic_exchange_explicit(&t->scratch_short, 1, memory_order_relaxed))
    fg_store_wake(s);   /* cut by the room: a bigger one for the next walk */
  if (flags & FG_SAMPLE_FAILED)
    flags = fg_sample_flags_with_tick(flags, walk.tick);
  struct fg_trace_suffix known;
  int kept = fg_walk_cache_suffix(&room->kept, &known);
  const struct fg_trace *trace = fg_trace_table_put_known(s->traces, room->frames, room->types,
                                                          (uint32_t)(k + walk.n), flags, kept ? &known : NULL);
  fg_walk_cache_commit(&room->kept, trace);
  fg_store_event_sample(s, t, trace, start, cpu, &s->kevent_lost[kev]);
}

/* Which kernel event's counter sent info (its fd, si_fd, is the thread's
 * entry in that event's table): its index with its entry entered in *r
 * (to leave), or -1 when none of them (nothing entered). A thread has one
 * counter an event, each its own fd: at most one table matches. */
static int kernel_event_of(struct fg_sampler *s, int tid, const siginfo_t *info, struct fg_perf_reach *r)
{
  if (!info || info->si_code <= 0 || info->si_code > POLL_HUP)
    return -1;
  for (int k = 0; k < FG_KERNEL_EVENTS_MAX; k++) {
    if (!s->kevents[k])
      continue;
    fg_perf_threads_enter(s->kevents[k], tid, r);
    if (r->fd >= 0 && r->fd == info->si_fd)
      return k;
    fg_perf_threads_leave(r);
  }
  return -1;
}

/* A FG_KEVENT_SIGNAL: when it is the thread's own kernel event counter's
 * (a counter's signal carries its fd), its sample, taken (t: the thread's
 * record, NULL when it has none); anyone else's is left alone. 1 when it
 * was the counter's. */
static int kernel_event_signal(struct fg_sampler *s, struct fg_thread *t, const siginfo_t *info, void *ucontext)
{
  struct fg_perf_reach r;
  int k = kernel_event_of(s, t ? t->tid : (int)syscall(SYS_gettid), info, &r);
  if (k < 0)
    return 0;
  if (t)
    walk_kernel_event(s, t, ucontext, k, &r);
  else
    atomic_fetch_add_explicit(&s->kevent_no_thread[k], 1, memory_order_relaxed);
  if (!t && fg_perf_threads_rings(s->kevents[k]))
    fg_perf_threads_kernel_frames(s->kevents[k], &r, NULL, 0);   /* its ring emptied all the same */
  fg_perf_threads_leave(&r);
  return 1;
}

static void on_sigprof(int signo, siginfo_t *info, void *ucontext)
{
  int saved_errno = errno;
  /* a kernel event's counters signal on a signal of their own: SIGPROF's
   * (a clock's, the wall sampler's) and theirs never merge while pending */
  int kevent = signo == FG_KEVENT_SIGNAL;
  struct signal_clock clock = clock_of(info);
  /* the handler's time counts from here: the lookups before it are in the
   * "before the walk" part of make bench-parts (results/handler-parts.md) */
  uint64_t entered = fg_clock_ns(CLOCK_MONOTONIC);
  struct fg_sampler *s = active_sampler;
  if (s) {
    atomic_fetch_add(&s->in_handler, 1);
    int enabled = atomic_load_explicit(&s->enabled, memory_order_acquire);
    if (enabled == FG_SAMPLER_PAUSED) {
      atomic_fetch_add_explicit(&s->paused, 1, memory_order_relaxed);
      if (kevent) {   /* a kernel event's: its ring emptied all the same */
        struct fg_perf_reach r;
        int k = kernel_event_of(s, (int)syscall(SYS_gettid), info, &r);
        if (k >= 0) {
          if (fg_perf_threads_rings(s->kevents[k]))
            fg_perf_threads_kernel_frames(s->kevents[k], &r, NULL, 0);
          fg_perf_threads_leave(&r);
        }
      } else if (fg_current_thread) {   /* event=wall: the signal is taken, so the sampler does not wait for it */
        keep_for_repeats(fg_current_thread, NULL);
        if (s->perf && !clock.on_timer) {
          struct fg_perf_reach perf;
          fg_perf_threads_enter(s->perf, fg_current_thread->tid, &perf);
          drop_kernel_frames(s, &perf);
          fg_perf_threads_leave(&perf);
        }
      }
    } else if (enabled) {
      struct fg_thread *t = fg_current_thread;
      if (!t && s->prior && (t = fg_prior_threads_find(s->prior)) != NULL) {
        /* a Java thread running before attach: its record, from now on its own */
        t->claim_sp = (uintptr_t)((ucontext_t *)ucontext)->uc_mcontext.gregs[REG_RSP];
        fg_current_thread = t;
      }
      int tid = 0;
      if (!t && s->jvm_records) {
        /* a JVM thread with no JNIEnv: keep its native stacks under its own record */
        tid = (int)syscall(SYS_gettid);
        if ((t = fg_jvm_thread_records_claim(s->jvm_records, tid)) != NULL) {
          t->claim_sp = (uintptr_t)((ucontext_t *)ucontext)->uc_mcontext.gregs[REG_RSP];
          fg_current_thread = t;
        }
      }
      if (kevent) {
        kernel_event_signal(s, t, info, ucontext);   /* never a CPU sample */
      } else if (!t) {
        fg_store_unregistered(s, tid ? tid : (int)syscall(SYS_gettid));
      } else if (s->perf) {   /* its counter looked up once for the whole signal */
        struct fg_perf_reach perf;
        fg_perf_threads_enter(s->perf, t->tid, &perf);
        walk_and_store(s, t, ucontext, &perf, entered, clock);
        fg_perf_threads_leave(&perf);
      } else {
        walk_and_store(s, t, ucontext, NULL, entered, clock);
      }
    }
    atomic_fetch_sub(&s->in_handler, 1);
  }
  errno = saved_errno;
}

/* The handler on signo, each of SIGPROF and FG_KEVENT_SIGNAL masking the
 * other while it runs (a thread's handler never interrupts itself). */
static int install_on(struct fg_sampler *s, int signo, int *replaced_unregistered)
{
  active_sampler = s;
  struct sigaction sa, old;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_sigprof;
  sa.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset(&sa.sa_mask);
  sigaddset(&sa.sa_mask, SIGPROF);
  sigaddset(&sa.sa_mask, FG_KEVENT_SIGNAL);
  atomic_store(&s->enabled, 1);
  int rc = sigaction(signo, &sa, &old);
  *replaced_unregistered = rc == 0 && (old.sa_flags & SA_SIGINFO ? old.sa_sigaction != on_sigprof
                                       : old.sa_handler != SIG_DFL && old.sa_handler != SIG_IGN);
  return rc;
}

int fg_sampler_install(struct fg_sampler *s, int *replaced_unregistered)
{
  int rc = install_on(s, SIGPROF, replaced_unregistered);
  s->sigprof_installed = rc == 0;
  return rc;
}

int fg_sampler_install_kevents(struct fg_sampler *s, int *replaced_unregistered)
{
  int rc = install_on(s, FG_KEVENT_SIGNAL, replaced_unregistered);
  s->kevent_signal_installed = rc == 0;
  return rc;
}

int fg_sampler_owns_signal(void)
{
  struct sigaction now;
  return sigaction(SIGPROF, NULL, &now) == 0 && (now.sa_flags & SA_SIGINFO) && now.sa_sigaction == on_sigprof;
}

void fg_sampler_pause(struct fg_sampler *s)
{
  atomic_store(&s->enabled, FG_SAMPLER_PAUSED);
  while (atomic_load(&s->in_handler) > 0)
    sched_yield();
}

void fg_sampler_resume(struct fg_sampler *s)
{
  atomic_store(&s->enabled, 1);
}

void fg_sampler_shutdown(struct fg_sampler *s)
{
  atomic_store(&s->enabled, 0);
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = SIG_IGN;
  if (s->sigprof_installed || !s->kevent_signal_installed)
    sigaction(SIGPROF, &sa, NULL);
  if (s->kevent_signal_installed)
    sigaction(FG_KEVENT_SIGNAL, &sa, NULL);   /* its default is to ignore it too: a late one is harmless */
  s->sigprof_installed = s->kevent_signal_installed = 0;
  while (atomic_load(&s->in_handler) > 0)
    sched_yield();
}
