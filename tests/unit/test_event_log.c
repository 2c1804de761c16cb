/* alloc and lock's event log: records added through several threads'
 * shards are all taken, once, with counts that close (taken = records +
 * merged + lost); an event past its share of a shard goes into a record of
 * the same thread and stack, or is lost with its weight and cause; lock
 * waits keep their share whatever allocations do; a shard half full wakes
 * the drainer once; a class's id is the same through a thread's cache as
 * through the log, and the cache keeps a thread's last classes apart. */
#include "unit.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
  fg_event_log_lost(&l, 7, FG_STACK_LOCK, 5000, 1);
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
  assert_int_equal(counts[FG_STACK_LOCK].no_memory, 0);
  assert_int_equal(counts[FG_STACK_LOCK].no_class, 1);
  assert_int_equal(counts[FG_STACK_LOCK].lost_weight, 5000);
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
  for (uint32_t i = 0; i < n; i++)
    *records += 1 + (uint64_t)out[i].merged;
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

/* Stack i of a test: the log only compares them. */
static const struct fg_trace *trace_n(uint32_t i)
{
  return (const struct fg_trace *)(uintptr_t)(0x10000 + 64 * (uintptr_t)i);
}

struct taken {
  uint32_t records[FG_STACK_EVENTS];
  uint64_t merged[FG_STACK_EVENTS], weight[FG_STACK_EVENTS];
  struct fg_event_stats counts[FG_STACK_EVENTS];
};

static struct taken take_all(struct fg_event_log *l)
{
  struct taken t;
  memset(&t, 0, sizeof t);
  struct fg_event_record *out;
  uint32_t n;
  fg_event_log_take(l, &out, &n, t.counts);
  for (uint32_t i = 0; i < n; i++) {
    t.records[out[i].event]++;
    t.merged[out[i].event] += out[i].merged;
    t.weight[out[i].event] += out[i].weight;
  }
  free(out);
  return t;
}

/* Allocations fill their share of a shard with distinct stacks: an
 * allocation of a stack already there is added into its record (weight and
 * objects kept), one of a new stack is lost as log_full with its weight,
 * and lock waits of the same shard are all kept, in their own share; the
 * counts close, weight included. */
