/* The descriptor table grown ahead of the counters (fd_room.h). */
#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

#include "sampling/perf/fd_room.h"

void fg_fd_room_note(struct fg_fd_room *r, int fd)
{
  int high = atomic_load_explicit(&r->high, memory_order_relaxed);
  while (fd > high && !atomic_compare_exchange_weak_explicit(&r->high, &high, fd, memory_order_relaxed,
                                                             memory_order_relaxed))
    ;
}

void fg_fd_room_keep(struct fg_fd_room *r)
{
  long want = 2 * ((long)atomic_load_explicit(&r->high, memory_order_relaxed) + 1);
  if (want < FG_FD_ROOM_MIN)
    want = FG_FD_ROOM_MIN;
  if (want <= r->made)
    return;   /* each drainer pass comes here: no system call while there is room */
  struct rlimit files;
  if (getrlimit(RLIMIT_NOFILE, &files) == 0 && files.rlim_cur != RLIM_INFINITY && (rlim_t)want > files.rlim_cur)
    want = (long)files.rlim_cur;
  if (want <= r->made)
    return;
  /* the lowest free descriptor at or past want-1: never one in use, and
   * the table is grown to hold it; closed at once, close-on-exec meanwhile
   * so that a fork and exec beside us does not inherit it */
  int fd = fcntl(0, F_DUPFD_CLOEXEC, (int)want - 1);
  if (fd < 0 && fcntl(0, F_GETFD) < 0) {   /* no descriptor 0 to copy: a copy of a fresh one */
    int any = open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (any >= 0) {
      fd = fcntl(any, F_DUPFD_CLOEXEC, (int)want - 1);
      close(any);
    }
  }
  if (fd < 0)
    return;   /* at the limit, or out of memory: the counters' own opens grow it as before */
  close(fd);
  r->made = (int)want;
}
