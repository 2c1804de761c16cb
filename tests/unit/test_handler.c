/* The SIGPROF handler, driven by raise() on a registered thread with a fake
 * AsyncGetCallTrace: what it asks for, what it stores, what it counts. */
#include "unit.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "fg/sample_record.h"
#include "../../agent/jvmti/threads.h"
#include "../../agent/sampling/sampler.h"

static struct fg_sampler sampler;
static struct fg_foreign_threads foreign;
static struct fg_registry registry;
static JNIEnv *const fake_env = (JNIEnv *)0x1234;

/* What the fake walker returns next, and what it was asked. */
static int fake_frames;
static jint asked_depth;
static JNIEnv *asked_env;

static void fake_asgct(ASGCT_CallTrace *trace, jint depth, void *ucontext)
{
  (void)ucontext;
  asked_depth = depth;
  asked_env = trace->env_id;
  errno = 7;   /* the handler must restore the interrupted code's errno */
  if (fake_frames <= 0) {
    trace->num_frames = fake_frames;
    return;
  }
  int n = fake_frames < depth ? fake_frames : depth;
  for (int i = 0; i < n; i++) {
    trace->frames[i].method_id = (jmethodID)(uintptr_t)(0x1000 + i);
    trace->frames[i].lineno = i;
  }
  trace->num_frames = n;
}

static int setup(void **state)
{
  (void)state;
  memset(&sampler, 0, sizeof sampler);
  memset(&foreign, 0, sizeof foreign);
  sampler.asgct = fake_asgct;
  sampler.depth = 8;
  sampler.foreign = &foreign;
  fg_registry_init(&registry, 4096, 8);
  fg_sampler_install(&sampler);
  return 0;
}

static int teardown(void **state)
{
  (void)state;
  fg_registry_detach(&registry, NULL);
  fg_sampler_shutdown(&sampler);
  return 0;
}

static const uint64_t *take_one(struct fg_thread *t)
{
  const uint64_t *rec = fg_ring_peek(&t->ring);
  assert_non_null(rec);
  return rec;
}

static void stores_a_walk_and_restores_errno(void **state)
{
  (void)state;
  struct fg_thread *t = fg_registry_attach(&registry, fake_env, 99, "t");
  fake_frames = 5;
  errno = 42;
  raise(SIGPROF);
  assert_int_equal(errno, 42);
  assert_int_equal(asked_depth, 9);              /* depth + 1 */
  assert_ptr_equal(asked_env, fake_env);
  assert_int_equal(atomic_load(&t->taken), 1);
  assert_true(atomic_load(&t->handler_ns) > 0);
  const uint64_t *rec = take_one(t);
  assert_int_equal(fg_sample_num_frames(rec), 5);
  assert_int_equal(fg_sample_flags(rec), 0);
  assert_int_equal(fg_sample_serial(rec), t->serial);
  assert_ptr_equal(fg_sample_method(rec, 4), (jmethodID)(uintptr_t)0x1004);
  fg_ring_release(&t->ring, rec);
}

static void deeper_than_depth_is_cut_and_flagged(void **state)
{
  (void)state;
  struct fg_thread *t = fg_registry_attach(&registry, fake_env, 99, "t");
  fake_frames = 100;
  raise(SIGPROF);
  const uint64_t *rec = take_one(t);
  assert_int_equal(fg_sample_num_frames(rec), 8);
  assert_int_equal(fg_sample_flags(rec), FG_SAMPLE_TRUNCATED);
  assert_ptr_equal(fg_sample_method(rec, 0), (jmethodID)(uintptr_t)0x1000);   /* leaf kept */
  fg_ring_release(&t->ring, rec);
  /* exactly depth frames is not truncated */
  fake_frames = 8;
  raise(SIGPROF);
  rec = take_one(t);
  assert_int_equal(fg_sample_flags(rec), 0);
  fg_ring_release(&t->ring, rec);
}

static void tick_codes_are_stored(void **state)
{
  (void)state;
  struct fg_thread *t = fg_registry_attach(&registry, fake_env, 99, "t");
  for (int tick = 0; tick >= -10; tick--) {
    fake_frames = tick;
    raise(SIGPROF);
    const uint64_t *rec = take_one(t);
    assert_int_equal(fg_sample_num_frames(rec), tick);
    fg_ring_release(&t->ring, rec);
  }
}

static void full_ring_counts_overruns(void **state)
{
  (void)state;
  struct fg_thread *t = fg_registry_attach(&registry, fake_env, 99, "t");
  fake_frames = 8;   /* 3 + 8 + 4 = 15 words; a 512-word ring holds 34 */
  uint64_t before = atomic_load(&t->taken);
  for (int i = 0; i < 50; i++)
    raise(SIGPROF);
  assert_int_equal(atomic_load(&t->taken) - before, 50);
  assert_int_equal(atomic_load(&t->overruns), 50 - 34);
  int stored = 0;
  const uint64_t *rec;
  while ((rec = fg_ring_peek(&t->ring)) != NULL) {
    stored++;
    fg_ring_release(&t->ring, rec);
  }
  assert_int_equal(stored, 34);
}

static void unregistered_thread_is_counted_by_tid(void **state)
{
  (void)state;
  fg_registry_detach(&registry, NULL);
  raise(SIGPROF);
  raise(SIGPROF);
  assert_int_equal(atomic_load(&sampler.foreign_taken), 2);
  int tid = (int)syscall(SYS_gettid);
  uint64_t count = 0;
  for (int i = 0; i < FG_FOREIGN_SLOTS; i++)
    if (atomic_load(&foreign.slots[i].tid) == tid)
      count += atomic_load(&foreign.slots[i].count);
  assert_int_equal(count, 2);
}

static void after_shutdown_signals_are_ignored(void **state)
{
  (void)state;
  struct fg_thread *t = fg_registry_attach(&registry, fake_env, 99, "t");
  fg_sampler_shutdown(&sampler);
  struct sigaction now;
  sigaction(SIGPROF, NULL, &now);
  assert_ptr_equal(now.sa_handler, SIG_IGN);   /* never SIG_DFL: that kills the JVM */
  raise(SIGPROF);                               /* survives */
  assert_int_equal(atomic_load(&t->taken), 0);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test_setup_teardown(stores_a_walk_and_restores_errno, setup, teardown),
    cmocka_unit_test_setup_teardown(deeper_than_depth_is_cut_and_flagged, setup, teardown),
    cmocka_unit_test_setup_teardown(tick_codes_are_stored, setup, teardown),
    cmocka_unit_test_setup_teardown(full_ring_counts_overruns, setup, teardown),
    cmocka_unit_test_setup_teardown(unregistered_thread_is_counted_by_tid, setup, teardown),
    cmocka_unit_test_setup_teardown(after_shutdown_signals_are_ignored, setup, teardown),
  };
  return cmocka_run_group_tests_name("handler", tests, NULL, NULL);
}
