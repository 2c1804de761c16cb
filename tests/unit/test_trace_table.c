/* The shared call-trace table: one trace per distinct stack, found again
 * through grown indexes and new chunks, a byte limit that refuses only new
 * traces, and threads adding the same stacks at once while the drainer
 * prepares the next index (also built with ThreadSanitizer). */
#include "unit.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fg/trace_table.h"

#define FRAMES 64

/* Stack number k, n frames deep: distinct for distinct (k, n). */
static void stack_of(uint32_t k, uint32_t n, ASGCT_CallFrame *f, uint8_t *types)
{
  for (uint32_t i = 0; i < n; i++) {
    f[i] = (ASGCT_CallFrame){(jint)(i == 0 ? k : i), (jmethodID)(uintptr_t)(0x1000 + 16 * i)};
    types[i] = (uint8_t)(i % 3);
  }
}

static void same_stack_same_trace(void **state)
{
  (void)state;
  struct fg_trace_table t;
  assert_int_equal(fg_trace_table_init(&t, 16, 4096, 0), 0);
  ASGCT_CallFrame f[FRAMES];
  uint8_t types[FRAMES];
  stack_of(7, 10, f, types);
  const struct fg_trace *a = fg_trace_table_put(&t, f, types, 10, 0);
  assert_non_null(a);
  assert_ptr_equal(fg_trace_table_put(&t, f, types, 10, 0), a);
  assert_int_equal(a->n, 10);
  assert_int_equal(fg_trace_bcis(a)[0], 7);
  assert_int_equal(fg_trace_methods(a)[3], 0x1000 + 48);
  assert_int_equal(fg_trace_types(a)[5], 2);
  assert_int_equal((uintptr_t)a % 16, 0);
  /* another bci, another type, other flags, one frame fewer: four more traces */
  f[0].lineno = 8;
  const struct fg_trace *b = fg_trace_table_put(&t, f, types, 10, 0);
  f[0].lineno = 7;
  types[9] = 9;
  const struct fg_trace *c = fg_trace_table_put(&t, f, types, 10, 0);
  types[9] = 0;
  const struct fg_trace *d = fg_trace_table_put(&t, f, types, 10, 8);
  const struct fg_trace *e = fg_trace_table_put(&t, f, types, 9, 0);
  assert_true(b != a && c != a && d != a && e != a && b != c && c != d && d != e);
  assert_int_equal(d->flags, 8);
  assert_int_equal(fg_trace_table_count(&t), 5);
  /* a failed walk keeps no frames: still one trace per flags */
  const struct fg_trace *none = fg_trace_table_put(&t, f, types, 0, 8 | 3u << 16);
  assert_non_null(none);
  assert_ptr_equal(fg_trace_table_put(&t, NULL, NULL, 0, 8 | 3u << 16), none);
  fg_trace_table_destroy(&t);
}

/* A stack whose outer frames are known to be another trace's, hashed on
 * from that trace's hash of them (however it was taken, in pieces or not):
 * found as the same trace as when put whole, and a new one stored whole. */
static void a_known_suffix_hashes_as_the_whole(void **state)
{
  (void)state;
  struct fg_trace_table t;
  assert_int_equal(fg_trace_table_init(&t, 64, 1u << 16, 0), 0);
  ASGCT_CallFrame f[FRAMES];
  uint8_t types[FRAMES];
  for (uint32_t n = 1; n <= 13; n++) {
    stack_of(1000 + n, n, f, types);
    const struct fg_trace *base = fg_trace_table_put(&t, f, types, n, 3);
    assert_non_null(base);
    for (uint32_t len = 0; len <= n; len++) {
      for (uint32_t cut = n - len; cut <= n; cut++) {   /* the suffix's hash taken in two pieces */
        struct fg_trace_suffix known = {len, {{0}, 0}};
        fg_trace_hash_begin(&known.hash);
        fg_trace_hash_trace_frames(&known.hash, base, cut, n);
        fg_trace_hash_trace_frames(&known.hash, base, n - len, cut);
        assert_int_equal(known.hash.taken, len);
        assert_ptr_equal(fg_trace_table_put_known(&t, f, types, n, 3, &known), base);
        if (len == n || cut != n - len)
          continue;
        /* another leaf over the same suffix: new the first time, then found either way */
        ASGCT_CallFrame g[FRAMES];
        memcpy(g, f, sizeof g);
        g[0].lineno = (jint)(5000 + 100 * n + len);
        const struct fg_trace *other = fg_trace_table_put_known(&t, g, types, n, 3, &known);
        assert_non_null(other);
        assert_ptr_not_equal(other, base);
        assert_int_equal(fg_trace_bcis(other)[0], g[0].lineno);
        assert_ptr_equal(fg_trace_table_put(&t, g, types, n, 3), other);
        assert_ptr_equal(fg_trace_table_put_known(&t, g, types, n, 3, &known), other);
      }
    }
  }
  /* the suffix's frames are not read, its hash stands for them: over a
   * walk whose suffix holds y's frames, a suffix hashed from x's finds x */
  stack_of(1, 8, f, types);
  const struct fg_trace *x = fg_trace_table_put(&t, f, types, 8, 0);
  f[6].lineno = 77;
  const struct fg_trace *y = fg_trace_table_put(&t, f, types, 8, 0);
  assert_ptr_not_equal(y, x);
  struct fg_trace_suffix from_x = {4, {{0}, 0}};
  fg_trace_hash_begin(&from_x.hash);
  fg_trace_hash_trace_frames(&from_x.hash, x, 4, 8);
  assert_ptr_equal(fg_trace_table_put_known(&t, f, types, 8, 0, &from_x), x);
  fg_trace_table_destroy(&t);
}

