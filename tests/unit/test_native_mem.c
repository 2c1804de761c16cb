/* nativemem's pure parts: the hooks' queue, leak's table, the sampling
 * arithmetic, and the import-slot patcher on this test's own process
 * (libz loaded, patched, unloaded and loaded again). */
#include "unit.h"

#include <dlfcn.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "fg/jfr_reader.h"
#include "fg/output.h"
#include "fg/profile.h"
#include "native_mem/import_patch.h"
#include "native_mem/leak_table.h"
#include "native_mem/nm_queue.h"
#include "native_mem/nm_sampling.h"

static void queue_keeps_order_and_refuses_when_full(void **state)
{
  (void)state;
  struct fg_nm_queue q;
  assert_int_equal(fg_nm_queue_init(&q, 8), 0);
  struct fg_nm_record r = {0}, out;
  for (int i = 0; i < 8; i++) {
    r.weight = (uint64_t)i;
    assert_int_equal(fg_nm_queue_push(&q, &r), 1);
  }
  assert_int_equal(fg_nm_queue_push(&q, &r), 0);
  assert_int_equal(fg_nm_queue_used(&q), 8);
  for (int i = 0; i < 8; i++) {
    assert_int_equal(fg_nm_queue_pop(&q, &out), 1);
    assert_int_equal(out.weight, (uint64_t)i);
  }
  assert_int_equal(fg_nm_queue_pop(&q, &out), 0);
  for (int lap = 0; lap < 3; lap++) {   /* around the ring again */
    r.weight = 100u + (uint64_t)lap;
    assert_int_equal(fg_nm_queue_push(&q, &r), 1);
    assert_int_equal(fg_nm_queue_pop(&q, &out), 1);
    assert_int_equal(out.weight, 100u + (uint64_t)lap);
  }
}

#define PRODUCERS 4
#define PER_PRODUCER 200000

struct producer {
  struct fg_nm_queue *q;
  int id;
  _Atomic uint64_t *refused;
};

static void *produce(void *arg)
{
  struct producer *p = arg;
  for (uint64_t i = 0; i < PER_PRODUCER; i++) {
    struct fg_nm_record r = {.weight = i, .tid = p->id, .events = i * 7 + 1};
    while (!fg_nm_queue_push(p->q, &r))
      atomic_fetch_add(p->refused, 1);   /* full: tried again, so that every record is seen once */
  }
  return NULL;
}

static void queue_takes_every_record_of_many_producers_once(void **state)
{
  (void)state;
  struct fg_nm_queue q;
  assert_int_equal(fg_nm_queue_init(&q, 1024), 0);
  _Atomic uint64_t refused = 0;
  pthread_t t[PRODUCERS];
  struct producer p[PRODUCERS];
  for (int i = 0; i < PRODUCERS; i++) {
    p[i] = (struct producer){&q, i, &refused};
    pthread_create(&t[i], NULL, produce, &p[i]);
  }
  uint64_t next[PRODUCERS] = {0}, got = 0;
  while (got < (uint64_t)PRODUCERS * PER_PRODUCER) {
    struct fg_nm_record r;
    if (!fg_nm_queue_pop(&q, &r))
      continue;
    assert_true(r.tid >= 0 && r.tid < PRODUCERS);
    assert_int_equal(r.weight, next[r.tid]);   /* each producer's in its order, none lost or twice */
    assert_int_equal(r.events, r.weight * 7 + 1);   /* never torn */
    next[r.tid]++;
    got++;
  }
  for (int i = 0; i < PRODUCERS; i++)
    pthread_join(t[i], NULL);
  struct fg_nm_record r;
  assert_int_equal(fg_nm_queue_pop(&q, &r), 0);
}

static void count_leak(void *ctx, uintptr_t addr, const struct fg_nm_record *r)
{
  uint64_t *sum = ctx;
  assert_int_equal(r->weight, addr * 3);
  sum[0]++;
  sum[1] += addr;
}

