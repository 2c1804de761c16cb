/* The kept last walk (walk_cache.h) on the VM walker's fixture: a walk goes
 * on from the last one where the two meet, and never when what the last one
 * read there has changed: a stack word, the method map, the code map, the
 * stack's bounds, or the room left. */
#include "vm_walker_fixture.h"

#include <stdlib.h>

#include "walk/walk_cache.h"
#include "fg/trace_table.h"

#define ROOM 16

static struct fg_trace_table traces;
static struct fg_walk_cache kept;
static void *kept_mem;
static uint32_t last_spliced;   /* the kept frame the last walk went on from, as it ended */

/* The fixture's stack with a compiled caller: the top frame (the inlinee at
 * bci 5 in the method at 7) returns into the same method at CALL_RET (bcis
 * 9 and 11), whose frame returns into the interpreted method (bci 12),
 * called from the call stub. Five frames, three caller frames. */
static int setup_kept(void **state)
{
  setup(state);
  *(int32_t *)(thread + 16) = IN_JAVA;
  stack[105] = CALL_RET;
  stack[110] = at(200);
  stack[111] = (uintptr_t)(code + 500);
  assert_int_equal(fg_trace_table_init(&traces, 64, 1u << 16, 0), 0);
  kept_mem = calloc(1, fg_walk_cache_bytes(ROOM));
  assert_non_null(kept_mem);
  fg_walk_cache_init(&kept, kept_mem, ROOM);
  kept.min_java = 0;   /* the fixture's stack is short: kept all the same */
  return 0;
}

static int teardown_kept(void **state)
{
  free(kept_mem);
  fg_trace_table_destroy(&traces);
  return teardown(state);
}

/* One walk as the handler does it: walked with kept, stored, committed. */
static int walk_kept(struct fg_bounds b, int room, ASGCT_CallFrame *f, uint8_t *types)
{
  struct fg_regs r = {TOP_PC, at(100), 0};
  int stubs;
  struct fg_regs unknown;
  int copy_end;
  int n = fg_vm_walk(&walker, thread, &r, &scratch, b, &kept, f, types, room, &stubs, &unknown, &copy_end);
  assert_int_equal(unknown.pc, 0);
  struct fg_trace_suffix known;   /* the kept frames' hash: the same trace as hashing them all */
  int spliced = fg_walk_cache_suffix(&kept, &known);
  const struct fg_trace *tr = fg_trace_table_put_known(&traces, f, types, (uint32_t)(n > 0 ? n : 0), 0,
                                                       spliced ? &known : NULL);
  assert_non_null(tr);
  assert_ptr_equal(fg_trace_table_put(&traces, f, types, (uint32_t)(n > 0 ? n : 0), 0), tr);
  last_spliced = kept.spliced_at;
  fg_walk_cache_commit(&kept, tr);
  assert_int_equal(kept.spliced_at, FG_WALK_CACHE_NONE);   /* none offered to a walk that does not begin */
  return n;
}

static struct fg_bounds whole_stack(void)
{
  return (struct fg_bounds){(uintptr_t)stack, (uintptr_t)(stack + 512), 0, 0};
}

static void assert_stack(const ASGCT_CallFrame *f, jmethodID interpreted, jint bci, jmethodID compiled)
{
  static const jint bcis[] = {5, 7, 9, 11};
  for (int i = 0; i < 4; i++) {
    assert_ptr_equal(f[i].method_id, i % 2 ? compiled : ID(3));
    assert_int_equal(f[i].lineno, bcis[i]);
  }
  assert_ptr_equal(f[4].method_id, interpreted);
  assert_int_equal(f[4].lineno, bci);
}

/* The kept frame the last walk went on from, or -1. */
static int spliced_at(void)
{
  return last_spliced == FG_WALK_CACHE_NONE ? -1 : (int)last_spliced;
}

