/* The code map's lookups: the newest entry holding a pc, through the
 * granule index once the bounds are set and linearly before; a method's
 * first debug record at or above a pc. */
#include "unit.h"

#include <string.h>

#include "hotspot/code_map.h"

#define GRANULE (1u << FG_CODE_GRANULE_SHIFT)
static uint8_t cache[64 * GRANULE];   /* a fake code cache: nops */

static uintptr_t at(size_t off) { return (uintptr_t)cache + off; }

static const char *name_at(const struct fg_code_map *m, size_t off)
{
  const struct fg_code_blob *b = fg_code_map_find(&m->stubs, at(off));
  return b ? b->name : NULL;
}

static void fill(struct fg_code_map *m)
{
  /* small stubs sharing granule 0, one spanning granules 2..5, one after it in 5 */
  fg_code_map_add_stub(m, "a", cache + 0, 100);
  fg_code_map_add_stub(m, "b", cache + 100, 50);
  fg_code_map_add_stub(m, "c", cache + 160, 40);
  fg_code_map_add_stub(m, "long", cache + 2 * GRANULE + 10, 3 * GRANULE + 100);
  fg_code_map_add_stub(m, "after", cache + 5 * GRANULE + 110, 20);
}

static void check(const struct fg_code_map *m)
{
  assert_string_equal(name_at(m, 0), "a");
  assert_string_equal(name_at(m, 99), "a");
  assert_string_equal(name_at(m, 100), "b");
  assert_string_equal(name_at(m, 170), "c");
  assert_null(name_at(m, 150));                       /* the gap between b and c */
  assert_null(name_at(m, 2 * GRANULE));                /* before long, in its first granule */
  assert_string_equal(name_at(m, 2 * GRANULE + 10), "long");
  assert_string_equal(name_at(m, 4 * GRANULE), "long"); /* a granule it only runs through */
  assert_string_equal(name_at(m, 5 * GRANULE + 109), "long");
  assert_string_equal(name_at(m, 5 * GRANULE + 110), "after");
  assert_null(name_at(m, 5 * GRANULE + 130));
  assert_null(name_at(m, 40 * GRANULE));
}

static void found_before_and_after_the_index(void **state)
{
  (void)state;
  struct fg_code_map linear, indexed, late;
  fg_code_map_init(&linear);
  fill(&linear);
  check(&linear);
  /* indexed after the entries came (VMInit), or before they came */
  fg_code_map_init(&indexed);
  fill(&indexed);
  fg_code_map_set_bounds(&indexed, at(0), at(sizeof cache));
  assert_true(atomic_load(&indexed.stubs.granules) > 0);
  check(&indexed);
  fg_code_map_init(&late);
  fg_code_map_set_bounds(&late, at(0), at(sizeof cache));
  fill(&late);
  check(&late);
  fg_code_map_free(&linear);
  fg_code_map_free(&indexed);
  fg_code_map_free(&late);
}

/* Code freed and reused: the newest entry at a pc wins, whether it starts in
 * the granule or runs into it. Where newer code took part of a granule the
 * older entry ran into, that older entry is gone (its memory was freed):
 * it may still answer past the newer code's reach, but never over it. */
static void newest_entry_wins(void **state)
{
  (void)state;
  struct fg_code_map m;
  fg_code_map_init(&m);
  fg_code_map_set_bounds(&m, at(0), at(sizeof cache));
  fg_code_map_add_stub(&m, "old", cache + 8 * GRANULE, 4 * GRANULE);
  fg_code_map_add_stub(&m, "new", cache + 9 * GRANULE + 500, 100);
  fg_code_map_add_stub(&m, "newer", cache + 7 * GRANULE, 2 * GRANULE + 20);
  assert_string_equal(name_at(&m, 9 * GRANULE + 10), "newer");   /* runs into granule 9 */
  assert_string_equal(name_at(&m, 9 * GRANULE + 520), "new");    /* starts in granule 9 */
  assert_null(name_at(&m, 9 * GRANULE + 700));   /* old's memory, freed */
  assert_string_equal(name_at(&m, 8 * GRANULE + 1), "newer");
  assert_string_equal(name_at(&m, 11 * GRANULE), "old");
  fg_code_map_free(&m);
}

/* An unloaded method is found as a dead entry (no method), by its start. */
static void removed_method_loses_its_id(void **state)
{
  (void)state;
  struct fg_code_map m;
  fg_code_map_init(&m);
  fg_code_map_set_bounds(&m, at(0), at(sizeof cache));
  jmethodID id = (jmethodID)(uintptr_t)0x1234;
  fg_code_map_add_method(&m, id, cache + 20 * GRANULE, 300, NULL, NULL, NULL);
  const struct fg_code_blob *b = fg_code_map_find(&m.methods, at(20 * GRANULE + 299));
  assert_non_null(b);
  assert_ptr_equal(atomic_load(&b->method), id);
  fg_code_map_remove_method(&m, id, cache + 20 * GRANULE);
  assert_null(atomic_load(&b->method));
  fg_code_map_free(&m);
}

/* The generation moves when a kept answer may have gone wrong: a method
 * unloaded, an entry added over a live method or a stub (HotSpot may reuse
 * a method's code before its unload event comes); not for an entry added
 * where no live entry is, however close, nor over an unloaded method. */
static void generation_moves_only_for_answers_that_change(void **state)
{
  (void)state;
  struct fg_code_map m;
  fg_code_map_init(&m);
  fg_code_map_set_bounds(&m, at(0), at(sizeof cache));
  fg_code_map_add_stub(&m, "stub", cache + 100, 200);
  jmethodID a = (jmethodID)(uintptr_t)0x100, b = (jmethodID)(uintptr_t)0x200, c = (jmethodID)(uintptr_t)0x300;
  uint32_t g = fg_code_map_generation(&m);
  fg_code_map_add_method(&m, a, cache + 300, 5 * GRANULE, NULL, NULL, NULL);          /* right after the stub */
  fg_code_map_add_method(&m, b, cache + 300 + 5 * GRANULE, 100, NULL, NULL, NULL);    /* right after a, in its last granule */
  assert_int_equal(fg_code_map_generation(&m), g);
  fg_code_map_add_method(&m, c, cache + 3 * GRANULE, 100, NULL, NULL, NULL);          /* inside a, which is live */
  assert_int_equal(fg_code_map_generation(&m), g + 1);
  fg_code_map_add_method(&m, c, cache + 150, 10, NULL, NULL, NULL);                   /* inside the stub */
  assert_int_equal(fg_code_map_generation(&m), g + 2);
  fg_code_map_add_stub(&m, "late stub", cache + 310, 10);                 /* a stub over a */
  assert_int_equal(fg_code_map_generation(&m), g + 3);
  fg_code_map_remove_method(&m, b, cache + 300 + 5 * GRANULE);            /* unloaded */
  assert_int_equal(fg_code_map_generation(&m), g + 4);
  fg_code_map_add_method(&m, c, cache + 300 + 5 * GRANULE, 50, NULL, NULL, NULL);     /* over b, which is gone */
  assert_int_equal(fg_code_map_generation(&m), g + 4);
  fg_code_map_free(&m);
}

int main(void)
{
  memset(cache, 0x90, sizeof cache);
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(found_before_and_after_the_index),
    cmocka_unit_test(newest_entry_wins),
    cmocka_unit_test(removed_method_loses_its_id),
    cmocka_unit_test(generation_moves_only_for_answers_that_change),
  };
  return cmocka_run_group_tests_name("code_map", tests, NULL, NULL);
}
