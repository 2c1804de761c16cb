/* The JVM's answer to an attach "load" command, read as bytes from its
 * socket: whatever process listens there wrote them, so nothing in them is
 * trusted. */
#ifndef FG_ATTACH_REPLY_H
#define FG_ATTACH_REPLY_H

#include <stddef.h>

/* reply: len bytes (NUL bytes end it, as they end HotSpot's text), from
 * process pid. "STATUS\n" then the agent's return code, "N\n" or "return
 * code: N\n" (JDK 21+), both clamped to int. Returns 0 with the agent's
 * return code in *agent_rc (FG_ATTACH_RC_STARTING for a JVM that says it is
 * not live yet); -1 with one line in err, naming what was wrong, when the
 * reply is not an attach status or the JVM loaded nothing. Quoted reply
 * bytes other than printable ASCII are shown as '?'. */
int fg_attach_reply_parse(const char *reply, size_t len, int pid, int *agent_rc, char *err, size_t errlen);

#endif
