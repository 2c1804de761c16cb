/* Where an output file really goes, decided once at load and again at write:
 *
 * - a regular file, or nothing yet: written through a temporary beside it and
 *   renamed into place (a reader never sees half a profile);
 * - a symbolic link (dangling too) of this process's user or root: followed,
 *   so the link stays and its target gets the profile; another user's is
 *   refused (as root beside other users, a link planted in a shared
 *   directory would aim the write anywhere);
 * - a character device, a FIFO, or anything reached through /proc (say
 *   /proc/self/fd/1): written in place, appended, never replaced;
 * - a directory, a block device or a socket: refused.
 *
 * fg_output_probe proves at load that the write can happen, by creating the
 * very temporary file the write will use: a missing or read-only directory,
 * a name too long once ".tmp.PID" is added, /proc and /sys all fail there,
 * when there is still time to ask for another path. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fg/output.h"

#define MAX_LINKS 40   /* as the kernel's ELOOP limit */

static int fail(char *err, size_t errlen, const char *path, const char *why)
{
  snprintf(err, errlen, "cannot write '%.1000s': %s", path, why);
  return -1;
}

static int under_proc(const char *path)
{
  return strncmp(path, "/proc/", 6) == 0;
}

/* Replaces out (a link) by its target, taken relative to the link's directory. */
static int follow_link(char *out, size_t outlen, const char *target)
{
  char joined[PATH_MAX];
  const char *slash = strrchr(out, '/');
  if (target[0] == '/' || !slash) {
    if (snprintf(joined, sizeof joined, "%s", target) >= (int)sizeof joined)
      return -1;
  } else if (snprintf(joined, sizeof joined, "%.*s/%s", (int)(slash - out), out, target) >=
             (int)sizeof joined) {
    return -1;
  }
  return snprintf(out, outlen, "%s", joined) >= (int)outlen ? -1 : 0;
}

int fg_output_target(const char *path, struct fg_output_target *t, char *err, size_t errlen)
{
  memset(t, 0, sizeof *t);
  if (snprintf(t->path, sizeof t->path, "%s", path) >= (int)sizeof t->path)
    return fail(err, errlen, path, "path too long");
  for (int hops = 0;; hops++) {
    if (under_proc(t->path)) {
      /* /proc's links name pipes, sockets and deleted files too: use the
       * original path, and write through it in place */
      snprintf(t->path, sizeof t->path, "%s", path);
      t->in_place = true;
      return 0;
    }
    struct stat st;
    if (lstat(t->path, &st) != 0) {
      if (errno == ENOENT || errno == ENOTDIR)
        return 0;   /* a new file; the probe finds out whether its directory takes it */
      return fail(err, errlen, path, strerror(errno));
    }
    if (S_ISLNK(st.st_mode)) {
      if (st.st_uid != geteuid() && st.st_uid != 0) {
        char why[200];
        snprintf(why, sizeof why, "it is a symbolic link of uid %u, not of this process's user (uid %u) or root; "
                 "accepted: a link of one of those, or the target's own path", (unsigned)st.st_uid,
                 (unsigned)geteuid());
        return fail(err, errlen, path, why);
      }
      char target[PATH_MAX];
      ssize_t n = readlink(t->path, target, sizeof target - 1);
      if (n < 0 || hops == MAX_LINKS)
        return fail(err, errlen, path, n < 0 ? strerror(errno) : "too many levels of symbolic links");
      target[n] = '\0';
      if (follow_link(t->path, sizeof t->path, target) != 0)
        return fail(err, errlen, path, "the link's target path is too long");
      continue;
    }
    if (S_ISREG(st.st_mode))
      return 0;
    if (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode)) {
      t->in_place = true;
      return 0;
    }
    return fail(err, errlen, path,
                S_ISDIR(st.st_mode)   ? "it is a directory; accepted: a file name"
                : S_ISBLK(st.st_mode) ? "it is a block device; accepted: a file, a FIFO or a character device"
                                      : "it is a socket; accepted: a file, a FIFO or a character device");
  }
}

int fg_output_temp_name(const char *path, pid_t pid, char *out, size_t outlen)
{
  return snprintf(out, outlen, "%s.tmp.%d", path, (int)pid) >= (int)outlen ? -1 : 0;
}

int fg_output_create_temp(const char *tmp, mode_t mode)
{
  for (int tries = 0; tries < 2; tries++) {
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
    struct stat st;
    if (fd >= 0 || errno != EEXIST || lstat(tmp, &st) != 0)
      return fd;
    /* left by an earlier write of this pid's that died: ours to remove; anything else is not */
    if (!S_ISREG(st.st_mode) || st.st_uid != geteuid() || st.st_nlink != 1 || unlink(tmp) != 0) {
      errno = EEXIST;
      return -1;
    }
  }
  errno = EEXIST;
  return -1;
}

/* A FIFO opened for writing with nobody reading would block the JVM's exit:
 * O_NONBLOCK makes that ENXIO at once; the descriptor then blocks as usual. */
int fg_output_open_in_place(const char *path)
{
  int fd = open(path, O_WRONLY | O_APPEND | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0)
    return -1;
  int flags = fcntl(fd, F_GETFL);
  if (flags < 0 || fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) != 0) {
    int saved = errno;
    close(fd);
    errno = saved;
    return -1;
  }
  return fd;
}

int fg_output_probe(const char *path, char *err, size_t errlen)
{
  struct fg_output_target t;
  if (fg_output_target(path, &t, err, errlen) != 0)
    return -1;
  if (t.in_place) {
    struct stat st;
    /* a FIFO's reader may come later: only ask that it could be opened */
    if (stat(t.path, &st) == 0 && S_ISFIFO(st.st_mode))
      return access(t.path, W_OK) == 0 ? 0 : fail(err, errlen, path, strerror(errno));
    int fd = fg_output_open_in_place(t.path);
    if (fd < 0) {
      char why[256];
      snprintf(why, sizeof why, "cannot open it for writing in place (%s)", strerror(errno));
      return fail(err, errlen, path, why);
    }
    close(fd);
    return 0;
  }
  char tmp[PATH_MAX + 32];
  if (fg_output_temp_name(t.path, getpid(), tmp, sizeof tmp) != 0)
    return fail(err, errlen, path, "path too long");
  int fd = fg_output_create_temp(tmp, 0644);
  if (fd < 0) {
    const char *slash = strrchr(t.path, '/');
    const char *name = slash ? slash + 1 : t.path;
    char why[256];
    if (errno == ENAMETOOLONG)
      snprintf(why, sizeof why, "the file name is %zu bytes; accepted: at most %d, so that "
               "'.tmp.<pid>' fits within the file system's 255", strlen(name), 255 - 12);
    else
      snprintf(why, sizeof why, "cannot create a file there (%s)", strerror(errno));
    return fail(err, errlen, path, why);
  }
  close(fd);
  unlink(tmp);
  return 0;
}
