/* Loading an agent into a running HotSpot JVM from C, through the JVM's
 * attach socket (no Java on this side). */
#ifndef FG_ATTACH_CLIENT_H
#define FG_ATTACH_CLIENT_H

#include <stddef.h>

#include "attach_target.h"

/* What the functions below return when the process was there and the
 * answer is final: the JVM answered no, or a rule of fgprof's refused it
 * (another user's, not a JVM, attach disabled, a socket or trigger file not
 * the JVM's, no listener within the timeout). -1 is for a JVM
 * that could not be reached, as one that exits closes its socket and
 * unmaps its memory a moment before it is gone: only then is it worth
 * waiting to see whether it exits. */
#define FG_ATTACH_REFUSED (-2)

/* One line into err (printf's format): -1, for the attach files' errors. */
int fg_attach_fail(char *err, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* The same line: FG_ATTACH_REFUSED. */
int fg_attach_refuse(char *err, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Whether fgprof may attach to t at all: this user's (or fgprof runs as
 * root), a HotSpot JVM (a java launcher still loading one is waited for up
 * to timeout_ms), attach not disabled. 0; FG_ATTACH_REFUSED or -1 (a
 * process with no memory mapped: exiting) with one line in err. */
int fg_attach_check(struct fg_attach_target *t, int timeout_ms, char *err, size_t errlen);

/* Loads library (an absolute path, as the JVM sees it) into t with
 * options, as jcmd PID JVMTI.agent_load does: its Agent_OnAttach's return
 * code in *agent_rc. With one line in err, FG_ATTACH_REFUSED when the JVM
 * refused or a rule did (its socket is someone else's, it does not catch
 * SIGQUIT to open one, the JVM answered that it loaded nothing), -1 when
 * it could not be reached (no socket, connection reset, no answer). */
int fg_attach_load(struct fg_attach_target *t, const char *library, const char *options, int timeout_ms,
                   int *agent_rc, char *err, size_t errlen);

/* fg_attach_load, asking keep_waiting(ctx) each time timeout_ms pass with
 * no answer: nonzero waits another timeout_ms (the agent said it is at
 * work on a large profile). */
int fg_attach_load_patient(struct fg_attach_target *t, const char *library, const char *options, int timeout_ms,
                           int (*keep_waiting)(void *ctx), void *ctx, int *agent_rc, char *err, size_t errlen);

#endif
