/* fgprof's paths into a JVM's root (cli/attach_target.c, attach_files.c):
 * the JVM's /tmp resolved inside its root whatever links the root holds
 * (absolute, or climbing with ..), fgprof's files made there and never
 * through a link planted at their names, and no openat2 (ENOSYS) refused
 * for another root but not for our own; the JVM's options read from its
 * environment. A JVM's root is played by a
 * directory of ours: RESOLVE_IN_ROOT treats it as "/". */
#include "unit.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

/* the code under test, which lives in fgprof, not in libfgcore */
#include "../../cli/attach_client.c"
#include "../../cli/attach_files.c"
#include "../../cli/attach_target.c"

struct fixture {
  char root[64];       /* the JVM's root, as we see it */
  char x[64];          /* "/var/tmp/fg-unit-XXXXXX": its /tmp's target, a directory on our side too */
  char inner[160];     /* root + x */
  struct fg_attach_target t;
};

/* A root whose /tmp is the link tmp_link ("%s" for x), x made inside it
 * and on our side, both empty. */
static void make_root(struct fixture *f, const char *tmp_link)
{
  snprintf(f->root, sizeof f->root, "/tmp/fg-unit-root-XXXXXX");
  assert_non_null(mkdtemp(f->root));
  snprintf(f->x, sizeof f->x, "/var/tmp/fg-unit-XXXXXX");
  assert_non_null(mkdtemp(f->x));
  char path[256], link[128];
  snprintf(path, sizeof path, "%s/var", f->root);
  assert_int_equal(mkdir(path, 0755), 0);
  snprintf(path, sizeof path, "%s/var/tmp", f->root);
  assert_int_equal(mkdir(path, 0755), 0);
  snprintf(f->inner, sizeof f->inner, "%s%s", f->root, f->x);
  assert_int_equal(mkdir(f->inner, 01777), 0);
  snprintf(path, sizeof path, "%s/tmp", f->root);
  snprintf(link, sizeof link, tmp_link, f->x);
  assert_int_equal(symlink(link, path), 0);
  memset(&f->t, 0, sizeof f->t);
  f->t.pid = f->t.ns_pid = (int)getpid();
  f->t.uid = geteuid();
  f->t.gid = getegid();
  f->t.other_mounts = 1;
  f->t.cwd_fd = -1;
  f->t.root_fd = open(f->root, O_PATH | O_DIRECTORY | O_CLOEXEC);
  assert_true(f->t.root_fd >= 0);
  f->t.tmp_fd = fg_attach_target_open(&f->t, "/tmp", O_PATH | O_DIRECTORY);
}

static int entries(const char *dir)
{
  char cmd[300];
  snprintf(cmd, sizeof cmd, "ls -A %s | wc -l", dir);
  FILE *p = popen(cmd, "r");
  int n = -1;
  assert_true(p && fscanf(p, "%d", &n) == 1);
  pclose(p);
  return n;
}

static void remove_root(struct fixture *f)
{
  fg_attach_target_close(&f->t);
  char cmd[300];
  snprintf(cmd, sizeof cmd, "rm -rf %s %s", f->root, f->x);
  assert_int_equal(system(cmd), 0);
}

static void same_dir(int fd, const char *path)
{
  struct stat a, b;
  assert_int_equal(fstat(fd, &a), 0);
  assert_int_equal(stat(path, &b), 0);
  assert_true(a.st_dev == b.st_dev && a.st_ino == b.st_ino);
}

/* /tmp -> /var/tmp/X is the root's /var/tmp/X: the reply file, the private
 * directory and the profile copied out are made and read there, and our
 * own /var/tmp/X stays empty. */
