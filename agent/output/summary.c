/* The summary printed at the end of every run: what happened to every signal.
 * Its last accounting line checks taken == stored + lost. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "fg/output.h"
#include "fg/stats.h"
#include "output/summary_kernel.h"
#include "sampling/cputimer/clock_choice.h"
#include "sampling/signal/backoff.h"
#include "sampling/copy/copy_held.h"
#include "hotspot/code_map.h"

static double pct(uint64_t part, uint64_t whole)
{
  return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

static int print_rate(FILE *out, const struct fg_stats *s)
{
  if (s->interval_ns == 0)
    return fprintf(out, "  interval asked:    not recorded\n") < 0 ? -1 : 0;
  if (fprintf(out, "  interval asked:    %.3f ms\n", (double)s->interval_ns / 1e6) < 0)
    return -1;
  if (s->cpu_ns == 0 || s->taken == 0)
    return fprintf(out, "  rate achieved:     not measured (no CPU time or no signal)\n") < 0;
  if (strcmp(s->event, "wall") == 0)
    return fprintf(out, "  rate achieved:     one sample every %.3f ms of each thread's wall time (%.3f s of "
                        "thread wall time sampled; up to %" PRIu64 " threads a tick)\n"
                        "  wall sampling:     %" PRIu64 " threads signalled, %" PRIu64 " idle threads counted "
                        "again without waking them, %" PRIu64 " ticks added to a signal not yet taken\n",
                   (double)s->cpu_ns / (double)s->taken / 1e6, (double)s->cpu_ns / 1e9, s->wall_per_tick,
                   s->wall_signals, s->wall_repeats, s->wall_joined) < 0 ? -1 : 0;
  double cpu_s = (double)s->cpu_ns / 1e9;
  uint64_t signals = s->taken - s->folded;   /* folded: intervals a timer's signal stood for beside its own */
  if (signals == 0)
    return fprintf(out, "  rate achieved:     not measured (no signal)\n") < 0 ? -1 : 0;
  if (fprintf(out, "  rate achieved:     %.1f signals per CPU-second, one every %.3f ms "
                   "(%.3f s of CPU sampled)\n",
              (double)signals / cpu_s, (double)s->cpu_ns / (double)signals / 1e6, cpu_s) < 0)
    return -1;
  if (s->folded &&
      fprintf(out, "  folded intervals:  %" PRIu64 ": POSIX CPU timers fire at the kernel's tick, each signal standing "
                   "for the intervals that ended since its thread's last (%.1f intervals per CPU-second in all)\n",
              s->folded, (double)s->taken / cpu_s) < 0)
    return -1;
  if (s->tail_to_last &&
      fprintf(out, "  thread ends:       %" PRIu64 " of those: CPU a thread on a timer ran after its last signal, "
                   "stored with its last sample\n", s->tail_to_last) < 0)
    return -1;
  return 0;
}

/* event=cpu: which clock served the threads (clock=). */
static int print_clocks(FILE *out, const struct fg_stats *s)
{
  static const char *const modes[] = {"auto", "perf", "posix"};
  if (strcmp(s->event, "cpu") != 0 || s->clock < 0 || s->clock > 2 || s->clock_timers + s->clock_counters +
      s->clock_to_counter + s->clock_to_timer == 0)
    return 0;
  if (fprintf(out, "  clocks:            clock=%s; at the end %" PRIu64 " threads on a POSIX CPU timer, %" PRIu64
                   " on a perf_events counter", modes[s->clock], s->clock_timers, s->clock_counters) < 0)
    return -1;
  if (s->clock == 0 &&
      fprintf(out, "; %" PRIu64 " moved to a counter (running %llu ms or more between context switches), %" PRIu64
                   " back to a timer", s->clock_to_counter, (unsigned long long)(FG_CLOCK_COUNTER_NS / 1000000u),
              s->clock_to_timer) < 0)
    return -1;
  if (s->clock_counter_refused &&
      fprintf(out, "; %" PRIu64 " moves to a counter not made, the descriptor budget spent (%" PRIu64 ", a share of "
                   "RLIMIT_NOFILE)", s->clock_counter_refused, s->fd_budget) < 0)
    return -1;
  if (s->clock_timer_refused &&
      fprintf(out, "; %" PRIu64 " given a counter, their timer refused (RLIMIT_SIGPENDING)", s->clock_timer_refused) < 0)
    return -1;
  return fputc('\n', out) == EOF ? -1 : 0;
}

