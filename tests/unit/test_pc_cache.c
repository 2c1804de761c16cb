/* The walker's pc cache: a pc is found under the generation it was kept
 * under only and as the key it was kept as (a caller's return address or a
 * top frame's pc), a slot being written is neither read nor written, two
 * keys sharing a slot do not answer for each other, and a record's frames
 * come from the slot itself when it holds them. */
#include "unit.h"

#include <pthread.h>
#include <string.h>

#include "walk/pc_cache.h"

static const struct fg_scope_frame frames[2] = {{(jmethodID)0x100, 4}, {(jmethodID)0x200, 9}};

static struct fg_pc_info info(const struct fg_code_blob *m)
{
  return (struct fg_pc_info){.blob = m, .id = frames[1].method, .frames = frames, .count = 2, .frame_bytes = 0x30,
                             .kind = FG_PC_METHOD, .exact = 1, .own = 1, .scoped = 1,
                             .inline_frames = {frames[0], frames[1]}};
}

/* Field by field: a frame's padding is not part of it. */
static int same_info(const struct fg_pc_info *a, const struct fg_pc_info *b)
{
  if (a->blob != b->blob || a->id != b->id || a->frames != b->frames || a->count != b->count ||
      a->frame_bytes != b->frame_bytes || a->kind != b->kind || a->exact != b->exact || a->own != b->own ||
      a->scoped != b->scoped || a->rbp_based != b->rbp_based || a->interpreter != b->interpreter ||
      a->top_pop != b->top_pop || a->in_body != b->in_body)
    return 0;
  for (int f = 0; f < FG_PC_INLINE_FRAMES; f++)
    if (a->inline_frames[f].method != b->inline_frames[f].method || a->inline_frames[f].bci != b->inline_frames[f].bci)
      return 0;
  return 1;
}

static void kept_under_its_generation(void **state)
{
  (void)state;
  struct fg_pc_cache c;
  assert_int_equal(fg_pc_cache_init(&c), 0);
  assert_int_equal((uintptr_t)c.slots % 128, 0);
  struct fg_code_blob blob;
  struct fg_pc_info in = info(&blob), out;
  memset(&out, 0, sizeof out);
  assert_false(fg_pc_cache_get(&c, 0x7000, 0, 3, &out));
  fg_pc_cache_put(&c, 0x7000, 0, 3, &in);
  assert_true(fg_pc_cache_get(&c, 0x7000, 0, 3, &out));
  assert_true(same_info(&out, &in));
  assert_false(fg_pc_cache_get(&c, 0x7000, 0, 4, &out));   /* the code map changed since */
  assert_false(fg_pc_cache_get(&c, 0x7001, 0, 3, &out));
  assert_false(fg_pc_cache_get(&c, 0x7000, 1, 3, &out));   /* as a top frame's pc it is another key */
  fg_pc_cache_put(&c, 0, 0, 3, &in);                       /* pc 0 is never kept */
  assert_false(fg_pc_cache_get(&c, 0, 0, 3, &out));
  fg_pc_cache_free(&c);
}

/* The slot the handler asks for ahead (fg_pc_cache_prefetch) is the one a
 * top pc is kept in and read from. */
static void prefetch_asks_for_the_slot_used(void **state)
{
  (void)state;
  struct fg_pc_cache c;
  assert_int_equal(fg_pc_cache_init(&c), 0);
  struct fg_code_blob blob;
  struct fg_pc_info in = info(&blob);
  for (uintptr_t pc = 0x7f0000001000; pc < 0x7f0000001000 + 64 * 37; pc += 37) {
    fg_pc_cache_put(&c, pc, 1, 1, &in);
    const struct fg_pc_slot *slot = &c.slots[fg_pc_slot_index(fg_pc_key(pc, 1))];
    assert_int_equal(slot->key, fg_pc_key(pc, 1));
    fg_pc_cache_prefetch(c.slots, pc, 1);
  }
  fg_pc_cache_prefetch(NULL, 0x7000, 1);   /* no cache: nothing */
  fg_pc_cache_free(&c);
}