static void absolute_tmp_link_stays_inside(void **state)
{
  (void)state;
  struct fixture f;
  make_root(&f, "%s");
  assert_true(f.t.tmp_fd >= 0);
  same_dir(f.t.tmp_fd, f.inner);
  char name[64], there[80], err[512];
  assert_int_equal(fg_attach_reply_file(&f.t, name, sizeof name, there, sizeof there, err, sizeof err), 0);
  assert_int_equal(strncmp(there, "/tmp/fgprof-reply-", 18), 0);
  assert_string_equal(there + 5, name);
  char dir_there[64], path[300];
  int dir = fg_attach_private_dir(&f.t, dir_there, sizeof dir_there, err, sizeof err);
  assert_true(dir >= 0);
  snprintf(path, sizeof path, "%s/.fgagent-%u", f.inner, (unsigned)geteuid());
  same_dir(dir, path);
  struct stat st;
  assert_int_equal(stat(path, &st), 0);
  assert_int_equal(st.st_mode & 0777, 0700);
  int fd = openat(dir, "profile-1.collapsed", O_CREAT | O_EXCL | O_WRONLY, 0600);
  assert_true(fd >= 0 && write(fd, "a;b 3\n", 6) == 6);
  close(fd);
  char out[300];
  snprintf(out, sizeof out, "%s/copied.collapsed", f.root);
  assert_int_equal(fg_attach_copy_out(&f.t, dir, "profile-1.collapsed", out, err, sizeof err), 0);
  assert_int_equal(stat(out, &st), 0);
  assert_int_equal(st.st_size, 6);
  close(dir);
  assert_int_equal(entries(f.x), 0);
  assert_int_equal(entries(f.inner), 2);   /* the reply file and .fgagent-UID */
  remove_root(&f);
}

/* A link climbing out with .. stops at the root. */
static void climbing_link_stops_at_the_root(void **state)
{
  (void)state;
  struct fixture f;
  make_root(&f, "../../../../../..%s/../../../..");
  assert_true(f.t.tmp_fd >= 0);
  same_dir(f.t.tmp_fd, f.root);
  remove_root(&f);
}

/* Links planted at the names fgprof makes are not followed: the private
 * directory, the profile to copy out; nor is a FIFO, a hard link or
 * another user's file copied out. */
static void planted_links_refused(void **state)
{
  (void)state;
  struct fixture f;
  make_root(&f, "%s");
  char victim[64] = "/tmp/fg-unit-victim-XXXXXX", path[300], err[512], there[64];
  assert_non_null(mkdtemp(victim));
  snprintf(path, sizeof path, "%s/.fgagent-%u", f.inner, (unsigned)geteuid());
  assert_int_equal(symlink(victim, path), 0);
  assert_int_equal(fg_attach_private_dir(&f.t, there, sizeof there, err, sizeof err), -1);
  if (!strstr(err, "a symbolic link")) fail_msg("%s", err);
  assert_int_equal(entries(victim), 0);
  unlink(path);
  int dir = fg_attach_private_dir(&f.t, there, sizeof there, err, sizeof err);
  assert_true(dir >= 0);
  char secret[300], out[300];
  snprintf(secret, sizeof secret, "%s/secret", victim);
  FILE *s = fopen(secret, "w");
  assert_non_null(s);
  fputs("secret\n", s);
  fclose(s);
  assert_int_equal(symlinkat(secret, dir, "profile-2.html"), 0);
  snprintf(out, sizeof out, "%s/out.html", f.root);
  assert_int_equal(fg_attach_copy_out(&f.t, dir, "profile-2.html", out, err, sizeof err), -1);
  assert_int_equal(access(out, F_OK), -1);
  assert_int_equal(mkfifoat(dir, "profile-3.html", 0600), 0);
  assert_int_equal(fg_attach_copy_out(&f.t, dir, "profile-3.html", out, err, sizeof err), -1);   /* at once */
  assert_non_null(strstr(err, "not a regular file of the JVM's user"));
  assert_int_equal(linkat(AT_FDCWD, secret, dir, "profile-4.html", 0), 0);   /* a hard link to another's file */
  assert_int_equal(fg_attach_copy_out(&f.t, dir, "profile-4.html", out, err, sizeof err), -1);
  if (geteuid() == 0) {   /* a file of another user */
    int fd = openat(dir, "profile-5.html", O_CREAT | O_EXCL | O_WRONLY, 0644);
    assert_true(fd >= 0 && fchown(fd, 65534, 65534) == 0);
    close(fd);
    assert_int_equal(fg_attach_copy_out(&f.t, dir, "profile-5.html", out, err, sizeof err), -1);
  }
  assert_int_equal(access(out, F_OK), -1);
  close(dir);
  snprintf(path, sizeof path, "rm -rf %s", victim);
  assert_int_equal(system(path), 0);
  remove_root(&f);
}

/* A private directory of another user, or open to others, is not used. */
static void foreign_private_dir_refused(void **state)
{
  (void)state;
  struct fixture f;
  make_root(&f, "%s");
  char path[300], err[512], there[64];
  snprintf(path, sizeof path, "%s/.fgagent-%u", f.inner, (unsigned)geteuid());
  assert_int_equal(mkdir(path, 0777), 0);
  assert_int_equal(chmod(path, 0777), 0);
  assert_int_equal(fg_attach_private_dir(&f.t, there, sizeof there, err, sizeof err), -1);
  assert_non_null(strstr(err, "mode 777"));
  remove_root(&f);
}