static void a_full_share_merges_and_spares_lock_waits(void **state)
{
  (void)state;
  struct fg_event_log l;
  assert_int_equal(fg_event_log_init(&l), 0);
  const uint64_t key = 3;
  uint64_t weight_in = 0;
  for (uint32_t i = 0; i < FG_EVENT_LOG_ALLOC_MAX; i++) {
    struct fg_event_record r = {.trace = trace_n(i), .serial = 1, .tid = 7, .weight = 100, .events = 1,
                                .event = FG_STACK_ALLOC};
    fg_event_log_add(&l, key, &r);
    weight_in += r.weight;
  }
  for (uint32_t i = 0; i < 10; i++) {   /* stack 5 again, ten times: merged */
    struct fg_event_record r = {.trace = trace_n(5), .serial = 1, .tid = 7, .weight = 1000, .events = 2,
                                .event = FG_STACK_ALLOC};
    fg_event_log_add(&l, key, &r);
    weight_in += r.weight;
  }
  struct fg_event_record other_thread = {.trace = trace_n(5), .serial = 2, .tid = 8, .weight = 777, .events = 1,
                                         .event = FG_STACK_ALLOC};
  fg_event_log_add(&l, key, &other_thread);   /* same stack, another thread: no record like it */
  struct fg_event_record fresh = {.trace = trace_n(FG_EVENT_LOG_ALLOC_MAX + 1), .serial = 1, .tid = 7, .weight = 555,
                                  .events = 1, .event = FG_STACK_ALLOC};
  fg_event_log_add(&l, key, &fresh);
  weight_in += other_thread.weight + fresh.weight;
  for (uint32_t i = 0; i < FG_EVENT_LOG_LOCK_MAX; i++) {   /* the lock waits' share is whole */
    struct fg_event_record r = {.trace = trace_n(i), .serial = 1, .tid = 7, .weight = 10, .events = 1,
                                .event = FG_STACK_LOCK, .park = (uint8_t)(i % 2)};
    fg_event_log_add(&l, key, &r);
  }
  struct fg_event_record lock_again = {.trace = trace_n(4), .serial = 1, .tid = 7, .weight = 90, .events = 1,
                                       .event = FG_STACK_LOCK, .park = 0};
  fg_event_log_add(&l, key, &lock_again);   /* its share spent too: into wait 4's record */
  struct taken t = take_all(&l);
  const struct fg_event_stats *a = &t.counts[FG_STACK_ALLOC], *k = &t.counts[FG_STACK_LOCK];
  assert_int_equal(t.records[FG_STACK_ALLOC], FG_EVENT_LOG_ALLOC_MAX);
  assert_int_equal(t.merged[FG_STACK_ALLOC], 10);
  assert_int_equal(a->log_full, 2);
  assert_int_equal(a->lost_weight, 777 + 555);
  assert_int_equal(a->taken, t.records[FG_STACK_ALLOC] + t.merged[FG_STACK_ALLOC] + a->log_full);
  assert_int_equal(t.weight[FG_STACK_ALLOC] + a->lost_weight, weight_in);
  assert_int_equal(t.records[FG_STACK_LOCK], FG_EVENT_LOG_LOCK_MAX);
  assert_int_equal(t.merged[FG_STACK_LOCK], 1);
  assert_int_equal(k->log_full, 0);
  assert_int_equal(k->taken, FG_EVENT_LOG_LOCK_MAX + 1);
  assert_int_equal(t.weight[FG_STACK_LOCK], 10 * FG_EVENT_LOG_LOCK_MAX + 90);
  /* a take gives the shard its shares back: no merging in the next pass */
  for (uint32_t i = 0; i < 3; i++) {
    struct fg_event_record r = {.trace = trace_n(5), .serial = 1, .tid = 7, .weight = 1, .events = 1,
                                .event = FG_STACK_ALLOC};
    fg_event_log_add(&l, key, &r);
  }
  t = take_all(&l);
  assert_int_equal(t.records[FG_STACK_ALLOC], 3);
  assert_int_equal(t.merged[FG_STACK_ALLOC], 0);
  assert_int_equal(t.counts[FG_STACK_ALLOC].log_full, 0);
  fg_event_log_destroy(&l);
}

/* From half its share on, an event of a stack the pass has a record of
 * is added into it: the other half stays for new stacks, all kept. */
static void past_half_a_share_repeats_leave_room_for_new_stacks(void **state)
{
  (void)state;
  struct fg_event_log l;
  assert_int_equal(fg_event_log_init(&l), 0);
  for (uint32_t i = 0; i < FG_EVENT_LOG_ALLOC_MAX / 2 - 1; i++) {   /* below half: every event its record */
    struct fg_event_record r = {.trace = trace_n(i % 4), .serial = 1, .weight = 1, .events = 1,
                                .event = FG_STACK_ALLOC};
    fg_event_log_add(&l, 0, &r);
  }
  for (uint32_t i = 0; i < 3 * FG_EVENT_LOG_ALLOC_MAX; i++) {   /* then stacks 0-3 again and again */
    struct fg_event_record r = {.trace = trace_n(i % 4), .serial = 1, .weight = 2, .events = 1,
                                .event = FG_STACK_ALLOC};
    fg_event_log_add(&l, 0, &r);
  }
  for (uint32_t i = 0; i < FG_EVENT_LOG_ALLOC_MAX / 2; i++) {   /* and new stacks fill the other half */
    struct fg_event_record r = {.trace = trace_n(100 + i), .serial = 1, .weight = 3, .events = 1,
                                .event = FG_STACK_ALLOC};
    fg_event_log_add(&l, 0, &r);
  }
  struct taken t = take_all(&l);
  assert_int_equal(t.records[FG_STACK_ALLOC], FG_EVENT_LOG_ALLOC_MAX);
  assert_int_equal(t.merged[FG_STACK_ALLOC], 3 * FG_EVENT_LOG_ALLOC_MAX - 1);
  assert_int_equal(t.counts[FG_STACK_ALLOC].log_full, 0);
  assert_int_equal(t.weight[FG_STACK_ALLOC],
                   (FG_EVENT_LOG_ALLOC_MAX / 2 - 1) + 2 * 3 * FG_EVENT_LOG_ALLOC_MAX + 3 * (FG_EVENT_LOG_ALLOC_MAX / 2));
  fg_event_log_destroy(&l);
}