/* A stack seen before is found by its key in the index slot, its trace
 * unread: here its stored frames are overwritten and it is still found. */
static void found_without_reading_the_trace(void **state)
{
  (void)state;
  struct fg_trace_table t;
  assert_int_equal(fg_trace_table_init(&t, 64, 1u << 16, 0), 0);
  ASGCT_CallFrame f[FRAMES];
  uint8_t types[FRAMES];
  stack_of(3, 12, f, types);
  const struct fg_trace *a = fg_trace_table_put(&t, f, types, 12, 0);
  assert_non_null(a);
  uint64_t *methods = (uint64_t *)(uintptr_t)fg_trace_methods(a);
  uint64_t kept = methods[5];
  methods[5] = 0xdead0;
  assert_ptr_equal(fg_trace_table_put(&t, f, types, 12, 0), a);
  methods[5] = kept;
  assert_int_equal(fg_trace_table_count(&t), 1);
  fg_trace_table_destroy(&t);
}

/* The key's weak spot: stacks that differ in two frames of one chain (four
 * apart), all other frames alike. 300 x 300 of them, in methods and in bcis:
 * every one gets its own trace and finds it again. */
static void stacks_differing_in_one_chain_are_told_apart(void **state)
{
  (void)state;
  enum { SIDE = 300 };
  struct fg_trace_table t;
  assert_int_equal(fg_trace_table_init(&t, 1u << 18, 1u << 22, 0), 0);
  ASGCT_CallFrame f[FRAMES];
  uint8_t types[FRAMES];
  for (int by_bci = 0; by_bci < 2; by_bci++) {
    uint32_t before = fg_trace_table_count(&t);
    for (uint32_t round = 0; round < 2; round++) {
      for (uint32_t a = 0; a < SIDE; a++) {
        for (uint32_t b = 0; b < SIDE; b++) {
          stack_of(9, 10, f, types);
          if (by_bci) {
            f[1].lineno = (jint)a;
            f[5].lineno = (jint)b;
          } else {
            f[1].method_id = (jmethodID)(uintptr_t)(0x7f0000001000ull + 8 * a);
            f[5].method_id = (jmethodID)(uintptr_t)(0x7f0000001000ull + 8 * b);
          }
          const struct fg_trace *tr = fg_trace_table_put(&t, f, types, 10, 0);
          assert_non_null(tr);
          if (by_bci)
            assert_true(fg_trace_bcis(tr)[1] == (jint)a && fg_trace_bcis(tr)[5] == (jint)b);
          else
            assert_true(fg_trace_methods(tr)[1] == (uint64_t)(uintptr_t)f[1].method_id &&
                        fg_trace_methods(tr)[5] == (uint64_t)(uintptr_t)f[5].method_id);
        }
      }
      assert_int_equal(fg_trace_table_count(&t) - before, SIDE * SIDE);   /* the second round adds none */
    }
  }
  fg_trace_table_destroy(&t);
}

/* Far more stacks than the first index and chunk hold, with and without the
 * drainer's turns: each is found again, at the pointer it got first. */
