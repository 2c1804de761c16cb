/* Aggregation: interning, merging identical stacks, the call tree. */
#include "unit.h"

#include <stdio.h>

#include "fg/call_tree.h"
#include "profile_fixture.h"

static void names_are_interned_once_per_kind(void **state)
{
  (void)state;
  struct fg_profile p;
  fg_profile_init(&p);
  int64_t a = fg_profile_intern(&p, "Main.hot", FG_KIND_JAVA);
  int64_t b = fg_profile_intern(&p, "Main.hot", FG_KIND_JAVA);
  int64_t c = fg_profile_intern(&p, "Main.hot", FG_KIND_NATIVE);
  assert_int_equal(a, b);
  assert_int_not_equal(a, c);
  assert_string_equal(fg_profile_name(&p, (uint32_t)c), "Main.hot");
  assert_int_equal(fg_profile_kind(&p, (uint32_t)c), FG_KIND_NATIVE);
  /* enough names to force several index rebuilds */
  char name[32];
  for (int i = 0; i < 5000; i++) {
    snprintf(name, sizeof name, "C%d.m", i);
    assert_int_equal(fg_profile_intern(&p, name, FG_KIND_JAVA), i + 2);
  }
  for (int i = 0; i < 5000; i++) {
    snprintf(name, sizeof name, "C%d.m", i);
    assert_int_equal(fg_profile_intern(&p, name, FG_KIND_JAVA), i + 2);
  }
  fg_profile_free(&p);
}

/* The same frames on the same thread are one stack an event: an allocation
 * stack never adds to a CPU one; a selection keeps one event's stacks, its
 * timeline entries and the names, threads and stats of the whole. */
static void events_keep_their_stacks_apart(void **state)
{
  (void)state;
  struct fg_profile p;
  fg_profile_init(&p);
  p.timeline.max = 16;
  assert_int_equal(fg_profile_add_thread(&p, 7, "worker"), 0);
  p.threads[0].java_id = 21;
  uint32_t frames[2] = {(uint32_t)fg_profile_intern(&p, "Main.run", FG_KIND_JAVA),
                        (uint32_t)fg_profile_intern(&p, "byte[]", FG_KIND_CLASS)};
  int64_t cpu = fg_profile_stack(&p, 0, frames, 2);
  int64_t alloc = fg_profile_event_stack(&p, FG_STACK_ALLOC, 0, frames, 2);
  int64_t lock = fg_profile_event_stack(&p, FG_STACK_LOCK, 0, frames, 2);
  assert_true(cpu >= 0 && alloc >= 0 && lock >= 0);
  assert_int_not_equal(cpu, alloc);
  assert_int_not_equal(alloc, lock);
  assert_int_equal(fg_profile_event_stack(&p, FG_STACK_ALLOC, 0, frames, 2), alloc);
  assert_int_equal(fg_profile_stack(&p, 0, frames, 2), cpu);
  fg_profile_count(&p, (uint32_t)cpu, 3, 100, 1);
  fg_profile_count(&p, (uint32_t)alloc, 5000000000ull, 200, 0);   /* bytes past 32 bits stay whole */
  p.stacks[alloc].events += 9;
  fg_profile_count(&p, (uint32_t)lock, 70, 300, 0);
  assert_int_equal(fg_profile_events(&p), 7);
  p.stats.alloc.interval = 524288;

  struct fg_profile one;
  assert_int_equal(fg_profile_select(&p, FG_STACK_ALLOC, &one), 0);
  assert_int_equal(one.event, FG_STACK_ALLOC);
  assert_int_equal(one.nstacks, 1);
  assert_int_equal(one.stacks[0].count, 5000000000ull);
  assert_int_equal(one.stacks[0].events, 9);
  assert_int_equal(one.stacks[0].event, FG_STACK_ALLOC);
  assert_int_equal(one.timeline.n, 1);
  assert_int_equal(one.timeline.entries[0].stack, 0);
  assert_int_equal(one.timeline.entries[0].weight, 5000000000ull);
  assert_int_equal(one.timeline.entries[0].time_ns, 200);
  assert_int_equal(one.nnames, p.nnames);
  assert_int_equal(one.nthreads, 1);
  assert_int_equal(one.threads[0].java_id, 21);
  assert_int_equal(one.stats.alloc.interval, 524288);
  assert_int_equal(fg_profile_events(&one), 1u << FG_STACK_ALLOC);
  assert_string_equal(fg_stack_event_name(FG_STACK_ALLOC), "alloc");
  assert_string_equal(fg_stack_event_unit(FG_STACK_LOCK), "nanoseconds");

  struct fg_profile merged;   /* threads merged, as the HTML writer does per thread: the event stays */
  assert_int_equal(fg_profile_merge_threads(&one, true, &merged), 0);
  assert_int_equal(merged.event, FG_STACK_ALLOC);
  assert_int_equal(merged.nstacks, 1);
  assert_int_equal(merged.stacks[0].event, FG_STACK_ALLOC);
  assert_int_equal(merged.stacks[0].events, 9);
  fg_profile_free(&merged);
  fg_profile_free(&one);

  assert_int_equal(fg_profile_select(&p, FG_STACK_CPU, &one), 0);
  assert_int_equal(one.nstacks, 1);
  assert_int_equal(one.stacks[0].count, 3);
  assert_int_equal(one.timeline.n, 1);
  assert_int_equal(one.timeline.entries[0].cpu, 1);
  fg_profile_free(&one);
  fg_profile_free(&p);
}