/* A record of up to FG_PC_INLINE_FRAMES frames is read from the slot, a
 * deeper one through its pointer. */
static void frames_inline_or_through_pointers(void **state)
{
  (void)state;
  struct fg_pc_info i = info(NULL);
  i.frames = NULL;   /* not read: the slot holds both frames */
  assert_ptr_equal(fg_pc_frames(&i)[1].method, frames[1].method);
  assert_int_equal(fg_pc_frames(&i)[1].bci, 9);
  static const struct fg_scope_frame deep[FG_PC_INLINE_FRAMES + 1] = {
      {(jmethodID)1, 10}, {(jmethodID)2, 20}, {(jmethodID)3, 30}, {(jmethodID)4, 40}, {(jmethodID)5, 50}};
  i = (struct fg_pc_info){.count = FG_PC_INLINE_FRAMES + 1, .frames = deep};
  assert_ptr_equal(fg_pc_frames(&i)[FG_PC_INLINE_FRAMES].method, (jmethodID)5);
  assert_int_equal(fg_pc_frames(&i)[FG_PC_INLINE_FRAMES].bci, 50);
}

/* The caller pc that shares pc's slot. */
static uintptr_t same_slot_as(uintptr_t pc)
{
  uint32_t want = fg_pc_slot_index(fg_pc_key(pc, 0));
  for (uintptr_t other = pc + 1;; other++)
    if (fg_pc_slot_index(fg_pc_key(other, 0)) == want)
      return other;
}

static void slot_shared_and_slot_busy(void **state)
{
  (void)state;
  struct fg_pc_cache c;
  assert_int_equal(fg_pc_cache_init(&c), 0);
  struct fg_code_blob a, b;
  struct fg_pc_info in_a = info(&a), in_b = info(&b), out;
  uintptr_t other = same_slot_as(0x7000);
  fg_pc_cache_put(&c, 0x7000, 0, 1, &in_a);
  fg_pc_cache_put(&c, other, 0, 1, &in_b);                 /* the newer takes the slot */
  assert_false(fg_pc_cache_get(&c, 0x7000, 0, 1, &out));
  assert_true(fg_pc_cache_get(&c, other, 0, 1, &out));
  assert_ptr_equal(out.blob, &b);
  /* a writer on another thread (interrupted, say) holds the slot: odd sequence */
  struct fg_pc_slot *s = NULL;
  for (size_t i = 0; i < (1u << FG_PC_CACHE_BITS); i++)
    if (c.slots[i].key == fg_pc_key(other, 0))
      s = &c.slots[i];
  assert_non_null(s);
  atomic_fetch_add(&s->seq, 1);
  assert_false(fg_pc_cache_get(&c, other, 0, 1, &out));
  fg_pc_cache_put(&c, 0x7000, 0, 1, &in_a);                /* left alone */
  assert_int_equal(s->key, fg_pc_key(other, 0));
  atomic_fetch_add(&s->seq, 1);
  assert_true(fg_pc_cache_get(&c, other, 0, 1, &out));
  fg_pc_cache_free(&c);
}

/* A top range answers for the pcs inside it, under its generation, and
 * for no other: not those beside it in its granule, not another granule's,
 * not as a pc's own key, nor a pc's key as a range (the keys differ in bit
 * 1); a range that would cross its granule is not kept. */
