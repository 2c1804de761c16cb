/* OpenTelemetry profiles: the writer (agent/output/otlp.c) read back by the
 * reader (cli/otlp_reader.c) to the same stacks, counts, threads and times;
 * the schema's zero entries; corrupt messages refused with one line. */
#include "unit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fg/event_kinds.h"
#include "fg/otlp_reader.h"
#include "fg/output.h"
#include "profile_fixture.h"

/* The writer's bytes for p. */
static uint8_t *write_otlp(const struct fg_profile *p, size_t *len)
{
  char *buf = NULL;
  *len = 0;
  FILE *out = open_memstream(&buf, len);
  struct fg_output_settings cfg = {0};
  assert_int_equal(fg_write_otlp(out, p, &cfg), 0);
  fclose(out);
  return (uint8_t *)buf;
}

static char *collapsed(const struct fg_profile *p, bool per_thread)
{
  char *text = NULL;
  size_t len = 0;
  FILE *out = open_memstream(&text, &len);
  struct fg_output_settings cfg = {.per_thread = per_thread};
  assert_int_equal(fg_write_collapsed(out, p, &cfg), 0);
  fclose(out);
  return text;
}

/* Event e of written (p) and of read back (q): the same stacks, per thread. */
static void assert_event_read_back(const struct fg_profile *p, const struct fg_profile *q, enum fg_stack_event e)
{
  struct fg_profile a, b;
  assert_int_equal(fg_profile_select(p, e, &a), 0);
  assert_int_equal(fg_profile_select(q, e, &b), 0);
  char *want = collapsed(&a, true), *got = collapsed(&b, true);
  assert_string_equal(got, want);
  free(want);
  free(got);
  fg_profile_free(&a);
  fg_profile_free(&b);
}

static void reads_back_stacks_threads_and_counts(void **state)
{
  (void)state;
  struct fg_profile p, q;
  build_fixture(&p);
  p.stats.cpu_ns = 107 * 1000000ull;
  p.stats.start_epoch_ns = 1700000000000000000ull;
  size_t len;
  uint8_t *bytes = write_otlp(&p, &len);
  fg_profile_init(&q);
  char err[256] = "";
  assert_int_equal(fg_parse_otlp(bytes, len, "t.otlp", &q, err, sizeof err), 0);
  char *want = collapsed(&p, true), *got = collapsed(&q, true);
  assert_string_equal(got, want);   /* "[worker;1 tid=101]" too: names are attributes, not frames */
  assert_int_equal(q.stats.interval_ns, 1000000);
  assert_int_equal(q.stats.start_epoch_ns, p.stats.start_epoch_ns);
  free(want);
  free(got);
  free(bytes);
  fg_profile_free(&p);
  fg_profile_free(&q);
}

/* Three events, a kernel frame, lines and a timeline: each event its own
 * Profile, each sample at its time, what the timeline lacks at the end. */
