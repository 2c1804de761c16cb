/* Native walks by the loaded libraries' unwind rows: from inside a signal
 * handler, through libc's raise and this program's own functions (built at
 * -O2, without frame pointers, frames of different sizes), as the agent's
 * handler walks a thread; a leaf in assembly with no unwind row (as
 * libjvm's SpinPause); a library loaded later, read by a refresh; a
 * function's start by the .eh_frame_hdr's table; and a signal frame. */
#include "unit.h"

#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <ucontext.h>

#include "own_stack.h"
#include "native/unwind_tables.h"

#define MAX_PCS 64

static struct fg_unwind_tables tables;
static struct fg_bounds bounds;
static uintptr_t pcs[MAX_PCS];
static int npcs;
static volatile int sink;

static void on_signal(int signo, siginfo_t *info, void *ucontext)
{
  (void)signo;
  (void)info;
  const greg_t *g = ((ucontext_t *)ucontext)->uc_mcontext.gregs;
  struct fg_regs r = {(uintptr_t)g[REG_RIP], (uintptr_t)g[REG_RSP], (uintptr_t)g[REG_RBP]};
  npcs = 0;
  pcs[npcs++] = r.pc;
  while (npcs < MAX_PCS && r.pc && fg_unwind_step(&tables, bounds, npcs == 1, &r, NULL))
    pcs[npcs++] = r.pc;
}

/* Three callers with frames of their own sizes; none a tail call. */
__attribute__((noinline)) void unwind_leaf(int n)
{
  volatile char pad[40];
  pad[n % 40] = (char)n;
  raise(SIGUSR1);
  sink += pad[0];
}

__attribute__((noinline)) void unwind_middle(int n)
{
  volatile long pad[30];
  pad[n % 30] = n;
  unwind_leaf(n + 1);
  sink += (int)pad[1];
}

__attribute__((noinline)) void unwind_outer(int n)
{
  unwind_middle(n + 1);
  sink += n;
}

/* Where in pcs the return address into fn is, from from on; -1 if none. */
static int find_in(void (*fn)(int), int from)
{
  for (int i = from; i < npcs; i++)
    if (pcs[i] > (uintptr_t)fn && pcs[i] < (uintptr_t)fn + 160)
      return i;
  return -1;
}

static void set_bounds(void)
{
  bounds = own_stack();
}

/* signo, raised on this thread, walks its stack into pcs. */
static void walk_on(int signo)
{
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_signal;
  sa.sa_flags = SA_SIGINFO;
  sigaction(signo, &sa, NULL);
}

static void walks_through_libc_and_frameless_callers(void **state)
{
  (void)state;
  assert_int_equal(fg_unwind_tables_init(&tables), 0);
  assert_true(tables.rows > 1000);   /* libc's and this program's, at least */
  set_bounds();
  walk_on(SIGUSR1);
  unwind_outer(1);
  int leaf = find_in(unwind_leaf, 1), middle = find_in(unwind_middle, 1), outer = find_in(unwind_outer, 1);
  printf("%d frames; unwind_leaf at %d, unwind_middle at %d, unwind_outer at %d\n", npcs, leaf, middle, outer);
  assert_true(leaf >= 1);   /* libc's raise above it */
  assert_int_equal(middle, leaf + 1);
  assert_int_equal(outer, middle + 1);
  assert_true(npcs > outer + 1);   /* on to main and libc's start */
  assert_int_equal(pcs[npcs - 1], 0);   /* and past _start, whose return address is undefined: the whole stack */
  fg_unwind_tables_free(&tables);
}

/* Leaves written in assembly, with no unwind row (no CFI), as libjvm's
 * SpinPause is: one that pushes nothing, and one that pushes the word in
 * planted. Each traps inside. */
__asm__(".text\n"
        ".type leaf_without_rule, @function\n"
        "leaf_without_rule:\n"
        "  int3\n"
        "  ret\n"
        ".type leaf_pushing_a_word, @function\n"
        "leaf_pushing_a_word:\n"
        "  pushq planted(%rip)\n"
        "  int3\n"
        "  addq $8, %rsp\n"
        "  ret\n");
void leaf_without_rule(void);
void leaf_pushing_a_word(void);
uintptr_t planted;

__attribute__((noinline)) void calls_leaf_without_rule(int n)
{
  leaf_without_rule();
  sink += n;
}

__attribute__((noinline)) void calls_leaf_pushing_a_word(int n)
{
  leaf_pushing_a_word();
  sink += n;
}

/* A return address into libc from the walk in pcs (raise's callers), or 0. */
static uintptr_t return_into_libc(void)
{
  for (int i = 1; i < npcs; i++) {
    Dl_info info;
    if (dladdr((void *)pcs[i], &info) && info.dli_fname && strstr(info.dli_fname, "libc.so"))
      return pcs[i];
  }
  return 0;
}