static int print_failures(FILE *out, const struct fg_stats *s)
{
  uint64_t stored = fg_stats_stored(s);
  if (fprintf(out, "    failed walks:    %" PRIu64 " (%.2f%%), kept as a [tick] frame\n",
              fg_stats_failed_total(s), pct(fg_stats_failed_total(s), stored)) < 0)
    return -1;
  for (int i = 0; i <= FG_TICK_COUNT; i++) {
    if (s->failed[i] == 0)
      continue;
    char label[40];
    snprintf(label, sizeof label, "[%s]", fg_tick_name(i));
    if (fprintf(out, "      %-24s %" PRIu64 " (%.2f%%)\n", label, s->failed[i],
                pct(s->failed[i], stored)) < 0)
      return -1;
  }
  return 0;
}

/* What kept sampling within its share of each thread's CPU (sampling/signal/backoff.h). */
static int print_backoff(FILE *out, const struct fg_stats *s)
{
  if (fprintf(out, "  back-off:          %" PRIu64 " signals skipped after walks costing over %u%% of the "
                   "interval, their time credited to their thread's next sample",
              s->skipped, FG_SHARE_LIMIT_PCT) < 0)
    return -1;
  if (s->skipped_to_last &&
      fprintf(out, " (%" PRIu64 " to their thread's last one, no later one coming)", s->skipped_to_last) < 0)
    return -1;
  if (fputc('\n', out) == EOF)
    return -1;
  if (s->depth_cuts == 0 && s->budget_cut == 0)
    return 0;
  return fprintf(out, "  time budget:       walk depth halved %" PRIu64 " times after walks over %.1f ms; "
                      "%" PRIu64 " samples cut short (fewer frames, marked [truncated], or no retry)\n",
                 s->depth_cuts, FG_WALK_BUDGET_NS / 1e6, s->budget_cut) < 0 ? -1 : 0;
}

/* Option verify: every Java edge judged by the caller's bytecode. */
static int print_verify(FILE *out, const struct fg_stats *s)
{
  uint64_t checked = s->verify_edges - s->verify_unchecked;
  if (fprintf(out, "  verify:            %" PRIu64 " Java caller->callee edges, %" PRIu64 " checked against "
                   "the caller's bytecode: %" PRIu64 " invokes of the callee, %" PRIu64 " through "
                   "invokedynamic or method handles, %" PRIu64 " made by the VM; %" PRIu64 " unchecked "
                   "(no bci or bytecode)\n"
                   "    wrong edges:     %" PRIu64 " (%.3f%% of checked), %" PRIu64 " of them in recovered "
                   "stacks\n",
              s->verify_edges, checked, s->verify_call, s->verify_dynamic, s->verify_vm,
              s->verify_unchecked, s->verify_wrong, pct(s->verify_wrong, checked),
              s->verify_wrong_recovered) < 0)
    return -1;
  if ((s->verify_copy_stubs || s->verify_copy_alone) &&
      fprintf(out, "    copy stubs:      %" PRIu64 " arraycopy stubs under a Java caller, %" PRIu64 " of them "
                   "at no call that can reach a copy (System.arraycopy, Arrays.copyOf*, or a method calling one "
                   "within 4 calls: a caller frame missing); %" PRIu64 " under a compiled method named alone "
                   "(no debug record at the stub's return address)\n",
              s->verify_copy_stubs, s->verify_copy_fused, s->verify_copy_alone) < 0)
    return -1;
  if ((s->code_checked || s->code_unread) &&
      fprintf(out, "    code records:    %" PRIu64 " compiled methods read from the code heap as well as reported "
                   "by CompiledMethodLoad: %" PRIu64 " differ%s%s; %" PRIu64 " not read (freed meanwhile)\n",
              s->code_checked, s->code_differ, s->code_differ ? ", the first: " : "", s->code_first,
              s->code_unread) < 0)
    return -1;
  for (int i = 0; i < FG_VERIFY_EXAMPLES && s->verify_examples[i][0]; i++)
    if (fprintf(out, "      wrong:         %s\n", s->verify_examples[i]) < 0)
      return -1;
  return 0;
}

