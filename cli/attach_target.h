/* What fgprof must know of a JVM before it talks to it: whose it is, the
 * pid it knows itself by, whether it catches SIGQUIT, and how its files are
 * reached from here (another mount namespace: a container). Read from
 * /proc/PID, never from paths another user could plant. */
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
  int other_mounts;   /* in another mount namespace: its files are under root */
  char root[64];      /* "/proc/PID/root" with other_mounts, else "" */
};

/* Reads /proc/PID/status and the mount namespaces. 0; -1 with one line in
 * err (no such process). */
int fg_attach_target_read(int pid, struct fg_attach_target *t, char *err, size_t errlen);

/* Reads SigCgt again (a JVM still starting installs its handlers late). */
int fg_attach_target_catches_quit(struct fg_attach_target *t);

/* path as the JVM names it, reached from here: root prefixed. -1 when too long. */
int fg_attach_target_path(const struct fg_attach_target *t, const char *path, char *out, size_t outlen);

#endif
