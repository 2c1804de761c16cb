/* File names: extension to format, %p/%t expansion, atomic writes. */
#include "unit.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fg/output.h"
#include "profile_fixture.h"

static void extensions_select_formats(void **state)
{
  (void)state;
  assert_int_equal(fg_format_for_path("a.collapsed"), FG_FORMAT_COLLAPSED);
  assert_int_equal(fg_format_for_path("dir.x/a.folded"), FG_FORMAT_COLLAPSED);
  assert_int_equal(fg_format_for_path("profile.txt"), FG_FORMAT_CALLGRAPH);
  assert_int_equal(fg_format_for_path(".txt"), FG_FORMAT_NONE);
  assert_int_equal(fg_format_for_path("a.txt.gz"), FG_FORMAT_NONE);
  assert_int_equal(fg_format_for_path("noext"), FG_FORMAT_NONE);
  assert_string_equal(fg_format_extension(FG_FORMAT_PPROF), ".pb.gz");
  assert_string_equal(fg_format_extension(FG_FORMAT_SPEEDSCOPE), ".speedscope.json");
  assert_string_equal(fg_format_extension(FG_FORMAT_CALLGRAPH), ".txt");
}

static void paths_expand_pid_and_time(void **state)
{
  (void)state;
  char out[64];
  setenv("TZ", "UTC", 1);
  tzset();
  assert_int_equal(fg_expand_path("p-%p-%t.txt", 4242, 86400 + 3661, 1, out, sizeof out), 0);
  assert_string_equal(out, "p-4242-19700102-010101.txt");
  assert_int_equal(fg_expand_path("100%%.txt", 1, 0, 1, out, sizeof out), 0);
  assert_string_equal(out, "100%.txt");
  assert_int_equal(fg_expand_path("p-%n.html", 1, 0, 12, out, sizeof out), 0);   /* loop='s interval number */
  assert_string_equal(out, "p-12.html");
  assert_int_equal(fg_expand_path("bad%x.txt", 1, 0, 1, out, sizeof out), -1);
  assert_int_equal(fg_expand_path("p-%e.html", 1, 0, 1, out, sizeof out), -1);   /* no event to name */
  assert_int_equal(fg_expand_event_path("p-%e-%p.html", 5, 0, 1, "alloc", out, sizeof out), 0);
  assert_string_equal(out, "p-alloc-5.html");
  assert_int_equal(fg_expand_path("trailing%", 1, 0, 1, out, sizeof out), -1);
  assert_int_equal(fg_expand_path("0123456789.txt", 1, 0, 1, out, 10), -1);
}

static void write_goes_through_a_temporary_and_reports_errors(void **state)
{
  (void)state;
  struct fg_profile p;
  build_fixture(&p);
  struct fg_output_settings cfg = {0};
  char dir[] = "/tmp/fgagent-unit-XXXXXX", path[256], err[256];
  assert_non_null(mkdtemp(dir));
  snprintf(path, sizeof path, "%s/out.collapsed", dir);
  assert_int_equal(fg_write_profile_file(path, &p, &cfg, err, sizeof err), 0);
  FILE *f = fopen(path, "r");
  assert_non_null(f);
  char line[128];
  assert_non_null(fgets(line, sizeof line, f));
  assert_string_equal(line, "Main.main;Main.cold 30\n");
  fclose(f);
  unlink(path);

  snprintf(path, sizeof path, "%s/missing/out.txt", dir);
  assert_int_equal(fg_write_profile_file(path, &p, &cfg, err, sizeof err), -1);
  assert_non_null(strstr(err, "missing/out.txt"));
  assert_non_null(strstr(err, "No such file or directory"));
  snprintf(path, sizeof path, "%s/out.svg", dir);
  assert_int_equal(fg_write_profile_file(path, &p, &cfg, err, sizeof err), -1);
  assert_non_null(strstr(err, "unknown extension"));
  rmdir(dir);
  fg_profile_free(&p);
}

static int write_marker(FILE *out, void *ctx)
{
  return fputs((const char *)ctx, out) < 0 ? -1 : 0;
}

static char *read_all(const char *path)
{
  static char buf[8192];
  FILE *f = fopen(path, "r");
  if (!f)
    return NULL;
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  buf[n] = '\0';
  fclose(f);
  return buf;
}

