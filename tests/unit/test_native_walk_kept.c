/* A thread with no Java keeps its last native walk (walk_cache.h): from
 * inside a signal handler, each walk of this program's own stack with the
 * kept walk gives the frames a walk without it gives, goes on from the kept
 * one where the stack did not change, and not where a caller's return
 * address changed under frames that are where they were. A walk of the same
 * stack as walker=copy reads it ends past _start: no Java frame, not cut. */
#include "unit.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <ucontext.h>

#include "own_stack.h"
#include "native/unwind_tables.h"
#include "walk/walk_cache.h"
#include "walk/walker.h"
#include "fg/trace_table.h"

#define ROOM 512

static struct fg_unwind_tables tables;
static struct fg_code_map map;
static struct fg_walker walker;
static struct fg_trace_table traces;
static struct fg_walk_cache kept;
static void *kept_mem;
static struct fg_bounds bounds;
static ASGCT_CallFrame plain[ROOM], cached[ROOM];
static uint8_t plain_types[ROOM], cached_types[ROOM];
static int plain_n, cached_n, spliced, spliced_frames;
static struct fg_walk copied;   /* walker=copy's walk of the same stack, read in place */
static struct fg_walk live;     /* the signal's walk of a thread with a JNIEnv whose AsyncGetCallTrace says unknown_not_Java */

/* AsyncGetCallTrace of a thread in the VM with no Java frame (its end). */
static void no_top_frame(ASGCT_CallTrace *trace, jint depth, void *ucontext)
{
  (void)depth;
  (void)ucontext;
  trace->num_frames = FG_TICK_UNKNOWN_NOT_JAVA;
}
static volatile int sink;

/* Both walks of the interrupted thread, then the cached one stored and kept
 * as the handler does it. */
static void on_signal(int signo, siginfo_t *info, void *ucontext)
{
  (void)signo;
  (void)info;
  plain_n = fg_walk_stack(&walker, 0, UINT64_MAX, NULL, ucontext, bounds.lo, bounds.hi, NULL, plain, plain_types).n;
  cached_n =
      fg_walk_stack(&walker, 0, UINT64_MAX, NULL, ucontext, bounds.lo, bounds.hi, &kept, cached, cached_types).n;
  struct fg_trace_suffix known;
  spliced = fg_walk_cache_suffix(&kept, &known);
  spliced_frames = spliced ? (int)known.len : 0;
  const struct fg_trace *tr =
      fg_trace_table_put_known(&traces, cached, cached_types, (uint32_t)cached_n, 0, spliced ? &known : NULL);
  fg_walk_cache_commit(&kept, tr);
  const greg_t *g = ((ucontext_t *)ucontext)->uc_mcontext.gregs;
  struct fg_stack_copy c = {.pc = (uintptr_t)g[REG_RIP], .sp = (uintptr_t)g[REG_RSP], .fp = (uintptr_t)g[REG_RBP],
                            .stack = (const uint8_t *)(uintptr_t)g[REG_RSP], .copied = bounds.hi - (uintptr_t)g[REG_RSP]};
  static ASGCT_CallFrame f[ROOM];
  static uint8_t types[ROOM];
  copied = fg_walk_copy(&walker, (void *)&sink, &c, f, types);   /* a JNIEnv that is never read: no Java */
  struct fg_walker asgct = walker;
  asgct.asgct = no_top_frame;
  asgct.recover = 0;
  live = fg_walk_stack(&asgct, 0, UINT64_MAX, (void *)&sink, ucontext, bounds.lo, bounds.hi, NULL, f, types);
}

__attribute__((noinline)) static void down(int n)
{
  volatile char pad[24];
  pad[n % 24] = (char)n;
  if (n == 0)
    raise(SIGUSR1);
  else
    down(n - 1);
  sink += pad[0];
}

/* The same frame for both call sites below: the frames above it are where
 * they were, only its return address differs. */
__attribute__((noinline)) static void via(int n)
{
  down(n);
  sink++;
}

static void assert_same_walks(void)
{
  assert_true(plain_n > 12);   /* down's, via's, this test's, cmocka's and libc's frames */
  assert_int_equal(cached_n, plain_n);
  for (int i = 0; i < plain_n; i++) {
    assert_ptr_equal(cached[i].method_id, plain[i].method_id);
    assert_int_equal(cached_types[i], plain_types[i]);
  }
}

static void walks_go_on_from_the_kept_one_only_where_nothing_changed(void **state)
{
  (void)state;
  assert_int_equal(fg_unwind_tables_init(&tables), 0);
  assert_int_equal(fg_code_map_init(&map), 0);
  assert_int_equal(fg_trace_table_init(&traces, 1024, 1u << 20, 0), 0);
  kept_mem = calloc(1, fg_walk_cache_bytes(ROOM));
  assert_non_null(kept_mem);
  fg_walk_cache_init(&kept, kept_mem, ROOM);
  kept.min_native = 0;   /* from the first walk on, whatever its depth */
  walker = (struct fg_walker){.code = &map, .depth = 64, .native_depth = 128, .recover = 1, .unwind = &tables};
  bounds = own_stack();
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_signal;
  sa.sa_flags = SA_SIGINFO;
  sigaction(SIGUSR1, &sa, NULL);

  /* i in memory: a register holding it would be saved in some frame above
   * and differ between the two walks (rbp's saved value is read) */
  for (volatile int i = 0; i < 2; i++) {
    via(8);   /* the same call site: the second walk goes on from its first caller */
    assert_same_walks();
    assert_int_equal(spliced, i == 1);
    if (i == 1)
      assert_int_equal(spliced_frames, cached_n - 1);
  }
  /* another call site: every frame above via's is where it was, but via
   * returns elsewhere, so the walk goes on only from below this test's frame */
  via(8);
  assert_same_walks();
  assert_true(spliced);
  /* walked to _start, whose return address is undefined: the whole stack, and no Java on it */
  assert_int_equal(copied.n, plain_n);
  assert_int_equal(copied.tick, FG_TICK_NO_JAVA_FRAME);
  assert_false(copied.flags & FG_SAMPLE_NATIVE_CUT);
  /* the signal's walk of the same stack: no Java on it either, whatever AsyncGetCallTrace says */
  assert_int_equal(live.n, plain_n);
  assert_int_equal(live.tick, FG_TICK_NO_JAVA_FRAME);
  int below_test = spliced_frames;
  assert_true(below_test > 0 && below_test < cached_n - 10);
  int whole = cached_n;
  via(3);   /* shallower, from another call site again */
  assert_same_walks();
  assert_int_equal(cached_n, whole - 5);
  assert_true(spliced);
  assert_int_equal(spliced_frames, below_test);

  signal(SIGUSR1, SIG_DFL);
  free(kept_mem);
  fg_trace_table_destroy(&traces);
  fg_code_map_free(&map);
  fg_unwind_tables_free(&tables);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(walks_go_on_from_the_kept_one_only_where_nothing_changed),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
