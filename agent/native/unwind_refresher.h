/* The thread that keeps the native unwind tables (unwind_tables.h) current
 * while sampling runs: it reads the libraries loaded since the last look,
 * every period and as soon as a handler's walk meets a pc in no library
 * (the walk writes to its eventfd). A thread of its own because the
 * drainer's pass can take 100 ms (its first reads /proc/kallsyms and the
 * JVM's symbol tables): a library loaded meanwhile, such as libzip the first
 * time a Deflater runs, would have its samples cut at its frames until then. */
#ifndef FG_UNWIND_REFRESHER_H
#define FG_UNWIND_REFRESHER_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include "native/unwind_tables.h"

struct fg_unwind_refresher {
  struct fg_unwind_tables *tables;
  uint64_t period_ns;
  pthread_t thread;
  _Atomic int stop;
  int started;
  _Atomic uint64_t cpu_ns;      /* its thread's CPU time, as of its last look (in fgagent's own share) */
};

/* Starts the thread over t, looking every period_ns; t's wake_fd is its own
 * until fg_unwind_refresher_stop. 0, or -1 (no eventfd or no thread: the
 * tables are then as the last refresh left them). */
int fg_unwind_refresher_start(struct fg_unwind_refresher *r, struct fg_unwind_tables *t, uint64_t period_ns);

/* Stops and joins the thread; t keeps its rows. Nothing if not started. */
void fg_unwind_refresher_stop(struct fg_unwind_refresher *r);

#endif
