/* The JFR writer read back by a minimal reader: the chunk header, one
 * jdk.ExecutionSample per sample at its time, JFR's long encoding, and how
 * frame names are taken apart into class, method and package. The JDK's own
 * reader checks the same files in tests/tools and the integration tests. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "unit.h"
#include "fg/output.h"
#include "fg/profile.h"
#include "output/frame_name.h"
#include "output/jfr_chunk.h"

static uint64_t be(const unsigned char *b, int n)
{
  uint64_t v = 0;
  for (int i = 0; i < n; i++)
    v = v << 8 | b[i];
  return v;
}

/* JFR's reading of a long: 7 bits a byte, the 9th byte whole. */
static uint64_t jfr_long(const unsigned char *b, size_t *pos)
{
  uint64_t v = 0;
  for (int i = 0; i < 8; i++) {
    unsigned char c = b[(*pos)++];
    v |= (uint64_t)(c & 0x7f) << (7 * i);
    if (!(c & 0x80))
      return v;
  }
  return v | (uint64_t)b[(*pos)++] << 56;
}

static void longs_use_the_ninth_byte_whole(void **state)
{
  (void)state;
  const uint64_t values[] = {0, 127, 128, 1ull << 55, (1ull << 56) - 1, 1ull << 56, UINT64_MAX, 0xffffffffu};
  for (size_t i = 0; i < sizeof values / sizeof values[0]; i++) {
    struct fg_bytes o = {0};
    jfr_put_long(&o, values[i]);
    assert_true(o.len <= 9);
    size_t pos = 0;
    assert_true(jfr_long(o.b, &pos) == values[i]);
    assert_int_equal(pos, o.len);
    free(o.b);
  }
  struct fg_bytes o = {0};
  jfr_put_int(&o, -1);   /* read as a long, cut to 32 bits */
  size_t pos = 0;
  assert_int_equal((int32_t)jfr_long(o.b, &pos), -1);
  free(o.b);
}

struct sample {
  uint64_t ticks, thread, state, stack;
};

/* The jdk.ActiveSetting events of the last chunk read: event type, name, value. */
struct setting {
  uint64_t type;
  char name[16], value[16];
};
static struct setting settings[16];
static size_t nsettings;

static void read_string(const unsigned char *b, size_t *pos, char *out, size_t len)
{
  assert_int_equal(b[(*pos)++], 3);   /* UTF-8 */
  uint64_t n = jfr_long(b, pos);
  assert_true(n < len);
  memcpy(out, b + *pos, n);
  out[n] = '\0';
  *pos += n;
}

/* The chunk's header checked, its samples in file order (its settings in settings). */
static size_t read_chunk(const unsigned char *b, size_t len, struct sample *out, size_t max)
{
  assert_memory_equal(b, "FLR\0", 4);
  assert_int_equal(be(b + 4, 2), 2);
  assert_int_equal(be(b + 8, 8), len);
  uint64_t pool = be(b + 16, 8), meta = be(b + 24, 8);
  assert_int_equal(be(b + 56, 8), 1000000000);
  assert_int_equal(b[64], 0);   /* finished */
  assert_int_equal(b[67], 3);   /* compressed integers, last chunk */
  size_t n = 0;
  int checkpoints = 0, metadata = 0;
  nsettings = 0;
  for (size_t pos = 68; pos < len;) {
    size_t at = pos;
    uint64_t size = jfr_long(b, &pos), type = jfr_long(b, &pos);
    assert_true(size > 1 && at + size <= len);
    if (type == T_EXECUTION_SAMPLE) {
      assert_true(n < max);
      out[n].ticks = jfr_long(b, &pos);
      out[n].thread = jfr_long(b, &pos);
      out[n].state = jfr_long(b, &pos);
      out[n].stack = jfr_long(b, &pos);
      assert_int_equal(pos, at + size);
      n++;
    } else if (type == T_ACTIVE_SETTING) {
      assert_true(nsettings < sizeof settings / sizeof settings[0]);
      assert_true(n == 0);   /* before the first sample, as the JDK writes them at the start */
      struct setting *st = &settings[nsettings++];
      jfr_long(b, &pos);     /* start */
      st->type = jfr_long(b, &pos);
      read_string(b, &pos, st->name, sizeof st->name);
      read_string(b, &pos, st->value, sizeof st->value);
      assert_int_equal(pos, at + size);
    } else if (type == 1) {
      assert_int_equal(at, pool);
      checkpoints++;
    } else {
      assert_int_equal(type, 0);
      assert_int_equal(at, meta);
      metadata++;
    }
    pos = at + size;
  }
  assert_int_equal(checkpoints, 1);
  assert_int_equal(metadata, 1);
  return n;
}

