/* /proc/PID/status's lines; see proc_status.h. */
#include "proc_status.h"

#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void fg_proc_status_line(struct fg_proc_status *s, const char *line)
{
  unsigned long real, effective;
  if (sscanf(line, "Uid: %lu %lu", &real, &effective) == 2) {
    s->uid = (uid_t)effective;
    s->seen |= 1;
  } else if (sscanf(line, "Gid: %lu %lu", &real, &effective) == 2) {
    s->gid = (gid_t)effective;
    s->seen |= 2;
  } else if (strncmp(line, "NSpid:", 6) == 0) {
    /* the pid in each nested pid namespace, outermost first: the JVM's own is the last */
    const char *p = line + 6;
    char *end;
    for (long v; (v = strtol(p, &end, 10)), end != p; p = end)
      s->ns_pid = v > 0 && v <= INT_MAX ? (int)v : 0;
  } else if (strncmp(line, "SigCgt:", 7) == 0) {
    unsigned long long mask = strtoull(line + 7, NULL, 16);
    s->catches_quit = (int)((mask >> (SIGQUIT - 1)) & 1);
    s->seen |= 4;
  }
}
