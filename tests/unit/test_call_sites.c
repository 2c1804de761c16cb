/* The call-site table: a pc is found under the generation it was kept
 * under only, a slot being written is neither read nor written, and two
 * pcs sharing a slot do not answer for each other. */
#include "unit.h"

#include <pthread.h>
#include <string.h>

#include "../../agent/walk/call_sites.h"

static const jmethodID frames[2] = {(jmethodID)0x100, (jmethodID)0x200};
static const jint bcis[2] = {4, 9};

static struct fg_call_site_info info(const struct fg_code_blob *m)
{
  return (struct fg_call_site_info){m, frames[1], frames, bcis, 2, 1, 1};
}

static int same_info(const struct fg_call_site_info *a, const struct fg_call_site_info *b)
{
  return a->m == b->m && a->id == b->id && a->methods == b->methods && a->bcis == b->bcis && a->count == b->count &&
         a->exact == b->exact && a->own == b->own;
}

static void kept_under_its_generation(void **state)
{
  (void)state;
  struct fg_call_sites c;
  assert_int_equal(fg_call_sites_init(&c), 0);
  struct fg_code_blob blob;
  struct fg_call_site_info in = info(&blob), out;
  assert_false(fg_call_sites_get(&c, 0x7000, 3, &out));
  fg_call_sites_put(&c, 0x7000, 3, &in);
  assert_true(fg_call_sites_get(&c, 0x7000, 3, &out));
  assert_true(same_info(&out, &in));
  assert_false(fg_call_sites_get(&c, 0x7000, 4, &out));   /* the code map changed since */
  assert_false(fg_call_sites_get(&c, 0x7001, 3, &out));
  fg_call_sites_put(&c, 0, 3, &in);                       /* pc 0 is never kept */
  assert_false(fg_call_sites_get(&c, 0, 3, &out));
  fg_call_sites_free(&c);
}

/* The pc that shares 0x7000's slot: the slot is pc * golden >> 52. */
static uintptr_t same_slot_as(uintptr_t pc)
{
  uint64_t want = (pc * 0x9e3779b97f4a7c15ull) >> (64 - FG_CALL_SITE_BITS);
  for (uintptr_t other = pc + 1;; other++)
    if (((other * 0x9e3779b97f4a7c15ull) >> (64 - FG_CALL_SITE_BITS)) == want)
      return other;
}

static void slot_shared_and_slot_busy(void **state)
{
  (void)state;
  struct fg_call_sites c;
  assert_int_equal(fg_call_sites_init(&c), 0);
  struct fg_code_blob a, b;
  struct fg_call_site_info in_a = info(&a), in_b = info(&b), out;
  uintptr_t other = same_slot_as(0x7000);
  fg_call_sites_put(&c, 0x7000, 1, &in_a);
  fg_call_sites_put(&c, other, 1, &in_b);                 /* the newer takes the slot */
  assert_false(fg_call_sites_get(&c, 0x7000, 1, &out));
  assert_true(fg_call_sites_get(&c, other, 1, &out));
  assert_ptr_equal(out.m, &b);
  /* a writer on another thread (interrupted, say) holds the slot: odd sequence */
  struct fg_call_site *s = NULL;
  for (size_t i = 0; i < (1u << FG_CALL_SITE_BITS); i++)
    if (c.slots[i].pc == other)
      s = &c.slots[i];
  assert_non_null(s);
  atomic_fetch_add(&s->seq, 1);
  assert_false(fg_call_sites_get(&c, other, 1, &out));
  fg_call_sites_put(&c, 0x7000, 1, &in_a);                /* left alone */
  assert_int_equal(s->pc, other);
  atomic_fetch_add(&s->seq, 1);
  assert_true(fg_call_sites_get(&c, other, 1, &out));
  fg_call_sites_free(&c);
}

/* Four threads keep and read four pcs of one slot at once: a read that
 * hits is one whole record of its own pc, never parts of two. */
#define WRITERS 4
static uintptr_t shared_pcs[WRITERS];
static struct fg_code_blob shared_blobs[WRITERS];
static jmethodID shared_frames[WRITERS][WRITERS + 1];
static jint shared_bcis[WRITERS][WRITERS + 1];
static struct fg_call_sites shared;
static _Atomic int torn, hits;

static struct fg_call_site_info shared_info(int j)
{
  return (struct fg_call_site_info){&shared_blobs[j], (jmethodID)(uintptr_t)(j + 1), shared_frames[j],
                                    shared_bcis[j], (uint32_t)j + 1, (uint8_t)(j & 1), (uint8_t)(j >> 1)};
}

static void *keep_and_read(void *arg)
{
  int me = (int)(intptr_t)arg;
  struct fg_call_site_info mine = shared_info(me), out;
  for (int i = 0; i < 200000; i++) {
    fg_call_sites_put(&shared, shared_pcs[me], 7, &mine);
    int j = (me + i) % WRITERS;
    if (fg_call_sites_get(&shared, shared_pcs[j], 7, &out)) {
      struct fg_call_site_info want = shared_info(j);
      if (!same_info(&out, &want))
        atomic_fetch_add(&torn, 1);
      atomic_fetch_add(&hits, 1);
    }
  }
  return NULL;
}

static void concurrent_writers_never_tear(void **state)
{
  (void)state;
  assert_int_equal(fg_call_sites_init(&shared), 0);
  shared_pcs[0] = 0x7000;
  for (int j = 1; j < WRITERS; j++)
    shared_pcs[j] = same_slot_as(shared_pcs[j - 1]);
  pthread_t t[WRITERS];
  for (int j = 0; j < WRITERS; j++)
    assert_int_equal(pthread_create(&t[j], NULL, keep_and_read, (void *)(intptr_t)j), 0);
  for (int j = 0; j < WRITERS; j++)
    pthread_join(t[j], NULL);
  assert_int_equal(atomic_load(&torn), 0);
  assert_true(atomic_load(&hits) > 0);
  fg_call_sites_free(&shared);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(kept_under_its_generation),
    cmocka_unit_test(slot_shared_and_slot_busy),
    cmocka_unit_test(concurrent_writers_never_tear),
  };
  return cmocka_run_group_tests_name("call_sites", tests, NULL, NULL);
}
