/* The Method* map the VM walker names interpreted frames with: entries
 * found after the table grows many times, replaced in place, and readers on
 * another thread never see a key whose values are not yet written. */
#include "unit.h"

#include <pthread.h>

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
  assert_true(m.nretired > 0);   /* no readers counted: every table swapped out is kept */
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
    const struct fg_method_slot *e = fg_method_map_get(&shared, METHOD(i));
    if (e) {
      assert_ptr_equal(e->id, ID(i));
      assert_int_equal(e->code, METHOD(i) + 64);
      seen++;
    }
  }
  pthread_join(t, NULL);
  assert_true(seen > 0);
  fg_method_map_free(&shared);
}

/* Methods removed with their classes: gone from lookups, the others still
 * found past them, their slots taken again; a map that lost most of its
 * methods moves to a smaller table; tables swapped out are freed once the
 * readers' count is seen at 0, never while a reader is in. */
static void removed_methods_go_and_the_map_shrinks(void **state)
{
  (void)state;
  struct fg_method_map m;
  _Atomic int readers = 1;
  assert_int_equal(fg_method_map_init(&m), 0);
  fg_method_map_set_readers(&m, &readers);
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
  readers = 0;
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

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(entries_survive_growth),
    cmocka_unit_test(readers_see_whole_entries),
    cmocka_unit_test(removed_methods_go_and_the_map_shrinks),
  };
  return cmocka_run_group_tests_name("method_map", tests, NULL, NULL);
}
