/* The unwind tables' refresher thread: a walk that meets a library loaded
 * since wakes it, and it reads the library long before its period ends; a
 * library no walk met is read within the period; stop returns at once. */
#include "unit.h"

#include <dlfcn.h>
#include <stdio.h>
#include <time.h>

#include "own_stack.h"
#include "native/unwind_refresher.h"

static struct fg_unwind_tables tables;
static struct fg_unwind_refresher refresher;

static double now_s(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* One step from fn's first instruction, as if it had just been called with
 * the return address 0x1234 at sp: 1 once the tables hold fn's library. */
static int step_from(void *fn)
{
  uintptr_t stack[2] = {0x1234, 0};
  struct fg_regs r = {(uintptr_t)fn, (uintptr_t)stack, 0};
  return fg_unwind_step(&tables, own_stack(), 1, &r, NULL) && r.pc == 0x1234 && r.sp == (uintptr_t)(stack + 1);
}

static int set_size(void)
{
  return (int)atomic_load(&tables.set)->n;
}

/* Period a minute: only the walk's wake-up can have the library read within 5 s. */
static void a_walk_meeting_a_new_library_wakes_the_refresher(void **state)
{
  (void)state;
  assert_int_equal(fg_unwind_tables_init(&tables), 0);
  assert_int_equal(fg_unwind_refresher_start(&refresher, &tables, 60ull * 1000000000u), 0);
  assert_true(atomic_load(&tables.wake_fd) >= 0);
  void *lib = dlopen("libz.so.1", RTLD_NOW);
  if (!lib) {
    printf("libz.so.1 cannot be loaded (%s): the refresher's wake-up is not tested\n", dlerror());
  } else {
    void *fn = dlsym(lib, "deflate");
    assert_non_null(fn);
    double start = now_s();
    int walked = step_from(fn);   /* not read yet: this step misses and wakes the refresher */
    assert_false(walked);
    while (!walked && now_s() - start < 5)
      walked = step_from(fn);
    assert_true(walked);
    assert_int_equal(atomic_load(&tables.missed), 0);
  }
  double stop = now_s();
  fg_unwind_refresher_stop(&refresher);   /* in its minute-long poll: the stop wakes it */
  assert_true(now_s() - stop < 1);
  assert_int_equal(atomic_load(&tables.wake_fd), -1);
  if (lib)
    dlclose(lib);
  fg_unwind_tables_free(&tables);
}

/* Period 20 ms: a library no walk met is read within a few periods. */
static void a_library_no_walk_met_is_read_within_the_period(void **state)
{
  (void)state;
  assert_int_equal(fg_unwind_tables_init(&tables), 0);
  int before = set_size();
  assert_int_equal(fg_unwind_refresher_start(&refresher, &tables, 20000000u), 0);
  void *lib = dlopen("libcrypt.so.1", RTLD_NOW);
  if (!lib) {
    printf("libcrypt.so.1 cannot be loaded (%s): the refresher's period is not tested\n", dlerror());
  } else {
    double start = now_s();
    while (set_size() == before && now_s() - start < 5) {
      struct timespec ms = {0, 1000000};
      nanosleep(&ms, NULL);
    }
    assert_int_equal(set_size(), before + 1);
    assert_int_equal(atomic_load(&tables.missed), 0);   /* no walk missed */
  }
  fg_unwind_refresher_stop(&refresher);
  fg_unwind_refresher_stop(&refresher);   /* a second stop does nothing */
  if (lib)
    dlclose(lib);
  fg_unwind_tables_free(&tables);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(a_walk_meeting_a_new_library_wakes_the_refresher),
      cmocka_unit_test(a_library_no_walk_met_is_read_within_the_period),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