/* The trace table: what memlimit refused, what a full ring's overflow
 * slots kept, how many distinct stacks and how much memory. */
static int print_storage(FILE *out, const struct fg_stats *s)
{
  /* the limit as the option would say it: 256k, 64m, 2g */
  char limit[32];
  uint64_t m = s->memlimit;
  if (m && m % (1u << 30) == 0)
    snprintf(limit, sizeof limit, "%" PRIu64 "g", m >> 30);
  else if (m && m % (1u << 20) == 0)
    snprintf(limit, sizeof limit, "%" PRIu64 "m", m >> 20);
  else if (m && m % 1024 == 0)
    snprintf(limit, sizeof limit, "%" PRIu64 "k", m >> 10);
  else
    snprintf(limit, sizeof limit, "%" PRIu64, m);
  if ((s->memlimit || s->refused) &&
      fprintf(out, "    memlimit:        %" PRIu64 " (a new stack would have passed memlimit=%s)\n", s->refused,
              limit) < 0)
    return -1;
  if (s->overflowed &&
      fprintf(out, "  overflowed:        %" PRIu64 " (stored while a buffer was full: counted, no time or CPU)\n",
              s->overflowed) < 0)
    return -1;
  if (s->traces &&
      fprintf(out, "  stack storage:     %" PRIu64 " distinct stacks in %.1f MB%s\n", s->traces,
              (double)s->trace_bytes / 1048576.0, s->memlimit ? " (memlimit set)" : "") < 0)
    return -1;
  return 0;
}

/* The handler's time a walk, from the walks whose time is its own; those
 * slow by the wall clock alone count at the average (a thread switched out
 * inside the handler, as many are among hundreds of runnable threads, would
 * otherwise add the time others ran). */
static int print_handler_time(FILE *out, const struct fg_stats *s)
{
  uint64_t timed = s->walks > s->unproven ? s->walks - s->unproven : 0;
  double per = timed ? (double)s->handler_ns / (double)timed : 0, all = per * (double)s->walks;
  if (fprintf(out, "  handler time:      %.2f us per stack walk on average (%.3f s in all, %.2f%% of the "
                   "CPU sampled, the period changes included); the kernel's signal delivery comes on top\n",
              per / 1e3, all / 1e9, s->cpu_ns ? 100.0 * all / (double)s->cpu_ns : 0.0) < 0)
    return -1;
  /* clock=auto: the two clocks' walks apart (a counter's signal may bring the kernel's frames to read) */
  uint64_t timer_walks = timed > s->counter_walks ? timed - s->counter_walks : 0;
  if (s->counter_walks && timer_walks &&
      fprintf(out, "    by clock:        %.2f us a walk on a POSIX timer's signal (%" PRIu64 " walks), %.2f us on a "
                   "perf_events counter's (%" PRIu64 ")\n",
              (double)(s->handler_ns - s->counter_handler_ns) / (double)timer_walks / 1e3, timer_walks,
              (double)s->counter_handler_ns / (double)s->counter_walks / 1e3, s->counter_walks) < 0)
    return -1;
  if (s->unproven && fprintf(out, "    left out:        %" PRIu64 " walks (%.2f%%) slow by the wall clock alone, "
                                  "counted at the average: their thread most likely switched out meanwhile\n",
                             s->unproven, pct(s->unproven, s->walks)) < 0)
    return -1;
  return 0;
}