static void probe_refuses_what_would_fail_at_exit(void **state)
{
  (void)state;
  char dir[] = "/tmp/fgagent-unit-XXXXXX", path[600], err[1200];
  assert_non_null(mkdtemp(dir));
  /* a directory that looks like an output */
  snprintf(path, sizeof path, "%s/x.collapsed", dir);
  assert_int_equal(mkdir(path, 0755), 0);
  assert_int_equal(fg_output_probe(path, err, sizeof err), -1);
  assert_non_null(strstr(err, "it is a directory"));
  rmdir(path);
  /* a name that fits 255 bytes but not once ".tmp.PID" is added */
  char name[251];
  memset(name, 'n', sizeof name - 1);
  name[sizeof name - 1] = '\0';
  memcpy(name + sizeof name - 5, ".txt", 4);
  snprintf(path, sizeof path, "%s/%s", dir, name);
  assert_int_equal(fg_output_probe(path, err, sizeof err), -1);
  assert_non_null(strstr(err, "the file name is 250 bytes; accepted: at most 243"));
  name[200] = '\0';
  memcpy(name + 196, ".txt", 4);
  snprintf(path, sizeof path, "%s/%s", dir, name);
  assert_int_equal(fg_output_probe(path, err, sizeof err), 0);
  assert_int_equal(access(path, F_OK), -1);   /* the probe leaves nothing behind */
  /* a missing directory, /proc and /sys */
  snprintf(path, sizeof path, "%s/missing/a.txt", dir);
  assert_int_equal(fg_output_probe(path, err, sizeof err), -1);
  assert_non_null(strstr(err, "No such file or directory"));
  assert_int_equal(fg_output_probe("/proc/a.txt", err, sizeof err), -1);
  assert_int_equal(fg_output_probe("/sys/a.txt", err, sizeof err), -1);
  /* a block device or a socket */
  if (access("/dev/loop0", F_OK) == 0) {
    assert_int_equal(fg_output_probe("/dev/loop0", err, sizeof err), -1);
    assert_non_null(strstr(err, "block device"));
  }
  /* a good path passes */
  snprintf(path, sizeof path, "%s/good.html", dir);
  assert_int_equal(fg_output_probe(path, err, sizeof err), 0);
  rmdir(dir);
}

static void links_are_followed_and_kept(void **state)
{
  (void)state;
  char dir[] = "/tmp/fgagent-unit-XXXXXX", link[300], target[300], err[1200];
  assert_non_null(mkdtemp(dir));
  snprintf(link, sizeof link, "%s/latest.txt", dir);
  snprintf(target, sizeof target, "%s/run-1.txt", dir);
  assert_int_equal(symlink("run-1.txt", link), 0);   /* dangling, relative */
  assert_int_equal(fg_output_probe(link, err, sizeof err), 0);
  assert_int_equal(fg_write_file_atomically(link, write_marker, "one\n", err, sizeof err), 0);
  struct stat st;
  assert_int_equal(lstat(link, &st), 0);
  assert_true(S_ISLNK(st.st_mode));
  assert_string_equal(read_all(target), "one\n");
  assert_int_equal(fg_write_file_atomically(link, write_marker, "two\n", err, sizeof err), 0);
  assert_string_equal(read_all(target), "two\n");
  unlink(link);
  unlink(target);
  rmdir(dir);
}

