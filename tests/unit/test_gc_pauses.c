/* The GC pauses' ring (fg/gc_pauses.h): pauses come out in order with their
 * own start and end, a finish without its start adds none, a full ring
 * counts what it drops and takes again once emptied, and a pause claimed by
 * another thread mid-take is read only once published. */
#include "unit.h"

#include <pthread.h>
#include <stdlib.h>

#include "fg/gc_pauses.h"

static void pauses_come_back_in_order(void **state)
{
  (void)state;
  struct fg_gc_pauses *g = calloc(1, sizeof *g);
  fg_gc_pauses_reset(g);
  fg_gc_pauses_end(g, 5);   /* enabled mid-pause: its start was not seen */
  for (uint64_t i = 1; i <= 3; i++) {
    fg_gc_pauses_begin(g, 100 * i);
    fg_gc_pauses_end(g, 100 * i + i);
  }
  struct fg_gc_pause out[8];
  assert_int_equal(fg_gc_pauses_take(g, out, 2), 2);
  assert_int_equal(out[0].start_ns, 100);
  assert_int_equal(out[0].end_ns, 101);
  assert_int_equal(out[1].start_ns, 200);
  assert_int_equal(out[1].end_ns, 202);
  assert_int_equal(fg_gc_pauses_take(g, out, 8), 1);
  assert_int_equal(out[0].start_ns, 300);
  assert_int_equal(out[0].end_ns, 303);
  assert_int_equal(fg_gc_pauses_take(g, out, 8), 0);
  assert_int_equal(atomic_load(&g->dropped), 0);
  free(g);
}

static void a_full_ring_drops_and_counts(void **state)
{
  (void)state;
  struct fg_gc_pauses *g = calloc(1, sizeof *g);
  fg_gc_pauses_reset(g);
  for (uint64_t i = 0; i < FG_GC_PAUSES_RING + 10; i++) {
    fg_gc_pauses_begin(g, 10 + 2 * i);
    fg_gc_pauses_end(g, 11 + 2 * i);
  }
  assert_int_equal(atomic_load(&g->dropped), 10);
  struct fg_gc_pause *out = calloc(FG_GC_PAUSES_RING + 10, sizeof *out);
  assert_int_equal(fg_gc_pauses_take(g, out, FG_GC_PAUSES_RING + 10), FG_GC_PAUSES_RING);
  for (uint32_t i = 0; i < FG_GC_PAUSES_RING; i++)
    assert_int_equal(out[i].start_ns, 10 + 2 * (uint64_t)i);
  fg_gc_pauses_begin(g, 7);   /* room again, in slots used before */
  fg_gc_pauses_end(g, 9);
  assert_int_equal(fg_gc_pauses_take(g, out, 4), 1);
  assert_int_equal(out[0].start_ns, 7);
  assert_int_equal(out[0].end_ns, 9);
  free(out);
  free(g);
}

/* One thread posts pauses as the VM thread would while this one takes:
 * every pause comes out once, whole and in order. */
#define POSTED 200000u
static void *post(void *arg)
{
  struct fg_gc_pauses *g = arg;
  for (uint64_t i = 1; i <= POSTED;) {
    if (atomic_load(&g->head) - atomic_load(&g->tail) >= FG_GC_PAUSES_RING)
      continue;   /* the test waits for room; the agent would drop */
    fg_gc_pauses_begin(g, 2 * i);
    fg_gc_pauses_end(g, 2 * i + 1);
    i++;
  }
  return NULL;
}

static void a_concurrent_take_sees_each_pause_once(void **state)
{
  (void)state;
  struct fg_gc_pauses *g = calloc(1, sizeof *g);
  fg_gc_pauses_reset(g);
  pthread_t t;
  assert_int_equal(pthread_create(&t, NULL, post, g), 0);
  uint64_t next = 1;
  struct fg_gc_pause out[64];
  while (next <= POSTED) {
    uint32_t n = fg_gc_pauses_take(g, out, 64);
    for (uint32_t i = 0; i < n; i++, next++) {
      assert_int_equal(out[i].start_ns, 2 * next);
      assert_int_equal(out[i].end_ns, 2 * next + 1);
    }
  }
  pthread_join(t, NULL);
  assert_int_equal(fg_gc_pauses_take(g, out, 64), 0);
  assert_int_equal(atomic_load(&g->dropped), 0);
  free(g);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(pauses_come_back_in_order),
    cmocka_unit_test(a_full_ring_drops_and_counts),
    cmocka_unit_test(a_concurrent_take_sees_each_pause_once),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
