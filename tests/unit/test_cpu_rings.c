/* walker=copy's rings, one a CPU: a refusal part-way through the CPUs
 * (the locked-memory budget a user's JVMs share) closes what it opened and
 * nothing else. */
#include "unit.h"

#include <dirent.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sampling/perf/cpu_rings.h"

/* The process's open descriptors, as a bit set of the first 1024. */
static void open_fds(unsigned char set[128])
{
  memset(set, 0, 128);
  DIR *d = opendir("/proc/self/fd");
  struct dirent *e;
  while (d && (e = readdir(d)) != NULL) {
    int fd = atoi(e->d_name);
    if (e->d_name[0] != '.' && fd != dirfd(d) && fd < 1024)
      set[fd / 8] |= (unsigned char)(1u << (fd % 8));
  }
  if (d)
    closedir(d);
}

/* One ring's worth of this user's locked memory taken by a counter of its own. */
static int take_one_ring(size_t ring_bytes)
{
  struct perf_event_attr attr;
  memset(&attr, 0, sizeof attr);
  attr.size = sizeof attr;
  attr.type = PERF_TYPE_SOFTWARE;
  attr.config = PERF_COUNT_SW_DUMMY;
  attr.disabled = 1;
  attr.exclude_kernel = 1;
  attr.exclude_hv = 1;
  int fd = (int)syscall(SYS_perf_event_open, &attr, getpid(), 0, -1, PERF_FLAG_FD_CLOEXEC);
  if (fd < 0)
    return -1;
  return mmap(NULL, (size_t)sysconf(_SC_PAGESIZE) + ring_bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0) ==
                 MAP_FAILED
             ? -1
             : 0;
}

/* In a child of user nobody (no CAP_IPC_LOCK, RLIMIT_MEMLOCK 0), with
 * taken rings' worth of the user's budget (perf_event_mlock_kb a CPU)
 * already taken: opening a ring on every CPU is refused, naming the
 * locked-memory limit; every descriptor open before is still open after,
 * and none is left open. malloc fills new memory with zeros (M_PERTURB),
 * so a descriptor never set reads as 0: stdin, which must stay open.
 * Exit status: 0 passed, 1 failed, 77 skipped. */
static int refused_with(int taken)
{
  if (setgid(65534) != 0 || setuid(65534) != 0)
    return 77;
  struct rlimit none = {0, 0};
  setrlimit(RLIMIT_MEMLOCK, &none);
  mallopt(M_PERTURB, 0xff);
  size_t ring = 512 * 1024;
  for (int i = 0; i < taken; i++)
    if (take_one_ring(ring) != 0)
      return 77;   /* perf_events refused to this user */
  unsigned char before[128], after[128];
  open_fds(before);
  struct fg_cpu_rings r;
  char err[256] = "";
  int rc = fg_cpu_rings_open(&r, ring, err, sizeof err);
  open_fds(after);
  if (rc == 0) {
    fprintf(stderr, "every ring was granted: the budget was not what this test takes it to be\n");
    fg_cpu_rings_close(&r);
    return 77;
  }
  if (!strstr(err, "locked-memory limit")) {
    fprintf(stderr, "the refusal does not name the limit: %s\n", err);
    return 1;
  }
  if (memcmp(before, after, sizeof before) != 0) {
    fprintf(stderr, "the descriptors changed across a refused open (%s)\n", err);
    return 1;
  }
  return 0;
}

/* Runs refused_with(taken) in a child; skips where it cannot be set up. */
static void in_child(int taken)
{
  if (geteuid() != 0)
    skip();
  pid_t child = fork();
  assert_true(child >= 0);
  if (child == 0)
    _exit(refused_with(taken));
  int status = 0;
  assert_int_equal(waitpid(child, &status, 0), child);
  assert_true(WIFEXITED(status));
  if (WEXITSTATUS(status) == 77)
    skip();
  assert_int_equal(WEXITSTATUS(status), 0);
}

/* The budget all taken: refused at the first CPU, the others never set. */
static void refused_at_the_first_cpu(void **state)
{
  (void)state;
  in_child((int)sysconf(_SC_NPROCESSORS_ONLN));
}

/* One ring short: refused at the last CPU, the rings granted before it closed. */
static void refused_at_the_last_cpu(void **state)
{
  (void)state;
  in_child((int)sysconf(_SC_NPROCESSORS_ONLN) - 1);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(refused_at_the_first_cpu),
    cmocka_unit_test(refused_at_the_last_cpu),
  };
  return cmocka_run_group_tests_name("cpu_rings", tests, NULL, NULL);
}
