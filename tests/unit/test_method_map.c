/* The Method* map the VM walker names interpreted frames with: entries
 * found after the table grows many times, replaced in place, readers on
 * another thread never see a key whose values are not yet written, and no
 * table is freed under a reader of any kind (handler, callback walk,
 * drainer), all announced the same way. */
#include "unit.h"

#include <pthread.h>
#include <sched.h>

#include "hotspot/method_map.h"

#define METHOD(i) ((uintptr_t)0x7f0000001000ull + (uintptr_t)(i) * 88)
#define ID(i) ((jmethodID)(uintptr_t)(0x5000 + (i)))

static void entries_survive_growth(void **state)
{
  (void)state;
  struct fg_method_map m;
  assert_int_equal(fg_method_map_init(&m), 0);
  for (int i = 0; i < 100000; i++)
    assert_int_equal(fg_method_map_put(&m, METHOD(i), ID(i), METHOD(i) + 64, (uint32_t)(i % 300)), 0);
  assert_int_equal(m.nretired, 0);   /* no reader in: every table swapped out is freed */
  for (int i = 0; i < 100000; i++) {
    const struct fg_method_slot *e = fg_method_map_get(&m, METHOD(i));
    assert_non_null(e);
    assert_ptr_equal(e->id, ID(i));
    assert_int_equal(e->code, METHOD(i) + 64);
    assert_int_equal(e->code_len, i % 300);
  }
  assert_null(fg_method_map_get(&m, METHOD(100000)));
  assert_null(fg_method_map_get(&m, 0));
  assert_int_equal(m.count, 100000);
  /* the same Method* again (a class prepared twice, or its memory reused) */
  assert_int_equal(fg_method_map_put(&m, METHOD(7), ID(99), 0x10, 0), 0);
  assert_ptr_equal(fg_method_map_get(&m, METHOD(7))->id, ID(99));
  assert_int_equal(m.count, 100000);
  assert_int_equal(fg_method_map_put(&m, 0, ID(1), 0, 0), -1);
  fg_method_map_free(&m);
}

static struct fg_method_map shared;
static _Atomic int writing;

static void *writer(void *arg)
{
  (void)arg;
  for (int i = 0; i < 200000; i++)
    fg_method_map_put(&shared, METHOD(i), ID(i), METHOD(i) + 64, 17);
  atomic_store(&writing, 0);
  return NULL;
}

/* A reader as the signal handler is one: whatever key it finds carries the
 * values written with it, while tables are replaced under it. */
static void readers_see_whole_entries(void **state)
{
  (void)state;
  assert_int_equal(fg_method_map_init(&shared), 0);
  atomic_store(&writing, 1);
  pthread_t t;
  assert_int_equal(pthread_create(&t, NULL, writer, NULL), 0);
  long seen = 0;
  for (unsigned i = 0; atomic_load(&writing); i = (i * 7 + 13) % 200000) {
    unsigned in = fg_method_map_enter(&shared);
    const struct fg_method_slot *e = fg_method_map_get(&shared, METHOD(i));
    if (e) {
      assert_ptr_equal(e->id, ID(i));
      assert_int_equal(e->code, METHOD(i) + 64);
      seen++;
    }
    fg_method_map_leave(&shared, in);
  }
  pthread_join(t, NULL);
  assert_true(seen > 0);
  fg_method_map_free(&shared);
}

/* Methods removed with their classes: gone from lookups, the others still
 * found past them, their slots taken again; a map that lost most of its
 * methods moves to a smaller table; tables swapped out are freed once no
 * reader is in, never while one is. */
static void removed_methods_go_and_the_map_shrinks(void **state)
{
  (void)state;
  struct fg_method_map m;
  assert_int_equal(fg_method_map_init(&m), 0);
  unsigned in = fg_method_map_enter(&m);
  for (int i = 0; i < 100000; i++)
    assert_int_equal(fg_method_map_put(&m, METHOD(i), ID(i), METHOD(i) + 64, 1), 0);
  uint32_t big = atomic_load(&m.table)->mask + 1, gen = fg_method_map_generation(&m);
  for (int i = 0; i < 99000; i++)
    assert_int_equal(fg_method_map_remove(&m, METHOD(i)), 0);
  assert_int_equal(fg_method_map_remove(&m, METHOD(5)), -1);   /* gone already */
  assert_true(fg_method_map_generation(&m) != gen);
  assert_null(fg_method_map_get(&m, METHOD(5)));
  assert_int_equal(m.count, 1000);
  assert_int_equal(m.gone, 99000);
  assert_true(atomic_load(&m.table)->mask + 1 < big);   /* shrunk */
  assert_true(m.nretired > 0);   /* a reader was in: none freed */
  for (int i = 99000; i < 100000; i++)
    assert_ptr_equal(fg_method_map_get(&m, METHOD(i))->id, ID(i));
  fg_method_map_leave(&m, in);
  for (int i = 200000; i < 300000; i++)   /* other classes come, take removed slots, grow it again */
    assert_int_equal(fg_method_map_put(&m, METHOD(i), ID(i), 0, 0), 0);
  assert_int_equal(m.nretired, 0);   /* no reader in: the old tables freed */
  for (int i = 200000; i < 299500; i++)
    assert_int_equal(fg_method_map_remove(&m, METHOD(i)), 0);
  assert_int_equal(m.count, 1500);
  for (int i = 99000; i < 100000; i++)
    assert_ptr_equal(fg_method_map_get(&m, METHOD(i))->id, ID(i));
  for (int i = 299500; i < 300000; i++)
    assert_ptr_equal(fg_method_map_get(&m, METHOD(i))->id, ID(i));
  assert_null(fg_method_map_get(&m, METHOD(200001)));
  assert_true(atomic_load(&m.table)->mask + 1 < big);
  assert_int_equal(fg_method_map_put(&m, FG_METHOD_REMOVED, ID(1), 0, 0), -1);
  fg_method_map_free(&m);
}

