/* The JVM fgprof attaches to, as /proc describes it. */
#include "attach_target.h"
#include "proc_status.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

/* /proc/PID/status's fields, read in one pass. 0, or -1 when it is gone. */
static int read_status(struct fg_attach_target *t, int *quit)
{
  char path[64], line[512];
  snprintf(path, sizeof path, "/proc/%d/status", t->pid);
  FILE *f = fopen(path, "re");
  if (!f)
    return -1;
  struct fg_proc_status st = {0};
  while (fgets(line, sizeof line, f))
    fg_proc_status_line(&st, line);
  fclose(f);
  if (st.seen != 7)
    return -1;
  t->uid = st.uid;
  t->gid = st.gid;
  if (st.ns_pid)
    t->ns_pid = st.ns_pid;
  *quit = st.catches_quit;
  return 0;
}

/* Whether two processes share a mount namespace (their ns links name the same inode). */
static int same_mounts(int pid)
{
  char path[64];
  struct stat mine, theirs;
  snprintf(path, sizeof path, "/proc/%d/ns/mnt", pid);
  if (stat("/proc/self/ns/mnt", &mine) != 0 || stat(path, &theirs) != 0)
    return 1;   /* not to be told (an old kernel): paths are taken as they are */
  return mine.st_dev == theirs.st_dev && mine.st_ino == theirs.st_ino;
}

/* Whether the descriptor names the directory our own root is. */
static int is_our_root(int fd)
{
  struct stat mine, theirs;
  return stat("/", &mine) == 0 && fstat(fd, &theirs) == 0 && mine.st_dev == theirs.st_dev &&
         mine.st_ino == theirs.st_ino;
}

int fg_attach_target_open(const struct fg_attach_target *t, const char *path, int flags)
{
  struct open_how how = {.flags = (unsigned long long)(flags | O_CLOEXEC),
                         .resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS};
  int fd = -1;
  for (int tries = 0; tries < 8 && (fd = (int)syscall(SYS_openat2, t->root_fd, path, &how, sizeof how)) < 0 &&
                      (errno == EAGAIN || errno == EINTR);
       tries++)
    ;   /* EAGAIN: a rename meanwhile made a ".." unsafe to resolve in the root; the kernel asks to retry */
  if (fd < 0 && errno == ENOSYS && !t->other_mounts)
    fd = open(path, flags | O_CLOEXEC);   /* its root is ours: its paths are ours too */
  return fd;
}

int fg_attach_target_read(int pid, struct fg_attach_target *t, char *err, size_t errlen)
{
  memset(t, 0, sizeof *t);
  t->pid = t->ns_pid = pid;
  t->root_fd = t->tmp_fd = t->cwd_fd = -1;
  if (read_status(t, &t->catches_quit) != 0) {
    snprintf(err, errlen, "no such process: %d", pid);
    return -1;
  }
  if (t->uid != geteuid() && geteuid() != 0) {   /* its root is not ours to open (ptrace access) */
    snprintf(err, errlen, "process %d belongs to another user (uid %u); attach as that user", pid, (unsigned)t->uid);
    return -1;
  }
  char path[64];
  snprintf(path, sizeof path, "/proc/%d/root", pid);
  t->root_fd = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (t->root_fd < 0) {
    if (errno == ENOENT || errno == ESRCH)   /* it exited since its status was read */
      snprintf(err, errlen, "no such process: %d", pid);
    else
      snprintf(err, errlen, "cannot open the root of process %d (%s): %s", pid, path, strerror(errno));
    return -1;
  }
  t->other_mounts = !same_mounts(pid) || !is_our_root(t->root_fd);
  if (t->other_mounts)
    snprintf(t->where, sizeof t->where, " in the root of process %d", pid);
  t->tmp_fd = fg_attach_target_open(t, "/tmp", O_PATH | O_DIRECTORY);
  if (t->tmp_fd < 0) {
    int e = errno;
    if (e == ENOSYS)
      snprintf(err, errlen, "process %d runs in another root (a container) and this kernel has no openat2 "
               "(Linux 5.6 or later) to resolve its paths inside it; not attached, as its links would lead to "
               "this host's files", pid);
    else
      snprintf(err, errlen, "cannot open /tmp%s: %s", t->where, strerror(e));
    fg_attach_target_close(t);
    return -1;
  }
  /* the magic link is the kernel's own: the directory the JVM works in, where HotSpot looks first */
  fg_attach_target_cwd(t, NULL, 0);
  return 0;
}

int fg_attach_target_cwd(struct fg_attach_target *t, char *name, size_t len)
{
  char path[64], where[4096];
  if (name && len)
    name[0] = '\0';
  if (t->cwd_fd >= 0)
    close(t->cwd_fd);
  snprintf(path, sizeof path, "/proc/%d/cwd", t->pid);
  t->cwd_fd = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (t->cwd_fd < 0)
    return 0;
  snprintf(path, sizeof path, "/proc/self/fd/%d", t->cwd_fd);   /* the name of what was opened, not of the now */
  ssize_t n = readlink(path, where, sizeof where - 1);
  if (n <= 0)
    return 0;
  where[n] = '\0';
  if (name && len)
    snprintf(name, len, "%s", where);
  const char *base = strrchr(where, '/');
  struct stat up, tmp;
  int parent = openat(t->cwd_fd, "..", O_PATH | O_DIRECTORY | O_CLOEXEC);
  int in_tmp = parent >= 0 && fstat(parent, &up) == 0 && fstat(t->tmp_fd, &tmp) == 0 && up.st_dev == tmp.st_dev &&
               up.st_ino == tmp.st_ino;
  if (parent >= 0)
    close(parent);
  return in_tmp && base && strncmp(base + 1, "hsperfdata_", 11) == 0;
}

void fg_attach_target_close(struct fg_attach_target *t)
{
  int *fds[] = {&t->root_fd, &t->tmp_fd, &t->cwd_fd};
  for (size_t i = 0; i < sizeof fds / sizeof fds[0]; i++) {
    if (*fds[i] >= 0)
      close(*fds[i]);
    *fds[i] = -1;
  }
}

int fg_attach_target_catches_quit(struct fg_attach_target *t)
{
  int quit = 0;
  if (read_status(t, &quit) != 0)
    return 0;
  t->catches_quit = quit;
  return quit;
}

int fg_attach_target_listening(const struct fg_attach_target *t)
{
  char path[64];
  snprintf(path, sizeof path, "/proc/%d/task", t->pid);
  DIR *d = opendir(path);
  int found = 0;
  for (struct dirent *e; d && !found && (e = readdir(d));) {
    if (e->d_name[0] < '0' || e->d_name[0] > '9')
      continue;
    char comm_path[96], comm[32] = "";
    snprintf(comm_path, sizeof comm_path, "/proc/%d/task/%.20s/comm", t->pid, e->d_name);
    FILE *f = fopen(comm_path, "re");
    if (f && fgets(comm, sizeof comm, f))
      found = strcmp(comm, "Attach Listener\n") == 0;
    if (f)
      fclose(f);
  }
  if (d)
    closedir(d);
  return found;
}
