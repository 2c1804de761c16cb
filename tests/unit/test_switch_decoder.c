/* The context-switch decoder over hand-built record streams: every kind of
 * execution, lost records, and every malformed header it must refuse. */
#include "unit.h"

#include <stdio.h>
#include <string.h>

#include "fg/switch_decoder.h"

#define OUT (1u << 13)

struct buf {
  uint8_t b[1024];
  size_t n;
};

static void put(struct buf *b, const void *p, size_t n)
{
  memcpy(b->b + b->n, p, n);
  b->n += n;
}

static void header(struct buf *b, uint32_t type, uint16_t misc, uint16_t size)
{
  put(b, &type, 4);
  put(b, &misc, 2);
  put(b, &size, 2);
}

static void sample_id(struct buf *b, int32_t pid, int32_t tid, uint64_t time, uint32_t cpu)
{
  uint32_t res = 0;
  put(b, &pid, 4);
  put(b, &tid, 4);
  put(b, &time, 8);
  put(b, &cpu, 4);
  put(b, &res, 4);
}

static void sw(struct buf *b, int out, int32_t tid, uint64_t time, uint32_t cpu)
{
  header(b, 14, out ? OUT : 0, 32);
  sample_id(b, 100, tid, time, cpu);
}

static void sw_cpu_wide(struct buf *b, int out, int32_t tid, uint64_t time, uint32_t cpu)
{
  header(b, 15, out ? OUT : 0, 40);
  int32_t other[2] = {0, 0};
  put(b, other, 8);
  sample_id(b, 100, tid, time, cpu);
}

static struct fg_execution got[16];
static int ngot;

static void collect(void *ctx, const struct fg_execution *e)
{
  (void)ctx;
  got[ngot++] = *e;
}

static char err[256];

static void each_kind_of_execution(void **state)
{
  (void)state;
  struct buf b = {.n = 0};
  /* CPU 3: t7 running at the start; t8 in and out; t9 in, then t10 in (t9's end missed);
   * t10 out, t11 out (t11's start missed); t12 in, still running at the end */
  sw_cpu_wide(&b, 1, 7, 100, 3);
  sw_cpu_wide(&b, 0, 8, 110, 3);
  sw_cpu_wide(&b, 1, 8, 150, 3);
  sw_cpu_wide(&b, 0, 9, 160, 3);
  sw_cpu_wide(&b, 0, 10, 170, 3);
  sw_cpu_wide(&b, 1, 10, 180, 3);
  sw_cpu_wide(&b, 1, 11, 190, 3);
  sw_cpu_wide(&b, 0, 12, 200, 3);
  struct fg_switch_stream s;
  fg_switch_stream_init(&s, 3);
  ngot = 0;
  assert_int_equal(fg_switch_decode(&s, b.b, b.n, collect, NULL, err, sizeof err), 0);
  fg_switch_finish(&s, collect, NULL);
  assert_int_equal(ngot, 6);
  assert_int_equal(got[0].kind, FG_EXEC_ONLY_END);
  assert_int_equal(got[0].tid, 7);
  assert_int_equal(got[0].end, 100);
  assert_int_equal(got[1].kind, FG_EXEC_COMPLETE);
  assert_int_equal(got[1].tid, 8);
  assert_int_equal(got[1].start, 110);
  assert_int_equal(got[1].end, 150);
  assert_int_equal(got[1].cpu, 3);
  assert_int_equal(got[2].kind, FG_EXEC_HINTED_END);
  assert_int_equal(got[2].tid, 9);
  assert_int_equal(got[2].start, 160);
  assert_int_equal(got[2].end, 169);
  assert_int_equal(got[3].kind, FG_EXEC_COMPLETE);
  assert_int_equal(got[3].tid, 10);
  assert_int_equal(got[4].kind, FG_EXEC_HINTED_START);
  assert_int_equal(got[4].tid, 11);
  assert_int_equal(got[4].start, 181);
  assert_int_equal(got[4].end, 190);
  assert_int_equal(got[5].kind, FG_EXEC_ONLY_START);
  assert_int_equal(got[5].tid, 12);
  assert_int_equal(got[5].start, 200);
  assert_int_equal(s.switches, 8);
}

