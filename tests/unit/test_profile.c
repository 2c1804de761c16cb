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

/* With lines, each bytecode index of a line is a name of its own (JFR says
 * it); merged, they are one name again, their stacks one stack with the sum
 * of their counts and events, the timeline's entries on the merged stacks,
 * descriptors and files kept, and a name at no bci is the same name. */
static void bytecode_indexes_are_names_apart_until_merged(void **state)
{
  (void)state;
  struct fg_profile p;
  fg_profile_init(&p);
  p.timeline.max = 16;
  assert_int_equal(fg_profile_add_thread(&p, 7, "worker"), 0);
  assert_int_equal(fg_profile_add_thread(&p, 8, "other"), 1);
  p.threads[1].java_id = 33;
  int64_t run = fg_profile_intern(&p, "Main.run:3", FG_KIND_JAVA);
  int64_t at5 = fg_profile_intern_at(&p, "Main.hot:12", FG_KIND_COMPILED, 5);
  int64_t at9 = fg_profile_intern_at(&p, "Main.hot:12", FG_KIND_COMPILED, 9);
  int64_t none = fg_profile_intern(&p, "Main.hot:12", FG_KIND_COMPILED);
  assert_true(run >= 0 && at5 >= 0 && at9 >= 0 && none >= 0);
  assert_int_not_equal(at5, at9);
  assert_int_not_equal(at5, none);
  assert_int_equal(fg_profile_intern_at(&p, "Main.hot:12", FG_KIND_COMPILED, 9), at9);
  assert_int_equal(fg_profile_intern_at(&p, "Main.hot:12", FG_KIND_COMPILED, -1), none);
  assert_int_equal(fg_profile_bci(&p, (uint32_t)at9), 9);
  assert_int_equal(fg_profile_bci(&p, (uint32_t)none), -1);
  assert_int_equal(fg_profile_bci(&p, (uint32_t)run), -1);
  assert_int_equal(p.nvariants, 2);
  assert_int_equal(fg_profile_note_descriptor(&p, (uint32_t)at5, "(J)J"), 0);
  assert_int_equal(fg_profile_note_descriptor(&p, (uint32_t)at9, "(J)J"), 0);
  assert_int_equal(fg_profile_set_file(&p, (uint32_t)at9, "Main.java"), 0);

  uint32_t a[] = {(uint32_t)run, (uint32_t)at5}, b[] = {(uint32_t)run, (uint32_t)at9};
  int64_t sa = fg_profile_stack(&p, 0, a, 2), sb = fg_profile_stack(&p, 0, b, 2);
  int64_t sc = fg_profile_stack(&p, 1, b, 2);   /* another thread's stays its own */
  int64_t sd = fg_profile_event_stack(&p, FG_STACK_ALLOC, 0, a, 2);
  assert_int_not_equal(sa, sb);
  fg_profile_count(&p, (uint32_t)sa, 2, 100, 0);
  fg_profile_count(&p, (uint32_t)sb, 5, 200, 1);
  fg_profile_count(&p, (uint32_t)sc, 1, 0, 0);
  fg_profile_count(&p, (uint32_t)sd, 4096, 300, 0);
  p.stacks[sd].events = 3;

  struct fg_profile m;
  assert_int_equal(fg_profile_merge_variants(&p, &m), 0);
  assert_int_equal(m.nvariants, 0);
  assert_int_equal(m.nthreads, 2);
  assert_int_equal(m.threads[1].java_id, 33);
  assert_int_equal(m.nstacks, 3);
  int64_t hot = fg_profile_intern(&m, "Main.hot:12", FG_KIND_COMPILED);
  assert_int_equal(m.nnames, 2);   /* nothing new: the three names are one */
  assert_string_equal(fg_profile_descriptor(&m, (uint32_t)hot), "(J)J");
  assert_string_equal(fg_profile_file(&m, (uint32_t)hot), "Main.java");
  uint64_t counts[2][FG_STACK_EVENTS] = {{0}};
  for (uint32_t i = 0; i < m.nstacks; i++) {
    const uint32_t *f = fg_stack_frames(&m, &m.stacks[i]);
    assert_int_equal(m.stacks[i].nframes, 2);
    assert_int_equal(f[1], hot);
    counts[m.stacks[i].thread][m.stacks[i].event] += m.stacks[i].count;
    if (m.stacks[i].event == FG_STACK_ALLOC)
      assert_int_equal(m.stacks[i].events, 3);
  }
  assert_int_equal(counts[0][FG_STACK_CPU], 7);
  assert_int_equal(counts[1][FG_STACK_CPU], 1);
  assert_int_equal(counts[0][FG_STACK_ALLOC], 4096);
  assert_int_equal(m.timeline.n, 3);
  assert_int_equal(m.timeline.entries[0].stack, m.timeline.entries[1].stack);
  assert_int_equal(m.stacks[m.timeline.entries[2].stack].event, FG_STACK_ALLOC);
  fg_profile_free(&m);

  /* a copy keeps the names apart, each at its own id */
  struct fg_profile c;
  assert_int_equal(fg_profile_copy_frame(&c, &p), 0);
  assert_int_equal(c.nnames, p.nnames);
  assert_int_equal(fg_profile_bci(&c, (uint32_t)at9), 9);
  fg_profile_free(&c);
  fg_profile_free(&p);
}

