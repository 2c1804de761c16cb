/* Compiled methods' debug records: the first record at or above a pc, by
 * binary search and through the directory of 64-byte code blocks, against
 * a plain scan. */
#include "unit.h"

#include <jni.h>
#include <jvmticmlr.h>
#include <stdlib.h>

#include "hotspot/pc_scopes.h"

static int scan(const uintptr_t *pcs, uint32_t n, uintptr_t pc)
{
  for (uint32_t i = 0; i < n; i++)
    if (pcs[i] >= pc)
      return (int)i;
  return -1;
}

/* Tables of 1 to 40 records without a directory and every pc around them. */
static void binary_search_without_directory(void **state)
{
  (void)state;
  uintptr_t pcs[40];
  struct fg_pc_record records[41];
  struct fg_pc_scopes s = {.records = records, .base = 100};
  for (uint32_t n = 1; n <= 40; n++) {
    for (uint32_t i = 0; i < n; i++) {
      pcs[i] = 100 + 3 * i + (i % 3 == 2);   /* ascending, unevenly spaced */
      records[i] = (struct fg_pc_record){(uint32_t)(pcs[i] - 100), i};
    }
    s.npcs = n;
    for (uintptr_t pc = 90; pc <= pcs[n - 1] + 2; pc++)
      assert_int_equal(fg_pc_scopes_at_or_above(&s, pc), scan(pcs, n, pc));
  }
  assert_int_equal(fg_pc_scopes_at_or_above(NULL, 100), -1);
}

/* Records built from CompiledMethodLoad's inline records: dense in some
 * blocks, none in others (a block with no record must lead to the next
 * block's first), one at the code's first byte and one past its end; every
 * pc from before the code to after the last record. */
static void directory_agrees_with_a_scan(void **state)
{
  (void)state;
  enum { BASE = 0x10000, LEN = 1000, N = 120 };
  static PCStackInfo info[N];
  static jmethodID ids[N];
  static jint bcis[N];
  uintptr_t pcs[N];
  uintptr_t pc = BASE;
  for (int i = 0; i < N; i++) {
    pcs[i] = pc;
    ids[i] = (jmethodID)(uintptr_t)(0x1000 + i);
    bcis[i] = i;
    info[i] = (PCStackInfo){(void *)pc, 1, &ids[i], &bcis[i]};
    pc += i < 40 ? 1 + i % 3 : i < 60 ? 97 : 5;   /* dense, then sparse, then steady */
  }
  jvmtiCompiledMethodLoadInlineRecord rec = {
      {JVMTI_CMLR_INLINE_INFO, JVMTI_CMLR_MAJOR_VERSION, JVMTI_CMLR_MINOR_VERSION, NULL}, N, info};
  struct fg_pc_scopes *s = fg_pc_scopes_build(&rec, BASE, LEN);
  assert_non_null(s);
  assert_int_equal(s->npcs, N);
  assert_int_equal(s->nblocks, (LEN + 63) / 64);
  assert_true(pcs[N - 1] >= BASE + LEN);   /* the last records lie past the code */
  for (uintptr_t at = BASE - 70; at <= pcs[N - 1] + 70; at++)
    assert_int_equal(fg_pc_scopes_at_or_above(s, at), scan(pcs, N, at));
  for (int i = 0; i < N; i++) {   /* the frames stay with their record */
    int r = fg_pc_scopes_at_or_above(s, pcs[i]);
    assert_int_equal(r, i);
    assert_int_equal(fg_pc_record_pc(s, (uint32_t)r), pcs[i]);
    assert_int_equal(s->records[r + 1].first - s->records[r].first, 1);
    assert_ptr_equal(s->frames[s->records[r].first].method, ids[i]);
    assert_int_equal(s->frames[s->records[r].first].bci, i);
  }
  free(s);
}

/* Records out of order, or 4 GB apart, are refused; no inline record, no
 * scopes. A record below the code's first byte moves the base down to it. */
static void refused_tables_and_a_lower_base(void **state)
{
  (void)state;
  static jmethodID id = (jmethodID)(uintptr_t)0x1000;
  static jint bci = 3;
  PCStackInfo info[2] = {{(void *)0x2000, 1, &id, &bci}, {(void *)0x1000, 1, &id, &bci}};
  jvmtiCompiledMethodLoadInlineRecord rec = {
      {JVMTI_CMLR_INLINE_INFO, JVMTI_CMLR_MAJOR_VERSION, JVMTI_CMLR_MINOR_VERSION, NULL}, 2, info};
  assert_null(fg_pc_scopes_build(&rec, 0x1000, 0x2000));
  assert_null(fg_pc_scopes_build(NULL, 0x1000, 0x2000));
  info[1].pc = (void *)(0x2000 + (1ull << 32));
  assert_null(fg_pc_scopes_build(&rec, 0x1000, 0x2000));
  info[0].pc = (void *)0x800;
  info[1].pc = (void *)0x1100;
  struct fg_pc_scopes *s = fg_pc_scopes_build(&rec, 0x1000, 0x200);
  assert_non_null(s);
  assert_int_equal(s->base, 0x800);
  assert_int_equal(fg_pc_scopes_at_or_above(s, 0x700), 0);
  assert_int_equal(fg_pc_scopes_at_or_above(s, 0x801), 1);
  assert_int_equal(fg_pc_scopes_at_or_above(s, 0x1100), 1);
  assert_int_equal(fg_pc_scopes_at_or_above(s, 0x1101), -1);
  free(s);
}

/* A record at a method's entry (C1's call of the counter_overflow stub
 * from its invocation counter, a synchronized method's monitorenter before
 * its first bytecode) names the method at SynchronizationEntryBCI, -1, in
 * the method itself or in one it inlined there. HotSpot's frames say bci 0
 * there (compiledVFrame::bci); so do the records: a caller's frame always
 * has a bytecode index. Other indexes are kept as they are. */
static void entry_records_say_bci_0(void **state)
{
  (void)state;
  static jmethodID ids[3] = {(jmethodID)(uintptr_t)0x1000, (jmethodID)(uintptr_t)0x2000, (jmethodID)(uintptr_t)0x1000};
  static jint entry[2] = {-1, 7}, inlined_entry[2] = {-1, -1}, body[1] = {12};
  PCStackInfo info[3] = {{(void *)0x1010, 2, ids, entry},
                         {(void *)0x1020, 2, ids, inlined_entry},
                         {(void *)0x1030, 1, ids + 2, body}};
  jvmtiCompiledMethodLoadInlineRecord rec = {
      {JVMTI_CMLR_INLINE_INFO, JVMTI_CMLR_MAJOR_VERSION, JVMTI_CMLR_MINOR_VERSION, NULL}, 3, info};
  struct fg_pc_scopes *s = fg_pc_scopes_build(&rec, 0x1000, 0x100);
  assert_non_null(s);
  const struct fg_scope_frame *f = s->frames;
  assert_int_equal(f[0].bci, 0);    /* an inlined method at its entry */
  assert_int_equal(f[1].bci, 7);
  assert_int_equal(f[2].bci, 0);
  assert_int_equal(f[3].bci, 0);    /* the method itself at its entry */
  assert_int_equal(f[4].bci, 12);
  assert_ptr_equal(f[3].method, ids[1]);
  free(s);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(binary_search_without_directory),
    cmocka_unit_test(directory_agrees_with_a_scan),
    cmocka_unit_test(refused_tables_and_a_lower_base),
    cmocka_unit_test(entry_records_say_bci_0),
  };
  return cmocka_run_group_tests_name("pc_scopes", tests, NULL, NULL);
}
