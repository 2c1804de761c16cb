/* What fgprof must know of a JVM before it talks to it: whose it is, the
 * pid it knows itself by, whether it catches SIGQUIT, and its root, /tmp
 * and working directory as descriptors. Read from /proc/PID, never from
 * paths another user could plant.
 *
 * Every path the JVM names (its /tmp, the library's path) is resolved
 * inside the JVM's own root, /proc/PID/root, with openat2(RESOLVE_IN_ROOT |
 * RESOLVE_NO_MAGICLINKS): a container's symbolic links (/tmp -> /var/tmp/x)
 * lead where they lead for the JVM, never to the host's files. Files are
 * then made and opened relative to those descriptors, one name at a time. */
#ifndef FG_ATTACH_TARGET_H
#define FG_ATTACH_TARGET_H

#include <stddef.h>
#include <sys/types.h>

struct fg_attach_target {
  int pid;            /* as this process sees it */
  int ns_pid;         /* as the JVM sees itself (NSpid's last field): its socket's and trigger's name */
  uid_t uid;          /* effective: the user its attach socket must belong to */
  gid_t gid;          /* effective: the group likewise */
  int catches_quit;   /* SigCgt holds SIGQUIT: the signal starts its attach listener, not a core dump */
  int other_mounts;   /* another mount namespace or root (a container): its paths are not ours */
  int root_fd;        /* O_PATH of /proc/PID/root: the root its paths are resolved in */
  int tmp_fd;         /* O_PATH of its /tmp, resolved inside root_fd */
  int cwd_fd;         /* O_PATH of its working directory (/proc/PID/cwd), -1 when it cannot be opened */
  char where[64];     /* for messages: " in the root of process PID" with other_mounts, else "" */
};

/* Reads /proc/PID/status and the mount namespaces, opens the descriptors.
 * 0; -1 with one line in err (no such process, its /tmp cannot be
 * resolved, no openat2 on this kernel for a JVM in another root). */
int fg_attach_target_read(int pid, struct fg_attach_target *t, char *err, size_t errlen);

/* Closes the descriptors. */
void fg_attach_target_close(struct fg_attach_target *t);

/* Reads SigCgt again (a JVM still starting installs its handlers late). */
int fg_attach_target_catches_quit(struct fg_attach_target *t);

/* Opens cwd_fd again, from /proc/PID/cwd: where the JVM works now; its
 * name as opened into name (len bytes, "" when it cannot be read; name may
 * be NULL). 1 when
 * that is HotSpot's perf data directory (a directory hsperfdata_* in the
 * JVM's /tmp): a JVM starting works there for a moment while it makes its
 * perf data file (perfMemory_posix.cpp fchdir's in and back), longer with
 * many stale files to sweep, and looks for the trigger where it works
 * when the signal is taken, later; else 0 (cwd_fd -1 when it cannot be
 * opened). */
int fg_attach_target_cwd(struct fg_attach_target *t, char *name, size_t len);

/* Whether the JVM's attach listener thread runs (HotSpot names it
 * "Attach Listener"; its comm shows it). */
int fg_attach_target_listening(const struct fg_attach_target *t);

/* path (absolute, as the JVM names it) opened with flags inside the JVM's
 * root: RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS. A descriptor, or -1 with
 * errno (ENOSYS: no openat2, for a JVM in another root). */
int fg_attach_target_open(const struct fg_attach_target *t, const char *path, int flags);

#endif