static void ranges_hold_their_pcs_only(void **state)
{
  (void)state;
  struct fg_pc_cache c;
  assert_int_equal(fg_pc_cache_init(&c), 0);
  struct fg_code_blob blob;
  struct fg_pc_info in = info(&blob), out;
  memset(&out, 0, sizeof out);
  uintptr_t g = 0x70000;
  for (uintptr_t pc = g; pc < g + 3 * FG_PC_RANGE_BYTES; pc++) {
    assert_int_equal(fg_pc_key(pc, 0) & 2, 0);
    assert_int_equal(fg_pc_key(pc, 1) & 2, 0);
    assert_int_equal(fg_pc_range_key(pc) & 2, 2);
  }
  fg_pc_cache_put_range(&c, g + 10, g + 30, 5, &in);
  for (uintptr_t pc = g; pc < g + FG_PC_RANGE_BYTES; pc++)
    assert_int_equal(fg_pc_cache_get_range(&c, pc, 5, &out), pc >= g + 10 && pc < g + 30);
  assert_true(fg_pc_cache_get_range(&c, g + 10, 5, &out));
  assert_true(same_info(&out, &in));
  assert_false(fg_pc_cache_get_range(&c, g + 10, 6, &out));   /* the code map changed since */
  assert_false(fg_pc_cache_get_range(&c, g + FG_PC_RANGE_BYTES + 10, 5, &out));
  assert_false(fg_pc_cache_get(&c, g + 10, 1, 5, &out));
  assert_false(fg_pc_cache_get(&c, g + 10, 0, 5, &out));
  fg_pc_cache_put(&c, g + 40, 1, 5, &in);
  assert_false(fg_pc_cache_get_range(&c, g + 40, 5, &out));
  uintptr_t h = g + 4 * FG_PC_RANGE_BYTES;
  fg_pc_cache_put_range(&c, h + FG_PC_RANGE_BYTES - 4, h + FG_PC_RANGE_BYTES + 4, 5, &in);
  assert_false(fg_pc_cache_get_range(&c, h + FG_PC_RANGE_BYTES - 2, 5, &out));
  assert_false(fg_pc_cache_get_range(&c, h + FG_PC_RANGE_BYTES + 2, 5, &out));
  fg_pc_cache_free(&c);
}

/* Four threads keep and read four pcs of one slot at once: a read that
 * hits is one whole record of its own pc, never parts of two. */
#define WRITERS 4
static uintptr_t shared_pcs[WRITERS];
static struct fg_code_blob shared_blobs[WRITERS];
static struct fg_scope_frame shared_frames[WRITERS][WRITERS + 1];
static struct fg_pc_cache shared;
static _Atomic int torn, hits;

static struct fg_pc_info shared_info(int j)
{
  struct fg_pc_info i = {.blob = &shared_blobs[j], .id = (jmethodID)(uintptr_t)(j + 1), .frames = shared_frames[j],
                         .count = (uint32_t)j + 1, .frame_bytes = 16u * (uint32_t)j, .kind = FG_PC_METHOD,
                         .exact = (uint8_t)(j & 1), .own = (uint8_t)(j >> 1)};
  for (int f = 0; f < FG_PC_INLINE_FRAMES; f++)
    i.inline_frames[f] = (struct fg_scope_frame){(jmethodID)(uintptr_t)(0x1000 * (j + 1) + f), 100 * j + f};
  return i;
}

static void *keep_and_read(void *arg)
{
  int me = (int)(intptr_t)arg;
  struct fg_pc_info mine = shared_info(me), out;
  for (int i = 0; i < 200000; i++) {
    fg_pc_cache_put(&shared, shared_pcs[me], 0, 7, &mine);
    int j = (me + i) % WRITERS;
    if (fg_pc_cache_get(&shared, shared_pcs[j], 0, 7, &out)) {
      struct fg_pc_info want = shared_info(j);
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
  assert_int_equal(fg_pc_cache_init(&shared), 0);
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
  fg_pc_cache_free(&shared);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(kept_under_its_generation),
    cmocka_unit_test(prefetch_asks_for_the_slot_used),
    cmocka_unit_test(frames_inline_or_through_pointers),
    cmocka_unit_test(slot_shared_and_slot_busy),
    cmocka_unit_test(ranges_hold_their_pcs_only),
    cmocka_unit_test(concurrent_writers_never_tear),
  };
  return cmocka_run_group_tests_name("pc_cache", tests, NULL, NULL);
}