static void events_and_times_read_back(void **state)
{
  (void)state;
  struct fg_profile p, q;
  fg_profile_init(&p);
  p.timeline.max = 100;
  p.stats.interval_ns = 2000000;
  p.stats.start_ns = 5000;
  p.stats.start_epoch_ns = 1800000000000000000ull;
  p.stats.wall_ns = 3000000000ull;
  snprintf(p.stats.event, sizeof p.stats.event, "cpu");
  uint32_t t = (uint32_t)fg_profile_add_thread(&p, 7, "main");
  uint32_t f[3] = {(uint32_t)fg_profile_intern(&p, "A.main:12", FG_KIND_INTERPRETED),
                   (uint32_t)fg_profile_intern(&p, "sys_write", FG_KIND_KERNEL),
                   (uint32_t)fg_profile_intern(&p, "byte[]", FG_KIND_CLASS)};
  int64_t cpu = fg_profile_event_stack(&p, FG_STACK_CPU, t, f, 2);
  fg_profile_count(&p, (uint32_t)cpu, 1, 5000 + 10, 0);
  fg_profile_count(&p, (uint32_t)cpu, 2, 5000 + 20, 0);
  fg_profile_count(&p, (uint32_t)cpu, 4, 0, 0);    /* no time: at the end */
  uint32_t af[2] = {f[0], f[2]};
  int64_t alloc = fg_profile_event_stack(&p, FG_STACK_ALLOC, t, af, 2);
  fg_profile_count(&p, (uint32_t)alloc, 4096, 5000 + 30, 0);
  int64_t lock = fg_profile_event_stack(&p, FG_STACK_LOCK, t, f, 1);
  fg_profile_count(&p, (uint32_t)lock, 777, 5000 + 40, 0);
  size_t len;
  uint8_t *bytes = write_otlp(&p, &len);
  fg_profile_init(&q);
  q.timeline.max = 100;
  char err[256] = "";
  assert_int_equal(fg_parse_otlp(bytes, len, "t.otlp", &q, err, sizeof err), 0);
  assert_int_equal(fg_profile_events(&q), 7);
  for (int e = 0; e < FG_STACK_EVENTS; e++) {
    assert_event_read_back(&p, &q, (enum fg_stack_event)e);
  }
  /* the kinds came back exactly (fgagent.frame.kind) */
  for (uint32_t id = 0; id < q.nnames; id++) {
    const char *n = fg_profile_name(&q, id);
    if (strcmp(n, "sys_write") == 0)
      assert_int_equal(fg_profile_kind(&q, id), FG_KIND_KERNEL);
    if (strcmp(n, "A.main:12") == 0)
      assert_int_equal(fg_profile_kind(&q, id), FG_KIND_INTERPRETED);
    if (strcmp(n, "byte[]") == 0)
      assert_int_equal(fg_profile_kind(&q, id), FG_KIND_CLASS);
  }
  /* times: epoch + (monotonic - start); the untimed 4 at the end */
  uint64_t e0 = p.stats.start_epoch_ns;
  uint64_t want[][2] = {{e0 + 10, 1}, {e0 + 20, 2}, {e0 + p.stats.wall_ns, 4}, {e0 + 30, 4096}, {e0 + 40, 777}};
  assert_int_equal(q.timeline.n, 5);
  for (uint32_t i = 0; i < 5; i++) {
    int found = 0;
    for (uint32_t j = 0; j < q.timeline.n; j++)
      found |= q.timeline.entries[j].time_ns == want[i][0] && q.timeline.entries[j].weight == want[i][1];
    assert_true(found);
  }
  free(bytes);
  fg_profile_free(&p);
  fg_profile_free(&q);
}

/* Two kernel events on one stack, and a third from a file that names none
 * ("events", as a single event's were typed): each a Profile typed by its
 * name, read back into a kind of its own with its name; %e and --event
 * find each by its name. */