static void a_walk_goes_on_from_the_last_one(void **state)
{
  (void)state;
  ASGCT_CallFrame f[ROOM + 1];
  uint8_t types[ROOM + 1];
  assert_int_equal(walk_kept(whole_stack(), ROOM, f, types), 5);
  assert_int_equal(spliced_at(), -1);
  memset(f, 0, sizeof f);
  memset(types, 0xff, sizeof types);
  assert_int_equal(walk_kept(whole_stack(), ROOM, f, types), 5);
  assert_int_equal(spliced_at(), (int)kept.cap - 3);   /* at the first of the three caller frames */
  assert_stack(f, ID(1), 12, ID(2));
  static const uint8_t expected[] = {FG_FRAME_INLINED, FG_FRAME_COMPILED, FG_FRAME_INLINED, FG_FRAME_COMPILED,
                                     FG_FRAME_INTERPRETED};
  assert_memory_equal(types, expected, sizeof expected);
  /* and again from the walk that went on from the kept one */
  assert_int_equal(walk_kept(whole_stack(), ROOM, f, types), 5);
  assert_int_equal(spliced_at(), (int)kept.cap - 3);
  assert_stack(f, ID(1), 12, ID(2));
}

/* The interpreted caller moved on to another call: its bcp differs, so the
 * walk reads it again and goes on from the call stub's frame only. */
static void a_changed_stack_word_is_read_again(void **state)
{
  (void)state;
  ASGCT_CallFrame f[ROOM + 1];
  uint8_t types[ROOM + 1];
  assert_int_equal(walk_kept(whole_stack(), ROOM, f, types), 5);
  stack[200 - 8] = (uintptr_t)bytecodes + 20;
  assert_int_equal(walk_kept(whole_stack(), ROOM, f, types), 5);
  assert_stack(f, ID(1), 20, ID(2));
  assert_int_equal(spliced_at(), (int)kept.cap - 1);   /* the call stub's frame */
  /* a return address below the kept frames changed: nothing is kept from there */
  stack[111] = (uintptr_t)(code + 501);
  assert_int_equal(walk_kept(whole_stack(), ROOM, f, types), 5);
  assert_stack(f, ID(1), 20, ID(2));
}

/* A Method* whose entry was rewritten (its class unloaded, the address
 * reused): the walk reads the map again. */
static void a_rewritten_method_is_looked_up_again(void **state)
{
  (void)state;
  ASGCT_CallFrame f[ROOM + 1];
  uint8_t types[ROOM + 1];
  assert_int_equal(walk_kept(whole_stack(), ROOM, f, types), 5);
  fg_method_map_put(&methods, INTERPRETED_METHOD, ID(5), (uintptr_t)bytecodes, sizeof bytecodes);
  assert_int_equal(walk_kept(whole_stack(), ROOM, f, types), 5);
  assert_int_equal(spliced_at(), -1);
  assert_stack(f, ID(5), 12, ID(2));
  /* the same values again change nothing: the walk after goes on from the kept one */
  fg_method_map_put(&methods, INTERPRETED_METHOD, ID(5), (uintptr_t)bytecodes, sizeof bytecodes);
  assert_int_equal(walk_kept(whole_stack(), ROOM, f, types), 5);
  assert_int_equal(spliced_at(), (int)kept.cap - 3);
}

/* A compiled method unloaded and another compiled at its address. */
static void recompiled_code_is_looked_up_again(void **state)
{
  (void)state;
  ASGCT_CallFrame f[ROOM + 1];
  uint8_t types[ROOM + 1];
  assert_int_equal(walk_kept(whole_stack(), ROOM, f, types), 5);
  fg_code_map_remove_method(&map, ID(2), COMPILED);
  add_compiled(ID(6));
  assert_int_equal(walk_kept(whole_stack(), ROOM, f, types), 5);
  assert_int_equal(spliced_at(), -1);
  assert_stack(f, ID(1), 12, ID(6));
}

/* Other bounds (a JVM thread's stack found since), or too little room for
 * the kept frames: walked again, and cut by the room as a walk is. */
