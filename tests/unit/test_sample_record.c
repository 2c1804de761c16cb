/* A sample survives the trip handler -> ring -> drainer unchanged. */
#include "unit.h"

#include "fg/options.h"
#include "fg/sample_record.h"

static void frames_and_bcis_round_trip(void **state)
{
  (void)state;
  for (int n = 1; n <= 7; n++) {
    ASGCT_CallFrame frames[7];
    for (int i = 0; i < n; i++) {
      frames[i].method_id = (jmethodID)(uintptr_t)(0x7f0000001000ull + (uint64_t)i * 8);
      frames[i].lineno = i == 2 ? -3 : 100 + i;
    }
    uint64_t w[32];
    fg_sample_encode(w, 42, n, FG_SAMPLE_TRUNCATED, frames);
    assert_int_equal(fg_ring_header_words(w[0]), fg_sample_words((uint32_t)n));
    assert_int_equal(fg_ring_header_tag(w[0]), FG_RECORD_SAMPLE);
    assert_int_equal(fg_sample_serial(w), 42);
    assert_int_equal(fg_sample_num_frames(w), n);
    assert_int_equal(fg_sample_flags(w), FG_SAMPLE_TRUNCATED);
    for (int i = 0; i < n; i++) {
      assert_ptr_equal(fg_sample_method(w, (uint32_t)i), frames[i].method_id);
      assert_int_equal(fg_sample_bci(w, (uint32_t)i), frames[i].lineno);
    }
  }
}

static void tick_codes_keep_their_sign(void **state)
{
  (void)state;
  uint64_t w[4];
  for (int tick = 0; tick >= -10; tick--) {
    fg_sample_encode(w, 7, tick, 0, NULL);
    assert_int_equal(fg_ring_header_words(w[0]), 3);
    assert_int_equal(fg_sample_num_frames(w), tick);
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
    cmocka_unit_test(tick_codes_keep_their_sign),
    cmocka_unit_test(option_size_matches_the_record),
  };
  return cmocka_run_group_tests_name("sample_record", tests, NULL, NULL);
}