/* Overloads, interned with their descriptors, are names apart (the same
 * text and bci), each keeping its own descriptor, and so are they in a copy;
 * merged they are one name whose descriptor says several. */
static void overloads_are_names_apart_until_merged(void **state)
{
  (void)state;
  struct fg_profile p;
  fg_profile_init(&p);
  assert_int_equal(fg_profile_add_thread(&p, 7, "worker"), 0);
  int64_t run = fg_profile_intern_method(&p, "Work.run", FG_KIND_JAVA, -1, "()V");
  int64_t two = fg_profile_intern_method(&p, "Work.mix", FG_KIND_JAVA, -1, "(JI)J");
  assert_int_equal(p.nvariants, 0);   /* no name of another's text yet */
  int64_t one = fg_profile_intern_method(&p, "Work.mix", FG_KIND_JAVA, -1, "(J)J");
  int64_t none = fg_profile_intern_method(&p, "Work.mix", FG_KIND_JAVA, -1, "");
  assert_true(run >= 0 && two >= 0 && one >= 0 && none >= 0);
  assert_int_not_equal(two, one);
  assert_int_not_equal(none, one);
  assert_int_equal(fg_profile_intern(&p, "Work.mix", FG_KIND_JAVA), none);
  assert_int_equal(fg_profile_intern_method(&p, "Work.mix", FG_KIND_JAVA, -1, "(J)J"), one);
  assert_int_equal(p.nvariants, 2);
  assert_string_equal(fg_profile_descriptor(&p, (uint32_t)two), "(JI)J");
  assert_string_equal(fg_profile_descriptor(&p, (uint32_t)one), "(J)J");
  assert_null(fg_profile_descriptor(&p, (uint32_t)none));
  assert_int_equal(fg_profile_note_descriptor(&p, (uint32_t)one, "(JI)J"), 0);   /* its own stays */
  assert_string_equal(fg_profile_descriptor(&p, (uint32_t)one), "(J)J");
  /* its own descriptor is not a noted one: a plain name of that text is still found apart */
  assert_int_equal(fg_profile_note_descriptor(&p, (uint32_t)none, "(J)J"), 0);
  assert_int_equal(fg_profile_intern(&p, "Work.mix", FG_KIND_JAVA), none);

  uint32_t a[] = {(uint32_t)run, (uint32_t)two}, b[] = {(uint32_t)run, (uint32_t)one};
  assert_int_equal(fg_profile_add(&p, 0, a, 2, 3), 0);
  assert_int_equal(fg_profile_add(&p, 0, b, 2, 5), 0);
  assert_int_equal(p.nstacks, 2);

  struct fg_profile c;
  assert_int_equal(fg_profile_copy_frame(&c, &p), 0);
  assert_int_equal(c.nnames, p.nnames);
  assert_int_equal(c.nvariants, p.nvariants);
  assert_string_equal(fg_profile_descriptor(&c, (uint32_t)one), "(J)J");
  assert_string_equal(fg_profile_descriptor(&c, (uint32_t)none), "(J)J");
  assert_int_equal(fg_profile_intern_method(&c, "Work.mix", FG_KIND_JAVA, -1, "(JI)J"), two);
  fg_profile_free(&c);

  struct fg_profile m;
  assert_int_equal(fg_profile_merge_variants(&p, &m), 0);
  assert_int_equal(m.nvariants, 0);
  assert_int_equal(m.nstacks, 1);
  assert_int_equal(m.stacks[0].count, 8);
  const uint32_t *f = fg_stack_frames(&m, &m.stacks[0]);
  assert_string_equal(m.names[f[1]], "Work.mix");
  assert_null(fg_profile_descriptor(&m, f[1]));   /* several: none said */
  assert_string_equal(fg_profile_descriptor(&m, f[0]), "()V");
  fg_profile_free(&m);
  fg_profile_free(&p);
}

/* The index hashes as they were before the per-process secret: a file
 * anyone writes could aim every entry at one slot. */
static uint64_t unkeyed_mix(uint64_t h, uint64_t v)
{
  h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
  h *= 0xff51afd7ed558ccdull;
  return h ^ (h >> 33);
}

static uint64_t unkeyed_stack(uint32_t thread, const uint32_t *frames, uint32_t n)
{
  uint64_t h = unkeyed_mix(0x5bd1e995ull + FG_STACK_CPU, thread);
  for (uint32_t i = 0; i < n; i++)
    h = unkeyed_mix(h, frames[i]);
  return unkeyed_mix(h, n);
}

static uint64_t unkeyed_name(const char *s, uint64_t kind)
{
  uint64_t h = 1469598103934665603ull ^ kind;
  for (; *s; s++)
    h = (h ^ (unsigned char)*s) * 1099511628211ull;
  return unkeyed_mix(h, kind);
}

