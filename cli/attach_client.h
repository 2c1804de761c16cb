/* Loading an agent into a running HotSpot JVM from C, through the JVM's
 * attach socket (no Java on this side). */
#ifndef FG_ATTACH_CLIENT_H
#define FG_ATTACH_CLIENT_H

#include <stddef.h>

#include "attach_target.h"

/* One line into err (printf's format): -1, for the attach files' errors. */
int fg_attach_fail(char *err, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Whether fgprof may attach to t at all: this user's (or fgprof runs as
 * root), a HotSpot JVM (a java launcher still loading one is waited for up
 * to timeout_ms), attach not disabled. 0; -1 with one line in err. */
int fg_attach_check(struct fg_attach_target *t, int timeout_ms, char *err, size_t errlen);

/* Loads library (an absolute path, as the JVM sees it) into t with
 * options, as jcmd PID JVMTI.agent_load does: its Agent_OnAttach's return
 * code in *agent_rc. -1 with one line in err when the JVM cannot be
 * reached: its socket is someone else's, it does not catch SIGQUIT to open
 * one, or no answer within timeout_ms. */
int fg_attach_load(struct fg_attach_target *t, const char *library, const char *options, int timeout_ms,
                   int *agent_rc, char *err, size_t errlen);

/* fg_attach_load, asking keep_waiting(ctx) each time timeout_ms pass with
 * no answer: nonzero waits another timeout_ms (the agent said it is at
 * work on a large profile). */
int fg_attach_load_patient(struct fg_attach_target *t, const char *library, const char *options, int timeout_ms,
                           int (*keep_waiting)(void *ctx), void *ctx, int *agent_rc, char *err, size_t errlen);

#endif