static void grows_and_finds_everything(void **state)
{
  (void)state;
  for (int drainer = 0; drainer <= 1; drainer++) {
    struct fg_trace_table t;
    assert_int_equal(fg_trace_table_init(&t, 16, 65536, 0), 0);
    enum { N = 5000 };
    const struct fg_trace **got = calloc(N, sizeof *got);
    ASGCT_CallFrame f[FRAMES];
    uint8_t types[FRAMES];
    for (uint32_t k = 0; k < N; k++) {
      stack_of(k, 1 + k % FRAMES, f, types);
      got[k] = fg_trace_table_put(&t, f, types, 1 + k % FRAMES, 0);
      assert_non_null(got[k]);
      if (drainer && k % 20 == 0)   /* a drain pass: a chunk holds about 140 of these */
        fg_trace_table_prepare(&t);
    }
    for (uint32_t k = 0; k < N; k++) {
      stack_of(k, 1 + k % FRAMES, f, types);
      assert_ptr_equal(fg_trace_table_put(&t, f, types, 1 + k % FRAMES, 0), got[k]);
    }
    assert_int_equal(fg_trace_table_count(&t), N);
    /* the newest index is at most three quarters full; the older ones hold the rest */
    const struct fg_trace_index *newest = atomic_load(&t.index);
    assert_true(atomic_load(&newest->used) <= newest->capacity / 4 * 3);
    assert_non_null(newest->older);
    if (drainer)   /* the drainer kept spares ready: handlers seldom mapped anything */
      assert_true(atomic_load(&t.handler_maps) < 20);
    else
      assert_true(atomic_load(&t.handler_maps) > 0);
    free(got);
    fg_trace_table_destroy(&t);
    assert_int_equal(atomic_load(&t.mapped), 0);
  }
}

/* Pages that bytes of a mapping span. */
static size_t pages_of(size_t bytes)
{
  size_t page = (size_t)sysconf(_SC_PAGESIZE);
  return (bytes + page - 1) / page;
}

/* Pages of [p, p + bytes) resident now. */
static size_t resident_pages(const void *p, size_t bytes)
{
  size_t n = pages_of(bytes), in = 0;
  unsigned char *v = malloc(n);
  assert_int_equal(mincore((void *)p, bytes, v), 0);
  for (size_t i = 0; i < n; i++)
    in += v[i] & 1;
  free(v);
  return in;
}


/* The first chunk and index, and the drainer's spares, come with their
 * pages faulted in, so that handlers writing traces do not fault them in;
 * a chunk a handler maps itself does not (that would stall it). */
static void memory_mapped_ahead_is_faulted_in(void **state)
{
  (void)state;
  struct fg_trace_table t;
  assert_int_equal(fg_trace_table_init(&t, 1024, 64 * 1024, 0), 0);
  const struct fg_trace_chunk *first = atomic_load(&t.chunk);
  const struct fg_trace_index *index = atomic_load(&t.index);
  assert_int_equal(resident_pages(first, first->mapped), pages_of(first->mapped));
  assert_int_equal(resident_pages(index, index->mapped), pages_of(index->mapped));
  ASGCT_CallFrame f[FRAMES];
  uint8_t types[FRAMES];
  uint32_t k = 0;
  /* past the first chunk with no spare ready: a handler maps the next one */
  while (atomic_load(&t.chunk) == first) {
    stack_of(k++, FRAMES, f, types);
    assert_non_null(fg_trace_table_put(&t, f, types, FRAMES, 0));
  }
  const struct fg_trace_chunk *by_handler = atomic_load(&t.chunk);
  assert_int_equal(atomic_load(&t.handler_maps), 1);
  assert_true(resident_pages(by_handler, by_handler->mapped) < pages_of(by_handler->mapped) / 2);
  /* the drainer's turn, once that chunk is half used: a spare, faulted in */
  while (atomic_load(&by_handler->used) < by_handler->size / 2) {
    stack_of(k++, FRAMES, f, types);
    assert_non_null(fg_trace_table_put(&t, f, types, FRAMES, 0));
  }
  fg_trace_table_prepare(&t);
  const struct fg_trace_chunk *spare = atomic_load(&t.spare_chunk);
  assert_non_null(spare);
  assert_int_equal(resident_pages(spare, spare->mapped), pages_of(spare->mapped));
  fg_trace_table_destroy(&t);
}

/* A trace bigger than a chunk gets a chunk of its own. */
static void a_deep_stack_fits(void **state)
{
  (void)state;
  struct fg_trace_table t;
  assert_int_equal(fg_trace_table_init(&t, 16, 4096, 0), 0);
  enum { DEEP = 70000 };
  ASGCT_CallFrame *f = calloc(DEEP, sizeof *f);
  uint8_t *types = calloc(DEEP, 1);
  for (uint32_t i = 0; i < DEEP; i++)
    f[i] = (ASGCT_CallFrame){(jint)i, (jmethodID)(uintptr_t)(0x1000 + i)};
  const struct fg_trace *tr = fg_trace_table_put(&t, f, types, DEEP, 0);
  assert_non_null(tr);
  assert_int_equal(fg_trace_bcis(tr)[DEEP - 1], DEEP - 1);
  assert_ptr_equal(fg_trace_table_put(&t, f, types, DEEP, 0), tr);
  free(f);
  free(types);
  fg_trace_table_destroy(&t);
}