/* Lock waits first fill their own share: allocations after them still have
 * all of theirs. */
static void lock_waits_do_not_take_the_allocations_share(void **state)
{
  (void)state;
  struct fg_event_log l;
  assert_int_equal(fg_event_log_init(&l), 0);
  for (uint32_t i = 0; i < FG_EVENT_LOG_LOCK_MAX + 50; i++) {
    struct fg_event_record r = {.trace = trace_n(i), .serial = 1, .weight = 1, .events = 1, .event = FG_STACK_LOCK};
    fg_event_log_add(&l, 0, &r);
  }
  for (uint32_t i = 0; i < FG_EVENT_LOG_ALLOC_MAX; i++) {
    struct fg_event_record r = {.trace = trace_n(i), .serial = 1, .weight = 1, .events = 1, .event = FG_STACK_ALLOC};
    fg_event_log_add(&l, 0, &r);
  }
  struct taken t = take_all(&l);
  assert_int_equal(t.records[FG_STACK_ALLOC], FG_EVENT_LOG_ALLOC_MAX);
  assert_int_equal(t.counts[FG_STACK_ALLOC].log_full, 0);
  assert_int_equal(t.records[FG_STACK_LOCK], FG_EVENT_LOG_LOCK_MAX);
  assert_int_equal(t.counts[FG_STACK_LOCK].log_full, 50);
  assert_int_equal(t.counts[FG_STACK_LOCK].lost_weight, 50);
  fg_event_log_destroy(&l);
}

/* A shard half full writes to the drainer's descriptor once, while its
 * wake is pending; after the drainer clears it, a full shard writes again. */
