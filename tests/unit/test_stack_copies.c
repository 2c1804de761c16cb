/* walker=copy's counters on this very thread, one a CPU writing into that
 * CPU's ring (skipped where perf_events or the rings' locked memory is
 * refused): every sample's record holds this thread's id, its registers
 * inside its own stack, and a copy of the top of that stack, byte for byte
 * where the stack did not change, read from the rings in time order; rings not read in time count what they
 * had no room for in the thread's counters, so no sample vanishes. */
#include "unit.h"

#include <linux/perf_event.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "fg/clock.h"
#include "sampling/copy/copy_record.h"
#include "sampling/perf/perf_threads.h"
#include "sampling/timer.h"

#define PERIOD_NS 1000000ull

static struct fg_perf_threads *table;
static int tid;
static uintptr_t stack_lo, stack_hi;
static uint8_t room[65536];

struct seen {
  int records, bad, wrong_tid, sp_outside, marker_ok, marker_in_copy, out_of_order;
  uint64_t last_time;
  uintptr_t marker_at;
  uint64_t marker;
};

static void on_sample(void *ctx, const uint8_t *rec, size_t size)
{
  struct seen *s = ctx;
  struct fg_copy_sample smp;
  s->records++;
  if (fg_copy_record_read(rec, size, 0, &smp) != 0 || !smp.user || !smp.copy.stack) {
    s->bad++;
    return;
  }
  s->wrong_tid += smp.tid != tid;
  uint64_t at;   /* where the rings' merge reads it */
  memcpy(&at, rec + FG_COPY_RECORD_TIME_AT, 8);
  s->bad += at != smp.time_ns;
  s->out_of_order += smp.time_ns < s->last_time;
  s->last_time = smp.time_ns;
  s->sp_outside += smp.copy.sp < stack_lo || smp.copy.sp >= stack_hi;
  if (s->marker_at >= smp.copy.sp && s->marker_at + 8 <= smp.copy.sp + smp.copy.copied) {
    uint64_t v;
    memcpy(&v, smp.copy.stack + (s->marker_at - smp.copy.sp), 8);
    s->marker_in_copy++;
    s->marker_ok += v == s->marker;
  }
}

/* This thread's CPU, spent for ns. */
static __attribute__((noinline)) void burn(uint64_t ns)
{
  uint64_t end = fg_clock_ns(CLOCK_THREAD_CPUTIME_ID) + ns;
  volatile uint64_t x = 1;
  while (fg_clock_ns(CLOCK_THREAD_CPUTIME_ID) < end)
    for (int i = 0; i < 100000; i++)
      x = x * 6364136223846793005ull + 1;
}

/* Counters copying this thread's stack into each CPU's ring; 0 when refused here. */
static int arm(void)
{
  tid = (int)syscall(SYS_gettid);
  pthread_attr_t a;
  void *addr;
  size_t size;
  pthread_getattr_np(pthread_self(), &a);
  pthread_attr_getstack(&a, &addr, &size);
  pthread_attr_destroy(&a);
  stack_lo = (uintptr_t)addr;
  stack_hi = stack_lo + size;
  char err[200];
  table = fg_perf_threads_new_copies(FG_COPY_RING_BYTES, 0, err, sizeof err);
  if (!table) {
    printf("    skipped: %s\n", err);
    return 0;
  }
  int exclude_kernel = 0;   /* kernel time too, as the agent asks */
  int *fds = calloc((size_t)table->rings.ncpu, sizeof *fds);
  assert_non_null(fds);
  for (int c = 0; c < table->rings.ncpu; c++) {
    int out = fg_cpu_rings_fd(&table->rings, c);
    fds[c] = out < 0 ? -1 : fg_perf_open(tid, PERIOD_NS, exclude_kernel, 0, FG_COPY_STACK_BYTES, c, out);
    if (out >= 0 && fds[c] < 0 && c == 0 && !exclude_kernel)
      fds[c] = fg_perf_open(tid, PERIOD_NS, exclude_kernel = 1, 0, FG_COPY_STACK_BYTES, c, out);
    if (out >= 0 && fds[c] < 0) {
      printf("    skipped: perf_event_open with a stack copy on CPU %d refused here\n", c);
      for (int d = 0; d < c; d++)
        if (fds[d] >= 0)
          close(fds[d]);
      free(fds);
      fg_perf_threads_free(table);
      return 0;
    }
  }
  assert_int_equal(fg_perf_threads_attach_cpus(table, tid, fds), 0);
  free(fds);
  return 1;
}