/* With openat2 failing ENOSYS (a seccomp filter in a child): a root not
 * ours is refused, our own root falls back to the plain path. */
static void no_openat2(void **state)
{
  (void)state;
  pid_t child = fork();
  assert_true(child >= 0);
  if (child == 0) {
    struct sock_filter code[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_openat2, 0, 1),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    };
    struct sock_fprog prog = {sizeof code / sizeof code[0], code};
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 || prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) != 0)
      _exit(10);
    struct fg_attach_target t = {.root_fd = open("/", O_PATH | O_DIRECTORY), .other_mounts = 1};
    errno = 0;
    if (fg_attach_target_open(&t, "/tmp", O_PATH | O_DIRECTORY) != -1 || errno != ENOSYS)
      _exit(11);
    t.other_mounts = 0;
    if (fg_attach_target_open(&t, "/tmp", O_PATH | O_DIRECTORY) < 0)
      _exit(12);
    _exit(0);
  }
  int status;
  assert_int_equal(waitpid(child, &status, 0), child);
  assert_true(WIFEXITED(status));
  assert_int_equal(WEXITSTATUS(status), 0);
}

/* A listening socket at path; its descriptor. */
static int listen_at(const char *path)
{
  int s = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0);
  struct sockaddr_un addr = {.sun_family = AF_UNIX};
  snprintf(addr.sun_path, sizeof addr.sun_path, "%s", path);
  assert_true(s >= 0 && bind(s, (struct sockaddr *)&addr, sizeof addr) == 0 && listen(s, 4) == 0);
  return s;
}

/* Whether a connection waits at the listening socket s. */
static int connected(int s)
{
  int c = accept(s, NULL, NULL);
  if (c >= 0)
    close(c);
  return c >= 0;
}

/* The socket's name swapped for a link after it was judged: connect()
 * follows links, so the connection is made from inside the JVM's root as
 * the JVM's user. A link to a socket of ours (outside the root) reaches
 * nothing there; one to a socket inside the root that the JVM's user may
 * not open is refused; the JVM's own socket is reached. */
static void socket_link_resolved_as_the_jvm(void **state)
{
  (void)state;
  if (geteuid() != 0) {
    puts("skipped: needs root, to enter the root and be another user");
    return;
  }
  struct fixture f;
  make_root(&f, "%s");
  char host[128], path[300];
  snprintf(host, sizeof host, "%s.sock", f.x);   /* ours: beside our /var/tmp/X */
  int outside = listen_at(host);
  snprintf(path, sizeof path, "%s/.java_pid1", f.inner);
  assert_int_equal(symlink(host, path), 0);
  assert_int_equal(connect_as_jvm(&f.t, ".java_pid1", 1000), -1);
  assert_int_equal(errno, ENOENT);   /* the link's target looked for inside the root */
  assert_false(connected(outside));
  unlink(path);
  snprintf(path, sizeof path, "%s/root.sock", f.inner);
  int inside_root = listen_at(path);   /* root's, mode 755 less umask: the JVM's user may not write it */
  assert_int_equal(chmod(path, 0600), 0);
  snprintf(path, sizeof path, "%s/.java_pid2", f.inner);
  char target[160];
  snprintf(target, sizeof target, "%s/root.sock", f.x);   /* absolute, as the JVM names it */
  assert_int_equal(symlink(target, path), 0);
  f.t.uid = f.t.gid = 65534;
  assert_int_equal(connect_as_jvm(&f.t, ".java_pid2", 1000), -1);
  assert_int_equal(errno, EACCES);
  assert_false(connected(inside_root));
  snprintf(path, sizeof path, "%s/.java_pid3", f.inner);
  int jvm = listen_at(path);
  assert_int_equal(chown(path, 65534, 65534), 0);
  int s = connect_as_jvm(&f.t, ".java_pid3", 1000);
  assert_true(s >= 0);
  assert_true(connected(jvm));
  close(s);
  close(jvm);
  close(inside_root);
  close(outside);
  unlink(host);
  remove_root(&f);
}

/* DisableAttachMechanism as JAVA_TOOL_OPTIONS and its kin carry it: words
 * split by white space, the last one winning, nothing else taken for it. */