static void an_out_after_another_threads_in_splits_in_two(void **state)
{
  (void)state;
  struct buf b = {.n = 0};
  sw_cpu_wide(&b, 0, 5, 10, 0);
  sw_cpu_wide(&b, 1, 6, 20, 0);
  struct fg_switch_stream s;
  fg_switch_stream_init(&s, 0);
  ngot = 0;
  assert_int_equal(fg_switch_decode(&s, b.b, b.n, collect, NULL, err, sizeof err), 0);
  assert_int_equal(ngot, 2);
  assert_int_equal(got[0].kind, FG_EXEC_HINTED_END);
  assert_int_equal(got[0].tid, 5);
  assert_int_equal(got[1].kind, FG_EXEC_HINTED_START);
  assert_int_equal(got[1].tid, 6);
}

static void per_thread_records_across_chunks_and_lost_counts(void **state)
{
  (void)state;
  struct buf a = {.n = 0}, b = {.n = 0};
  sw(&a, 0, 42, 1000, 1);
  header(&a, 2, 0, 48);   /* PERF_RECORD_LOST: id, lost, sample id */
  uint64_t id = 1, lost = 5;
  put(&a, &id, 8);
  put(&a, &lost, 8);
  sample_id(&a, 100, 42, 1001, 1);
  sw(&b, 1, 42, 3000, 0);   /* the out may be on another CPU than the in */
  struct fg_switch_stream s;
  fg_switch_stream_init(&s, 42);
  ngot = 0;
  assert_int_equal(fg_switch_decode(&s, a.b, a.n, collect, NULL, err, sizeof err), 0);
  assert_int_equal(ngot, 0);
  assert_int_equal(fg_switch_decode(&s, b.b, b.n, collect, NULL, err, sizeof err), 0);
  assert_int_equal(ngot, 1);
  assert_int_equal(got[0].kind, FG_EXEC_COMPLETE);
  assert_int_equal(got[0].end - got[0].start, 2000);
  assert_int_equal(s.lost, 5);
  assert_int_equal(s.offset, a.n + b.n);
}

/* Decoding buf must fail naming the stream and the offset, and the message. */
static void refused(struct buf *b, size_t offset, const char *why)
{
  struct fg_switch_stream s;
  fg_switch_stream_init(&s, 9);
  ngot = 0;
  assert_int_equal(fg_switch_decode(&s, b->b, b->n, collect, NULL, err, sizeof err), -1);
  char at[64];
  snprintf(at, sizeof at, "cpu/thread 9 at byte offset %zu", offset);
  if (!strstr(err, at) || !strstr(err, why))
    fail_msg("expected '%s' and '%s' in: %s", at, why, err);
  /* a failed stream stays failed */
  assert_int_equal(fg_switch_decode(&s, b->b, 0, collect, NULL, err, sizeof err), -1);
}

static void malformed_headers_are_refused_where_they_are(void **state)
{
  (void)state;
  struct buf b = {.n = 0};
  sw(&b, 0, 1, 10, 0);
  header(&b, 14, 0, 0);
  refused(&b, 32, "size 0");

  b.n = 0;
  sw(&b, 0, 1, 10, 0);
  header(&b, 14, 0, 36);
  refused(&b, 32, "not a multiple of 8");

  b.n = 0;
  sw(&b, 0, 1, 10, 0);
  header(&b, 14, 0, 64);   /* claims 64 bytes, 8 are left */
  refused(&b, 32, "runs past");

  b.n = 0;
  header(&b, 99, 0, 8);
  refused(&b, 0, "unknown record type 99");

  b.n = 0;
  header(&b, 14, 0, 16);
  uint64_t junk = 0;
  put(&b, &junk, 8);
  refused(&b, 0, "too small");

  b.n = 0;
  sw(&b, 0, 1, 500, 0);
  sw(&b, 1, 1, 400, 0);
  refused(&b, 32, "time goes backwards");

  b.n = 0;
  sw(&b, 0, 1, 10, 0);
  put(&b, &junk, 4);
  refused(&b, 32, "less than a record header");
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(each_kind_of_execution),
    cmocka_unit_test(an_out_after_another_threads_in_splits_in_two),
    cmocka_unit_test(per_thread_records_across_chunks_and_lost_counts),
    cmocka_unit_test(malformed_headers_are_refused_where_they_are),
  };
  return cmocka_run_group_tests_name("switch_decoder", tests, NULL, NULL);
}