/* Under memlimit: new traces are refused and counted, known ones match. */
static void the_limit_refuses_only_new_traces(void **state)
{
  (void)state;
  struct fg_trace_table t;
  assert_int_equal(fg_trace_table_init(&t, 16, 4096, 64 * 1024), 0);
  ASGCT_CallFrame f[FRAMES];
  uint8_t types[FRAMES];
  stack_of(0, FRAMES, f, types);
  const struct fg_trace *first = fg_trace_table_put(&t, f, types, FRAMES, 0);
  assert_non_null(first);
  uint32_t k = 1;
  while (fg_trace_table_put(&t, (stack_of(k, FRAMES, f, types), f), types, FRAMES, 0) != NULL && k < 100000)
    k++;
  assert_true(k < 100000);
  assert_int_equal(atomic_load(&t.refused), 1);
  assert_true(atomic_load(&t.mapped) <= 64 * 1024);
  stack_of(0, FRAMES, f, types);
  assert_ptr_equal(fg_trace_table_put(&t, f, types, FRAMES, 0), first);
  assert_int_equal(atomic_load(&t.refused), 1);
  fg_trace_table_destroy(&t);
}

/* Four threads add the same 3000 stacks in different orders while a fifth
 * prepares indexes and chunks: every pointer a thread gets holds its stack,
 * and at most a few stacks are stored twice. */
enum { THREADS = 4, STACKS = 3000 };

struct race {
  struct fg_trace_table *t;
  int seed;
  _Atomic int *stop;
  const struct fg_trace **got;
};

static void *adder(void *arg)
{
  struct race *r = arg;
  ASGCT_CallFrame f[FRAMES];
  uint8_t types[FRAMES];
  for (uint32_t j = 0; j < STACKS; j++) {
    uint32_t k = (j * 7919u + (uint32_t)r->seed * 104729u) % STACKS;
    uint32_t n = 1 + k % FRAMES;
    stack_of(k, n, f, types);
    const struct fg_trace *tr = fg_trace_table_put(r->t, f, types, n, 0);
    if (!tr || tr->n != n || fg_trace_bcis(tr)[0] != (jint)k)
      return (void *)1;
    r->got[k] = tr;
  }
  return NULL;
}

static void *preparer(void *arg)
{
  struct race *r = arg;
  while (!atomic_load(r->stop))
    fg_trace_table_prepare(r->t);
  return NULL;
}

static void threads_add_at_once(void **state)
{
  (void)state;
  struct fg_trace_table t;
  assert_int_equal(fg_trace_table_init(&t, 16, 16384, 0), 0);
  _Atomic int stop = 0;
  struct race r[THREADS + 1];
  pthread_t th[THREADS + 1];
  for (int i = 0; i <= THREADS; i++) {
    r[i] = (struct race){&t, i, &stop, calloc(STACKS, sizeof(struct fg_trace *))};
    assert_int_equal(pthread_create(&th[i], NULL, i == THREADS ? preparer : adder, &r[i]), 0);
  }
  for (int i = 0; i < THREADS; i++) {
    void *rc;
    pthread_join(th[i], &rc);
    assert_null(rc);
  }
  atomic_store(&stop, 1);
  pthread_join(th[THREADS], NULL);
  uint32_t stored = fg_trace_table_count(&t);
  assert_true(stored >= STACKS && stored <= STACKS + STACKS / 10);
  ASGCT_CallFrame f[FRAMES];
  uint8_t types[FRAMES];
  for (uint32_t k = 0; k < STACKS; k++) {
    stack_of(k, 1 + k % FRAMES, f, types);
    const struct fg_trace *now = fg_trace_table_put(&t, f, types, 1 + k % FRAMES, 0);
    for (int i = 0; i < THREADS; i++) {
      const struct fg_trace *tr = r[i].got[k];
      assert_int_equal(tr->n, now->n);
      assert_memory_equal(fg_trace_methods(tr), fg_trace_methods(now), now->n * sizeof(uint64_t));
    }
  }
  assert_int_equal(fg_trace_table_count(&t), stored);   /* nothing new after the race */
  for (int i = 0; i <= THREADS; i++)
    free(r[i].got);
  fg_trace_table_destroy(&t);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(same_stack_same_trace),
    cmocka_unit_test(a_known_suffix_hashes_as_the_whole),
    cmocka_unit_test(found_without_reading_the_trace),
    cmocka_unit_test(stacks_differing_in_one_chain_are_told_apart),
    cmocka_unit_test(grows_and_finds_everything),
    cmocka_unit_test(a_deep_stack_fits),
    cmocka_unit_test(memory_mapped_ahead_is_faulted_in),
    cmocka_unit_test(the_limit_refuses_only_new_traces),
    cmocka_unit_test(threads_add_at_once),
  };
  return cmocka_run_group_tests_name("trace_table", tests, NULL, NULL);
}