static void kernel_events_read_back_apart(void **state)
{
  (void)state;
  struct fg_profile p, q;
  fg_profile_init(&p);
  snprintf(p.stats.event, sizeof p.stats.event, "cpu");
  uint32_t t = (uint32_t)fg_profile_add_thread(&p, 7, "main");
  uint32_t f[2] = {(uint32_t)fg_profile_intern(&p, "A.main", FG_KIND_INTERPRETED),
                   (uint32_t)fg_profile_intern(&p, "A.touch", FG_KIND_INTERPRETED)};
  const char *names[2] = {"page-faults", "sched:sched_switch"};
  for (int k = 0; k < 2; k++) {
    p.stats.kernel[k].on = 1;
    p.stats.kernel[k].interval = 10;
    snprintf(p.stats.kevent[k].name, sizeof p.stats.kevent[k].name, "%s", names[k]);
    int64_t s = fg_profile_event_stack(&p, (enum fg_stack_event)(FG_STACK_KERNEL + k), t, f, 2);
    fg_profile_count(&p, (uint32_t)s, 100 * (uint64_t)(k + 1), 0, 0);
    p.stacks[s].events = 10 * (uint64_t)(k + 1);
  }
  size_t len;
  uint8_t *bytes = write_otlp(&p, &len);
  fg_profile_init(&q);
  char err[256] = "";
  assert_int_equal(fg_parse_otlp(bytes, len, "t.otlp", &q, err, sizeof err), 0);
  assert_int_equal(fg_profile_events(&q), 3u << FG_STACK_KERNEL);
  for (int k = 0; k < 2; k++) {
    assert_string_equal(q.stats.kevent[k].name, names[k]);
    assert_event_read_back(&p, &q, (enum fg_stack_event)(FG_STACK_KERNEL + k));
  }
  char file[64];
  fg_event_file_name(&q.stats, FG_STACK_KERNEL + 1, file, sizeof file);
  assert_string_equal(file, "sched_sched_switch");   /* several: each by its name, made a file name's */
  unsigned present = fg_profile_events(&q);
  assert_int_equal(fg_event_by_name(&q.stats, present, "sched:sched_switch"), FG_STACK_KERNEL + 1);
  assert_int_equal(fg_event_by_name(&q.stats, present, "sched_sched_switch"), FG_STACK_KERNEL + 1);
  assert_int_equal(fg_event_by_name(&q.stats, present, "kernel"), FG_STACK_KERNEL);
  assert_int_equal(fg_event_by_name(&q.stats, present, "cpu"), -1);
  struct fg_profile one;
  assert_int_equal(fg_profile_select(&q, FG_STACK_KERNEL + 1, &one), 0);
  fg_event_file_name(&one.stats, FG_STACK_KERNEL + 1, file, sizeof file);
  assert_string_equal(file, "sched_sched_switch");   /* a selection keeps the stats: the same name */
  fg_profile_free(&one);
  /* a profile of one kernel event: %e is "kernel", as before several were recorded */
  struct fg_stats lone = {0};
  lone.kernel[2].on = 1;
  snprintf(lone.kevent[2].name, sizeof lone.kevent[2].name, "page-faults");
  fg_event_file_name(&lone, FG_STACK_KERNEL + 2, file, sizeof file);
  assert_string_equal(file, "kernel");
  assert_int_equal(fg_stats_kevent_index(&lone, "page-faults"), 2);
  assert_int_equal(fg_stats_kevent_index(&lone, "cs"), 0);
  assert_int_equal(fg_stats_kevent_index(&lone, "x"), 1);
  assert_int_equal(fg_stats_kevent_index(&lone, "y"), 3);
  assert_int_equal(fg_stats_kevent_index(&lone, "z"), -1);   /* a fifth: none */
  fg_kevent_file_name("uprobe:/usr/lib/libc.so.6:write", file, sizeof file);
  assert_string_equal(file, "uprobe__usr_lib_libc_so_6_write");
  free(bytes);
  fg_profile_free(&p);
  fg_profile_free(&q);
}

static uint64_t read_varint(const uint8_t *b, size_t *pos)
{
  uint64_t v = 0;
  int shift = 0;
  while (b[*pos] & 0x80) {
    v |= (uint64_t)(b[(*pos)++] & 0x7f) << shift;
    shift += 7;
  }
  return v | (uint64_t)b[(*pos)++] << shift;
}

/* The schema's rules: every table's entry 0 is its zero value, present;
 * string_table[0] is "". */
static void tables_start_with_their_zero_values(void **state)
{
  (void)state;
  struct fg_profile p;
  build_fixture(&p);
  size_t len, pos = 0;
  uint8_t *b = write_otlp(&p, &len);
  assert_int_equal(read_varint(b, &pos), 1 << 3 | 2);   /* resource_profiles */
  uint64_t skip = read_varint(b, &pos);
  pos += skip;
  assert_int_equal(read_varint(b, &pos), 2 << 3 | 2);   /* the dictionary, to the end */
  uint64_t dict_len = read_varint(b, &pos);
  size_t end = pos + dict_len;
  assert_int_equal(end, len);
  int seen[8] = {0};
  while (pos < end) {
    uint64_t tag = read_varint(b, &pos);
    assert_int_equal(tag & 7, 2);   /* every table's entry is a message or a string */
    uint64_t n = read_varint(b, &pos), field = tag >> 3;
    assert_true(field >= 1 && field <= 7);
    if (!seen[field]++) {           /* entry 0: empty, but the link's zero ids */
      if (field == 4)
        assert_int_equal(n, 2 + 16 + 2 + 8);
      else
        assert_int_equal(n, 0);
    }
    pos += n;
  }
  for (int f = 1; f <= 7; f++)
    assert_true(seen[f] >= 1);
  assert_true(seen[2] > 1 && seen[3] > 1 && seen[5] > 1 && seen[7] > 1);
  free(b);
  fg_profile_free(&p);
}

