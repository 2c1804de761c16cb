/* /proc/PID/status, one line at a time: the fields fgprof needs of a JVM
 * before it talks to it. */
#ifndef FG_PROC_STATUS_H
#define FG_PROC_STATUS_H

#include <sys/types.h>

struct fg_proc_status {
  uid_t uid;          /* "Uid:"'s effective field */
  gid_t gid;          /* "Gid:"'s effective field */
  int ns_pid;         /* "NSpid:"'s last field (the pid in the innermost namespace); 0 when none */
  int catches_quit;   /* "SigCgt:" holds SIGQUIT */
  int seen;           /* 1 Uid, 2 Gid, 4 SigCgt: all 7 for a status whole enough to act on */
};

/* Takes what line (NUL-ended, as fgets reads it; any part of a longer
 * line) says into s. A pid out of range (not 1 to INT_MAX) is not taken. */
void fg_proc_status_line(struct fg_proc_status *s, const char *line);

#endif
