/* The JFR reader: fgagent's own recordings read back exactly (CPU samples,
 * allocation weights with their classes, lock waits, threads, times), and any
 * prefix or corruption of one refused with a line, never a crash. The JDK's
 * own recordings are read in the integration tests. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "unit.h"
#include "fg/jfr_reader.h"
#include "fg/output.h"
#include "fg/profile.h"

#define START 1000000000ull   /* the samples' clock when the recording began */

/* Adds count of frames (root first; a name ending in "[]" or "Object" is a class) as event e at time. */
static void add(struct fg_profile *p, enum fg_stack_event e, const char *const *names, uint32_t n, uint64_t count,
                uint64_t time)
{
  uint32_t ids[8];
  for (uint32_t i = 0; i < n; i++) {
    int cls = e != FG_STACK_CPU && i == n - 1;
    ids[i] = (uint32_t)fg_profile_intern(p, names[i], cls ? FG_KIND_CLASS : FG_KIND_JAVA);
  }
  int64_t s = fg_profile_event_stack(p, e, 0, ids, n);
  assert_true(s >= 0);
  fg_profile_count(p, (uint32_t)s, count, time, 0);
  p->stacks[s].events += e != FG_STACK_CPU;
}

static void recording(unsigned char **data, size_t *len)
{
  struct fg_profile p;
  fg_profile_init(&p);
  p.timeline.max = 100;
  assert_int_equal(fg_profile_add_thread(&p, 4242, "worker"), 0);
  p.threads[0].java_id = 21;
  p.stats.start_ns = START;
  p.stats.start_epoch_ns = 1700000000000000000ull;
  p.stats.wall_ns = 2000000000ull;
  snprintf(p.stats.event, sizeof p.stats.event, "cpu");
  const char *hot[] = {"Main.main", "Main.hot"};
  const char *alloc[] = {"Main.main", "Main.alloc", "byte[]"};
  const char *strings[] = {"Main.main", "Main.alloc", "java/lang/String"};
  const char *sync[] = {"Main.main", "Main.sync", "java/lang/Object"};
  add(&p, FG_STACK_CPU, hot, 2, 3, START + 10);
  add(&p, FG_STACK_ALLOC, alloc, 3, 1048576, START + 20);
  add(&p, FG_STACK_ALLOC, strings, 3, 600000, START + 25);
  add(&p, FG_STACK_LOCK, sync, 3, 5000000, START + 30000000);
  FILE *out = open_memstream((char **)data, len);
  struct fg_output_settings cfg = {0};
  assert_int_equal(fg_write_jfr(out, &p, &cfg), 0);
  fclose(out);
  fg_profile_free(&p);
}

/* The count of the stack with these names, root first, of event e in p (0: none). */
static uint64_t count_of(const struct fg_profile *p, enum fg_stack_event e, const char *const *names, uint32_t n)
{
  for (uint32_t i = 0; i < p->nstacks; i++) {
    const struct fg_stack *s = &p->stacks[i];
    if (s->event != e || s->nframes != n)
      continue;
    uint32_t k = 0;
    while (k < n && strcmp(p->names[fg_stack_frames(p, s)[k]], names[k]) == 0)
      k++;
    if (k == n)
      return s->count;
  }
  return 0;
}

static void fgagents_recordings_read_back_exactly(void **state)
{
  (void)state;
  unsigned char *data;
  size_t len;
  recording(&data, &len);
  assert_true(fg_is_jfr(data, len));
  struct fg_profile p;
  fg_profile_init(&p);
  p.timeline.max = 100;
  char err[512];
  if (fg_parse_jfr(data, len, "rec.jfr", false, &p, err, sizeof err) != 0)
    fail_msg("%s", err);
  const char *hot[] = {"Main.main", "Main.hot"};
  const char *alloc[] = {"Main.main", "Main.alloc", "byte[]"};
  const char *strings[] = {"Main.main", "Main.alloc", "java/lang/String"};
  const char *sync[] = {"Main.main", "Main.sync", "java/lang/Object"};
  assert_int_equal(count_of(&p, FG_STACK_CPU, hot, 2), 3);
  assert_int_equal(count_of(&p, FG_STACK_ALLOC, alloc, 3), 1048576);
  assert_int_equal(count_of(&p, FG_STACK_ALLOC, strings, 3), 600000);
  assert_int_equal(count_of(&p, FG_STACK_LOCK, sync, 3), 5000000);
  assert_int_equal(p.nthreads, 1);
  assert_string_equal(p.threads[0].name, "worker");
  assert_int_equal(p.threads[0].tid, 4242);
  assert_int_equal(p.threads[0].java_id, 21);
  assert_int_equal(p.stats.taken, 3);                 /* CPU samples accounted as read */
  assert_int_equal(p.stats.alloc.stored, 2);
  assert_int_equal(p.stats.lock.weight, 5000000);
  assert_string_equal(p.stats.event, "jfr");
  /* times: ns since 1970, the recording's start plus each event's offset; a wait ends at its time */
  int seen_lock = 0;
  for (uint32_t i = 0; i < p.timeline.n; i++) {
    const struct fg_timeline_entry *t = &p.timeline.entries[i];
    if (p.stacks[t->stack].event == FG_STACK_LOCK) {
      assert_int_equal(t->time_ns, 1700000000000000000ull + 30000000);
      seen_lock = 1;
    }
    if (p.stacks[t->stack].event == FG_STACK_ALLOC && t->weight == 1048576)
      assert_int_equal(t->time_ns, 1700000000000000000ull + 20);
  }
  assert_true(seen_lock);
  fg_profile_free(&p);
  free(data);
}

