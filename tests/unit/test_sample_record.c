/* A sample survives the trip handler -> ring -> drainer unchanged: its
 * record's fields, and its stack through the trace it names. */
#include "unit.h"

#include "fg/sample_record.h"

static void fields_round_trip(void **state)
{
  (void)state;
  struct fg_trace_table t;
  assert_int_equal(fg_trace_table_init(&t, 16, 4096, 0), 0);
  ASGCT_CallFrame frames[17];
  uint8_t types[17];
  for (int i = 0; i < 17; i++) {
    frames[i].method_id = (jmethodID)(uintptr_t)(0x7f0000001000ull + (uint64_t)i * 8);
    frames[i].lineno = i == 2 ? -3 : 100 + i;
    types[i] = (uint8_t)(i % 6);
  }
  const struct fg_trace *tr = fg_trace_table_put(&t, frames, types, 17, FG_SAMPLE_TRUNCATED);
  uint64_t w[FG_SAMPLE_WORDS];
  fg_sample_encode(w, 42, tr, 123456789, 51, 4095, 9);
  assert_int_equal(fg_ring_header_words(w[0]), FG_SAMPLE_WORDS);
  assert_int_equal(fg_ring_header_tag(w[0]), FG_RECORD_SAMPLE);
  assert_int_equal(fg_sample_serial(w), 42);
  assert_ptr_equal(fg_sample_trace(w), tr);
  assert_int_equal(fg_sample_time(w), 123456789);
  assert_int_equal(fg_sample_weight(w), 51);
  assert_int_equal(fg_sample_cpu(w), 4095);
  assert_int_equal(fg_sample_state(w), 9);
  assert_int_equal(fg_sample_nframes(w), 17);
  assert_int_equal(fg_sample_flags(w), FG_SAMPLE_TRUNCATED);
  for (uint32_t i = 0; i < 17; i++) {
    assert_ptr_equal(fg_sample_method(w, i), frames[i].method_id);
    assert_int_equal(fg_sample_bci(w, i), frames[i].lineno);
    assert_int_equal(fg_sample_type(w, i), types[i]);
  }
  /* a weight of 2^32 - 1 and no CPU (-1) stay apart */
  fg_sample_encode(w, 1, tr, 1, UINT32_MAX, -1, 0);
  assert_int_equal(fg_sample_weight(w), UINT32_MAX);
  assert_int_equal(fg_sample_cpu(w), 0);
  assert_int_equal(fg_sample_state(w), 0);
  fg_trace_table_destroy(&t);
}

static void tick_codes_ride_in_the_trace_flags(void **state)
{
  (void)state;
  struct fg_trace_table t;
  assert_int_equal(fg_trace_table_init(&t, 16, 4096, 0), 0);
  for (int tick = 0; tick >= -12; tick--) {
    const struct fg_trace *tr =
        fg_trace_table_put(&t, NULL, NULL, 0, fg_sample_flags_with_tick(FG_SAMPLE_RECOVERED, tick));
    uint64_t w[FG_SAMPLE_WORDS];
    fg_sample_encode(w, 7, tr, 1, 1, 0, 3);
    assert_int_equal(fg_sample_nframes(w), 0);
    assert_int_equal(fg_sample_tick(w), tick);
    assert_true(fg_sample_flags(w) & FG_SAMPLE_FAILED);
    assert_true(fg_sample_flags(w) & FG_SAMPLE_RECOVERED);
    if (tick > -11)
      assert_int_equal(fg_tick_index(tick), -tick);
  }
  assert_int_equal(fg_trace_table_count(&t), 13);
  assert_int_equal(fg_tick_index(-11), FG_TICK_OTHER);
  assert_string_equal(fg_tick_name(fg_tick_index(-5)), "unknown_Java");
  assert_string_equal(fg_tick_name(fg_tick_index(-10)), "safepoint");
  fg_trace_table_destroy(&t);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(fields_round_trip),
    cmocka_unit_test(tick_codes_ride_in_the_trace_flags),
  };
  return cmocka_run_group_tests_name("sample_record", tests, NULL, NULL);
}