/* The interrupted pc has no row: taken as a leaf that pushed nothing when
 * the word at sp is an address just after a call, in its own library's code
 * with rows; the walk goes on from there. Any other word there stops the
 * walk at the leaf: an address in that code after no call (just past a
 * function's entry), or a return address into another library (libc's),
 * whose code may be gone by then. */
static void a_leaf_without_a_rule_returns_through_sp(void **state)
{
  (void)state;
  assert_int_equal(fg_unwind_tables_init(&tables), 0);
  set_bounds();
  walk_on(SIGTRAP);
  calls_leaf_without_rule(1);
  assert_true(pcs[0] > (uintptr_t)leaf_without_rule && pcs[0] <= (uintptr_t)leaf_without_rule + 1);
  int caller = find_in(calls_leaf_without_rule, 1);
  printf("leaf without a rule: %d frames, its caller at %d\n", npcs, caller);
  assert_int_equal(caller, 1);
  assert_true(npcs > 2);   /* on to main and libc's start */
  walk_on(SIGUSR1);
  raise(SIGUSR1);
  uintptr_t into_libc = return_into_libc();
  planted = (uintptr_t)calls_leaf_pushing_a_word + 1;
  calls_leaf_pushing_a_word(1);
  printf("leaf pushing an address past an entry: %d frames\n", npcs);
  assert_int_equal(npcs, 1);
  assert_true(into_libc != 0);
  planted = into_libc;
  calls_leaf_pushing_a_word(1);
  printf("leaf pushing a return address into libc: %d frames\n", npcs);
  assert_int_equal(npcs, 1);
  fg_unwind_tables_free(&tables);
}

__attribute__((noinline, optimize("no-omit-frame-pointer"))) static long with_frame(long x)
{
  volatile long v[4];
  v[0] = x;
  return v[0] + 1;
}

/* At the ret after leave (or pop rbp) GCC's rows still say rbp is saved at
 * CFA - 16, a slot now below sp: rbp already holds it, and a stack copy
 * (walker=copy) starts at sp. The step keeps rbp as it is (os::javaTimeNanos
 * under System.nanoTime stopped 1-2% of a copy's walks there). */
static void the_ret_after_leave_keeps_rbp(void **state)
{
  (void)state;
  assert_int_equal(fg_unwind_tables_init(&tables), 0);
  assert_int_equal(with_frame(1), 2);
  const uint8_t *c = (const uint8_t *)(uintptr_t)with_frame;
  int ret = -1;
  for (int i = 1; i < 256 && ret < 0; i++)
    if (c[i] == 0xc3 && (c[i - 1] == 0xc9 || c[i - 1] == 0x5d))
      ret = i;
  assert_true(ret > 0);
  uintptr_t copy[2] = {0x1234, 0};   /* the return address at sp, nothing below it */
  struct fg_bounds b = {(uintptr_t)copy, (uintptr_t)(copy + 2), 0, 0};
  struct fg_regs r = {(uintptr_t)(c + ret), (uintptr_t)copy, 0x5550};
  assert_int_equal(fg_unwind_step(&tables, b, 1, &r, NULL), 1);
  assert_int_equal(r.pc, 0x1234);
  assert_int_equal(r.sp, (uintptr_t)(copy + 1));
  assert_int_equal(r.fp, 0x5550);
  fg_unwind_tables_free(&tables);
}

/* A pc in no library stops the walk and says so; a library loaded later is
 * read by the next refresh, and only then. */
static void a_library_loaded_later_is_read_by_the_refresh(void **state)
{
  (void)state;
  assert_int_equal(fg_unwind_tables_init(&tables), 0);
  set_bounds();
  uintptr_t word = 0;
  struct fg_regs r = {0x10, (uintptr_t)&word, 0};
  assert_int_equal(fg_unwind_step(&tables, bounds, 1, &r, NULL), 0);
  assert_int_equal(r.pc, 0x10);
  assert_int_equal(atomic_load(&tables.missed), 1);   /* no refresher to wake: wake_fd is -1 */
  assert_int_equal(fg_unwind_tables_refresh(&tables), 0);   /* nothing was loaded since */
  uint32_t before = atomic_load(&tables.set)->n;
  void *lib = dlopen("libz.so.1", RTLD_NOW);
  if (!lib) {
    printf("libz.so.1 cannot be loaded (%s): the refresh after a load is not tested\n", dlerror());
  } else {
    assert_int_equal(fg_unwind_tables_refresh(&tables), 1);
    assert_int_equal(atomic_load(&tables.set)->n, before + 1);
    assert_int_equal(atomic_load(&tables.missed), 0);
    assert_int_equal(fg_unwind_tables_refresh(&tables), 0);
    dlclose(lib);
  }
  fg_unwind_tables_free(&tables);
}

