/* A sample survives the trip handler -> ring -> drainer unchanged. */
#include "unit.h"

#include "fg/options.h"
#include "fg/sample_record.h"

static void frames_and_bcis_round_trip(void **state)
{
  (void)state;
  for (int n = 1; n <= 17; n++) {
    ASGCT_CallFrame frames[17];
    uint8_t types[17];
    for (int i = 0; i < n; i++) {
      frames[i].method_id = (jmethodID)(uintptr_t)(0x7f0000001000ull + (uint64_t)i * 8);
      frames[i].lineno = i == 2 ? -3 : 100 + i;
      types[i] = (uint8_t)(i % 6);
    }
    uint64_t w[64];
    fg_sample_encode(w, 42, 123456789, (uint32_t)n, fg_sample_flags_with_cpu(FG_SAMPLE_TRUNCATED, 17),
                     (uint32_t)n * 3, frames, types);
    assert_int_equal(fg_ring_header_words(w[0]), fg_sample_words((uint32_t)n));
    assert_int_equal(fg_ring_header_tag(w[0]), FG_RECORD_SAMPLE);
    assert_int_equal(fg_sample_serial(w), 42);
    assert_int_equal(fg_sample_nframes(w), n);
    assert_int_equal(fg_sample_flags(w) & 15u, FG_SAMPLE_TRUNCATED);
    assert_int_equal(fg_sample_cpu(w), 17);
    assert_int_equal(fg_sample_time(w), 123456789);
    assert_int_equal(fg_sample_weight(w), n * 3);
    for (int i = 0; i < n; i++) {
      assert_ptr_equal(fg_sample_method(w, (uint32_t)i), frames[i].method_id);
      assert_int_equal(fg_sample_bci(w, (uint32_t)i), frames[i].lineno);
      assert_int_equal(fg_sample_type(w, (uint32_t)i), types[i]);
    }
  }
}

static void tick_codes_and_states_ride_in_the_flags(void **state)
{
  (void)state;
  uint64_t w[6];
  for (int tick = 0; tick >= -12; tick--) {
    uint32_t flags = fg_sample_flags_with_state(fg_sample_flags_with_tick(FG_SAMPLE_RECOVERED, tick), 3);
    fg_sample_encode(w, 7, 1, 0, flags, 1, NULL, NULL);
    assert_int_equal(fg_ring_header_words(w[0]), FG_SAMPLE_HEADER_WORDS);
    assert_int_equal(fg_sample_nframes(w), 0);
    assert_int_equal(fg_sample_tick(w), tick);
    assert_int_equal(fg_sample_state(w), 3);
    assert_true(fg_sample_flags(w) & FG_SAMPLE_FAILED);
    assert_true(fg_sample_flags(w) & FG_SAMPLE_RECOVERED);
    if (tick > -11)
      assert_int_equal(fg_tick_index(tick), -tick);
  }
  assert_int_equal(fg_tick_index(-11), FG_TICK_OTHER);
  assert_string_equal(fg_tick_name(fg_tick_index(-5)), "unknown_Java");
  assert_string_equal(fg_tick_name(fg_tick_index(-10)), "safepoint");
}

static void option_size_matches_the_record(void **state)
{
  (void)state;
  assert_int_equal(fg_sample_bytes(2048), fg_sample_words(2048) * 8);
  assert_int_equal(fg_sample_bytes(1), fg_sample_words(1) * 8);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(frames_and_bcis_round_trip),
    cmocka_unit_test(tick_codes_and_states_ride_in_the_flags),
    cmocka_unit_test(option_size_matches_the_record),
  };
  return cmocka_run_group_tests_name("sample_record", tests, NULL, NULL);
}