/* The sampled event's part: every signal accounted for. */
static int write_sampled(FILE *out, const struct fg_stats *s)
{
  uint64_t stored = fg_stats_stored(s), lost = fg_stats_lost(s);
  if (!s->event[0]) {   /* a profile read back from collapsed stacks */
    if (fprintf(out, "fgagent summary\n  event:             not recorded (read from collapsed stacks)\n") < 0 ||
        print_rate(out, s) != 0)
      return -1;
  } else if (fprintf(out, "fgagent summary\n  event:             %s (%s)\n", s->event,
                     s->event_detail) < 0 || print_rate(out, s) != 0 || print_clocks(out, s) != 0) {
    return -1;
  }
  if (fprintf(out, "  wall time:         %.3f s sampled; fgagent's own threads used %.3f s CPU\n",
              (double)s->wall_ns / 1e9, (double)s->profiler_cpu_ns / 1e9) < 0)
    return -1;
  /* walker=copy ("copy", or "copy; " and what it cannot walk through): no
   * handler, an engine thread walks */
  int copy = strncmp(s->walker, "copy", 4) == 0 && (s->walker[4] == '\0' || s->walker[4] == ';');
  if (s->walks > 0 && !copy && print_handler_time(out, s) != 0)
    return -1;
  if (s->walks > 0 && copy &&
      fprintf(out, "  walk time:         %.2f us per stack walk on average on the copy engine's thread (%.3f s "
                   "in all, within fgagent's own CPU above); the sampled threads pay the kernel's stack "
                   "copy, no signal%s\n",
              (double)s->handler_ns / (double)s->walks / 1e3, (double)s->handler_ns / 1e9,
              s->copy_no_ring + s->copy_too_deep ? " (the threads signalled instead: their handlers' walks, on "
                                                   "themselves, counted in)" : "") < 0)
    return -1;
  if (s->kernel_no_ring &&
      fprintf(out, "  kernel frames:     none for %" PRIu64 " threads (no ring for them: the table of "
                   "rings was full, or mapping one failed)\n", s->kernel_no_ring) < 0)
    return -1;
  if (s->event[0] && !copy && print_backoff(out, s) != 0)
    return -1;
  if (fprintf(out, "  signals taken:     %" PRIu64 "%s\n"
                   "  samples stored:    %" PRIu64 " (%.2f%%)\n"
                   "    Java stacks:     %" PRIu64 " (%.2f%%)\n",
              s->taken, s->folded ? " (the folded intervals counted in)" : "", stored, pct(stored, s->taken), s->java, pct(s->java, stored)) < 0)
    return -1;
  /* "vm", or "vm; " and what it cannot walk through */
  int vm = strncmp(s->walker, "vm", 2) == 0 && (s->walker[2] == '\0' || s->walker[2] == ';');
  if (vm && fprintf(out, "      walker:        vm; its own walk read %" PRIu64 " (%.2f%% of Java stacks), "
                         "AsyncGetCallTrace the rest%s\n",
                    s->vm_walked, pct(s->vm_walked, s->java), s->walker + 2) < 0)
    return -1;
  uint64_t signalled = s->copy_no_ring + s->copy_too_deep;
  if (copy && fprintf(out, "      walker:        copy; its own walk read every stack%s from the kernel's copy of "
                           "it, off the thread (no signal, no AsyncGetCallTrace); %" PRIu64 " cut where the "
                           "copy ended%s\n", signalled ? " of a thread with its counters" : "", s->copy_cut,
                      s->walker + 4) < 0)
    return -1;
  if (copy && s->copy_held &&
      fprintf(out, "      held back:     %" PRIu64 " copies whose walk met code with no record yet (a "
                   "method not read yet), or came behind one of their thread's; walked again as records "
                   "came, for up to %.0f ms: %" PRIu64 " still failed\n",
              s->copy_held, (double)FG_COPY_HELD_NS / 1e6, s->copy_held_failed) < 0)
    return -1;
  if (s->threads_no_fd &&
      fprintf(out, "    not sampled:     %" PRIu64 " threads given no counter: fgagent's descriptors would have passed "
                   "their budget, %" PRIu64 " (a share of RLIMIT_NOFILE; the rest is the application's)\n",
              s->threads_no_fd, s->fd_budget) < 0)
    return -1;
  if ((vm || copy) && s->methods_mapped &&
      fprintf(out, "      method map:    %" PRIu64 " methods of the classes loaded, %" PRIu64 " let go as their classes "
                   "were unloaded%s\n", s->methods_mapped, s->methods_gone,
              s->methods_follow_classes ? "" : " (class unloading unseen: JVMTI refused ObjectFree)") < 0)
    return -1;
  if ((vm || copy) && s->code_from_heap &&
      fprintf(out, "      code map:      %" PRIu64 " compiled methods read from the code heap as samples met "
                   "them (no CompiledMethodLoad), %" PRIu64 " swept as freed, %" PRIu64 " not read (no "
                   "jmethodID names the method); %" PRIu64 " stacks with a method freed before it was read: "
                   "named alone (no bci, no inlined frames), or [unread_compiled_method] once its code was gone; "
                   "%" PRIu64 " with a method no jmethodID names: [unread_compiled_method]\n",
              s->code_found, s->code_gone, s->code_unnamed, s->code_header_only, s->code_unnamed_stacks) < 0)
    return -1;
  if (s->code_map_dropped &&
      fprintf(out, "      code map:      %" PRIu64 " compiled methods and stubs not recorded, the map full at "
                   "%u entries: a sample in their code is AsyncGetCallTrace's (walker=vm) or a failure frame\n",
              s->code_map_dropped, (unsigned)(FG_CODE_CHUNK * FG_CODE_CHUNKS)) < 0)
    return -1;
  if (signalled &&
      fprintf(out, "      signalled:     %" PRIu64 " threads instead, walked in their handler as with "
                   "walker=vm: %" PRIu64 " whose stack went deeper than the copy, %" PRIu64 " whose counters, "
                   "one a CPU, were refused or would pass half the open-file limit (RLIMIT_NOFILE)\n",
              signalled, s->copy_too_deep, s->copy_no_ring) < 0)
    return -1;
  if (s->walker[0] && !vm && !copy &&
      fprintf(out, "      walker:        %s; AsyncGetCallTrace walks every stack\n", s->walker) < 0)
    return -1;
  if (s->recovered &&
      fprintf(out, "      recovered:     %" PRIu64 " (%.2f%%), AsyncGetCallTrace failed, fgagent's "
                   "walker found the stack from a popped stub or method frame\n",
              s->recovered, pct(s->recovered, stored)) < 0)
    return -1;
  if (print_failures(out, s) != 0 || (s->verify_edges && print_verify(out, s) != 0))
    return -1;
  if (s->native_cut &&
      fprintf(out, "    native cut:      %" PRIu64 " (%.2f%%), native frames stop short of the Java "
                   "ones, marked [native_cut]\n",
              s->native_cut, pct(s->native_cut, stored)) < 0)
    return -1;
  if (fprintf(out, "    no JNIEnv:       %" PRIu64 " (%.2f%%), GC/JIT/VM threads, kept under "
                   "their thread name\n"
                   "  samples lost:      %" PRIu64 " (%.2f%%)\n"
                   "    overruns:        %" PRIu64 " (a thread's buffer and its overflow slots were full)\n"
                   "    no slot:         %" PRIu64 " (too many threads without a JNIEnv)\n"
                   "    back-off:        %" PRIu64 " (skipped signals of a thread that stored no sample)\n",
              s->no_jnienv, pct(s->no_jnienv, stored), lost, pct(lost, s->taken), s->overruns,
              s->no_slot, s->skipped_lost) < 0)
    return -1;
  if (s->repeats_lost &&
      fprintf(out, "    repeat ring:     %" PRIu64 " (event=wall: idle threads' ticks the sampler's ring "
                   "had no room for)\n", s->repeats_lost) < 0)
    return -1;
  if (s->tail_lost &&
      fprintf(out, "    never signalled: %" PRIu64 " (intervals of CPU of threads on a POSIX timer that ended before "
                   "its first signal: the kernel's tick never found them running past an interval)\n",
              s->tail_lost) < 0)
    return -1;
  if (s->paused_lost &&
      fprintf(out, "    loop switch:     %" PRIu64 " (signals while loop= switched to the next interval)\n",
              s->paused_lost) < 0)
    return -1;
  if (print_storage(out, s) != 0)
    return -1;
  if (fprintf(out, "  truncated stacks:  %" PRIu64 " (deeper than depth, marked [truncated])\n", s->truncated) < 0)
    return -1;
  return fprintf(out, "  accounting:        taken %" PRIu64 " = stored %" PRIu64 " + lost %" PRIu64
                      ": %s\n", s->taken, stored, lost,
                 s->taken == stored + lost ? "OK" : "MISMATCH") < 0 ? -1 : 0;
}