struct program_hdr {
  const uint8_t *hdr, *lo, *hi;
};

static int main_program_hdr(struct dl_phdr_info *info, size_t size, void *arg)
{
  (void)size;
  struct program_hdr *h = arg;
  for (int i = 0; i < info->dlpi_phnum; i++)
    if (info->dlpi_phdr[i].p_type == PT_GNU_EH_FRAME)
      h->hdr = (const uint8_t *)(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
  if (h->hdr && fg_unwind_segment_of(info, h->hdr, &h->lo, &h->hi) != 0)
    h->hdr = NULL;
  return 1;   /* the first object is the program */
}

/* A stripped library's functions are named by where their FDE starts; a pc
 * in code no FDE covers (the assembly leaf, past the FDE below it) by none. */
static void a_function_start_is_found_by_the_header_table(void **state)
{
  (void)state;
  struct program_hdr h = {0};
  dl_iterate_phdr(main_program_hdr, &h);
  assert_non_null(h.hdr);
  assert_int_equal(fg_unwind_function_start(h.hdr, h.lo, h.hi, (uintptr_t)unwind_middle), (uintptr_t)unwind_middle);
  assert_int_equal(fg_unwind_function_start(h.hdr, h.lo, h.hi, (uintptr_t)unwind_middle + 9), (uintptr_t)unwind_middle);
  assert_int_equal(fg_unwind_function_start(h.hdr, h.lo, h.hi, (uintptr_t)unwind_outer + 3), (uintptr_t)unwind_outer);
  assert_int_equal(fg_unwind_function_start(h.hdr, h.lo, h.hi, (uintptr_t)leaf_without_rule + 1), 0);
  /* a segment that ends before the table: nothing read past it */
  assert_int_equal(fg_unwind_function_start(h.hdr, h.lo, h.hdr + 8, (uintptr_t)unwind_middle), 0);
}

/* From inside a signal handler, its own frame is stepped to the sigreturn
 * trampoline it returns to (glibc's __restore_rt), whose rule no row
 * holds; past it, the registers the kernel saved in the context are those
 * the handler was given, so a walk goes on into what the signal interrupted. */
static greg_t given[NGREG];
static struct fg_regs past;
static uintptr_t past_scratch[4];
static int steps_to_trampoline, through;

__attribute__((noinline)) static void on_signal_walked_through(int signo, siginfo_t *info, void *ucontext)
{
  (void)signo;
  (void)info;
  memcpy(given, ((ucontext_t *)ucontext)->uc_mcontext.gregs, sizeof given);
  struct fg_regs r;
  __asm__ volatile("lea 0(%%rip), %0\n\tmov %%rsp, %1\n\tmov %%rbp, %2" : "=r"(r.pc), "=r"(r.sp), "=r"(r.fp));
  steps_to_trampoline = 0;
  while (steps_to_trampoline < 4 && fg_unwind_step(&tables, bounds, steps_to_trampoline == 0, &r, NULL))
    steps_to_trampoline++;
  through = fg_unwind_signal_frame(&tables, bounds, &r, past_scratch);
  past = r;
}

static void signal_frames_are_walked_through(void **state)
{
  (void)state;
  assert_int_equal(fg_unwind_tables_init(&tables), 0);
  set_bounds();
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_signal_walked_through;
  sa.sa_flags = SA_SIGINFO;
  sigaction(SIGUSR2, &sa, NULL);
  raise(SIGUSR2);
  assert_int_equal(steps_to_trampoline, 1);   /* the handler's frame, then no rule */
  assert_true(through);
  assert_int_equal(past.pc, (uintptr_t)given[REG_RIP]);
  assert_int_equal(past.sp, (uintptr_t)given[REG_RSP]);
  assert_int_equal(past.fp, (uintptr_t)given[REG_RBP]);
  assert_int_equal(past_scratch[0], (uintptr_t)given[REG_RAX]);
  assert_int_equal(past_scratch[3], (uintptr_t)given[REG_R13]);
  struct fg_regs elsewhere = {(uintptr_t)&signal_frames_are_walked_through, past.sp, 0};
  assert_false(fg_unwind_signal_frame(&tables, bounds, &elsewhere, past_scratch));   /* not a trampoline */
  fg_unwind_tables_free(&tables);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(walks_through_libc_and_frameless_callers),
      cmocka_unit_test(a_leaf_without_a_rule_returns_through_sp),
      cmocka_unit_test(a_library_loaded_later_is_read_by_the_refresh),
      cmocka_unit_test(the_ret_after_leave_keeps_rbp),
      cmocka_unit_test(a_function_start_is_found_by_the_header_table),
      cmocka_unit_test(signal_frames_are_walked_through),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