static void leak_table_holds_what_was_not_freed(void **state)
{
  (void)state;
  struct fg_leak_table t;
  assert_int_equal(fg_leak_table_init(&t, 1024), 0);
  uint64_t want = 0, n = 0;
  for (uintptr_t a = 16; a < 16 + 16 * 500; a += 16) {
    struct fg_nm_record r = {.weight = a * 3};
    assert_int_equal(fg_leak_table_insert(&t, a, &r), 1);
  }
  for (uintptr_t a = 16; a < 16 + 16 * 500; a += 16) {
    if ((a / 16) % 3 == 0) {
      struct fg_nm_record r = {0};
      assert_int_equal(fg_leak_table_take(&t, a, &r), 1);   /* its own record, for the recording's free */
      assert_int_equal(r.weight, a * 3);
      assert_int_equal(fg_leak_table_remove(&t, a), 0);   /* once */
    } else {
      want += a;
      n++;
    }
  }
  assert_int_equal(fg_leak_table_remove(&t, 8), 0);   /* never held */
  uint64_t sum[2] = {0, 0};
  fg_leak_table_each(&t, count_leak, sum);
  assert_int_equal(sum[0], n);
  assert_int_equal(sum[1], want);
  assert_int_equal(atomic_load(&t.live), n);
  fg_leak_table_reset(&t);
  sum[0] = sum[1] = 0;
  fg_leak_table_each(&t, count_leak, sum);
  assert_int_equal(sum[0], 0);
}

static void leak_table_refuses_past_its_window(void **state)
{
  (void)state;
  struct fg_leak_table t;
  assert_int_equal(fg_leak_table_init(&t, 64), 0);
  int held = 0;
  struct fg_nm_record r = {0};
  for (uintptr_t a = 16; a < 16 + 16 * 1000; a += 16)
    held += fg_leak_table_insert(&t, a, &r);
  assert_int_equal(held, 64);   /* every slot, then refusals: never past the budget */
  assert_int_equal(atomic_load(&t.live), 64);
}

struct churn {
  struct fg_leak_table *t;
  uintptr_t base;
};

/* Inserts and frees its own addresses, keeping every tenth. */
static void *churn(void *arg)
{
  struct churn *c = arg;
  for (uintptr_t i = 1; i <= 20000; i++) {
    uintptr_t a = c->base + i * 16;
    struct fg_nm_record r = {.weight = a * 3};
    if (!fg_leak_table_insert(c->t, a, &r))
      continue;
    if (i % 10)
      assert_int_equal(fg_leak_table_remove(c->t, a), 1);
  }
  return NULL;
}

static void leak_table_under_threads_keeps_exactly_the_unfreed(void **state)
{
  (void)state;
  struct fg_leak_table t;
  assert_int_equal(fg_leak_table_init(&t, 1u << 16), 0);
  pthread_t th[4];
  struct churn c[4];
  for (int i = 0; i < 4; i++) {
    c[i] = (struct churn){&t, (uintptr_t)(i + 1) << 32};
    pthread_create(&th[i], NULL, churn, &c[i]);
  }
  for (int i = 0; i < 4; i++)
    pthread_join(th[i], NULL);
  uint64_t sum[2] = {0, 0};
  fg_leak_table_each(&t, count_leak, sum);
  assert_int_equal(sum[0], 4 * 2000);
}

/* The estimate of a mix of sizes from their samples: each size's bytes
 * within 3% of the truth at a 64 KiB mean gap. */
static void sampling_estimates_each_size_unbiased(void **state)
{
  (void)state;
  static const uint64_t sizes[] = {24, 1000, 40000, 300000, 5000000};
  uint64_t rng = 0x1234567, interval = 64 * 1024;
  double truth[5] = {0}, est[5] = {0};
  int64_t left = fg_nm_gap(&rng, interval);
  for (int round = 0; round < 400; round++) {
    for (int k = 0; k < 5; k++) {
      uint64_t count = 200000000ull / sizes[k] / 400 + 1;   /* about 200 MB of each size in all */
      for (uint64_t j = 0; j < count; j++) {
        truth[k] += (double)sizes[k];
        left -= (int64_t)sizes[k];
        if (left > 0)
          continue;
        left = fg_nm_gap(&rng, interval);
        uint64_t bytes, calls;
        fg_nm_weight(sizes[k], interval, &bytes, &calls);
        est[k] += (double)bytes;
        assert_true(calls >= 1);
      }
    }
  }
  for (int k = 0; k < 5; k++)
    assert_true(fabs(est[k] / truth[k] - 1.0) < 0.03);
  uint64_t bytes, calls;
  fg_nm_weight(100, 0, &bytes, &calls);   /* nativemem=0: every call as it is */
  assert_int_equal(bytes, 100);
  assert_int_equal(calls, 1);
}

