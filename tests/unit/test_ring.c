/* The per-thread ring: order, wrap-around, overrun, and a concurrent
 * producer and consumer that must agree on every record. */
#include "unit.h"

#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "fg/ring.h"

static int put(struct fg_ring *r, uint32_t nwords, uint64_t value)
{
  uint64_t *w = fg_ring_reserve(r, nwords);
  if (!w)
    return -1;
  w[0] = fg_ring_header(nwords, 1);
  for (uint32_t i = 1; i < nwords; i++)
    w[i] = value + i;
  fg_ring_commit(r, nwords);
  return 0;
}

static void check_and_release(struct fg_ring *r, uint32_t nwords, uint64_t value)
{
  const uint64_t *rec = fg_ring_peek(r);
  assert_non_null(rec);
  assert_int_equal(fg_ring_header_words(*rec), nwords);
  assert_int_equal(fg_ring_header_tag(*rec), 1);
  for (uint32_t i = 1; i < nwords; i++)
    assert_int_equal(rec[i], value + i);
  fg_ring_release(r, rec);
}

static void records_come_out_in_order(void **state)
{
  (void)state;
  struct fg_ring r;
  assert_int_equal(fg_ring_init(&r, 1024), 0);
  assert_null(fg_ring_peek(&r));
  for (uint64_t i = 0; i < 5; i++)
    assert_int_equal(put(&r, 3 + (uint32_t)i, i * 100), 0);
  for (uint64_t i = 0; i < 5; i++)
    check_and_release(&r, 3 + (uint32_t)i, i * 100);
  assert_null(fg_ring_peek(&r));
  fg_ring_destroy(&r);
}

static void wraps_with_a_pad_record(void **state)
{
  (void)state;
  struct fg_ring r; /* 16 words */
  assert_int_equal(fg_ring_init(&r, 128), 0);
  assert_int_equal(put(&r, 10, 1), 0);
  check_and_release(&r, 10, 1);
  /* 6 words left before the end: a 7-word record must wrap to the start */
  assert_int_equal(put(&r, 7, 2), 0);
  assert_int_equal(atomic_load(&r.head), 10 + 6 + 7);
  check_and_release(&r, 7, 2);
  assert_null(fg_ring_peek(&r));
  for (int round = 0; round < 100; round++) {
    assert_int_equal(put(&r, 5, (uint64_t)round), 0);
    check_and_release(&r, 5, (uint64_t)round);
  }
  fg_ring_destroy(&r);
}

static void full_ring_refuses_and_keeps_what_it_has(void **state)
{
  (void)state;
  struct fg_ring r;
  assert_int_equal(fg_ring_init(&r, 128), 0);
  assert_int_equal(put(&r, 8, 1), 0);
  assert_int_equal(put(&r, 8, 2), 0);
  assert_int_equal(put(&r, 1, 3), -1);        /* overrun */
  assert_null(fg_ring_reserve(&r, 17));        /* larger than the ring */
  assert_null(fg_ring_reserve(&r, 0));
  check_and_release(&r, 8, 1);
  /* 8 free words, but at the start only after padding 0 words: fits */
  assert_int_equal(put(&r, 8, 4), 0);
  check_and_release(&r, 8, 2);
  check_and_release(&r, 8, 4);
  /* empty, but at offset 8 of 16: a record over half the ring cannot be placed
   * (why options ask for a ring twice the largest sample) */
  assert_null(fg_ring_peek(&r));
  assert_int_equal(put(&r, 12, 5), -1);
  assert_int_equal(put(&r, 8, 6), 0);
  fg_ring_destroy(&r);
}

static void wrap_that_does_not_fit_changes_nothing(void **state)
{
  (void)state;
  struct fg_ring r;
  assert_int_equal(fg_ring_init(&r, 128), 0);
  assert_int_equal(put(&r, 12, 1), 0);
  check_and_release(&r, 12, 1);
  assert_int_equal(put(&r, 2, 2), 0);   /* offset 12..13; 2 words to the end */
  /* 14 free, to_end 2: a 13-word record needs 15 -> refused, head unchanged */
  uint64_t head = atomic_load(&r.head);
  assert_int_equal(put(&r, 13, 3), -1);
  assert_int_equal(atomic_load(&r.head), head);
  check_and_release(&r, 2, 2);
  assert_null(fg_ring_peek(&r));
  fg_ring_destroy(&r);
}

#define RECORDS 1000000

/* Even records must get through (the producer retries while the ring is full);
 * odd ones are dropped when it is full, as the handler drops a sample. */
static void *producer(void *arg)
{
  struct fg_ring *r = arg;
  uint64_t *dropped = calloc(1, sizeof *dropped);
  for (uint64_t seq = 0; seq < RECORDS; seq++) {
    uint32_t n = 2 + (uint32_t)(seq % 13);
    uint64_t *w;
    while ((w = fg_ring_reserve(r, n)) == NULL && seq % 2 == 0)
      sched_yield();
    if (!w) {
      ++*dropped;
      continue;
    }
    w[0] = fg_ring_header(n, 7);
    w[1] = seq;
    for (uint32_t i = 2; i < n; i++)
      w[i] = seq * 31 + i;
    fg_ring_commit(r, n);
  }
  return dropped;
}

static void concurrent_producer_and_consumer_agree(void **state)
{
  (void)state;
  struct fg_ring r;
  assert_int_equal(fg_ring_init(&r, 4096), 0);
  pthread_t t;
  assert_int_equal(pthread_create(&t, NULL, producer, &r), 0);
  uint64_t received = 0, evens = 0, next = 0;
  void *ret = NULL;
  for (int done = 0; !done;) {
    done = pthread_tryjoin_np(t, &ret) == 0;   /* then drain what is left */
    const uint64_t *rec;
    while ((rec = fg_ring_peek(&r)) != NULL) {
      uint32_t n = fg_ring_header_words(*rec);
      uint64_t seq = rec[1];
      assert_int_equal(fg_ring_header_tag(*rec), 7);
      assert_int_equal(n, 2 + seq % 13);
      assert_true(seq >= next);                 /* in order, never twice */
      for (uint64_t missing = next; missing < seq; missing++)
        assert_true(missing % 2 == 1);          /* only odd records may be missing */
      for (uint32_t i = 2; i < n; i++)
        assert_int_equal(rec[i], seq * 31 + i);
      next = seq + 1;
      received++;
      evens += seq % 2 == 0;
      fg_ring_release(&r, rec);
    }
  }
  uint64_t dropped = *(uint64_t *)ret;
  free(ret);
  assert_int_equal(evens, RECORDS / 2);
  assert_int_equal(received + dropped, RECORDS);
  fg_ring_destroy(&r);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(records_come_out_in_order),
    cmocka_unit_test(wraps_with_a_pad_record),
    cmocka_unit_test(full_ring_refuses_and_keeps_what_it_has),
    cmocka_unit_test(wrap_that_does_not_fit_changes_nothing),
    cmocka_unit_test(concurrent_producer_and_consumer_agree),
  };
  return cmocka_run_group_tests_name("ring", tests, NULL, NULL);
}