static void cut_or_corrupt_recordings_are_refused(void **state)
{
  (void)state;
  unsigned char *data;
  size_t len;
  recording(&data, &len);
  unsigned char *copy = malloc(len);
  char err[512];
  for (size_t cut = 0; cut < len; cut++) {   /* every prefix: the chunk is longer */
    struct fg_profile p;
    fg_profile_init(&p);
    memcpy(copy, data, cut);
    err[0] = '\0';
    assert_int_equal(fg_parse_jfr(copy, cut, "cut.jfr", false, &p, err, sizeof err), -1);
    if (!strstr(err, "cut.jfr: ") || strchr(err, '\n'))
      fail_msg("prefix of %zu bytes: '%s'", cut, err);
    fg_profile_free(&p);
  }
  for (size_t at = 0; at < len; at++)   /* every byte flipped: refused or read, never a crash */
    for (int bits = 1; bits < 256; bits <<= 3) {
      struct fg_profile p;
      fg_profile_init(&p);
      memcpy(copy, data, len);
      copy[at] ^= (unsigned char)bits;
      if (fg_parse_jfr(copy, len, "bad.jfr", false, &p, err, sizeof err) != 0 && !strstr(err, "bad.jfr: "))
        fail_msg("byte %zu flipped: '%s'", at, err);
      fg_profile_free(&p);
    }
  free(copy);
  free(data);
}

static void a_recording_without_known_events_is_refused(void **state)
{
  (void)state;
  struct fg_profile empty;
  fg_profile_init(&empty);
  empty.stats.start_epoch_ns = 1;
  unsigned char *data;
  size_t len;
  FILE *out = open_memstream((char **)&data, &len);
  struct fg_output_settings cfg = {0};
  assert_int_equal(fg_write_jfr(out, &empty, &cfg), 0);
  fclose(out);
  struct fg_profile p;
  fg_profile_init(&p);
  char err[512];
  assert_int_equal(fg_parse_jfr(data, len, "empty.jfr", false, &p, err, sizeof err), -1);
  assert_non_null(strstr(err, "no jdk.ExecutionSample"));
  assert_false(fg_is_jfr((const uint8_t *)"Main.main 1\n", 12));
  fg_profile_free(&p);
  fg_profile_free(&empty);
  free(data);
}

/* A leaf frame's bytecode index and descriptor (NULL: none). */
struct leaf {
  int32_t bci;
  const char *descriptor;
};

/* A recording (into *data) of thread main with two stacks, run;leaf 2
 * samples at leaves[0] and 4 at leaves[1]. */
static void two_leaves(char **data, size_t *len, const char *run, const char *leaf, const struct leaf *leaves)
{
  struct fg_profile w;
  fg_profile_init(&w);
  assert_int_equal(fg_profile_add_thread(&w, 7, "main"), 0);
  snprintf(w.stats.event, sizeof w.stats.event, "cpu");
  uint32_t root = (uint32_t)fg_profile_intern(&w, run, FG_KIND_JAVA);
  for (int i = 0; i < 2; i++) {
    int64_t id = fg_profile_intern_method(&w, leaf, FG_KIND_JAVA, leaves[i].bci, leaves[i].descriptor);
    assert_true(id >= 0);
    uint32_t frames[] = {root, (uint32_t)id};
    assert_int_equal(fg_profile_add(&w, 0, frames, 2, i == 0 ? 2 : 4), 0);
  }
  FILE *out = open_memstream(data, len);
  struct fg_output_settings cfg = {0};
  assert_int_equal(fg_write_jfr(out, &w, &cfg), 0);
  fclose(out);
  fg_profile_free(&w);
}