static void disable_attach_in_options(void **state)
{
  (void)state;
  assert_int_equal(option_in("-Xmx1g -XX:+DisableAttachMechanism", 0), 1);
  assert_int_equal(option_in("-XX:+DisableAttachMechanism", 0), 1);
  assert_int_equal(option_in("-XX:+DisableAttachMechanism\t-XX:-DisableAttachMechanism", 0), 0);
  assert_int_equal(option_in("-XX:-DisableAttachMechanism", 1), 0);
  assert_int_equal(option_in("-XX:+DisableAttachMechanismX -Dx=-XX:+DisableAttachMechanism", 0), 0);
  assert_int_equal(option_in("", 1), 1);
  assert_int_equal(option_in("DisableAttachMechanism", 0), 0);
}

/* This process, read as a target: our own root, /tmp and working directory open. */
static void ourselves(void **state)
{
  (void)state;
  struct fg_attach_target t;
  char err[512];
  assert_int_equal(fg_attach_target_read((int)getpid(), &t, err, sizeof err), 0);
  assert_int_equal(t.other_mounts, 0);
  assert_string_equal(t.where, "");
  assert_true(t.root_fd >= 0 && t.tmp_fd >= 0 && t.cwd_fd >= 0);
  same_dir(t.tmp_fd, "/tmp");
  fg_attach_target_close(&t);
  assert_true(t.root_fd == -1 && t.tmp_fd == -1 && t.cwd_fd == -1);
}

/* fg_attach_target_cwd tells HotSpot's perf data directory (hsperfdata_* in
 * the JVM's /tmp, where a JVM starting works a moment) from any other: here
 * this process works in one, in one of that name not in /tmp, and in /tmp. */
static void perf_data_directory_told(void **state)
{
  (void)state;
  char perf[64], deeper[128];
  snprintf(perf, sizeof perf, "/tmp/hsperfdata_fgunit-%d", (int)getpid());
  snprintf(deeper, sizeof deeper, "%s/hsperfdata_inner", perf);
  assert_int_equal(mkdir(perf, 0700), 0);
  assert_int_equal(mkdir(deeper, 0700), 0);
  int back = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  assert_true(back >= 0);
  struct fg_attach_target t;
  char err[512];
  assert_int_equal(fg_attach_target_read((int)getpid(), &t, err, sizeof err), 0);
  assert_int_equal(chdir(perf), 0);
  char name[256];
  assert_int_equal(fg_attach_target_cwd(&t, name, sizeof name), 1);
  assert_string_equal(name, perf);
  assert_int_equal(fg_attach_target_cwd(&t, NULL, 0), 1);
  same_dir(t.cwd_fd, perf);
  assert_int_equal(chdir(deeper), 0);
  assert_int_equal(fg_attach_target_cwd(&t, NULL, 0), 0);
  assert_int_equal(chdir("/tmp"), 0);
  assert_int_equal(fg_attach_target_cwd(&t, NULL, 0), 0);
  same_dir(t.cwd_fd, "/tmp");
  assert_int_equal(fchdir(back), 0);
  close(back);
  fg_attach_target_close(&t);
  assert_int_equal(rmdir(deeper), 0);
  assert_int_equal(rmdir(perf), 0);
}

/* /proc/uptime read as integers: 16384.01 s is 16384010 ms (a double made it
 * 16384009, and a process started in that tick -1 ms old: "not a JVM"). */
static void uptime_read_exactly(void **state)
{
  (void)state;
  assert_int_equal(uptime_ms("16384.01 12581.16\n"), 16384010);
  assert_int_equal(uptime_ms("17481.61 12581.16\n"), 17481610);
  assert_int_equal(uptime_ms("0.00 0.00\n"), 0);
  assert_int_equal(uptime_ms(""), -1);
  assert_int_equal(uptime_ms("up"), -1);
  assert_true(age_ms((int)getpid()) >= 0);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(absolute_tmp_link_stays_inside),
      cmocka_unit_test(climbing_link_stops_at_the_root),
      cmocka_unit_test(planted_links_refused),
      cmocka_unit_test(foreign_private_dir_refused),
      cmocka_unit_test(no_openat2),
      cmocka_unit_test(socket_link_resolved_as_the_jvm),
      cmocka_unit_test(disable_attach_in_options),
      cmocka_unit_test(ourselves),
      cmocka_unit_test(perf_data_directory_told),
      cmocka_unit_test(uptime_read_exactly),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
