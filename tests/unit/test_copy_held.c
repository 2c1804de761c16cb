/* walker=copy's held copies: each thread's copies are walked again in the
 * order they came; a copy still waiting keeps its thread's later ones behind
 * it (other threads' go on), and they are walked as soon as it goes; a copy
 * is walked again only when the code map holds more methods; and one that
 * waited its time, or whose thread or sampling ends, is walked a last time
 * and let go. */
#include "unit.h"

#include <string.h>

#include "sampling/copy/copy_held.h"

struct walks {
  int tid[16];
  uint8_t first[16];   /* the record's first byte */
  int last[16];
  int n;
  int refuse_tid;      /* walks of this thread's copies find no record yet */
};

static int walk(void *ctx, const struct fg_copy_held_entry *x, int last)
{
  struct walks *w = ctx;
  w->tid[w->n] = x->tid;
  w->first[w->n] = x->rec[0];
  w->last[w->n++] = last;
  return last || x->tid != w->refuse_tid;
}

static void add(struct fg_copy_held *h, int tid, uint8_t first, uint64_t now)
{
  uint8_t rec[40] = {first};
  assert_int_equal(fg_copy_held_add(h, tid, rec, sizeof rec, now, 5, 1), 0);
}

static void copies_come_back_in_order(void **state)
{
  (void)state;
  static struct fg_copy_held h;
  add(&h, 1, 'a', 0);
  add(&h, 2, 'b', 0);
  add(&h, 1, 'c', 0);
  assert_true(fg_copy_held_has(&h, 1));
  assert_false(fg_copy_held_has(&h, 3));
  struct walks w = {.refuse_tid = 0};
  fg_copy_held_release(&h, 0, 0, 5, 1000, walk, &w);   /* no more methods: nothing to walk again */
  assert_int_equal(w.n, 0);
  fg_copy_held_release(&h, 0, 0, 6, 1000, walk, &w);
  assert_int_equal(w.n, 3);
  assert_memory_equal(w.first, "abc", 3);
  assert_int_equal(w.last[0], 0);
  assert_int_equal(h.n, 0);
  fg_copy_held_clear(&h);
}

static void a_waiting_copy_keeps_its_threads_later_ones_behind(void **state)
{
  (void)state;
  static struct fg_copy_held h;
  add(&h, 1, 'a', 0);
  add(&h, 2, 'b', 0);
  add(&h, 1, 'c', 0);
  add(&h, 2, 'd', 0);
  struct walks w = {.refuse_tid = 1};
  fg_copy_held_release(&h, 0, 0, 6, 1000, walk, &w);
  assert_int_equal(w.n, 3);   /* a waits; c stays behind it; b and d go */
  assert_memory_equal(w.first, "abd", 3);
  assert_int_equal(h.n, 2);
  assert_int_equal(h.e[0].rec[0], 'a');
  assert_int_equal(h.e[1].rec[0], 'c');
  w.n = 0;   /* the same methods as at its last walk: a is not walked again */
  fg_copy_held_release(&h, 0, 0, 6, 2000, walk, &w);
  assert_int_equal(w.n, 0);
  /* its time is up: walked a last time, stored whatever it found, c after it */
  fg_copy_held_release(&h, 0, 0, 6, FG_COPY_HELD_NS, walk, &w);
  assert_int_equal(w.n, 2);
  assert_memory_equal(w.first, "ac", 2);
  assert_int_equal(w.last[0], 1);
  assert_int_equal(w.last[1], 1);   /* c came at 0 too */
  assert_int_equal(h.n, 0);
  fg_copy_held_clear(&h);
}

/* A copy held only to follow its thread's first is walked as soon as the
 * first goes, the code map unchanged: it never had a walk of its own. */
static void a_follower_is_walked_once_its_first_goes(void **state)
{
  (void)state;
  static struct fg_copy_held h;
  add(&h, 1, 'a', 0);
  uint8_t rec[40] = {'f'};
  assert_int_equal(fg_copy_held_add(&h, 1, rec, sizeof rec, 10, 5, 0), 0);   /* behind a: not walked */
  struct walks w = {.refuse_tid = 1};
  fg_copy_held_release(&h, 0, 0, 5, 20, walk, &w);   /* a not due, f behind it: nothing */
  assert_int_equal(w.n, 0);
  fg_copy_held_release(&h, 0, 0, 5, FG_COPY_HELD_NS, walk, &w);   /* a's time is up; f walks at once */
  assert_int_equal(w.n, 2);
  assert_memory_equal(w.first, "af", 2);
  assert_int_equal(w.last[1], 0);   /* its own walk, not a last one: it may wait on */
  assert_int_equal(h.n, 1);         /* refused: f waits, walked now */
  w.n = 0;
  fg_copy_held_release(&h, 0, 0, 5, FG_COPY_HELD_NS + 1, walk, &w);   /* the same methods: not again */
  assert_int_equal(w.n, 0);
  fg_copy_held_clear(&h);
}

static void a_threads_end_lets_its_copies_go(void **state)
{
  (void)state;
  static struct fg_copy_held h;
  add(&h, 1, 'a', 0);
  add(&h, 2, 'b', 0);
  struct walks w = {.refuse_tid = 2};
  fg_copy_held_release(&h, 2, 1, 5, 10, walk, &w);   /* thread 2 ends: its copies only, a last time */
  assert_int_equal(w.n, 1);
  assert_int_equal(w.tid[0], 2);
  assert_int_equal(w.last[0], 1);
  assert_int_equal(h.n, 1);
  assert_int_equal(h.e[0].tid, 1);
  fg_copy_held_clear(&h);
  assert_int_equal(h.n, 0);
}

static void room_is_bounded(void **state)
{
  (void)state;
  static struct fg_copy_held h;
  uint8_t rec[8] = {0};
  for (int i = 0; i < FG_COPY_HELD_MAX; i++)
    assert_int_equal(fg_copy_held_add(&h, i + 1, rec, sizeof rec, 0, 0, 1), 0);
  assert_int_equal(fg_copy_held_add(&h, 99, rec, sizeof rec, 0, 0, 1), -1);
  fg_copy_held_remove(&h, 0);
  assert_int_equal(h.e[0].tid, 2);
  assert_int_equal(fg_copy_held_add(&h, 99, rec, sizeof rec, 0, 0, 1), 0);
  fg_copy_held_clear(&h);
}

static void pcs_given_up_on_are_remembered(void **state)
{
  (void)state;
  static struct fg_copy_held h;
  assert_false(fg_copy_held_gave_up_on(&h, 0x7000));
  fg_copy_held_give_up(&h, 0x7000);
  assert_true(fg_copy_held_gave_up_on(&h, 0x7000));
  for (uintptr_t pc = 1; pc <= FG_COPY_GAVE_UP; pc++)   /* the oldest forgotten first */
    fg_copy_held_give_up(&h, pc);
  assert_false(fg_copy_held_gave_up_on(&h, 0x7000));
  assert_true(fg_copy_held_gave_up_on(&h, FG_COPY_GAVE_UP));
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(copies_come_back_in_order),
      cmocka_unit_test(a_waiting_copy_keeps_its_threads_later_ones_behind),
      cmocka_unit_test(a_follower_is_walked_once_its_first_goes),
      cmocka_unit_test(a_threads_end_lets_its_copies_go),
      cmocka_unit_test(room_is_bounded),
      cmocka_unit_test(pcs_given_up_on_are_remembered),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
