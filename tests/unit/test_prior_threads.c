/* The table of Java threads running before attach: a thread's handler finds
 * its record from its own HotSpot Thread pointer (here a fake one under a
 * pthread key of our own), never anyone else's. */
#include "unit.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

#include "jvmti/prior_threads.h"

static char vm_threads[3][2048];   /* fake JavaThreads; a JNIEnv sits 1000 bytes in */
#define ENV_OFFSET 1000
static struct fg_prior_threads late;
static pthread_key_t key;

static JNIEnv *env_of(int i)
{
  return (JNIEnv *)(vm_threads[i] + ENV_OFFSET);
}

static void *find_as(void *vm_thread)
{
  pthread_setspecific(key, vm_thread);
  return fg_prior_threads_find(&late);
}

static void each_thread_finds_its_own_record(void **state)
{
  (void)state;
  assert_int_equal(pthread_key_create(&key, NULL), 0);
  assert_int_equal(fg_prior_threads_init(&late, 2, key, ENV_OFFSET), 0);
  struct fg_thread *records[2] = {(struct fg_thread *)0x100, (struct fg_thread *)0x200};
  assert_int_equal(fg_prior_threads_add(&late, env_of(0), records[0]), 0);
  assert_int_equal(fg_prior_threads_add(&late, env_of(1), records[1]), 0);
  assert_null(find_as(vm_threads[0]));   /* not ready: nothing is found yet */
  late.ready = 1;
  assert_ptr_equal(find_as(vm_threads[0]), records[0]);
  assert_ptr_equal(find_as(vm_threads[1]), records[1]);
  assert_null(find_as(vm_threads[2]));   /* a thread that was not running at attach */
  assert_null(find_as(NULL));            /* not a HotSpot thread at all */

  /* the thread key is found by the calling thread's own pointer */
  pthread_key_t found;
  pthread_setspecific(key, vm_threads[1]);
  assert_int_equal(fg_prior_threads_find_key(vm_threads[1], &found), 0);
  assert_int_equal(found, key);
  assert_int_equal(fg_prior_threads_find_key(vm_threads[2], &found), -1);

  /* an ended thread is taken out: a later thread at the same address finds nothing */
  assert_ptr_equal(fg_prior_threads_remove(&late, env_of(0)), records[0]);
  assert_null(find_as(vm_threads[0]));
  assert_ptr_equal(find_as(vm_threads[1]), records[1]);   /* the probe goes on past the cleared slot */
  assert_null(fg_prior_threads_remove(&late, env_of(0)));
  free(late.slots);
  pthread_key_delete(key);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(each_thread_finds_its_own_record),
  };
  return cmocka_run_group_tests_name("prior_threads", tests, NULL, NULL);
}