/* p as a JFR file in memory (the caller frees it). */
static char *write_jfr(const struct fg_profile *p, size_t *len)
{
  char *buf;
  FILE *out = open_memstream(&buf, len);
  struct fg_output_settings cfg = {0};
  assert_int_equal(fg_write_jfr(out, p, &cfg), 0);
  fclose(out);
  return buf;
}

static void one_event_per_sample_at_its_time(void **state)
{
  (void)state;
  struct fg_profile p;
  fg_profile_init(&p);
  p.timeline.max = 100;
  uint32_t t0 = (uint32_t)fg_profile_add_thread(&p, 100, "main");
  uint32_t t1 = (uint32_t)fg_profile_add_thread(&p, 101, "worker");
  uint32_t a[] = {(uint32_t)fg_profile_intern(&p, "pkg/Main.main", FG_KIND_JAVA),
                  (uint32_t)fg_profile_intern(&p, "pkg/Main.hot:12", FG_KIND_COMPILED)};
  uint32_t b[] = {(uint32_t)fg_profile_intern(&p, "[GC_active]", FG_KIND_MARKER)};
  uint32_t sa = (uint32_t)fg_profile_stack(&p, t0, a, 2), sb = (uint32_t)fg_profile_stack(&p, t1, b, 1);
  fg_profile_count(&p, sa, 3, 1000, 0);   /* one sample standing for three (the back-off's weight) */
  fg_profile_count(&p, sa, 1, 2000, 1);
  fg_profile_count(&p, sb, 2, 0, 0);      /* no time: stored through the overflow slots */
  p.stats.start_ns = 500;
  p.stats.wall_ns = 10000;
  p.stats.start_epoch_ns = 1700000000000000000ull;
  snprintf(p.stats.event, sizeof p.stats.event, "cpu");

  size_t len;
  char *buf = write_jfr(&p, &len);
  const unsigned char *u = (const unsigned char *)buf;
  assert_int_equal(be(u + 32, 8), 1700000000000000000ull);
  assert_int_equal(be(u + 40, 8), 10000);
  assert_int_equal(be(u + 48, 8), 500);
  struct sample s[16];
  size_t n = read_chunk(u, len, s, 16);
  assert_int_equal(n, 6);   /* every stored sample, weight included */
  const uint64_t ticks[] = {1000, 1000, 1000, 2000, 10500, 10500};
  const uint64_t stacks[] = {sa + 1, sa + 1, sa + 1, sa + 1, sb + 1, sb + 1};
  const uint64_t threads[] = {t0 + 1, t0 + 1, t0 + 1, t0 + 1, t1 + 1, t1 + 1};
  for (size_t i = 0; i < n; i++) {
    assert_int_equal(s[i].ticks, ticks[i]);
    assert_int_equal(s[i].stack, stacks[i]);
    assert_int_equal(s[i].thread, threads[i]);
    assert_int_equal(s[i].state, 1);   /* running: event=cpu */
  }
  /* the pools name the method and its class and package, the line apart */
  assert_non_null(memmem(buf, len, "pkg/Main", 8));
  assert_non_null(memmem(buf, len, "\x03\x03hot", 5));
  assert_null(memmem(buf, len, "hot:12", 6));
  free(buf);
  fg_profile_free(&p);
}

static void an_empty_profile_is_a_valid_chunk(void **state)
{
  (void)state;
  struct fg_profile p;
  fg_profile_init(&p);
  size_t len;
  char *buf = write_jfr(&p, &len);
  struct sample s[1];
  assert_int_equal(read_chunk((const unsigned char *)buf, len, s, 1), 0);
  free(buf);
}

static int has_setting(uint64_t type, const char *name, const char *value)
{
  for (size_t i = 0; i < nsettings; i++)
    if (settings[i].type == type && strcmp(settings[i].name, name) == 0 && strcmp(settings[i].value, value) == 0)
      return 1;
  return 0;
}

/* Each event type the session recorded is said enabled with its stack
 * trace, at the interval or threshold asked, in the JDK's words for a
 * time; one not recorded is said nothing of. */