/* The longest run of taken slots in an index (where a lookup probes). */
static uint32_t longest_run(const struct fg_id_index *ix)
{
  uint32_t best = 0, run = 0;
  for (uint32_t i = 0; i < 2 * ix->capacity; i++) {   /* twice round: a run may wrap */
    run = ix->slots[i % ix->capacity] ? run + 1 : 0;
    best = run > best ? run : best;
  }
  return best < ix->capacity ? best : ix->capacity;
}

/* 120 stacks and 120 names that the unkeyed hashes put in one slot of a
 * 256-slot index (one probe chain of 120, every lookup of a new one
 * walking it) are spread by the secret: no run of taken slots near that
 * long. */
static void crafted_collisions_are_spread(void **state)
{
  (void)state;
  struct fg_profile p;
  fg_profile_init(&p);
  uint32_t frames[2], crafted = 0;
  for (uint32_t a = 0; a < 4096 && crafted < 120; a++)
    for (uint32_t b = 0; b < 64 && crafted < 120; b++) {
      frames[0] = a;
      frames[1] = b;
      if ((unkeyed_stack(0, frames, 2) & 255) == 0) {
        assert_true(fg_profile_add(&p, 0, frames, 2, 1) == 0);
        crafted++;
      }
    }
  assert_int_equal(p.nstacks, 120);
  assert_int_equal(p.stack_index.capacity, 256);
  uint32_t stacks_run = longest_run(&p.stack_index);
  char name[32];
  crafted = 0;
  for (uint32_t i = 0; crafted < 120; i++) {
    snprintf(name, sizeof name, "m%u", i);
    if ((unkeyed_name(name, FG_KIND_COMPILED) & 255) == 0) {
      assert_true(fg_profile_intern(&p, name, FG_KIND_COMPILED) >= 0);
      crafted++;
    }
  }
  assert_int_equal(p.name_index.capacity, 256);
  uint32_t names_run = longest_run(&p.name_index);
  print_message("longest probe runs of 120 crafted entries in 256 slots: stacks %u, names %u\n", stacks_run, names_run);
  assert_true(stacks_run < 60);
  assert_true(names_run < 60);
  fg_profile_free(&p);
}

/* The timeline's room made at once holds what it was made for without
 * growing, never past max; a selected event's profile keeps the marks (the
 * JVM's GC pauses drawn on each event's page). */
static void timeline_room_and_selected_marks(void **state)
{
  (void)state;
  struct fg_profile p;
  fg_profile_init(&p);
  p.timeline.max = 100;
  assert_int_equal(fg_timeline_reserve(&p.timeline, 1000), 0);
  assert_int_equal(p.timeline.cap, 100);   /* capped at max */
  assert_int_equal(fg_timeline_reserve(&p.timeline, 10), 0);
  assert_int_equal(p.timeline.cap, 100);   /* room enough already */
  assert_int_equal(fg_profile_add_thread(&p, 7, "worker"), 0);
  uint32_t f = (uint32_t)fg_profile_intern(&p, "Main.run", FG_KIND_JAVA);
  int64_t cpu = fg_profile_stack(&p, 0, &f, 1), alloc = fg_profile_event_stack(&p, FG_STACK_ALLOC, 0, &f, 1);
  const struct fg_timeline_entry *room = p.timeline.entries;
  for (int i = 0; i < 100; i++)
    fg_profile_count(&p, (uint32_t)(i % 2 ? alloc : cpu), 1, 1000 + (uint64_t)i, 0);
  assert_ptr_equal(p.timeline.entries, room);   /* filled in place */
  assert_int_equal(p.timeline.n, 100);
  p.marks.max = 4;
  assert_int_equal(fg_marks_add(&p.marks, FG_MARK_GC_PAUSE, 1010, 5, "GC pause (JVMTI)"), 0);
  struct fg_profile one;
  assert_int_equal(fg_profile_select(&p, FG_STACK_ALLOC, &one), 0);
  assert_int_equal(one.timeline.n, 50);
  assert_int_equal(one.marks.n, 1);
  assert_int_equal(one.marks.m[0].time_ns, 1010);
  assert_string_equal(one.marks.m[0].label, "GC pause (JVMTI)");
  assert_ptr_not_equal(one.marks.m, p.marks.m);   /* its own copy: each profile frees its own */
  fg_profile_free(&one);
  fg_profile_free(&p);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(names_are_interned_once_per_kind),
    cmocka_unit_test(identical_stacks_merge_per_thread),
    cmocka_unit_test(events_keep_their_stacks_apart),
    cmocka_unit_test(call_tree_totals_and_order),
    cmocka_unit_test(bytecode_indexes_are_names_apart_until_merged),
    cmocka_unit_test(overloads_are_names_apart_until_merged),
    cmocka_unit_test(crafted_collisions_are_spread),
    cmocka_unit_test(timeline_room_and_selected_marks),
  };
  return cmocka_run_group_tests_name("profile", tests, NULL, NULL);
}