/* The import patcher on this process. */
static _Atomic uint64_t hooked_mallocs;
static void *(*original_malloc)(size_t);

static void *counting_malloc(size_t n)
{
  atomic_fetch_add(&hooked_mallocs, 1);
  return original_malloc(n);
}

typedef int (*compress_fn)(unsigned char *, unsigned long *, const unsigned char *, unsigned long);

/* libz's compress: its deflateInit mallocs through libz's own import slot. */
static uint64_t mallocs_of_compress(compress_fn compress)
{
  unsigned char src[4096], dst[8192];
  memset(src, 'a', sizeof src);
  unsigned long len = sizeof dst;
  uint64_t before = atomic_load(&hooked_mallocs);
  assert_int_equal(compress(dst, &len, src, sizeof src), 0);
  return atomic_load(&hooked_mallocs) - before;
}

static void patch(int restore, struct fg_import_patch_counts *c)
{
  struct fg_import_hook h = {"malloc", (void *)counting_malloc, (void *)original_malloc, 1};
  fg_import_patch(&h, 1, 0, restore, c);
}

static void import_slots_patched_restored_and_unloaded_safely(void **state)
{
  (void)state;
  original_malloc = (void *(*)(size_t))dlsym(RTLD_DEFAULT, "malloc");
  assert_non_null(original_malloc);
  void *z = dlopen("libz.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!z)
    skip();
  compress_fn compress = (compress_fn)dlsym(z, "compress");
  assert_non_null(compress);
  assert_int_equal(mallocs_of_compress(compress), 0);
  struct fg_import_patch_counts c;
  patch(0, &c);
  assert_true(c.slots >= 1);
  assert_int_equal(c.failed, 0);
  assert_true(mallocs_of_compress(compress) >= 1);
  patch(0, &c);
  assert_int_equal(c.slots, 0);   /* patched already: nothing written again */
  patch(1, &c);
  assert_true(c.slots >= 1);
  assert_int_equal(mallocs_of_compress(compress), 0);
  /* unloaded while patched: neither patching again nor restoring meets it */
  patch(0, &c);
  assert_int_equal(dlclose(z), 0);
  patch(0, &c);
  patch(1, &c);
  /* loaded after the patch: not seen until patched again */
  patch(0, &c);
  z = dlopen("libz.so.1", RTLD_NOW | RTLD_LOCAL);
  assert_non_null(z);
  compress = (compress_fn)dlsym(z, "compress");
  assert_int_equal(mallocs_of_compress(compress), 0);
  patch(0, &c);
  assert_true(c.slots >= 1);
  assert_true(mallocs_of_compress(compress) >= 1);
  patch(1, &c);
  assert_int_equal(mallocs_of_compress(compress), 0);
  dlclose(z);
}

/* A nativemem and a nativelock stack (no class leaf) through fgagent's .jfr and back. */
static void native_events_read_back_from_jfr(void **state)
{
  (void)state;
  struct fg_profile p;
  fg_profile_init(&p);
  p.timeline.max = 10;
  assert_int_equal(fg_profile_add_thread(&p, 77, "worker"), 0);
  p.stats.start_ns = 1000;
  p.stats.start_epoch_ns = 1700000000000000000ull;
  p.stats.wall_ns = 1000000000ull;
  snprintf(p.stats.event, sizeof p.stats.event, "cpu");
  p.stats.cpu_off = 1;
  p.stats.nativemem.on = p.stats.nativelock.on = 1;
  const char *mem[] = {"Main.main", "Main.jni", "nm_alloc"}, *lock[] = {"start_thread", "nm_lock"};
  uint32_t ids[3];
  for (int i = 0; i < 3; i++)
    ids[i] = (uint32_t)fg_profile_intern(&p, mem[i], i ? FG_KIND_NATIVE : FG_KIND_JAVA);
  int64_t m = fg_profile_event_stack(&p, FG_STACK_NATIVEMEM, 0, ids, 3);
  fg_profile_count(&p, (uint32_t)m, 1234567, 2000, 0);
  for (int i = 0; i < 2; i++)
    ids[i] = (uint32_t)fg_profile_intern(&p, lock[i], FG_KIND_NATIVE);
  int64_t l = fg_profile_event_stack(&p, FG_STACK_NATIVELOCK, 0, ids, 2);
  fg_profile_count(&p, (uint32_t)l, 7000000, 9000000, 0);
  char *data;
  size_t len;
  FILE *out = open_memstream(&data, &len);
  struct fg_output_settings cfg = {0};
  assert_int_equal(fg_write_jfr(out, &p, &cfg), 0);
  fclose(out);
  fg_profile_free(&p);
  struct fg_profile back;
  fg_profile_init(&back);
  char err[512];
  if (fg_parse_jfr((unsigned char *)data, len, "n.jfr", false, &back, err, sizeof err) != 0)
    fail_msg("%s", err);
  int seen = 0;
  for (uint32_t i = 0; i < back.nstacks; i++) {
    const struct fg_stack *s = &back.stacks[i];
    const uint32_t *f = fg_stack_frames(&back, s);
    if (s->event == FG_STACK_NATIVEMEM) {
      assert_int_equal(s->nframes, 3);
      assert_string_equal(back.names[f[2]], "nm_alloc");
      assert_int_equal(s->count, 1234567);
      seen |= 1;
    } else if (s->event == FG_STACK_NATIVELOCK) {
      assert_int_equal(s->nframes, 2);
      assert_string_equal(back.names[f[1]], "nm_lock");
      assert_int_equal(s->count, 7000000);
      seen |= 2;
    }
  }
  assert_int_equal(seen, 3);
  assert_int_equal(back.stats.nativemem.stored, 1);
  assert_int_equal(back.stats.nativelock.weight, 7000000);
  fg_profile_free(&back);
  free(data);
}

/* The summary's sections: each sampled call accounted for, freed ones with leak. */
static void summary_accounts_for_native_events(void **state)
{
  (void)state;
  struct fg_stats st;
  memset(&st, 0, sizeof st);
  st.cpu_off = 1;
  st.nativemem = (struct fg_event_stats){.on = 1, .interval = 524288, .leak = 1, .taken = 10, .stored = 3,
                                         .no_memory = 2, .freed = 5, .weight = 3000000, .events = 3};
  st.nativelock = (struct fg_event_stats){.on = 1, .interval = 10000, .taken = 4, .stored = 3, .log_full = 1,
                                          .weight = 5000000, .events = 3, .below = 9};
  char *text;
  size_t len;
  FILE *out = open_memstream(&text, &len);
  assert_int_equal(fg_write_summary(out, &st), 0);
  fclose(out);
  assert_non_null(strstr(text, "leak: only what was not freed by the end"));
  assert_non_null(strstr(text, "3.0 MB not freed in 3 calls"));
  assert_non_null(strstr(text, "taken 10 = stored 3 + lost 2 + freed 5: OK"));
  assert_non_null(strstr(text, "taken 4 = stored 3 + lost 1: OK"));
  assert_non_null(strstr(text, "shorter waits:     9"));
  free(text);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(queue_keeps_order_and_refuses_when_full),
    cmocka_unit_test(queue_takes_every_record_of_many_producers_once),
    cmocka_unit_test(leak_table_holds_what_was_not_freed),
    cmocka_unit_test(leak_table_refuses_past_its_window),
    cmocka_unit_test(leak_table_under_threads_keeps_exactly_the_unfreed),
    cmocka_unit_test(sampling_estimates_each_size_unbiased),
    cmocka_unit_test(import_slots_patched_restored_and_unloaded_safely),
    cmocka_unit_test(native_events_read_back_from_jfr),
    cmocka_unit_test(summary_accounts_for_native_events),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