static void disarm(void)
{
  fg_perf_threads_detach(table, tid);
  fg_perf_threads_free(table);
}

/* Every CPU's ring read into s; *lost adds what the rings told lost. */
static int read_rings(struct seen *s, uint64_t *lost)
{
  uint64_t too_big = 0;
  int n = fg_cpu_rings_read(&table->rings, FG_COPY_RECORD_TIME_AT, room, sizeof room, on_sample, s, lost, &too_big);
  assert_int_equal(too_big, 0);
  return n;
}

/* What this thread's counters lost, as the copy engine reads it at a thread's end. */
static uint64_t counters_lost(void)
{
  struct fg_perf_reach r;
  fg_perf_threads_enter(table, tid, &r);
  uint64_t lost = fg_perf_threads_lost(table, &r);
  fg_perf_threads_leave(&r);
  return lost;
}

static void records_hold_this_threads_registers_and_stack(void **state)
{
  (void)state;
  if (!arm())
    return;
  volatile uint64_t marker = 0x5eedf00dcafe1234ull;   /* in this frame, above burn's */
  struct seen s = {.marker_at = (uintptr_t)&marker, .marker = marker};
  uint64_t lost = 0;
  cpu_set_t was;
  sched_getaffinity(0, sizeof was, &was);
  int cpus[2], n = 0;   /* two CPUs it may run on: 5 ms on the higher, then 5 on the lower */
  for (int c = CPU_SETSIZE - 1; c >= 0 && n < 2; c--)
    if (CPU_ISSET(c, &was))
      cpus[n++] = c;
  for (int i = 0; i < 4; i++) {   /* 40 ms in all, read every 10 */
    for (int half = 0; half < 2; half++) {
      cpu_set_t one;
      CPU_ZERO(&one);
      CPU_SET(cpus[n == 2 ? half : 0], &one);
      sched_setaffinity(0, sizeof one, &one);
      burn(5 * PERIOD_NS);
    }
    read_rings(&s, &lost);
  }
  sched_setaffinity(0, sizeof was, &was);
  lost += counters_lost();
  disarm();
  printf("    %d records, %d with the marker in the copy (%d right), %llu lost\n", s.records, s.marker_in_copy,
         s.marker_ok, (unsigned long long)lost);
  assert_in_range(s.records, 30, 50);
  assert_int_equal(s.bad, 0);
  assert_int_equal(s.wrong_tid, 0);
  assert_int_equal(s.sp_outside, 0);
  assert_int_equal(s.out_of_order, 0);   /* in the order the thread ran, whichever CPU's ring */
  assert_int_equal(lost, 0);
  assert_int_equal(s.marker_in_copy, s.records);   /* the copy reaches up into this frame */
  assert_int_equal(s.marker_ok, s.records);
}

static void rings_read_late_count_what_they_lost(void **state)
{
  (void)state;
  if (!arm())
    return;
  struct seen s = {0};
  uint64_t told = 0;
  cpu_set_t was, one;   /* on one CPU: its ring holds 15 of the 60 */
  sched_getaffinity(0, sizeof was, &was);
  CPU_ZERO(&one);
  CPU_SET(sched_getcpu(), &one);
  sched_setaffinity(0, sizeof one, &one);
  burn(60 * PERIOD_NS);   /* four times what a ring holds */
  read_rings(&s, &told);   /* no record tells them yet: there was no room for one */
  uint64_t lost = counters_lost();
  burn(5 * PERIOD_NS);
  read_rings(&s, &told);   /* the record, once there was room */
  lost += counters_lost();
  sched_setaffinity(0, sizeof was, &was);
  disarm();
  printf("    %d records kept, %llu lost by the counters, %llu told by the ring\n", s.records,
         (unsigned long long)lost, (unsigned long long)told);
  assert_in_range(s.records, 14, 22);   /* 512 KB of 32 KB copies, then five more */
  assert_int_equal(s.bad, 0);
  assert_in_range(s.records + lost, 52, 78);
  assert_true(told <= lost);   /* the ring tells what it lost late, the counters all of it */
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(records_hold_this_threads_registers_and_stack),
      cmocka_unit_test(rings_read_late_count_what_they_lost),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