static void other_bounds_or_room_walk_again(void **state)
{
  (void)state;
  ASGCT_CallFrame f[ROOM + 1];
  uint8_t types[ROOM + 1];
  assert_int_equal(walk_kept(whole_stack(), ROOM, f, types), 5);
  struct fg_bounds b = whole_stack();
  b.hi -= 8;
  assert_int_equal(walk_kept(b, ROOM, f, types), 5);
  assert_int_equal(spliced_at(), -1);
  assert_int_equal(walk_kept(b, 4, f, types), 4);   /* 2 frames, then 3 kept: more than the room */
  assert_int_equal(spliced_at(), -1);
  assert_stack(f, ID(1), 12, ID(2));   /* f[4] still holds the last walk's */
  assert_int_equal(walk_kept(b, 5, f, types), 5);   /* fits exactly: a walk ends by the room, not at its end */
  assert_int_equal(spliced_at(), -1);
  assert_int_equal(walk_kept(b, 6, f, types), 5);
  assert_int_equal(spliced_at(), (int)kept.cap - 3);
  assert_stack(f, ID(1), 12, ID(2));
}

/* Under the default minimum a short stack's walks do without the cache:
 * nothing is kept, nothing gone on from. */
static void a_short_stack_does_without(void **state)
{
  (void)state;
  fg_walk_cache_init(&kept, kept_mem, ROOM);
  assert_true(FG_WALK_CACHE_MIN_JAVA > 5);
  ASGCT_CallFrame f[ROOM + 1];
  uint8_t types[ROOM + 1];
  for (int i = 0; i < 3; i++) {
    assert_int_equal(walk_kept(whole_stack(), ROOM, f, types), 5);
    assert_int_equal(spliced_at(), -1);
    assert_null(kept.trace);
    assert_int_equal(kept.last_n, 5);
  }
  kept.min_java = 5;   /* as if the stack had been deeper: kept from the next walk on */
  assert_int_equal(walk_kept(whole_stack(), ROOM, f, types), 5);
  assert_non_null(kept.trace);
  assert_int_equal(walk_kept(whole_stack(), ROOM, f, types), 5);
  assert_int_equal(spliced_at(), (int)kept.cap - 3);
  kept.min_java = 6;   /* shorter than the minimum again: the kept walk stays, unused */
  assert_int_equal(walk_kept(whole_stack(), ROOM, f, types), 5);
  assert_int_equal(spliced_at(), -1);
  assert_stack(f, ID(1), 12, ID(2));
}

/* A cache too small for the walk's caller frames keeps nothing, and the
 * walks stay right. */
static void a_walk_that_does_not_fit_is_not_kept(void **state)
{
  (void)state;
  fg_walk_cache_init(&kept, kept_mem, 2);   /* room for two caller frames: the walk has three */
  kept.min_java = 0;
  ASGCT_CallFrame f[ROOM + 1];
  uint8_t types[ROOM + 1];
  for (int i = 0; i < 3; i++) {
    assert_int_equal(walk_kept(whole_stack(), ROOM, f, types), 5);
    assert_int_equal(spliced_at(), -1);
    assert_null(kept.trace);
    assert_stack(f, ID(1), 12, ID(2));
  }
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(a_walk_goes_on_from_the_last_one, setup_kept, teardown_kept),
      cmocka_unit_test_setup_teardown(a_changed_stack_word_is_read_again, setup_kept, teardown_kept),
      cmocka_unit_test_setup_teardown(a_rewritten_method_is_looked_up_again, setup_kept, teardown_kept),
      cmocka_unit_test_setup_teardown(recompiled_code_is_looked_up_again, setup_kept, teardown_kept),
      cmocka_unit_test_setup_teardown(other_bounds_or_room_walk_again, setup_kept, teardown_kept),
      cmocka_unit_test_setup_teardown(a_short_stack_does_without, setup_kept, teardown_kept),
      cmocka_unit_test_setup_teardown(a_walk_that_does_not_fit_is_not_kept, setup_kept, teardown_kept),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
