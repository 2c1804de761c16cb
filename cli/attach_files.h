/* The files fgprof hands a JVM it attaches to, in the JVM's own /tmp: made
 * and opened relative to the descriptor of that /tmp (resolved inside the
 * JVM's root, see attach_target.h), one name at a time, never through a
 * link, and each named as the JVM names it (there) for the agent. */
#ifndef FG_ATTACH_FILES_H
#define FG_ATTACH_FILES_H

#include <stddef.h>

#include "attach_target.h"

/* A new, empty file in the JVM's /tmp for the agent's reply, at an
 * unpredictable name made O_EXCL, given to the JVM's user: its name in
 * that /tmp, and its path as the JVM names it. 0; -1 with a line in err. */
int fg_attach_reply_file(const struct fg_attach_target *t, char *name, size_t namelen, char *there, size_t therelen,
                         char *err, size_t errlen);

/* fgprof's own directory in the JVM's /tmp, /tmp/.fgagent-UID: made 0700 for
 * the JVM's user, or one already there that is a directory of that user's,
 * no link, closed to others. A descriptor of it (the caller closes it) and
 * its path as the JVM names it; -1 with a line in err. */
int fg_attach_private_dir(const struct fg_attach_target *t, char *there, size_t therelen, char *err, size_t errlen);

/* The library as the JVM can load it: library itself when the JVM sees the
 * same file there, else a copy in the private directory (kept: the JVM
 * loads it by that path again at the next command). 0; -1. */
int fg_attach_library(const struct fg_attach_target *t, const char *library, char *there, size_t therelen,
                      char *err, size_t errlen);

/* Whether fd is what the agent wrote as the JVM's user: a regular file of
 * uid with one link (not a FIFO, not a hard link to someone else's file). */
int fg_attach_own_file(int fd, uid_t uid);

/* Copies the file name in the directory dir_fd (t's), one of t's user's
 * (fg_attach_own_file), to the path to (ours), written through a temporary
 * renamed into place. 0; -1 with a line in err. */
int fg_attach_copy_out(const struct fg_attach_target *t, int dir_fd, const char *name, const char *to, char *err,
                       size_t errlen);

#endif