/* Appends ", N why" (": N why" first) to out when n is not 0. */
static void add_cause(char *out, size_t len, size_t *at, uint64_t n, const char *why, ...)
    __attribute__((format(printf, 5, 6)));
static void add_cause(char *out, size_t len, size_t *at, uint64_t n, const char *why, ...)
{
  if (!n || *at >= len)
    return;
  *at += (size_t)snprintf(out + *at, len - *at, "%s%" PRIu64 " ", *at ? ", " : ": ", n);
  if (*at >= len)
    return;
  va_list ap;
  va_start(ap, why);
  *at += (size_t)vsnprintf(out + *at, len - *at, why, ap);
  va_end(ap);
}

/* The causes of an event profile's losses that happened, each named ("" when none). */
static void loss_causes(const struct fg_event_stats *e, uint64_t memlimit, char *out, size_t len)
{
  size_t at = 0;
  out[0] = '\0';
  add_cause(out, len, &at, e->log_full, "with the event log's share for a drainer pass spent and no record of the "
            "same thread and stack to add them into (the drainer fell behind)");
  add_cause(out, len, &at, e->no_thread, "whose thread's record was taken by a new thread before the drainer came");
  if (memlimit)
    add_cause(out, len, &at, e->no_memory, "whose new stack was over memlimit (%.1f MB) or refused by the heap",
              (double)memlimit / 1e6);
  else
    add_cause(out, len, &at, e->no_memory, "whose new stack the heap refused");
  add_cause(out, len, &at, e->no_class, "whose class JVMTI did not name");
}

