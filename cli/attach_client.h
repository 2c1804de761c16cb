/* Loading an agent into a running HotSpot JVM from C, through the JVM's
 * attach socket (no Java on this side). */
#ifndef FG_ATTACH_CLIENT_H
#define FG_ATTACH_CLIENT_H

#include <stddef.h>

/* Loads library (an absolute path) into process pid with options, as jcmd
 * PID JVMTI.agent_load does: its Agent_OnAttach's return code in *agent_rc.
 * -1 with one line in err when the JVM cannot be reached: no such process,
 * another user's, not a HotSpot JVM, attach disabled, no answer within
 * timeout_ms. */
int fg_attach_load(int pid, const char *library, const char *options, int timeout_ms, int *agent_rc, char *err,
                   size_t errlen);

#endif