/* Read with lines, a recording's Java frames are named at their lines and
 * kept apart by their bytecode indexes (what a .jfr written from them says
 * again); read without, a method is one frame whatever its line. */
static void lines_name_frames_at_their_lines_and_bcis(void **state)
{
  (void)state;
  char *data;
  size_t len;
  two_leaves(&data, &len, "pkg/Main.run:3", "pkg/Main.hot:12", (const struct leaf[]){{5, NULL}, {9, NULL}});

  char err[512];
  struct fg_profile p;
  fg_profile_init(&p);
  if (fg_parse_jfr((const uint8_t *)data, len, "lines.jfr", false, &p, err, sizeof err) != 0)
    fail_msg("%s", err);
  const char *methods[] = {"pkg/Main.run", "pkg/Main.hot"};
  assert_int_equal(count_of(&p, FG_STACK_CPU, methods, 2), 6);
  assert_int_equal(p.nvariants, 0);
  fg_profile_free(&p);

  fg_profile_init(&p);
  if (fg_parse_jfr((const uint8_t *)data, len, "lines.jfr", true, &p, err, sizeof err) != 0)
    fail_msg("%s", err);
  assert_int_equal(p.nvariants, 2);
  uint64_t by_bci[10] = {0};
  for (uint32_t i = 0; i < p.nstacks; i++) {
    const uint32_t *f = fg_stack_frames(&p, &p.stacks[i]);
    assert_int_equal(p.stacks[i].nframes, 2);
    assert_string_equal(p.names[f[0]], "pkg/Main.run:3");
    assert_int_equal(fg_profile_bci(&p, f[0]), -1);
    assert_string_equal(p.names[f[1]], "pkg/Main.hot:12");
    int32_t bci = fg_profile_bci(&p, f[1]);
    assert_true(bci == 5 || bci == 9);
    by_bci[bci] += p.stacks[i].count;
  }
  assert_int_equal(by_bci[5], 2);
  assert_int_equal(by_bci[9], 4);
  fg_profile_free(&p);
  free(data);
}

/* A recording's overloads (one name, two descriptors) are read as two
 * names, each with its descriptor, so a .jfr written from them holds two
 * methods again; a collapsed file written from them names them once. */
static void overloads_are_read_apart(void **state)
{
  (void)state;
  char *data;
  size_t len;
  two_leaves(&data, &len, "pkg/Work.run", "pkg/Work.mix", (const struct leaf[]){{-1, "(JI)J"}, {-1, "(J)J"}});

  char err[512];
  struct fg_profile p;
  fg_profile_init(&p);
  if (fg_parse_jfr((const uint8_t *)data, len, "overloads.jfr", false, &p, err, sizeof err) != 0)
    fail_msg("%s", err);
  assert_int_equal(p.nstacks, 2);
  assert_int_equal(p.nvariants, 1);
  uint64_t by[2] = {0};
  for (uint32_t i = 0; i < p.nstacks; i++) {
    const uint32_t *f = fg_stack_frames(&p, &p.stacks[i]);
    assert_string_equal(p.names[f[1]], "pkg/Work.mix");
    assert_null(fg_profile_descriptor(&p, f[0]));
    const char *d = fg_profile_descriptor(&p, f[1]);
    assert_non_null(d);
    by[strcmp(d, "(J)J") == 0] += p.stacks[i].count;
  }
  assert_int_equal(by[0], 2);
  assert_int_equal(by[1], 4);

  char *text;
  size_t text_len;
  FILE *out = open_memstream(&text, &text_len);
  struct fg_output_settings cfg = {0};
  struct fg_profile m;
  assert_int_equal(fg_profile_merge_variants(&p, &m), 0);
  assert_int_equal(fg_write_collapsed(out, &m, &cfg), 0);
  fclose(out);
  assert_string_equal(text, "pkg/Work.run;pkg/Work.mix 6\n");
  free(text);
  fg_profile_free(&m);
  fg_profile_free(&p);
  free(data);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(fgagents_recordings_read_back_exactly),
    cmocka_unit_test(cut_or_corrupt_recordings_are_refused),
    cmocka_unit_test(a_recording_without_known_events_is_refused),
    cmocka_unit_test(lines_name_frames_at_their_lines_and_bcis),
    cmocka_unit_test(overloads_are_read_apart),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
