/* Files fgprof makes for a JVM it attaches to: in the JVM's own /tmp, for
 * the JVM's user, never through a link or at a name someone else could
 * have planted first. */
#include "attach_files.h"
#include "attach_client.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fg/output.h"


/* A file fgprof made, handed to the JVM's user (root makes it for them). */
static int give(const struct fg_attach_target *t, int fd)
{
  return geteuid() == 0 && fchown(fd, t->uid, t->gid) != 0 ? -1 : 0;
}

/* there, and here: the same path with the JVM's root before it. */
static int both(const struct fg_attach_target *t, const char *there_path, char *here, size_t herelen, char *there,
                size_t therelen)
{
  return snprintf(there, therelen, "%s", there_path) >= (int)therelen ||
                 fg_attach_target_path(t, there_path, here, herelen) != 0
             ? -1
             : 0;
}

int fg_attach_reply_file(const struct fg_attach_target *t, char *here, size_t herelen, char *there, size_t therelen,
                         char *err, size_t errlen)
{
  if (both(t, "/tmp/fgprof-reply-XXXXXX", here, herelen, there, therelen) != 0)
    return fg_attach_fail(err, errlen, "the reply file's path is too long");
  int fd = mkstemp(here);
  if (fd < 0)
    return fg_attach_fail(err, errlen, "cannot create a reply file in %s/tmp: %s", t->root, strerror(errno));
  if (give(t, fd) != 0)
    fprintf(stderr, "fgprof: warning: cannot hand the reply file to the JVM's user: %s\n", strerror(errno));
  close(fd);
  memcpy(there + strlen(there) - 6, here + strlen(here) - 6, 6);   /* mkstemp's letters */
  return 0;
}