/* An alloc or lock section: every event the JVM reported accounted for. */
static int write_event(FILE *out, const char *name, const struct fg_event_stats *e, uint64_t memlimit)
{
  int alloc = strcmp(name, "alloc") == 0;
  uint64_t lost = fg_event_stats_lost(e);
  if (alloc) {
    if (fprintf(out, "alloc: heap allocations sampled by the JVM (JVMTI SampledObjectAlloc), a sample about every "
                     "%" PRIu64 " bytes a thread allocates\n"
                     "  estimated:         %.1f MB allocated, %" PRIu64 " objects (each sample weighted by the "
                     "chance its object's size gave it)",
                e->interval, (double)e->weight / 1e6, e->events) < 0)
      return -1;
    if (lost && fprintf(out, "; %.1f MB with the lost samples' weight", (double)(e->weight + e->lost_weight) / 1e6) < 0)
      return -1;
    if (fputc('\n', out) == EOF)
      return -1;
  } else if (fprintf(out, "lock: waits for contended locks of at least %.3f us (synchronized monitors, and parks "
                          "on ReentrantLock, ReentrantReadWriteLock and Semaphore)\n"
                          "  waited:            %.3f ms in %" PRIu64 " waits: %" PRIu64 " on monitors, %" PRIu64
                          " parked on locks\n"
                          "  shorter waits:     %" PRIu64 " (under the threshold, not recorded)\n",
                     (double)e->interval / 1e3, (double)e->weight / 1e6, e->events, e->stored - e->parks, e->parks,
                     e->below) < 0) {
    return -1;
  }
  if (!alloc && lost && fprintf(out, "  lost waits:        %.3f ms\n", (double)e->lost_weight / 1e6) < 0)
    return -1;
  char causes[600];
  loss_causes(e, memlimit, causes, sizeof causes);
  if (fprintf(out, "  %-19s%" PRIu64 "\n"
                   "  stored:            %" PRIu64 " (%.2f%%), %" PRIu64 " with no Java frame (the JVM gave no stack)\n",
              alloc ? "samples taken:" : "waits taken:", e->taken, e->stored, pct(e->stored, e->taken),
              e->no_stack) < 0)
    return -1;
  if (e->merged && fprintf(out, "  merged:            %" PRIu64 " of them added into an earlier record of the same "
                                "thread and stack (the event log's share for a drainer pass half spent: the drainer "
                                "fell behind; weight kept, their own times not)\n", e->merged) < 0)
    return -1;
  if (fprintf(out, "  lost:              %" PRIu64 " (%.2f%%)%s\n", lost, pct(lost, e->taken), causes) < 0)
    return -1;
  if (fprintf(out, "  stacks:            %" PRIu64 " walked by fgagent from the thread's frame anchor, %" PRIu64
                   " by the JVM (GetStackTrace)\n", e->walked, e->stored - e->walked) < 0)
    return -1;
  if (e->verified && fprintf(out, "  verified:          %" PRIu64 " of fgagent's %" PRIu64 " stacks differ from the "
                                  "JVM's (GetStackTrace at the same point)%s%s\n", e->differ, e->walked,
                             e->difference[0] ? "; the first: " : "", e->difference) < 0)
    return -1;
  if (e->classes && fprintf(out, "  class names:       %" PRIu64 " held for the JVM's life, of at most %u (hidden classes and "
                   "lambdas named without the JVM's address suffix)", e->classes, FG_EVENT_CLASSES_MAX) < 0)
    return -1;
  if (e->other_class && fprintf(out, "; %" PRIu64 " lookups of classes past it named [other class]",
                                e->other_class) < 0)
    return -1;
  if (fputc('\n', out) == EOF)
    return -1;
  return fprintf(out, "  accounting:        taken %" PRIu64 " = stored %" PRIu64 " + lost %" PRIu64 ": %s\n", e->taken,
                 e->stored, lost, e->taken == e->stored + lost ? "OK" : "MISMATCH") < 0 ? -1 : 0;
}

