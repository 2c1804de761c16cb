/* clock=auto: which clock serves each thread, judged in its own handler.
 *
 * Every thread starts on a POSIX CPU timer (thread_timer.h): nothing at a
 * context switch, at most one signal a kernel tick. A thread that runs long
 * between context switches earns a perf_events counter instead: 1 ms means
 * 1 ms, the kernel's callchain, a varied period; it costs that thread a few
 * microseconds at each switch (thread_timer.h has the figures), which is
 * under 1% of its CPU time when it runs FG_CLOCK_COUNTER_NS or more
 * between two switches. A thread on a counter that comes to switch every
 * FG_CLOCK_TIMER_NS or sooner (a handoff between threads, a lock passed
 * back and forth) goes back to a timer; between the two it stays where it is.
 *
 * At each signal of a thread on a timer (one a kernel tick at most), and
 * each FG_CLOCK_LOOK_EVERY signals of one on a counter, the handler reads its
 * thread's CPU time and context switches (getrusage RUSAGE_THREAD, one system
 * call) and judges the last FG_CLOCK_WINDOW_NS of CPU or more. A thread that
 * computes from its start so earns its counter after about that much CPU:
 * until then a timer's samples come folded, a tick's intervals on one stack,
 * which adds to the spread of a short run's shares. Both kinds of switch count: a
 * preemption restarts the counter's hrtimer too, and a thread spinning for
 * a handoff is preempted as often as one that parks switches. A thread
 * computing beside busy ones is preempted at the end of its slice, 1.5 ms
 * or more (EEVDF's base slice on 2 CPUs), so it still earns its counter.
 * The wish is carried out by fgagent's drainer (fg_timer_set_clock), never
 * in the handler. */
#ifndef FG_CLOCK_CHOICE_H
#define FG_CLOCK_CHOICE_H

#include <stdint.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#define FG_CLOCK_LOOK_EVERY 8
#define FG_CLOCK_WINDOW_NS 20000000ull
#define FG_CLOCK_COUNTER_NS 1000000ull
#define FG_CLOCK_TIMER_NS 250000ull

enum fg_clock_wish { FG_CLOCK_STAY = 0, FG_CLOCK_TO_COUNTER = 1, FG_CLOCK_TO_TIMER = 2 };

/* A thread's figures at its last judgement; zero: none yet. The handler's own. */
struct fg_clock_watch {
  uint64_t cpu_ns, switches;
  uint32_t signals;
};

/* The verdict on cpu_ns of CPU time with switches context switches, for a
 * thread now on a timer (on_timer) or on a counter. */
static inline enum fg_clock_wish fg_clock_decide(uint64_t cpu_ns, uint64_t switches, int on_timer)
{
  if (on_timer)
    return cpu_ns >= FG_CLOCK_COUNTER_NS * (switches ? switches : 1) ? FG_CLOCK_TO_COUNTER : FG_CLOCK_STAY;
  return cpu_ns < FG_CLOCK_TIMER_NS * switches ? FG_CLOCK_TO_TIMER : FG_CLOCK_STAY;
}

/* The window since the last judgement, judged once it holds
 * FG_CLOCK_WINDOW_NS of CPU; figures from getrusage. Pure. */
static inline enum fg_clock_wish fg_clock_judge(struct fg_clock_watch *w, uint64_t cpu_ns, uint64_t switches,
                                                int on_timer)
{
  if (w->cpu_ns == 0 && w->switches == 0) {   /* the first look: where the window starts */
    w->cpu_ns = cpu_ns ? cpu_ns : 1;
    w->switches = switches;
    return FG_CLOCK_STAY;
  }
  if (cpu_ns < w->cpu_ns + FG_CLOCK_WINDOW_NS || switches < w->switches)
    return FG_CLOCK_STAY;
  enum fg_clock_wish v = fg_clock_decide(cpu_ns - w->cpu_ns, switches - w->switches, on_timer);
  w->cpu_ns = cpu_ns;
  w->switches = switches;
  return v;
}

/* Whether this signal of the thread's is one it looks at: on a timer every
 * one, on a counter every FG_CLOCK_LOOK_EVERY. Pure. */
static inline int fg_clock_looks_now(struct fg_clock_watch *w, int on_timer)
{
  if (!on_timer && ++w->signals < FG_CLOCK_LOOK_EVERY)
    return 0;
  w->signals = 0;
  return 1;
}

/* At a signal of the thread's (async-signal-safe): when it looks, its
 * figures read and judged. */
static inline enum fg_clock_wish fg_clock_look(struct fg_clock_watch *w, int on_timer)
{
  if (!fg_clock_looks_now(w, on_timer))
    return FG_CLOCK_STAY;
  struct rusage u;
  if (syscall(SYS_getrusage, RUSAGE_THREAD, &u) != 0)
    return FG_CLOCK_STAY;
  uint64_t cpu = ((uint64_t)u.ru_utime.tv_sec + (uint64_t)u.ru_stime.tv_sec) * 1000000000u +
                 ((uint64_t)u.ru_utime.tv_usec + (uint64_t)u.ru_stime.tv_usec) * 1000u;
  return fg_clock_judge(w, cpu, (uint64_t)u.ru_nvcsw + (uint64_t)u.ru_nivcsw, on_timer);
}

#endif