static void corrupt_messages_are_one_line(void **state)
{
  (void)state;
  struct fg_profile p, q;
  build_fixture(&p);
  size_t len;
  uint8_t *b = write_otlp(&p, &len);
  char err[256];
  /* every truncation: an error or fewer samples, never a crash (ASan in make fuzz) */
  for (size_t cut = 0; cut < len; cut += 7) {
    fg_profile_init(&q);
    err[0] = '\0';
    if (fg_parse_otlp(b, cut, "cut.otlp", &q, err, sizeof err) != 0) {
      assert_non_null(strstr(err, "cut.otlp"));
      assert_null(strchr(err, '\n'));
    }
    fg_profile_free(&q);
  }
  /* a length past the end */
  uint8_t bad[] = {1 << 3 | 2, 0x7f, 0x0a};
  fg_profile_init(&q);
  assert_int_equal(fg_parse_otlp(bad, sizeof bad, "bad.otlp", &q, err, sizeof err), -1);
  assert_non_null(strstr(err, "bad.otlp: byte"));
  fg_profile_free(&q);
  /* text is no message */
  fg_profile_init(&q);
  assert_int_equal(fg_parse_otlp((const uint8_t *)"main;a 1\n", 9, "t.otlp", &q, err, sizeof err), -1);
  fg_profile_free(&q);
  free(b);
  fg_profile_free(&p);
}

/* A sample on the zero stack, in a message with no dictionary at all: one
 * "[unknown]" frame, never an empty stack (which wrote nothing a collapsed
 * line could hold). The fuzzer's first find. */
static void a_sample_on_no_stack_is_unknown(void **state)
{
  (void)state;
  /* resource_profiles { scope_profiles { profiles { samples { values: [5] } } } } */
  static const uint8_t msg[] = {0x0a, 0x09, 0x12, 0x07, 0x12, 0x05, 0x12, 0x03, 0x22, 0x01, 0x05};
  struct fg_profile q;
  fg_profile_init(&q);
  char err[256] = "";
  assert_int_equal(fg_parse_otlp(msg, sizeof msg, "zero.otlp", &q, err, sizeof err), 0);
  char *text = collapsed(&q, false);
  assert_string_equal(text, "[unknown] 5\n");
  free(text);
  fg_profile_free(&q);
}

/* Many samples on one deep stack, each on a thread of its own: the frames
 * built are held to 64 a byte of input, an error past that. */
static void frames_are_bounded_by_the_input(void **state)
{
  (void)state;
  struct fg_profile p, q;
  fg_profile_init(&p);
  uint32_t frames[4000];
  for (uint32_t i = 0; i < 4000; i++) {
    char name[32];
    snprintf(name, sizeof name, "f%u", i % 3);
    frames[i] = (uint32_t)fg_profile_intern(&p, name, FG_KIND_JAVA);
  }
  for (int t = 0; t < 400; t++) {
    char name[16];
    snprintf(name, sizeof name, "t%d", t);
    uint32_t th = (uint32_t)fg_profile_add_thread(&p, t + 1, name);
    fg_profile_add(&p, th, frames, 4000, 1);
  }
  size_t len;
  uint8_t *b = write_otlp(&p, &len);
  assert_true(len < 4000 * 3 + 400 * 40);   /* one Stack, shared */
  fg_profile_init(&q);
  char err[256] = "";
  /* 400 x 4000 frames of a file under 64 x its size */
  int rc = fg_parse_otlp(b, len, "deep.otlp", &q, err, sizeof err);
  assert_true((uint64_t)len * 64 < 400 * 4000ull);   /* this file is past the bound */
  {
    assert_int_equal(rc, -1);
    assert_non_null(strstr(err, "64 a byte"));
  }
  fg_profile_free(&q);
  free(b);
  fg_profile_free(&p);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(reads_back_stacks_threads_and_counts),
    cmocka_unit_test(events_and_times_read_back),
    cmocka_unit_test(kernel_events_read_back_apart),
    cmocka_unit_test(tables_start_with_their_zero_values),
    cmocka_unit_test(corrupt_messages_are_one_line),
    cmocka_unit_test(a_sample_on_no_stack_is_unknown),
    cmocka_unit_test(frames_are_bounded_by_the_input),
  };
  return cmocka_run_group_tests_name("otlp", tests, NULL, NULL);
}
