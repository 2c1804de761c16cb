/* walker=copy's sample records: a record laid out as the kernel writes one
 * for fg_copy_sample_type and fg_copy_regs_mask reads back field by field;
 * a short or lying one is refused. */
#include "unit.h"

#include <linux/perf_event.h>
#include <string.h>

#include "sampling/copy/copy_record.h"

struct builder {
  uint8_t buf[4096];
  size_t n;
};

static void put(struct builder *b, const void *p, size_t n)
{
  memcpy(b->buf + b->n, p, n);
  b->n += n;
}

static void put64(struct builder *b, uint64_t v) { put(b, &v, 8); }

/* A sample of tid 42 on cpu 1 with kernel frames (when chain) and a
 * stack copy of room bytes of which filled were taken. */
static size_t make(struct builder *b, int chain, uint64_t room, uint64_t filled)
{
  b->n = 0;
  struct perf_event_header h = {PERF_RECORD_SAMPLE, 0, 0};
  put(b, &h, sizeof h);
  uint32_t ids[2] = {7, 42}, cpu[2] = {1, 0};
  put(b, ids, sizeof ids);
  put64(b, 123456789);
  put(b, cpu, sizeof cpu);
  if (chain) {
    put64(b, 3);
    put64(b, (uint64_t)PERF_CONTEXT_KERNEL);
    put64(b, 0xffffffff81000010ull);
    put64(b, 0xffffffff81000020ull);
  }
  put64(b, PERF_SAMPLE_REGS_ABI_64);
  uint64_t regs[7] = {0xa0, 0xb0, 0xd0, 0x7000, 0x6000, 0x401000, 0x13};   /* ax bx dx bp sp ip r13 */
  put(b, regs, sizeof regs);
  put64(b, room);
  for (uint64_t i = 0; i < room; i++)
    b->buf[b->n++] = (uint8_t)i;
  put64(b, filled);
  ((struct perf_event_header *)(void *)b->buf)->size = (uint16_t)b->n;
  return b->n;
}

static void fields_come_back(void **state)
{
  (void)state;
  struct builder b;
  size_t n = make(&b, 1, 64, 40);
  struct fg_copy_sample s;
  assert_int_equal(fg_copy_record_read(b.buf, n, 1, &s), 0);
  assert_int_equal(s.pid, 7);
  assert_int_equal(s.tid, 42);
  assert_int_equal(s.time_ns, 123456789);
  assert_int_equal(s.cpu, 1);
  assert_int_equal(s.callchain_n, 3);
  assert_int_equal(s.callchain[1], 0xffffffff81000010ull);
  assert_true(s.user);
  assert_int_equal(s.copy.rax, 0xa0);
  assert_int_equal(s.copy.rbx, 0xb0);
  assert_int_equal(s.copy.rdx, 0xd0);
  assert_int_equal(s.copy.fp, 0x7000);
  assert_int_equal(s.copy.sp, 0x6000);
  assert_int_equal(s.copy.pc, 0x401000);
  assert_int_equal(s.copy.r13, 0x13);
  assert_int_equal(s.copy.copied, 40);
  assert_int_equal(s.copy.stack[5], 5);
  assert_false(s.copy.cut);   /* the stack ended inside the room */
}

static void a_full_copy_may_be_cut(void **state)
{
  (void)state;
  struct builder b;
  size_t n = make(&b, 0, 64, 64);
  struct fg_copy_sample s;
  assert_int_equal(fg_copy_record_read(b.buf, n, 0, &s), 0);
  assert_null(s.callchain);
  assert_int_equal(s.copy.copied, 64);
  assert_true(s.copy.cut);
}

static void short_records_are_refused(void **state)
{
  (void)state;
  struct builder b;
  size_t n = make(&b, 1, 64, 64);
  struct fg_copy_sample s;
  for (size_t cut = 0; cut < n; cut += 8) {
    ((struct perf_event_header *)(void *)b.buf)->size = (uint16_t)cut;
    assert_int_equal(fg_copy_record_read(b.buf, n, 1, &s), -1);
  }
  make(&b, 1, 64, 65);   /* more taken than room: a lie */
  assert_int_equal(fg_copy_record_read(b.buf, n, 1, &s), -1);
  make(&b, 1, 64, 64);
  ((uint64_t *)(void *)(b.buf + sizeof(struct perf_event_header) + 24))[0] = 1u << 30;   /* nr past the end */
  assert_int_equal(fg_copy_record_read(b.buf, n, 1, &s), -1);
}

static void a_kernel_thread_has_no_user_registers(void **state)
{
  (void)state;
  struct builder b;
  b.n = 0;
  struct perf_event_header h = {PERF_RECORD_SAMPLE, 0, 0};
  put(&b, &h, sizeof h);
  uint32_t ids[2] = {7, 42}, cpu[2] = {0, 0};
  put(&b, ids, sizeof ids);
  put64(&b, 1);
  put(&b, cpu, sizeof cpu);
  put64(&b, PERF_SAMPLE_REGS_ABI_NONE);
  put64(&b, 0);   /* no stack */
  ((struct perf_event_header *)(void *)b.buf)->size = (uint16_t)b.n;
  struct fg_copy_sample s;
  assert_int_equal(fg_copy_record_read(b.buf, b.n, 0, &s), 0);
  assert_false(s.user);
  assert_null(s.copy.stack);
}

static void the_mask_names_the_walkers_registers(void **state)
{
  (void)state;
  assert_int_equal(__builtin_popcountll(fg_copy_regs_mask()), 7);
  assert_true(fg_copy_sample_type(1) & PERF_SAMPLE_CALLCHAIN);
  assert_false(fg_copy_sample_type(0) & PERF_SAMPLE_CALLCHAIN);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(fields_come_back),
      cmocka_unit_test(a_full_copy_may_be_cut),
      cmocka_unit_test(short_records_are_refused),
      cmocka_unit_test(a_kernel_thread_has_no_user_registers),
      cmocka_unit_test(the_mask_names_the_walkers_registers),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