int fg_write_summary(FILE *out, const struct fg_stats *s)
{
  if (s->cpu_off) {
    if (fprintf(out, "fgagent summary\n  event:             none sampled (alloc, lock, native or kernel events alone)\n"
                     "  wall time:         %.3f s recorded; fgagent's own threads used %.3f s CPU\n",
                (double)s->wall_ns / 1e9, (double)s->profiler_cpu_ns / 1e9) < 0)
      return -1;
  } else if (write_sampled(out, s) != 0) {
    return -1;
  }
  if (s->alloc.on && write_event(out, "alloc", &s->alloc, s->memlimit) != 0)
    return -1;
  if (s->lock.on && write_event(out, "lock", &s->lock, s->memlimit) != 0)
    return -1;
  if (s->live.on && fg_write_summary_live(out, &s->live) != 0)
    return -1;
  if (fg_write_kernel_summary(out, s) != 0)
    return -1;
  return fg_write_native_summary(out, s);
}

char *fg_summary_text(const struct fg_stats *s)
{
  char *text = NULL;
  size_t len = 0;
  FILE *mem = open_memstream(&text, &len);
  if (!mem)
    return NULL;
  int rc = fg_write_summary(mem, s);
  if (fclose(mem) != 0 || rc != 0) {
    free(text);
    return NULL;
  }
  return text;
}