/* A reader that is no signal handler (an alloc or lock callback's walk on
 * an application thread, the drainer) holds an entry while the table grows
 * and shrinks many times over: its table stays mapped, whatever the epoch
 * did meanwhile; once it leaves, the next write frees every old table. */
static void an_entered_reader_keeps_its_table(void **state)
{
  (void)state;
  struct fg_method_map m;
  assert_int_equal(fg_method_map_init(&m), 0);
  assert_int_equal(fg_method_map_put(&m, METHOD(1), ID(1), METHOD(1) + 64, 9), 0);
  unsigned in = fg_method_map_enter(&m);
  const struct fg_method_slot *e = fg_method_map_get(&m, METHOD(1));
  assert_non_null(e);
  unsigned inner = fg_method_map_enter(&m);   /* a handler interrupting the walk on its thread */
  for (int round = 0; round < 3; round++) {
    for (int i = 2; i < 60000; i++)
      assert_int_equal(fg_method_map_put(&m, METHOD(i), ID(i), 0, 0), 0);
    for (int i = 2; i < 60000; i++)
      assert_int_equal(fg_method_map_remove(&m, METHOD(i)), 0);
  }
  fg_method_map_leave(&m, inner);
  assert_true(m.nretired >= 6);   /* grown and shrunk each round: none freed under the reader */
  assert_ptr_equal(e->id, ID(1));   /* its slot still mapped, as it was */
  assert_int_equal(e->code, METHOD(1) + 64);
  fg_method_map_leave(&m, in);
  assert_int_equal(fg_method_map_put(&m, METHOD(2), ID(2), 0, 0), 0);
  assert_int_equal(m.nretired, 0);
  fg_method_map_free(&m);
}

#define READERS 2
#define ROUNDS 6
static struct fg_method_map churned;
static _Atomic int churning;

/* Looks up as the callback walk and the drainer do: announced, then the
 * entry's fields read after the lookup, on a thread with no signal; now
 * and then it is preempted while it holds the entry, as either may be. */
static void *announced_reader(void *arg)
{
  long seen = 0, wrong = 0;
  unsigned n = 0;
  for (unsigned i = (unsigned)(uintptr_t)arg; atomic_load(&churning); i = (i * 7 + 13) % 100000) {
    unsigned in = fg_method_map_enter(&churned);
    const struct fg_method_slot *e = fg_method_map_get(&churned, METHOD(i));
    if (e) {
      seen++;
      if (++n % 16 == 0)
        sched_yield();   /* the writer runs meanwhile */
      jmethodID id = e->id;
      uintptr_t code = e->code;
      /* the slot may have been removed and taken by another method since
       * (rewritten in place, as method_map.h says): only values read while
       * it still held this key must be this method's */
      atomic_thread_fence(memory_order_acquire);
      if (atomic_load_explicit(&e->method, memory_order_relaxed) == METHOD(i))
        wrong += id != ID(i) || code != METHOD(i) + 64;
    }
    fg_method_map_leave(&churned, in);
  }
  return (void *)(uintptr_t)(wrong ? -1 : seen);
}

/* Readers on plain threads while a writer grows and shrinks the table
 * again and again: a table freed under one of them faults (tables are
 * unmapped when freed) or trips ASan; none is, and when they are done, the
 * old tables are all freed. */
static void readers_of_every_kind_never_meet_a_freed_table(void **state)
{
  (void)state;
  assert_int_equal(fg_method_map_init(&churned), 0);
  atomic_store(&churning, 1);
  pthread_t r[READERS];
  for (int i = 0; i < READERS; i++)
    assert_int_equal(pthread_create(&r[i], NULL, announced_reader, (void *)(uintptr_t)(i * 1000)), 0);
  uint32_t rebuilt = 0, big = 0;
  for (int round = 0; round < ROUNDS; round++) {
    uint32_t before = atomic_load(&churned.table)->mask;
    for (int i = 0; i < 100000; i++)
      assert_int_equal(fg_method_map_put(&churned, METHOD(i), ID(i), METHOD(i) + 64, 17), 0);
    if (atomic_load(&churned.table)->mask + 1 > big)
      big = atomic_load(&churned.table)->mask + 1;
    for (int i = 0; i < 100000; i++)
      assert_int_equal(fg_method_map_remove(&churned, METHOD(i)), 0);
    rebuilt += atomic_load(&churned.table)->mask != before;
  }
  atomic_store(&churning, 0);
  long seen = 0;
  for (int i = 0; i < READERS; i++) {
    void *got;
    pthread_join(r[i], &got);
    assert_true((intptr_t)got >= 0);   /* every entry found carried its own values */
    seen += (intptr_t)got;
  }
  assert_true(big >= 1u << 18);   /* grown to 100 000 entries and shrunk back, each round */
  assert_true(seen > 0);
  assert_int_equal(fg_method_map_put(&churned, METHOD(1), ID(1), 0, 0), 0);
  assert_int_equal(churned.nretired, 0);
  fg_method_map_free(&churned);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(entries_survive_growth),
    cmocka_unit_test(readers_see_whole_entries),
    cmocka_unit_test(removed_methods_go_and_the_map_shrinks),
    cmocka_unit_test(an_entered_reader_keeps_its_table),
    cmocka_unit_test(readers_of_every_kind_never_meet_a_freed_table),
  };
  return cmocka_run_group_tests_name("method_map", tests, NULL, NULL);
}
