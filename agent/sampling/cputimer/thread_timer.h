/* POSIX CPU-time timers, one a thread: timer_create on the thread's own CPU
 * clock with SIGEV_THREAD_ID, so that SIGPROF reaches that very thread each
 * interval of its CPU time.
 *
 * What they cost and what they give, against a perf_events cpu-clock
 * counter (perf/perf_counters.c):
 * - Nothing at a context switch. A counter's hrtimer is cancelled when its
 *   thread is switched out and started again when it is switched in; when it
 *   is the CPU's next timer that reprograms the clock, a trap to the
 *   hypervisor on a virtual machine: 9 us more a switch at a 1 ms period on
 *   a nested VM, 1.3 us at 100 ms (a pipe ping-pong, results/clocks.md).
 * - No descriptor, two system calls to make (the counter: an open, three
 *   fcntl, an ioctl and a mapping for the kernel's callchain).
 * - The kernel checks CPU timers at its tick (run_posix_cpu_timers), so a
 *   thread gets at most one signal a tick (4 ms on a HZ=250 kernel); the
 *   intervals that passed meanwhile come as the signal's si_overrun, and its
 *   sample stands for them all. A thread's CPU time since its last signal
 *   is counted when it ends (settle_timer_tail, jvmti/session.c), not when
 *   the session stops.
 * - No kernel callchain, no period to vary.
 * Each timer holds a signal queued in advance, counted in RLIMIT_SIGPENDING
 * (timer_create fails with EAGAIN past it). That count is the user's, not
 * the process's: every process of the real uid (in its user namespace)
 * queues against the same limit, the application's own timers and signals,
 * and other JVMs with fgagent. fgagent takes at most half of what is free:
 * /proc/self/status's SigQ line gives the user's queued signals and the
 * limit, read as the session starts and at each of the drainer's scans. */
#ifndef FG_THREAD_TIMER_H
#define FG_THREAD_TIMER_H

#include <stdint.h>

/* A timer on thread tid's CPU clock (any thread of this process may make
 * it), armed to signal tid every interval_ns of its CPU time: its id, or -1
 * with errno. */
int fg_thread_timer_create(int tid, uint64_t interval_ns);
/* Disarms and deletes it; a signal of its still pending is dropped by the kernel. */
void fg_thread_timer_delete(int id);
/* The most timers fgagent may hold now, holding ours: ours and half of what
 * the user has free under RLIMIT_SIGPENDING (SigQ); without /proc, half the
 * limit. Two agents of one user so leave the application at least a quarter. */
uint64_t fg_thread_timer_budget(uint64_t ours);
/* status (/proc/self/status's text, len bytes): its SigQ line's queued
 * signals and limit. 0, or -1 when it has none. Pure. */
int fg_thread_timer_sigq(const char *status, size_t len, uint64_t *queued, uint64_t *limit);
/* ours and half of limit - queued (none when queued is past it); no limit
 * (RLIM_INFINITY): UINT64_MAX / 2. Pure. */
uint64_t fg_thread_timer_room(uint64_t queued, uint64_t limit, uint64_t ours);

#endif