static void settings_name_each_recorded_event(void **state)
{
  (void)state;
  struct fg_profile p;
  fg_profile_init(&p);
  p.stats.interval_ns = 1000000;
  p.stats.lock.on = 1;
  p.stats.lock.interval = 10000;
  size_t len;
  char *buf = write_jfr(&p, &len);
  struct sample s[1];
  read_chunk((const unsigned char *)buf, len, s, 1);
  free(buf);
  assert_true(has_setting(T_EXECUTION_SAMPLE, "enabled", "true"));
  assert_true(has_setting(T_EXECUTION_SAMPLE, "period", "1 ms"));
  for (uint64_t type = T_MONITOR_ENTER; type <= T_THREAD_PARK; type++) {
    assert_true(has_setting(type, "enabled", "true"));
    assert_true(has_setting(type, "stackTrace", "true"));
    assert_true(has_setting(type, "threshold", "10 us"));
  }
  assert_int_equal(nsettings, 8);   /* none for allocations */

  p.stats.cpu_off = 1;
  p.stats.lock.on = 0;
  p.stats.alloc.on = 1;
  buf = write_jfr(&p, &len);
  read_chunk((const unsigned char *)buf, len, s, 1);
  free(buf);
  assert_true(has_setting(T_ALLOC_SAMPLE, "enabled", "true"));
  assert_true(has_setting(T_ALLOC_SAMPLE, "stackTrace", "true"));
  assert_int_equal(nsettings, 2);

  const struct {
    uint64_t ns;
    const char *text;
  } times[] = {{0, "0 ns"}, {250000, "250 us"}, {1500, "1500 ns"}, {2000000000, "2 s"}, {20000000, "20 ms"}};
  p.stats.alloc.on = 0;
  p.stats.lock.on = 1;
  for (size_t i = 0; i < sizeof times / sizeof times[0]; i++) {
    p.stats.lock.interval = times[i].ns;
    buf = write_jfr(&p, &len);
    read_chunk((const unsigned char *)buf, len, s, 1);
    free(buf);
    assert_true(has_setting(T_MONITOR_ENTER, "threshold", times[i].text));
  }
  fg_profile_free(&p);
}

static void java_names_split_into_class_method_package(void **state)
{
  (void)state;
  struct fg_java_name j;
  assert_int_equal(fg_frame_split_java("java/util/HashMap$Node.<init>", &j), 0);
  assert_int_equal(j.cls_len, strlen("java/util/HashMap$Node"));
  assert_memory_equal(j.method, "<init>", 6);
  assert_int_equal(j.package_len, strlen("java/util"));
  assert_int_equal(fg_frame_split_java("pkg/App$$Lambda$14/0x0000000800c03000.run", &j), 0);
  assert_int_equal(j.cls_len, strlen("pkg/App$$Lambda$14/0x0000000800c03000"));
  assert_int_equal(j.package_len, 3);   /* "pkg": not the hidden class's address */
  assert_int_equal(fg_frame_split_java("Default.m", &j), 0);
  assert_int_equal(j.package_len, 0);
  const char *not_java[] = {"__GI___poll", "libc.so.6+0x1f00", "[GC_active]", "JavaThread::run()", ".x", "x."};
  for (size_t i = 0; i < sizeof not_java / sizeof not_java[0]; i++) {
    assert_int_equal(fg_frame_split_java(not_java[i], &j), -1);
    assert_int_equal(j.method_len, strlen(not_java[i]));
  }
  char f[64];
  assert_int_equal(fg_frame_split_line("a/B.c:42", f, sizeof f), 42);
  assert_string_equal(f, "a/B.c");
  assert_int_equal(fg_frame_split_line("std::x", f, sizeof f), 0);
  assert_string_equal(f, "std::x");
}

/* A frame interned at a bytecode index (lines) says it in its StackFrame:
 * method, line 12, bytecode index 17, type JIT compiled (kind 5 + 1). */
static void frames_carry_their_bytecode_index(void **state)
{
  (void)state;
  struct fg_profile p;
  fg_profile_init(&p);
  uint32_t t = (uint32_t)fg_profile_add_thread(&p, 100, "main");
  uint32_t a[] = {(uint32_t)fg_profile_intern_at(&p, "pkg/Main.hot:12", FG_KIND_COMPILED, 17)};
  assert_int_equal(fg_profile_add(&p, t, a, 1, 1), 0);
  size_t len;
  char *buf = write_jfr(&p, &len);
  assert_non_null(memmem(buf, len, "\x0c\x11\x06", 3));
  free(buf);
  fg_profile_free(&p);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(longs_use_the_ninth_byte_whole),
    cmocka_unit_test(one_event_per_sample_at_its_time),
    cmocka_unit_test(frames_carry_their_bytecode_index),
    cmocka_unit_test(an_empty_profile_is_a_valid_chunk),
    cmocka_unit_test(java_names_split_into_class_method_package),
    cmocka_unit_test(settings_name_each_recorded_event),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
