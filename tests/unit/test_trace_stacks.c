/* Traces into profile stacks: markers and frames root first, each (trace,
 * thread, state) built once and found again, the accounting by flags. */
#include "unit.h"

#include <stdio.h>
#include <string.h>

#include "fg/sample_record.h"
#include "fg/trace_stacks.h"

static struct fg_profile profile;
static int named;   /* frames the namer was asked for */

/* "m<method id>@<bci>" for Java frames, "pc<address>" for native ones */
static int64_t name_frame(void *ctx, const struct fg_trace *tr, uint32_t i)
{
  (void)ctx;
  char name[64];
  named++;
  if (fg_trace_types(tr)[i] == FG_FRAME_NATIVE_PC)
    snprintf(name, sizeof name, "pc%llx", (unsigned long long)fg_trace_methods(tr)[i]);
  else
    snprintf(name, sizeof name, "m%llx@%d", (unsigned long long)fg_trace_methods(tr)[i], fg_trace_bcis(tr)[i]);
  return fg_profile_intern(&profile, name, FG_KIND_JAVA);
}

static const char *state_name(uint32_t state)
{
  return state == 2 ? "[state=sleeping]" : "[state=other]";
}

/* The stack at index i as "a;b;c". */
static const char *text_of(int64_t i)
{
  static char out[512];
  out[0] = '\0';
  const struct fg_stack *s = &profile.stacks[i];
  for (uint32_t k = 0; k < s->nframes; k++)
    snprintf(out + strlen(out), sizeof out - strlen(out), "%s%s", k ? ";" : "",
             fg_profile_name(&profile, fg_stack_frames(&profile, s)[k]));
  return out;
}

static void stacks_are_built_once(void **state)
{
  (void)state;
  fg_profile_init(&profile);
  struct fg_trace_table t;
  assert_int_equal(fg_trace_table_init(&t, 16, 65536, 0), 0);
  struct fg_trace_stacks st;
  assert_int_equal(fg_trace_stacks_init(&st, 16, (struct fg_stack_namer){name_frame, state_name, NULL, NULL, NULL}), 0);
  int64_t main_t = fg_profile_add_thread(&profile, 1, "main"), gc_t = fg_profile_add_thread(&profile, 2, "gc");
  /* leaf first: a native leaf, then two Java frames */
  ASGCT_CallFrame f[3] = {{0, (jmethodID)0x7f00}, {5, (jmethodID)0xa}, {7, (jmethodID)0xb}};
  uint8_t types[3] = {FG_FRAME_NATIVE_PC, FG_FRAME_JAVA, FG_FRAME_JAVA};
  const struct fg_trace *java = fg_trace_table_put(&t, f + 1, types + 1, 2, FG_SAMPLE_TRUNCATED);
  const struct fg_trace *mixed = fg_trace_table_put(&t, f, types, 3, FG_SAMPLE_NATIVE_CUT);
  const struct fg_trace *failed = fg_trace_table_put(&t, NULL, NULL, 0, fg_sample_flags_with_tick(0, -5));

  int64_t a = fg_trace_stack(&st, &profile, (uint32_t)main_t, -1, java, 0);
  assert_string_equal(text_of(a), "[truncated];mb@7;ma@5");
  assert_int_equal(named, 2);
  assert_int_equal(fg_trace_stack(&st, &profile, (uint32_t)main_t, -1, java, 0), a);
  assert_int_equal(named, 2);   /* found, not built again */
  int64_t sleeping = fg_trace_stack(&st, &profile, (uint32_t)main_t, -1, java, 2);
  assert_string_equal(text_of(sleeping), "[truncated];mb@7;ma@5;[state=sleeping]");
  int64_t other_thread = fg_trace_stack(&st, &profile, (uint32_t)gc_t, -1, java, 0);
  assert_true(other_thread != a && profile.stacks[other_thread].thread == (uint32_t)gc_t);
  assert_string_equal(text_of(fg_trace_stack(&st, &profile, (uint32_t)main_t, -1, mixed, 0)),
                      "mb@7;ma@5;[native_cut];pc7f00");
  assert_string_equal(text_of(fg_trace_stack(&st, &profile, (uint32_t)main_t, -1, failed, 0)), "[unknown_Java]");
  int64_t root = fg_profile_intern(&profile, "[GC Thread#0]", FG_KIND_THREAD);
  assert_string_equal(text_of(fg_trace_stack(&st, &profile, (uint32_t)gc_t, root, mixed, 0)),
                      "[GC Thread#0];mb@7;ma@5;[native_cut];pc7f00");

  struct fg_stats s;
  memset(&s, 0, sizeof s);
  fg_trace_account(&s, java, -1, 3);
  fg_trace_account(&s, failed, -1, 2);
  fg_trace_account(&s, mixed, root, 1);
  assert_int_equal(s.java, 3);
  assert_int_equal(s.truncated, 3);
  assert_int_equal(s.failed[fg_tick_index(-5)], 2);
  assert_int_equal(s.no_jnienv, 1);
  assert_int_equal(s.native_cut, 1);
  fg_trace_stacks_free(&st);
  fg_trace_table_destroy(&t);
  fg_profile_free(&profile);
}

