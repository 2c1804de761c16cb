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
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fg/output.h"


/* A file fgprof made, handed to the JVM's user (root makes it for them). */
static int give(const struct fg_attach_target *t, int fd)
{
  return geteuid() == 0 && fchown(fd, t->uid, t->gid) != 0 ? -1 : 0;
}

/* A new file in dir_fd named prefix and six random letters (into name),
 * created O_EXCL (so never through a link) with mode; its descriptor, or
 * -1 with errno. */
static int create_unique(int dir_fd, const char *prefix, char *name, size_t namelen, int flags, mode_t mode)
{
  static const char letters[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  for (int attempt = 0; attempt < 100; attempt++) {
    unsigned char r[6];
    if (getrandom(r, sizeof r, 0) != (ssize_t)sizeof r)
      return -1;
    char tail[7];
    for (int i = 0; i < 6; i++)
      tail[i] = letters[r[i] % (sizeof letters - 1)];
    tail[6] = '\0';
    if (snprintf(name, namelen, "%s%s", prefix, tail) >= (int)namelen) {
      errno = ENAMETOOLONG;
      return -1;
    }
    int fd = openat(dir_fd, name, flags | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
    if (fd >= 0 || errno != EEXIST)
      return fd;
  }
  errno = EEXIST;
  return -1;
}

int fg_attach_reply_file(const struct fg_attach_target *t, char *name, size_t namelen, char *there, size_t therelen,
                         char *err, size_t errlen)
{
  int fd = create_unique(t->tmp_fd, "fgprof-reply-", name, namelen, O_WRONLY, 0600);
  if (fd < 0)
    return fg_attach_fail(err, errlen, "cannot create a reply file in /tmp%s: %s", t->where, strerror(errno));
  if (give(t, fd) != 0)
    fprintf(stderr, "fgprof: warning: cannot hand the reply file to the JVM's user: %s\n", strerror(errno));
  close(fd);
  if (snprintf(there, therelen, "/tmp/%s", name) >= (int)therelen) {
    unlinkat(t->tmp_fd, name, 0);
    return fg_attach_fail(err, errlen, "the reply file's path is too long");
  }
  return 0;
}

int fg_attach_private_dir(const struct fg_attach_target *t, char *there, size_t therelen, char *err, size_t errlen)
{
  char name[32];
  snprintf(name, sizeof name, ".fgagent-%u", (unsigned)t->uid);
  if (snprintf(there, therelen, "/tmp/%s", name) >= (int)therelen)
    return fg_attach_fail(err, errlen, "the private directory's path is too long");
  int made = mkdirat(t->tmp_fd, name, 0700) == 0;
  if (!made && errno != EEXIST)
    return fg_attach_fail(err, errlen, "cannot create %s%s: %s", there, t->where, strerror(errno));
  /* one name, O_NOFOLLOW: a link planted there fails (ELOOP or ENOTDIR), and what is judged is what was opened */
  int fd = openat(t->tmp_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  struct stat st;
  if (fd < 0 || fstat(fd, &st) != 0) {
    int e = errno;
    if (fd >= 0)
      close(fd);
    struct stat link;
    int is_link = fstatat(t->tmp_fd, name, &link, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(link.st_mode);
    return fg_attach_fail(err, errlen, "%s%s is %s; not used", there, t->where,
                          is_link ? "a symbolic link" : e == ENOTDIR ? "no directory" : strerror(e));
  }
  if (made && give(t, fd) != 0) {
    int e = errno;
    close(fd);
    unlinkat(t->tmp_fd, name, AT_REMOVEDIR);
    return fg_attach_fail(err, errlen, "cannot hand %s%s to the JVM's user: %s", there, t->where, strerror(e));
  }
  if (!made && (st.st_uid != t->uid || (st.st_mode & (S_IRWXG | S_IRWXO)))) {
    close(fd);
    return fg_attach_fail(err, errlen, "%s%s is not a directory of the JVM's user (uid %u) closed to others (it is "
                          "of uid %u, mode %03o); not used", there, t->where, (unsigned)t->uid, (unsigned)st.st_uid,
                          (unsigned)(st.st_mode & 0777));
  }
  return fd;
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
  struct stat mine, theirs;
  if (stat(library, &mine) != 0)
    return fg_attach_fail(err, errlen, "cannot read %s: %s", library, strerror(errno));
  int seen = t->other_mounts ? fg_attach_target_open(t, library, O_PATH) : -1;
  int same_file = !t->other_mounts || (seen >= 0 && fstat(seen, &theirs) == 0 && theirs.st_dev == mine.st_dev &&
                                       theirs.st_ino == mine.st_ino);
  if (seen >= 0)
    close(seen);
  if (same_file)
    return snprintf(there, therelen, "%s", library) >= (int)therelen ? fg_attach_fail(err, errlen, "path too long") : 0;
  char dir_there[64], tmp[64];
  int dir = fg_attach_private_dir(t, dir_there, sizeof dir_there, err, errlen);
  if (dir < 0)
    return -1;
  if (snprintf(there, therelen, "%s/libfgagent.so", dir_there) >= (int)therelen) {
    close(dir);
    return fg_attach_fail(err, errlen, "path too long");
  }
  int src = open(library, O_RDONLY | O_CLOEXEC);
  int old = openat(dir, "libfgagent.so", O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  int same = src >= 0 && old >= 0 && fstat(old, &theirs) == 0 && S_ISREG(theirs.st_mode) && same_bytes(src, old);
  if (old >= 0)
    close(old);
  if (!same && old >= 0 && jvm_maps(t, there)) {   /* a new copy would be a second agent in the JVM */
    fprintf(stderr, "fgprof: warning: the JVM runs fgagent from %s, another build than %s; commands go to it\n",
            there, library);
    same = 1;
  }
  if (same || src < 0) {
    int e = errno;
    if (src >= 0)
      close(src);
    close(dir);
    return same ? 0 : fg_attach_fail(err, errlen, "cannot read %s: %s", library, strerror(e));
  }
  /* a new copy renamed into place; a JVM that loaded the old one keeps its own */
  lseek(src, 0, SEEK_SET);
  int fd = create_unique(dir, ".libfgagent-", tmp, sizeof tmp, O_WRONLY, 0600);
  int ok = fd >= 0 && copy_fd(src, fd) == 0 && fchmod(fd, 0500) == 0 && give(t, fd) == 0;
  int e = errno;
  close(src);
  if (fd >= 0)
    ok = close(fd) == 0 && ok;
  if (!ok || renameat(dir, tmp, dir, "libfgagent.so") != 0) {
    if (!ok)
      errno = e;
    e = errno;
    if (fd >= 0)
      unlinkat(dir, tmp, 0);
    close(dir);
    return fg_attach_fail(err, errlen, "cannot copy the agent into the JVM's /tmp (%s%s): %s", there, t->where,
                          strerror(e));
  }
  close(dir);
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

int fg_attach_own_file(int fd, uid_t uid)
{
  struct stat st;
  return fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == uid && st.st_nlink == 1;
}

int fg_attach_copy_out(const struct fg_attach_target *t, int dir_fd, const char *name, const char *to, char *err,
                       size_t errlen)
{
  /* O_NONBLOCK: a FIFO planted at the name does not hold fgprof */
  int fd = openat(dir_fd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd >= 0 && !fg_attach_own_file(fd, t->uid)) {
    close(fd);
    return fg_attach_fail(err, errlen, "the profile %s in the JVM's directory is not a regular file of the JVM's "
                          "user (uid %u) with one link; not copied", name, (unsigned)t->uid);
  }
  FILE *in = fd >= 0 ? fdopen(fd, "r") : NULL;
  if (!in) {
    int e = errno;
    if (fd >= 0)
      close(fd);
    return fg_attach_fail(err, errlen, "cannot read the profile %s in the JVM's directory: %s", name, strerror(e));
  }
  char why[4500];
  int rc = fg_write_file_atomically(to, copy_stream, in, why, sizeof why);
  fclose(in);
  return rc == 0 ? 0 : fg_attach_fail(err, errlen, "%s", why);
}
