/* alloc and lock's event log: records added through several threads'
 * shards are all taken, once, with counts that close (taken = records +
 * lost); a class's id is the same through a thread's cache as through the
 * log, and the cache keeps a thread's last classes apart. */
#include "unit.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "java_events/event_log.h"

static const struct fg_trace *some_trace(void)
{
  static const struct fg_trace t;
  return &t;
}

static void takes_every_shards_records_once(void **state)
{
  (void)state;
  struct fg_event_log l;
  assert_int_equal(fg_event_log_init(&l), 0);
  for (uint64_t key = 0; key < 3 * FG_EVENT_LOG_SHARDS; key++) {
    struct fg_event_record r = {.trace = some_trace(), .weight = key, .event = key % 2 ? FG_STACK_LOCK : FG_STACK_ALLOC};
    fg_event_log_add(&l, key, &r);
  }
  struct fg_event_record refused = {.trace = NULL, .event = FG_STACK_ALLOC};
  fg_event_log_add(&l, 5, &refused);
  fg_event_log_lost(&l, 7, FG_STACK_LOCK);
  fg_event_log_difference(&l, 3, FG_STACK_ALLOC, "frame 1 of 4");
  fg_event_log_difference(&l, 4, FG_STACK_ALLOC, "frame 2 of 4");
  struct fg_event_record *out;
  uint32_t n;
  struct fg_event_stats counts[FG_STACK_EVENTS];
  fg_event_log_take(&l, &out, &n, counts);
  assert_int_equal(n, 3 * FG_EVENT_LOG_SHARDS);
  uint64_t weights = 0;
  for (uint32_t i = 0; i < n; i++)
    weights += out[i].weight;
  assert_int_equal(weights, (3 * FG_EVENT_LOG_SHARDS - 1) * 3 * FG_EVENT_LOG_SHARDS / 2);
  free(out);
  assert_int_equal(counts[FG_STACK_ALLOC].taken, 3 * FG_EVENT_LOG_SHARDS / 2 + 1);
  assert_int_equal(counts[FG_STACK_ALLOC].no_memory, 1);
  assert_int_equal(counts[FG_STACK_LOCK].taken, 3 * FG_EVENT_LOG_SHARDS / 2 + 1);
  assert_int_equal(counts[FG_STACK_LOCK].no_memory, 1);
  assert_true(strstr(counts[FG_STACK_ALLOC].difference, "frame ") != NULL);
  fg_event_log_take(&l, &out, &n, counts);   /* taken once */
  assert_int_equal(n, 0);
  assert_int_equal(counts[FG_STACK_ALLOC].taken, 0);
  assert_string_equal(counts[FG_STACK_ALLOC].difference, "");
  free(out);
  fg_event_log_destroy(&l);
}

/* One shard's records are handed over as they are; none is NULL. */
static void takes_one_shard_and_none(void **state)
{
  (void)state;
  struct fg_event_log l;
  assert_int_equal(fg_event_log_init(&l), 0);
  struct fg_event_record *out = (void *)1;
  uint32_t n = 1;
  struct fg_event_stats counts[FG_STACK_EVENTS];
  fg_event_log_take(&l, &out, &n, counts);
  assert_null(out);
  assert_int_equal(n, 0);
  struct fg_event_record r = {.trace = some_trace(), .weight = 9};
  fg_event_log_add(&l, 2, &r);
  fg_event_log_add(&l, 2 + FG_EVENT_LOG_SHARDS, &r);
  fg_event_log_take(&l, &out, &n, counts);
  assert_int_equal(n, 2);
  assert_int_equal(out[1].weight, 9);
  free(out);
  fg_event_log_destroy(&l);
}

struct adder {
  struct fg_event_log *l;
  uint64_t key;
};

static void *add_many(void *arg)
{
  struct adder *a = arg;
  struct fg_event_record r = {.trace = some_trace(), .weight = 1, .event = FG_STACK_ALLOC};
  for (int i = 0; i < 20000; i++)
    fg_event_log_add(a->l, a->key, &r);
  return NULL;
}

static void take_alloc(struct fg_event_log *l, uint64_t *records, uint64_t *taken)
{
  struct fg_event_record *out;
  uint32_t n;
  struct fg_event_stats counts[FG_STACK_EVENTS];
  fg_event_log_take(l, &out, &n, counts);
  *records += n;
  *taken += counts[FG_STACK_ALLOC].taken;
  free(out);
}

/* Four threads add while the log is taken: every record comes out once. */
static void loses_nothing_to_concurrent_takes(void **state)
{
  (void)state;
  struct fg_event_log l;
  assert_int_equal(fg_event_log_init(&l), 0);
  pthread_t t[4];
  struct adder a[4];
  for (int i = 0; i < 4; i++) {
    a[i] = (struct adder){&l, (uint64_t)i};
    assert_int_equal(pthread_create(&t[i], NULL, add_many, &a[i]), 0);
  }
  uint64_t got = 0, taken = 0;
  for (int round = 0; round < 200; round++)
    take_alloc(&l, &got, &taken);
  for (int i = 0; i < 4; i++)
    pthread_join(t[i], NULL);
  take_alloc(&l, &got, &taken);
  assert_int_equal(got, 80000);
  assert_int_equal(taken, 80000);
  fg_event_log_destroy(&l);
}

static void class_ids_agree_through_the_cache(void **state)
{
  (void)state;
  struct fg_event_log l;
  assert_int_equal(fg_event_log_init(&l), 0);
  struct fg_class_cache c = {0};
  const char *sigs[] = {"[B", "[I", "Ljava/lang/String;", "[J", "Ljava/lang/Object;", "[[B"};
  int64_t ids[6];
  for (int i = 0; i < 6; i++) {
    ids[i] = fg_event_log_class_cached(&l, &c, sigs[i]);
    assert_true(ids[i] >= 0);
    for (int j = 0; j < i; j++)
      assert_true(ids[j] != ids[i]);
  }
  for (int round = 0; round < 3; round++)   /* past the cache's ways: evicted ones come back from the log */
    for (int i = 0; i < 6; i++) {
      assert_int_equal(fg_event_log_class_cached(&l, &c, sigs[i]), ids[i]);
      assert_int_equal(fg_event_log_class(&l, sigs[i]), ids[i]);
    }
  char name[64];
  fg_event_log_class_name(&l, (uint32_t)ids[2], name, sizeof name);
  assert_string_equal(name, "java/lang/String");
  assert_int_equal(fg_event_log_class_cached(&l, &c, "not a signature"), -1);
  assert_int_equal(fg_event_log_class_cached(&l, NULL, "[B"), ids[0]);
  fg_event_log_destroy(&l);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(takes_every_shards_records_once),
      cmocka_unit_test(takes_one_shard_and_none),
      cmocka_unit_test(loses_nothing_to_concurrent_takes),
      cmocka_unit_test(class_ids_agree_through_the_cache),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