static void identical_stacks_merge_per_thread(void **state)
{
  (void)state;
  struct fg_profile p;
  build_fixture(&p);
  assert_int_equal(p.nstacks, 5);   /* the two Main.hot adds merged */
  assert_int_equal(fg_profile_total(&p), 107);
  /* same frames on another thread stay apart */
  uint32_t ids[3];
  ids[0] = (uint32_t)fg_profile_intern(&p, "Main.main", FG_KIND_JAVA);
  ids[1] = (uint32_t)fg_profile_intern(&p, "Main.cold", FG_KIND_JAVA);
  assert_int_equal(fg_profile_add(&p, 1, ids, 2, 1), 0);
  assert_int_equal(p.nstacks, 6);
  for (int i = 0; i < 20000; i++) {
    ids[2] = (uint32_t)fg_profile_intern(&p, i % 2 ? "a" : "b", FG_KIND_JAVA);
    ids[0] = (uint32_t)i;
    assert_int_equal(fg_profile_add(&p, 0, ids, 3, 1), 0);
  }
  assert_int_equal(p.nstacks, 6 + 20000);
  assert_int_equal(fg_profile_total(&p), 108 + 20000);
  fg_profile_free(&p);
}

static void call_tree_totals_and_order(void **state)
{
  (void)state;
  struct fg_profile p;
  build_fixture(&p);
  struct fg_call_tree t;
  assert_int_equal(fg_call_tree_build(&t, &p, 0), 0);
  assert_int_equal(t.nodes[0].total, 100);
  const struct fg_tree_node *main_n = &t.nodes[t.nodes[0].first_child];
  assert_string_equal(fg_profile_name(&p, main_n->name), "Main.main");
  assert_int_equal(main_n->total, 100);
  assert_int_equal(main_n->self, 0);
  assert_int_equal(t.nodes[0].first_child == FG_NO_NODE, 0);
  assert_int_equal(main_n->next_sibling, FG_NO_NODE);
  const struct fg_tree_node *work = &t.nodes[main_n->first_child];
  assert_string_equal(fg_profile_name(&p, work->name), "Main.work");   /* 70 before 30 */
  assert_int_equal(work->total, 70);
  assert_int_equal(work->self, 10);
  const struct fg_tree_node *cold = &t.nodes[work->next_sibling];
  assert_string_equal(fg_profile_name(&p, cold->name), "Main.cold");
  assert_int_equal(cold->total, 30);
  fg_call_tree_free(&t);

  assert_int_equal(fg_call_tree_build(&t, &p, FG_ALL_THREADS), 0);
  assert_int_equal(t.nodes[0].total, 107);
  fg_call_tree_free(&t);
  fg_profile_free(&p);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(names_are_interned_once_per_kind),
    cmocka_unit_test(identical_stacks_merge_per_thread),
    cmocka_unit_test(events_keep_their_stacks_apart),
    cmocka_unit_test(call_tree_totals_and_order),
  };
  return cmocka_run_group_tests_name("profile", tests, NULL, NULL);
}
