/* walker=copy's counters on this very thread (skipped where perf_events or
 * the ring's locked memory is refused): every sample's record holds this
 * thread's id, its registers inside its own stack, and a copy of the top of
 * that stack, byte for byte where the stack did not change; a ring not read
 * in time counts what it had no room for, so no sample vanishes. */
#include "unit.h"

#include <linux/perf_event.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "fg/clock.h"
#include "../../agent/sampling/copy_record.h"
#include "../../agent/sampling/perf_threads.h"
#include "../../agent/sampling/timer.h"

#define PERIOD_NS 1000000ull

static struct fg_perf_threads *table;
static int fd = -1, tid;
static uintptr_t stack_lo, stack_hi;
static uint8_t room[65536];

struct seen {
  int records, bad, wrong_tid, sp_outside, marker_ok, marker_in_copy;
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

/* A counter copying this thread's stack into its ring; 0 when refused here. */
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
  fd = fg_perf_open(tid, PERIOD_NS, 0, 0, FG_COPY_STACK_BYTES);   /* kernel time too, as the agent asks */
  if (fd < 0)
    fd = fg_perf_open(tid, PERIOD_NS, 1, 0, FG_COPY_STACK_BYTES);
  if (fd < 0) {
    printf("    skipped: perf_event_open with a stack copy refused here\n");
    return 0;
  }
  table = fg_perf_threads_new_copies(FG_COPY_RING_BYTES, 0);
  assert_non_null(table);
  assert_int_equal(fg_perf_threads_attach(table, tid, fd), 0);
  if (!fg_perf_threads_has_ring(table, tid)) {
    printf("    skipped: the ring's locked memory refused here\n");
    fg_perf_threads_detach(table, tid);
    close(fd);
    free(table);
    return 0;
  }
  return 1;
}

static void disarm(void)
{
  ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
  fg_perf_threads_detach(table, tid);
  close(fd);
  free(table);
}

static int read_ring(struct seen *s, int last, uint64_t *lost)
{
  struct fg_perf_reach r;
  fg_perf_threads_enter(table, tid, &r);
  int n = fg_perf_threads_read(table, &r, room, sizeof room, on_sample, s, last, lost);
  fg_perf_threads_leave(table);
  return n;
}

static void records_hold_this_threads_registers_and_stack(void **state)
{
  (void)state;
  if (!arm())
    return;
  volatile uint64_t marker = 0x5eedf00dcafe1234ull;   /* in this frame, above burn's */
  struct seen s = {.marker_at = (uintptr_t)&marker, .marker = marker};
  uint64_t lost = 0;
  for (int i = 0; i < 4; i++) {   /* 40 ms in all, read every 10 */
    burn(10 * PERIOD_NS);
    read_ring(&s, i == 3, &lost);
  }
  disarm();
  printf("    %d records, %d with the marker in the copy (%d right), %llu lost\n", s.records, s.marker_in_copy,
         s.marker_ok, (unsigned long long)lost);
  assert_in_range(s.records, 30, 50);
  assert_int_equal(s.bad, 0);
  assert_int_equal(s.wrong_tid, 0);
  assert_int_equal(s.sp_outside, 0);
  assert_int_equal(lost, 0);
  assert_int_equal(s.marker_in_copy, s.records);   /* the copy reaches up into this frame */
  assert_int_equal(s.marker_ok, s.records);
}

static void a_ring_read_late_counts_what_it_lost(void **state)
{
  (void)state;
  if (!arm())
    return;
  struct seen s = {0};
  uint64_t lost = 0;
  burn(60 * PERIOD_NS);   /* four times what the ring holds */
  read_ring(&s, 0, &lost);
  uint64_t told = lost;   /* no record tells them yet: there was no room for one */
  burn(5 * PERIOD_NS);
  read_ring(&s, 1, &lost);   /* the record, once there was room, and the counter's own count agree */
  disarm();
  printf("    %d records kept, %llu lost (%llu told before the last read)\n", s.records, (unsigned long long)lost,
         (unsigned long long)told);
  assert_int_equal(told, 0);
  assert_in_range(s.records, 14, 22);   /* 512 KB of 32 KB copies, then five more */
  assert_int_equal(s.bad, 0);
  assert_in_range(s.records + lost, 52, 78);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(records_hold_this_threads_registers_and_stack),
      cmocka_unit_test(a_ring_read_late_counts_what_it_lost),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