/* An FG_FRAME_UNREAD frame's pc as its expansion names it: "x<pc>:1" and
 * "x<pc>:2" (root first) when the pc is even; none when it is odd. */
static uint32_t expand(void *ctx, const struct fg_trace *tr, uint32_t i, uint32_t *out, uint32_t room)
{
  (void)ctx;
  unsigned long long pc = (unsigned long long)fg_trace_methods(tr)[i];
  if (!out)
    return pc & 1 ? 0 : 2;
  uint32_t got = 0;
  for (int j = 1; j <= 2 && !(pc & 1) && got < room; j++) {
    char name[64];
    snprintf(name, sizeof name, "x%llx:%d", pc, j);
    out[got++] = (uint32_t)fg_profile_intern(&profile, name, FG_KIND_JAVA);
  }
  return got;
}

/* A frame a walk met in a method not read yet is named by the namer's
 * expansion (the method and what it inlined there); when the expansion
 * cannot, by the namer's frame name, as without an expansion. */
static void unread_frames_expand(void **state)
{
  (void)state;
  fg_profile_init(&profile);
  struct fg_trace_table t;
  assert_int_equal(fg_trace_table_init(&t, 16, 65536, 0), 0);
  struct fg_trace_stacks st;
  assert_int_equal(fg_trace_stacks_init(&st, 16, (struct fg_stack_namer){name_frame, state_name, NULL, expand, NULL}), 0);
  int64_t main_t = fg_profile_add_thread(&profile, 1, "main");
  /* leaf first: a Java leaf, the unread caller's pc, the root */
  ASGCT_CallFrame f[3] = {{3, (jmethodID)0xa}, {0, (jmethodID)0x1000}, {9, (jmethodID)0xc}};
  uint8_t types[3] = {FG_FRAME_JAVA, FG_FRAME_UNREAD, FG_FRAME_JAVA};
  const struct fg_trace *read = fg_trace_table_put(&t, f, types, 3, 0);
  assert_string_equal(text_of(fg_trace_stack(&st, &profile, (uint32_t)main_t, -1, read, 0)),
                      "mc@9;x1000:1;x1000:2;ma@3");
  f[1].method_id = (jmethodID)0x1001;   /* not read in time */
  const struct fg_trace *unread = fg_trace_table_put(&t, f, types, 3, 0);
  assert_string_equal(text_of(fg_trace_stack(&st, &profile, (uint32_t)main_t, -1, unread, 0)), "mc@9;m1001@0;ma@3");
  /* a walk of depth 2 kept both frames, the unread one counted as one: named, the stack passes
   * 2 Java frames and is cut as the walk would have, leaf first */
  int depth = 2;
  struct fg_trace_stacks cut;
  assert_int_equal(fg_trace_stacks_init(&cut, 16, (struct fg_stack_namer){name_frame, state_name, NULL, expand, &depth}), 0);
  f[1].method_id = (jmethodID)0x1000;
  const struct fg_trace *two = fg_trace_table_put(&t, f, types, 2, 0);
  assert_string_equal(text_of(fg_trace_stack(&cut, &profile, (uint32_t)main_t, -1, two, 0)), "[truncated];x1000:2;ma@3");
  depth = 3;
  assert_string_equal(text_of(fg_trace_stack(&cut, &profile, (uint32_t)main_t, -1, read, 0)), "[truncated];x1000:1;x1000:2;ma@3");
  fg_trace_stacks_free(&cut);
  struct fg_trace_stacks none;   /* a namer without an expansion */
  assert_int_equal(fg_trace_stacks_init(&none, 16, (struct fg_stack_namer){name_frame, state_name, NULL, NULL, NULL}), 0);
  assert_string_equal(text_of(fg_trace_stack(&none, &profile, (uint32_t)main_t, -1, read, 0)), "mc@9;m1000@0;ma@3");
  fg_trace_stacks_free(&none);
  fg_trace_stacks_free(&st);
  fg_trace_table_destroy(&t);
  fg_profile_free(&profile);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(stacks_are_built_once),
    cmocka_unit_test(unread_frames_expand),
  };
  return cmocka_run_group_tests_name("trace_stacks", tests, NULL, NULL);
}
