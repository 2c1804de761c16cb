/* The descriptor table grown ahead of the counters: to twice the highest
 * descriptor noted, at least FG_FD_ROOM_MIN, within RLIMIT_NOFILE's soft
 * limit, without a descriptor left open or one in use touched. */
#include "unit.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sampling/perf/fd_room.h"

/* The kernel's size of this process's descriptor table (FDSize). */
static long table_size(void)
{
  FILE *f = fopen("/proc/self/status", "r");
  char line[256];
  long size = -1;
  while (f && fgets(line, sizeof line, f))
    if (sscanf(line, "FDSize: %ld", &size) == 1)
      break;
  if (f)
    fclose(f);
  return size;
}

static int open_count(void)
{
  DIR *d = opendir("/proc/self/fd");
  int n = 0;
  struct dirent *e;
  while (d && (e = readdir(d)) != NULL)
    n += e->d_name[0] != '.';
  if (d)
    closedir(d);
  return n;
}

static void set_soft_limit(rlim_t n)
{
  struct rlimit files;
  assert_int_equal(getrlimit(RLIMIT_NOFILE, &files), 0);
  if (files.rlim_max != RLIM_INFINITY && files.rlim_max < n)
    skip();
  files.rlim_cur = n;
  assert_int_equal(setrlimit(RLIMIT_NOFILE, &files), 0);
}

static void grows_to_twice_the_highest_noted(void **state)
{
  (void)state;
  set_soft_limit(8192);
  struct fg_fd_room r = {0};
  int before = open_count();
  fg_fd_room_keep(&r);
  assert_true(table_size() >= FG_FD_ROOM_MIN);
  assert_int_equal(r.made, FG_FD_ROOM_MIN);
  fg_fd_room_note(&r, 1500);
  fg_fd_room_note(&r, 700);   /* lower: the highest stays */
  fg_fd_room_keep(&r);
  assert_int_equal(r.made, 3002);
  assert_true(table_size() >= 3002);
  assert_int_equal(open_count(), before);   /* the descriptor it asked for is closed */
}

/* A descriptor in use where the table's end is asked for is kept as it is. */
static void never_touches_a_descriptor_in_use(void **state)
{
  (void)state;
  set_soft_limit(8192);
  int fd = open("/dev/null", O_RDONLY);
  assert_true(fd >= 0);
  assert_int_equal(dup2(fd, 4095), 4095);
  close(fd);
  struct fg_fd_room r = {0};
  fg_fd_room_note(&r, 2047);   /* wants 4096: the lowest free at 4095 or past it is 4096 */
  fg_fd_room_keep(&r);
  assert_int_equal(r.made, 4096);
  assert_true(fcntl(4095, F_GETFD) >= 0);   /* still open */
  assert_true(fcntl(4096, F_GETFD) < 0);    /* the one asked for is closed again */
  close(4095);
}

/* Under a low limit it asks for no more than the limit, and fails nothing. */
static void stays_within_the_open_file_limit(void **state)
{
  (void)state;
  pid_t child = fork();
  assert_true(child >= 0);
  if (child == 0) {
    struct rlimit files = {256, 256};
    if (setrlimit(RLIMIT_NOFILE, &files) != 0)
      _exit(2);
    struct fg_fd_room r = {0};
    fg_fd_room_note(&r, 200);
    fg_fd_room_keep(&r);
    _exit(r.made == 256 && fcntl(255, F_GETFD) < 0 ? 0 : 1);
  }
  int status = 0;
  assert_int_equal(waitpid(child, &status, 0), child);
  assert_true(WIFEXITED(status));
  assert_int_equal(WEXITSTATUS(status), 0);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(grows_to_twice_the_highest_noted),
      cmocka_unit_test(never_touches_a_descriptor_in_use),
      cmocka_unit_test(stays_within_the_open_file_limit),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