static void fifos_devices_and_proc_are_written_in_place(void **state)
{
  (void)state;
  char dir[] = "/tmp/fgagent-unit-XXXXXX", fifo[300], file[300], via_proc[64], err[1200];
  assert_non_null(mkdtemp(dir));
  /* /dev/null is appended to, never replaced by a regular file */
  assert_int_equal(fg_write_file_atomically("/dev/null", write_marker, "x\n", err, sizeof err), 0);
  struct stat st;
  assert_int_equal(stat("/dev/null", &st), 0);
  assert_true(S_ISCHR(st.st_mode));
  /* a FIFO: accepted at load; nobody reading at exit fails at once, not blocks */
  snprintf(fifo, sizeof fifo, "%s/pipe.collapsed", dir);
  assert_int_equal(mkfifo(fifo, 0644), 0);
  assert_int_equal(fg_output_probe(fifo, err, sizeof err), 0);
  assert_int_equal(fg_write_file_atomically(fifo, write_marker, "x\n", err, sizeof err), -1);
  assert_non_null(strstr(err, "No such device or address"));
  /* with a reader, the FIFO gets the bytes */
  int rd = open(fifo, O_RDONLY | O_NONBLOCK);
  assert_true(rd >= 0);
  assert_int_equal(fg_write_file_atomically(fifo, write_marker, "through\n", err, sizeof err), 0);
  char got[16] = "";
  assert_int_equal(read(rd, got, sizeof got - 1), 8);
  assert_string_equal(got, "through\n");
  close(rd);
  unlink(fifo);
  /* a link through /proc/self/fd keeps the file's inode (a shell's redirection still sees it) */
  snprintf(file, sizeof file, "%s/redirected.txt", dir);
  int fd = open(file, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  assert_true(fd >= 0);
  assert_int_equal(write(fd, "before\n", 7), 7);
  struct stat before, after;
  assert_int_equal(fstat(fd, &before), 0);
  snprintf(via_proc, sizeof via_proc, "/proc/self/fd/%d", fd);
  assert_int_equal(fg_output_probe(via_proc, err, sizeof err), 0);
  assert_int_equal(fg_write_file_atomically(via_proc, write_marker, "after\n", err, sizeof err), 0);
  assert_int_equal(stat(file, &after), 0);
  assert_int_equal(before.st_ino, after.st_ino);
  assert_string_equal(read_all(file), "before\nafter\n");
  close(fd);
  unlink(file);
  rmdir(dir);
}

/* Another user's link, and another user's file at the temporary's name,
 * are never written through: both are refused with the reason, and the
 * file the link aims at is untouched. A temporary this process left behind
 * (same pid, its own) is replaced. A file replaced keeps its mode. Run as
 * root (it makes files of another user); skipped otherwise. */
static void another_users_link_or_temporary_is_refused(void **state)
{
  (void)state;
  if (geteuid() != 0)
    skip();
  char dir[] = "/tmp/fgagent-unit-XXXXXX", link[300], victim[300], path[300], tmp[400], err[1200];
  assert_non_null(mkdtemp(dir));
  chmod(dir, 01777);   /* shared, sticky, as /tmp */
  snprintf(victim, sizeof victim, "%s/victim", dir);
  FILE *v = fopen(victim, "w");
  assert_non_null(v);
  fputs("keep\n", v);
  fclose(v);
  snprintf(link, sizeof link, "%s/planted.txt", dir);
  assert_int_equal(symlink(victim, link), 0);
  assert_int_equal(lchown(link, 65534, 65534), 0);
  assert_int_equal(fg_output_probe(link, err, sizeof err), -1);
  assert_non_null(strstr(err, "symbolic link of uid 65534"));
  assert_int_equal(fg_write_file_atomically(link, write_marker, "evil\n", err, sizeof err), -1);
  assert_string_equal(read_all(victim), "keep\n");

  snprintf(path, sizeof path, "%s/out.txt", dir);
  assert_int_equal(fg_output_temp_name(path, getpid(), tmp, sizeof tmp), 0);
  assert_int_equal(symlink(victim, tmp), 0);   /* planted at the temporary's name */
  assert_int_equal(lchown(tmp, 65534, 65534), 0);
  assert_int_equal(fg_write_file_atomically(path, write_marker, "evil\n", err, sizeof err), -1);
  assert_non_null(strstr(err, "not this process's to remove"));
  assert_string_equal(read_all(victim), "keep\n");
  unlink(tmp);
  FILE *stale = fopen(tmp, "w");   /* this process's own, left by a write that died */
  assert_non_null(stale);
  fclose(stale);
  assert_int_equal(fg_write_file_atomically(path, write_marker, "one\n", err, sizeof err), 0);
  assert_string_equal(read_all(path), "one\n");
  chmod(path, 0600);
  assert_int_equal(fg_write_file_atomically(path, write_marker, "two\n", err, sizeof err), 0);
  struct stat st;
  assert_int_equal(stat(path, &st), 0);
  assert_int_equal(st.st_mode & 0777, 0600);
  assert_int_equal(access(tmp, F_OK), -1);
  unlink(path);
  unlink(link);
  unlink(victim);
  rmdir(dir);
}

/* A line's frames at several bytecode indexes (lines) are one frame in every
 * format but JFR: one collapsed line with their sum, one speedscope frame. */
static void a_lines_bytecode_indexes_are_one_frame_in_a_file(void **state)
{
  (void)state;
  struct fg_profile p;
  fg_profile_init(&p);
  assert_int_equal(fg_profile_add_thread(&p, 7, "main"), 0);
  uint32_t run = (uint32_t)fg_profile_intern(&p, "Main.run:3", FG_KIND_JAVA);
  uint32_t a[] = {run, (uint32_t)fg_profile_intern_at(&p, "Main.hot:12", FG_KIND_JAVA, 5)};
  uint32_t b[] = {run, (uint32_t)fg_profile_intern_at(&p, "Main.hot:12", FG_KIND_JAVA, 9)};
  assert_int_equal(fg_profile_add(&p, 0, a, 2, 2), 0);
  assert_int_equal(fg_profile_add(&p, 0, b, 2, 5), 0);
  struct fg_output_settings cfg = {0};
  char dir[] = "/tmp/fgagent-unit-XXXXXX", path[256], err[256];
  assert_non_null(mkdtemp(dir));
  snprintf(path, sizeof path, "%s/out.collapsed", dir);
  assert_int_equal(fg_write_profile_file(path, &p, &cfg, err, sizeof err), 0);
  assert_string_equal(read_all(path), "Main.run:3;Main.hot:12 7\n");
  unlink(path);
  snprintf(path, sizeof path, "%s/out.speedscope.json", dir);
  assert_int_equal(fg_write_profile_file(path, &p, &cfg, err, sizeof err), 0);
  const char *json = read_all(path);
  const char *first = strstr(json, "Main.hot:12");
  assert_non_null(first);
  assert_null(strstr(first + 1, "Main.hot:12"));
  unlink(path);
  rmdir(dir);
  assert_int_equal(p.nstacks, 2);   /* the profile itself is left as it was */
  fg_profile_free(&p);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(extensions_select_formats),
    cmocka_unit_test(paths_expand_pid_and_time),
    cmocka_unit_test(write_goes_through_a_temporary_and_reports_errors),
    cmocka_unit_test(probe_refuses_what_would_fail_at_exit),
    cmocka_unit_test(links_are_followed_and_kept),
    cmocka_unit_test(fifos_devices_and_proc_are_written_in_place),
    cmocka_unit_test(another_users_link_or_temporary_is_refused),
    cmocka_unit_test(a_lines_bytecode_indexes_are_one_frame_in_a_file),
  };
  return cmocka_run_group_tests_name("output_files", tests, NULL, NULL);
}
