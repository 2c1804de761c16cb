/* Kernel frames: /proc/kallsyms read into a sorted table, and the perf ring
 * reader on a real perf_events counter recording this thread's kernel
 * callchains (skipped where perf_events or kernel samples are refused). */
#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/perf_event.h>

#include "unit.h"
#include "../../agent/native/kernel_symbols.h"
#include "../../agent/sampling/perf_threads.h"
#include "../../agent/sampling/timer.h"

static char *fixture(const char *text)
{
  static char path[64];
  snprintf(path, sizeof path, "/tmp/fg-kallsyms-%d", (int)getpid());
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  fputs(text, f);
  fclose(f);
  return path;
}

static void kallsyms_names_the_function_below_a_pc(void **state)
{
  (void)state;
  const char *path = fixture("ffffffff81200000 T iterate_dir\n"
                             "ffffffff81000000 T _stext\n"
                             "ffffffff81300000 d some_data\n"       /* not text: left out */
                             "ffffffff81400000 t ext4_readdir\t[ext4]\n"
                             "ffffffff81100000 W weak_one\n"
                             "ffffffff811ffff0 T __pfx_iterate_dir\n");   /* padding: left out */
  struct fg_kernel_symbols k;
  assert_int_equal(fg_ksyms_load(&k, path), 0);
  assert_int_equal(k.n, 4);
  assert_false(k.hidden);
  char name[64];
  fg_ksyms_name(&k, 0xffffffff81200010ull, name, sizeof name);
  assert_string_equal(name, "iterate_dir");
  fg_ksyms_name(&k, 0xffffffff81350000ull, name, sizeof name);   /* past the data symbol */
  assert_string_equal(name, "iterate_dir");
  fg_ksyms_name(&k, 0xffffffff81400000ull, name, sizeof name);
  assert_string_equal(name, "ext4_readdir");
  fg_ksyms_name(&k, 0xffffffff81100001ull, name, sizeof name);
  assert_string_equal(name, "weak_one");
  fg_ksyms_name(&k, 0xffffffff811ffff8ull, name, sizeof name);
  assert_string_equal(name, "weak_one");
  fg_ksyms_name(&k, 0xffffffff80000000ull, name, sizeof name);
  assert_string_equal(name, "[kernel]");
  fg_ksyms_free(&k);
  unlink(path);
}

static void hidden_addresses_are_reported(void **state)
{
  (void)state;
  const char *path = fixture("0000000000000000 T _stext\n0000000000000000 T iterate_dir\n");
  struct fg_kernel_symbols k;
  assert_int_equal(fg_ksyms_load(&k, path), 0);
  assert_true(k.hidden);
  char name[64];
  fg_ksyms_name(&k, 0xffffffff81200010ull, name, sizeof name);
  assert_string_equal(name, "[kernel]");
  fg_ksyms_free(&k);
  unlink(path);
  assert_int_equal(fg_ksyms_load(&k, "/nonexistent/kallsyms"), -1);
}

static struct fg_perf_threads *table;
static volatile int with_frames, handled, tid;
static volatile uint64_t first_pc;

static void on_sigprof(int sig, siginfo_t *info, void *uc)
{
  (void)sig;
  (void)info;
  (void)uc;
  uint64_t pcs[FG_MAX_KERNEL_FRAMES];
  int n = fg_perf_threads_kernel_frames(table, tid, pcs, FG_MAX_KERNEL_FRAMES);
  handled++;
  if (n > 0) {
    with_frames++;
    first_pc = pcs[n - 1];
  }
}

/* A thread in getdents64 most of the time: most signals bring kernel frames,
 * every one a kernel address; after detach, none. */
static void the_ring_holds_each_signals_kernel_frames(void **state)
{
  (void)state;
  table = fg_perf_threads_new(1);
  assert_non_null(table);
  tid = (int)syscall(SYS_gettid);
  int fd = fg_perf_open(tid, 200000, 0, 1);
  if (fd < 0) {
    printf("    skipped: perf_event_open with kernel samples refused here\n");
    free(table);
    return;
  }
  struct sigaction sa, old;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_sigprof;
  sa.sa_flags = SA_SIGINFO | SA_RESTART;
  sigaction(SIGPROF, &sa, &old);
  assert_int_equal(fg_perf_threads_attach(table, tid, fd), 0);
  while (handled < 300) {
    DIR *d = opendir("/usr/lib");
    while (d && readdir(d))
      ;
    if (d)
      closedir(d);
  }
  ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
  printf("    %d of %d signals with kernel frames\n", with_frames, handled);
  assert_true(with_frames * 4 >= handled);   /* this loop lives in the kernel */
  assert_true(first_pc >= 0xffff800000000000ull);
  fg_perf_threads_detach(table, tid);
  uint64_t pcs[4];
  assert_int_equal(fg_perf_threads_kernel_frames(table, tid, pcs, 4), 0);
  close(fd);
  sigaction(SIGPROF, &old, NULL);
  free(table);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(kallsyms_names_the_function_below_a_pc),
    cmocka_unit_test(hidden_addresses_are_reported),
    cmocka_unit_test(the_ring_holds_each_signals_kernel_frames),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