static void a_half_full_shard_wakes_the_drainer_once(void **state)
{
  (void)state;
  struct fg_event_log l;
  assert_int_equal(fg_event_log_init(&l), 0);
  int p[2];
  assert_int_equal(pipe(p), 0);
  assert_int_equal(fcntl(p[0], F_SETFL, O_NONBLOCK), 0);
  _Atomic int pending = 0;
  fg_event_log_wake_with(&l, p[1], &pending);
  uint64_t got[4];
  for (uint32_t i = 0; i < FG_EVENT_LOG_ALLOC_MAX / 2 - 1; i++) {
    struct fg_event_record r = {.trace = trace_n(i), .weight = 1, .events = 1, .event = FG_STACK_ALLOC};
    fg_event_log_add(&l, 1, &r);
  }
  assert_int_equal(read(p[0], got, sizeof got), -1);   /* not yet */
  for (uint32_t i = FG_EVENT_LOG_ALLOC_MAX / 2 - 1; i < FG_EVENT_LOG_ALLOC_MAX; i++) {
    struct fg_event_record r = {.trace = trace_n(i), .weight = 1, .events = 1, .event = FG_STACK_ALLOC};
    fg_event_log_add(&l, 1, &r);
  }
  assert_int_equal(read(p[0], got, sizeof got), 8);   /* one write, however many more came */
  assert_int_equal(atomic_load(&pending), 1);
  atomic_store(&pending, 0);   /* the drainer woke, and has not taken yet */
  struct fg_event_record past = {.trace = trace_n(0), .weight = 1, .events = 1, .event = FG_STACK_ALLOC};
  fg_event_log_add(&l, 1, &past);
  assert_int_equal(read(p[0], got, sizeof got), 8);
  struct taken t = take_all(&l);
  assert_int_equal(t.merged[FG_STACK_ALLOC], 1);
  close(p[0]);
  close(p[1]);
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

/* A hidden class is one name however often it is defined (JVMTI's "."
 * suffix dropped, JDK 17's lambda serial too); a plain class keeps its. */
static void hidden_classes_are_one_name(void **state)
{
  (void)state;
  struct fg_event_log l;
  assert_int_equal(fg_event_log_init(&l), 0);
  const char *item[] = {"LFoo$Item.0x0000000801234c00;", "LFoo$Item.0x000000007c34b000;"};
  const char *lambda[] = {"Lp/Foo$$Lambda$14.0x0000000800c03000;", "Lp/Foo$$Lambda$1234.0x0000000800c03400;",
                          "Lp/Foo$$Lambda.0x0000000800c03800;"};
  int64_t i0 = fg_event_log_class(&l, item[0]), l0 = fg_event_log_class(&l, lambda[0]);
  assert_int_equal(fg_event_log_class(&l, item[1]), i0);
  for (int i = 1; i < 3; i++)
    assert_int_equal(fg_event_log_class(&l, lambda[i]), l0);
  int64_t arr = fg_event_log_class(&l, "[[Lp/Foo$$Lambda$9.0x0000000800c03000;");
  int64_t plain = fg_event_log_class(&l, "Lp/Foo$$Lambda$9;");   /* no hidden suffix: kept as it is */
  int64_t odd = fg_event_log_class(&l, "Lp/Foo.0xzz;");
  char name[64];
  fg_event_log_class_name(&l, (uint32_t)i0, name, sizeof name);
  assert_string_equal(name, "Foo$Item");
  fg_event_log_class_name(&l, (uint32_t)l0, name, sizeof name);
  assert_string_equal(name, "p/Foo$$Lambda");
  fg_event_log_class_name(&l, (uint32_t)arr, name, sizeof name);
  assert_string_equal(name, "p/Foo$$Lambda[][]");
  fg_event_log_class_name(&l, (uint32_t)plain, name, sizeof name);
  assert_string_equal(name, "p/Foo$$Lambda$9");
  fg_event_log_class_name(&l, (uint32_t)odd, name, sizeof name);
  assert_string_equal(name, "p/Foo.0xzz");
  assert_int_equal(fg_event_log_classes(&l), 5);
  fg_event_log_destroy(&l);
}

/* Past FG_EVENT_CLASSES_MAX names a new class is "[other class]", each
 * lookup counted (a thread's cache keeps no such id); the names met before
 * keep theirs, and the table grows by that one name. */
static void the_class_table_is_bounded(void **state)
{
  (void)state;
  struct fg_event_log l;
  assert_int_equal(fg_event_log_init(&l), 0);
  char sig[64];
  for (uint32_t i = 0; i < FG_EVENT_CLASSES_MAX; i++) {
    snprintf(sig, sizeof sig, "Lgen/C%u;", i);
    assert_int_equal(fg_event_log_class(&l, sig), (int64_t)i);
  }
  struct fg_class_cache c = {0};
  int64_t other = fg_event_log_class_cached(&l, &c, "Lgen/Past;");
  assert_true(other >= FG_EVENT_CLASSES_MAX);
  assert_int_equal(fg_event_log_class_cached(&l, &c, "Lgen/Past;"), other);
  assert_int_equal(fg_event_log_class(&l, "Lgen/Other;"), other);
  assert_int_equal(fg_event_log_class(&l, "Lgen/C77;"), 77);
  assert_int_equal(fg_event_log_classes(&l), FG_EVENT_CLASSES_MAX + 1);
  char name[64];
  fg_event_log_class_name(&l, (uint32_t)other, name, sizeof name);
  assert_string_equal(name, "[other class]");
  struct taken t = take_all(&l);
  assert_int_equal(t.counts[FG_STACK_ALLOC].other_class, 3);
  t = take_all(&l);
  assert_int_equal(t.counts[FG_STACK_ALLOC].other_class, 0);
  fg_event_log_destroy(&l);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(takes_every_shards_records_once),
      cmocka_unit_test(takes_one_shard_and_none),
      cmocka_unit_test(loses_nothing_to_concurrent_takes),
      cmocka_unit_test(a_full_share_merges_and_spares_lock_waits),
      cmocka_unit_test(lock_waits_do_not_take_the_allocations_share),
      cmocka_unit_test(past_half_a_share_repeats_leave_room_for_new_stacks),
      cmocka_unit_test(a_half_full_shard_wakes_the_drainer_once),
      cmocka_unit_test(class_ids_agree_through_the_cache),
      cmocka_unit_test(hidden_classes_are_one_name),
      cmocka_unit_test(the_class_table_is_bounded),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
