/* The JVM fgprof attaches to, as /proc describes it. */
#include "attach_target.h"
#include "proc_status.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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

int fg_attach_target_read(int pid, struct fg_attach_target *t, char *err, size_t errlen)
{
  memset(t, 0, sizeof *t);
  t->pid = t->ns_pid = pid;
  if (read_status(t, &t->catches_quit) != 0) {
    snprintf(err, errlen, "no such process: %d", pid);
    return -1;
  }
  t->other_mounts = !same_mounts(pid);
  if (t->other_mounts)
    snprintf(t->root, sizeof t->root, "/proc/%d/root", pid);
  return 0;
}

int fg_attach_target_catches_quit(struct fg_attach_target *t)
{
  int quit = 0;
  if (read_status(t, &quit) != 0)
    return 0;
  t->catches_quit = quit;
  return quit;
}

int fg_attach_target_path(const struct fg_attach_target *t, const char *path, char *out, size_t outlen)
{
  int n = snprintf(out, outlen, "%s%s", t->root, path);
  return n < 0 || (size_t)n >= outlen ? -1 : 0;
}
