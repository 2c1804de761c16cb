/* The files fgprof hands a JVM it attaches to, each named twice: where
 * fgprof reaches it (here) and where the JVM does (there), which differ
 * when the JVM runs in another mount namespace (a container). */
#ifndef FG_ATTACH_FILES_H
#define FG_ATTACH_FILES_H

#include <stddef.h>

#include "attach_target.h"

/* A new, empty file in the JVM's /tmp for the agent's reply: made with an
 * unpredictable name (mkstemp), given to the JVM's user. 0; -1 with a line in err. */
int fg_attach_reply_file(const struct fg_attach_target *t, char *here, size_t herelen, char *there, size_t therelen,
                         char *err, size_t errlen);

/* fgprof's own directory in the JVM's /tmp, /tmp/.fgagent-UID: made 0700 for
 * the JVM's user, or one already there that is a directory of that user's,
 * no link, closed to others. 0; -1 with a line in err. */
int fg_attach_private_dir(const struct fg_attach_target *t, char *here, size_t herelen, char *there,
                          size_t therelen, char *err, size_t errlen);

/* The library as the JVM can load it: library itself when the JVM sees the
 * same file there, else a copy in the private directory (kept: the JVM
 * loads it by that path again at the next command). 0; -1. */
int fg_attach_library(const struct fg_attach_target *t, const char *library, char *there, size_t therelen,
                      char *err, size_t errlen);

/* Copies the file from (here) to the path to, written through a temporary
 * renamed into place. 0; -1 with a line in err. */
int fg_attach_copy_out(const char *from, const char *to, char *err, size_t errlen);

#endif
