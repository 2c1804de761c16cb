/* Room in the process's descriptor table, made ahead of the counters by
 * fgagent's own threads.
 *
 * Linux grows a process's descriptor table when a call asks for a
 * descriptor past its end (expand_files), and when the process has more
 * than one thread the growth waits out an RCU grace period
 * (expand_fdtable: synchronize_rcu), milliseconds on a busy or virtual
 * host. Left alone, that wait falls on whichever starting thread's
 * perf_event_open crosses the end: a burst of 600 thread starts crossed
 * it three or four times, a quarter of what the counters added to their
 * start. The kernel never shrinks a table, so fgagent asks for a
 * descriptor near the end it wants (F_DUPFD) and closes it at once: the
 * table then holds twice the highest descriptor a counter got, at least
 * FG_FD_ROOM_MIN, never past the open-file limit.
 *
 * The counters' opens note what they got (fg_fd_room_note: one atomic,
 * on the starting thread); the session's start and the drainer's passes
 * grow the table (fg_fd_room_keep). A burst faster than a pass can still
 * cross the end, and pays the grace period as it would without us. */
#ifndef FG_FD_ROOM_H
#define FG_FD_ROOM_H

#include <stdatomic.h>

#define FG_FD_ROOM_MIN 1024   /* 8 KiB of table: what a JVM with a few hundred files has anyway */

struct fg_fd_room {
  atomic_int high;   /* the highest descriptor a counter got */
  int made;          /* the table holds descriptors 0..made-1 (fgagent's thread only) */
};

/* fd, just opened for a counter. Any thread. */
void fg_fd_room_note(struct fg_fd_room *r, int fd);
/* Grows the table to twice the highest noted descriptor, at least
 * FG_FD_ROOM_MIN, within RLIMIT_NOFILE's soft limit. One thread at a time
 * (a session's start, the drainer): never an application thread's call. */
void fg_fd_room_keep(struct fg_fd_room *r);

#endif
