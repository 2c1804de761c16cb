/* Per-tid counts for threads without a JNIEnv: concurrent producers, drain,
 * reclaim, and a full table that counts its losses. */
#include "unit.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "fg/unregistered_threads.h"

static uint64_t seen[100000];

static void remember(void *ctx, int tid, uint64_t samples)
{
  (void)ctx;
  seen[tid] += samples;
}

static int none_alive(int tid)
{
  (void)tid;
  return 0;
}

static int odd_alive(int tid)
{
  return tid % 2;
}

struct producer_arg {
  struct fg_unregistered_threads *ft;
  int first_tid;
};

static void *produce(void *p)
{
  struct producer_arg *a = p;
  for (int round = 0; round < 2000; round++)
    for (int t = 0; t < 50; t++)
      fg_unregistered_add(a->ft, a->first_tid + t);
  return NULL;
}

static void concurrent_counts_add_up(void **state)
{
  (void)state;
  struct fg_unregistered_threads *ft = calloc(1, sizeof *ft);
  memset(seen, 0, sizeof seen);
  pthread_t th[4];
  struct producer_arg args[4];
  for (int i = 0; i < 4; i++) {
    args[i] = (struct producer_arg){ft, 1000 + (i % 2) * 25}; /* overlapping tids */
    pthread_create(&th[i], NULL, produce, &args[i]);
  }
  for (int spins = 0; spins < 100; spins++)
    fg_unregistered_drain(ft, remember, NULL);
  for (int i = 0; i < 4; i++)
    pthread_join(th[i], NULL);
  fg_unregistered_drain(ft, remember, NULL);
  uint64_t total = 0;
  for (int t = 1000; t < 1075; t++)
    total += seen[t];
  assert_int_equal(total, 4 * 2000 * 50);
  assert_int_equal(seen[1000], 2 * 2000);
  assert_int_equal(seen[1030], 4 * 2000);
  assert_int_equal(atomic_load(&ft->no_slot), 0);
  free(ft);
}

static void reclaim_frees_only_drained_dead_threads(void **state)
{
  (void)state;
  struct fg_unregistered_threads *ft = calloc(1, sizeof *ft);
  memset(seen, 0, sizeof seen);
  for (int t = 1; t <= 10; t++)
    fg_unregistered_add(ft, t);
  fg_unregistered_reclaim(ft, none_alive);  /* nothing drained yet: nothing freed */
  fg_unregistered_drain(ft, remember, NULL);
  for (int t = 1; t <= 10; t++)
    assert_int_equal(seen[t], 1);
  fg_unregistered_reclaim(ft, odd_alive);
  int used = 0;
  for (int i = 0; i < FG_UNREGISTERED_SLOTS; i++)
    used += atomic_load(&ft->slots[i].tid) != 0;
  assert_int_equal(used, 5);
  /* a reused even tid starts from zero */
  fg_unregistered_add(ft, 4);
  fg_unregistered_drain(ft, remember, NULL);
  assert_int_equal(seen[4], 2);
  assert_int_equal(seen[3], 1);
  free(ft);
}

static void full_table_counts_no_slot(void **state)
{
  (void)state;
  struct fg_unregistered_threads *ft = calloc(1, sizeof *ft);
  for (int t = 1; t <= FG_UNREGISTERED_SLOTS; t++)
    assert_int_equal(fg_unregistered_add(ft, t), 0);
  assert_int_equal(fg_unregistered_add(ft, FG_UNREGISTERED_SLOTS + 1), -1);
  assert_int_equal(fg_unregistered_add(ft, 7), 0);   /* known tids still count */
  assert_int_equal(atomic_load(&ft->no_slot), 1);
  free(ft);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(concurrent_counts_add_up),
    cmocka_unit_test(reclaim_frees_only_drained_dead_threads),
    cmocka_unit_test(full_table_counts_no_slot),
  };
  return cmocka_run_group_tests_name("unregistered_threads", tests, NULL, NULL);
}