int fg_attach_private_dir(const struct fg_attach_target *t, char *here, size_t herelen, char *there,
                          size_t therelen, char *err, size_t errlen)
{
  char name[64];
  snprintf(name, sizeof name, "/tmp/.fgagent-%u", (unsigned)t->uid);
  if (both(t, name, here, herelen, there, therelen) != 0)
    return fg_attach_fail(err, errlen, "the private directory's path is too long");
  if (mkdir(here, 0700) == 0) {
    int fd = open(here, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    int given = fd >= 0 && give(t, fd) == 0;
    if (fd >= 0)
      close(fd);
    if (!given) {
      rmdir(here);
      return fg_attach_fail(err, errlen, "cannot hand %s to the JVM's user: %s", here, strerror(errno));
    }
    return 0;
  }
  struct stat st;
  if (errno != EEXIST || lstat(here, &st) != 0)
    return fg_attach_fail(err, errlen, "cannot create %s: %s", here, strerror(errno));
  if (!S_ISDIR(st.st_mode) || st.st_uid != t->uid || (st.st_mode & (S_IRWXG | S_IRWXO)))
    return fg_attach_fail(err, errlen, "%s is not a directory of the JVM's user (uid %u) closed to others (it is %s "
                          "of uid %u, mode %03o); not used", here, (unsigned)t->uid,
                          S_ISDIR(st.st_mode) ? "a directory" : "no directory",
                (unsigned)st.st_uid, (unsigned)(st.st_mode & 0777));
  return 0;
}

/* Whether a and b hold the same bytes. */
static int same_bytes(int a, int b)
{
  char x[65536], y[65536];
  for (;;) {
    ssize_t n = read(a, x, sizeof x), m = n > 0 ? read(b, y, (size_t)n) : read(b, y, 1);
    if (n < 0 || m != (n > 0 ? n : 0))
      return 0;
    if (n == 0)
      return 1;
    if (memcmp(x, y, (size_t)n) != 0)
      return 0;
  }
}

static int copy_fd(int from, int to)
{
  char buf[65536];
  for (ssize_t n; (n = read(from, buf, sizeof buf)) != 0;) {
    if (n < 0)
      return -1;
    for (ssize_t done = 0, w; done < n; done += w)
      if ((w = write(to, buf + done, (size_t)(n - done))) <= 0)
        return -1;
  }
  return 0;
}

/* Whether the JVM has path (as it names it) mapped: fgagent loaded from there. */
static int jvm_maps(const struct fg_attach_target *t, const char *path)
{
  char maps[64], line[4400];
  snprintf(maps, sizeof maps, "/proc/%d/maps", t->pid);
  FILE *f = fopen(maps, "re");
  int found = 0;
  size_t n = strlen(path);
  while (f && !found && fgets(line, sizeof line, f)) {
    char *name = strchr(line, '/');
    found = name && strncmp(name, path, n) == 0 && (name[n] == '\n' || name[n] == '\0');
  }
  if (f)
    fclose(f);
  return found;
}

int fg_attach_library(const struct fg_attach_target *t, const char *library, char *there, size_t therelen,
                      char *err, size_t errlen)
{
  char seen[4200];
  struct stat mine, theirs;
  if (stat(library, &mine) != 0)
    return fg_attach_fail(err, errlen, "cannot read %s: %s", library, strerror(errno));
  if (!t->other_mounts ||
      (fg_attach_target_path(t, library, seen, sizeof seen) == 0 && stat(seen, &theirs) == 0 &&
       theirs.st_dev == mine.st_dev && theirs.st_ino == mine.st_ino))
    return snprintf(there, therelen, "%s", library) >= (int)therelen ? fg_attach_fail(err, errlen, "path too long") : 0;
  char dir_here[4200], dir_there[128], copy[4300], tmp[4300];
  if (fg_attach_private_dir(t, dir_here, sizeof dir_here, dir_there, sizeof dir_there, err, errlen) != 0)
    return -1;
  snprintf(copy, sizeof copy, "%s/libfgagent.so", dir_here);
  snprintf(there, therelen, "%s/libfgagent.so", dir_there);
  int src = open(library, O_RDONLY | O_CLOEXEC);
  int old = open(copy, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  int same = src >= 0 && old >= 0 && same_bytes(src, old);
  if (old >= 0)
    close(old);
  if (!same && old >= 0 && jvm_maps(t, there)) {   /* a new copy would be a second agent in the JVM */
    fprintf(stderr, "fgprof: warning: the JVM runs fgagent from %s, another build than %s; commands go to it\n",
            there, library);
    same = 1;
  }
  if (same || src < 0) {
    if (src >= 0)
      close(src);
    return same ? 0 : fg_attach_fail(err, errlen, "cannot read %s: %s", library, strerror(errno));
  }
  /* a new copy renamed into place; a JVM that loaded the old one keeps its own */
  lseek(src, 0, SEEK_SET);
  snprintf(tmp, sizeof tmp, "%s/.libfgagent-XXXXXX", dir_here);
  int fd = mkstemp(tmp);
  int ok = fd >= 0 && copy_fd(src, fd) == 0 && fchmod(fd, 0500) == 0 && give(t, fd) == 0;
  int e = errno;
  close(src);
  if (fd >= 0)
    ok = close(fd) == 0 && ok;
  if (!ok || rename(tmp, copy) != 0) {
    if (fd >= 0)
      unlink(tmp);
    return fg_attach_fail(err, errlen, "cannot copy the agent into the JVM's /tmp (%s): %s", copy,
                          strerror(ok ? errno : e));
  }
  return 0;
}

static int copy_stream(FILE *out, void *ctx)
{
  FILE *in = ctx;
  char buf[65536];
  for (size_t n; (n = fread(buf, 1, sizeof buf, in)) != 0;)
    if (fwrite(buf, 1, n, out) != n)
      return -1;
  return ferror(in) ? -1 : 0;
}

int fg_attach_copy_out(const char *from, const char *to, char *err, size_t errlen)
{
  int fd = open(from, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  FILE *in = fd >= 0 ? fdopen(fd, "r") : NULL;
  if (!in) {
    if (fd >= 0)
      close(fd);
    return fg_attach_fail(err, errlen, "cannot read %s: %s", from, strerror(errno));
  }
  char why[4500];
  int rc = fg_write_file_atomically(to, copy_stream, in, why, sizeof why);
  fclose(in);
  return rc == 0 ? 0 : fg_attach_fail(err, errlen, "%s", why);
}
