/* The unwind rows (unwind_rows.h) of every library loaded in the process,
 * and one native frame's step by them: what the signal handler uses to walk
 * C and C++ frames instead of libunwind, whose local unwinder takes a lock
 * and two sigprocmask system calls a frame (about 1.3 us a frame here) and
 * goes through dl_iterate_phdr's lock.
 *
 * The set is built with dl_iterate_phdr outside the handler (at load, again
 * when sampling starts, then by the refresher thread, unwind_refresher.h,
 * when the process has loaded a library since), and published with one
 * atomic pointer: a handler reads whichever set it loaded. A walk that meets
 * a pc in no library ends there and wakes the refresher: a library's first
 * samples, until it has read the library, end at its frames. Sets and
 * rows are freed only by fg_unwind_tables_free, at exit: a library unloaded
 * meanwhile keeps its rows (a pc of another mapped where it was is then
 * unwound by them; every read is still checked against the thread's stack). */
#ifndef FG_UNWIND_TABLES_H
#define FG_UNWIND_TABLES_H

#include <stdatomic.h>
#include <stdint.h>

#include "native/unwind_rows.h"
#include "walk/x86/frame_pop.h"

struct fg_unwind_library {
  uintptr_t lo, hi;              /* its executable segments */
  const uint8_t *hdr;            /* its .eh_frame_hdr: with lo and hi, what tells it from
                                    another library loaded where an unloaded one was */
  struct fg_unwind_rows rows;
  char name[64];                 /* the end of its path, for the summary */
};

struct fg_unwind_set {
  struct fg_unwind_library **libraries;   /* sorted by lo */
  uint32_t n;
  struct fg_unwind_set *older;   /* kept until exit */
};

struct fg_unwind_tables {
  struct fg_unwind_set *_Atomic set;
  /* 1 once a walk met a pc in no library and woke the refresher (through
   * wake_fd, the refresher's eventfd, -1 when none runs), until a refresh
   * finds a new library: one wake-up per library loaded, not one per walk */
  _Atomic int missed;
  _Atomic int wake_fd;
  unsigned long long loads;      /* dl_iterate_phdr's count of loads at the last build */
  uint64_t rows, fdes, skipped;  /* in all libraries read */
};

/* Reads every loaded library's rows. 0, or -1 when out of memory. Not
 * async-signal-safe. */
int fg_unwind_tables_init(struct fg_unwind_tables *t);

/* Reads the libraries loaded since the last build, if any was (one call to
 * dl_iterate_phdr's first entry says), and clears missed then. Not
 * async-signal-safe. Returns how many were added. */
int fg_unwind_tables_refresh(struct fg_unwind_tables *t);

void fg_unwind_tables_free(struct fg_unwind_tables *t);

/* One frame's step from r to its caller. first: r.pc is the interrupted pc
 * (else a return address, looked up one byte back, inside the call). Reads
 * only the stack within b. Returns 1 with the caller's registers in r (fp 0
 * when not known; pc 0 past the thread's first frame), 0 when the frame has no rule (r unchanged; a pc in no
 * library sets missed and, the first time, writes to wake_fd). The step
 * reads the return address just below the caller's sp and, when *fp_at is
 * set non-zero (fp_at may be NULL), the caller's fp there.
 * Async-signal-safe. */
int fg_unwind_step(struct fg_unwind_tables *t, struct fg_bounds b, int first, struct fg_regs *r, uintptr_t *fp_at);

/* r is where a signal handler returned to: the C library's sigreturn
 * trampoline (glibc's __restore_rt, mov rax, 15; syscall), in a library of
 * the set, with sp at the ucontext the kernel saved, whose call frame
 * information is an expression no row holds. Returns 1 with the interrupted
 * registers in r (its pc an interrupted one, not a return address) and
 * rax, rbx, rdx and r13 in scratch[0..3]; 0 when r is not there or the
 * context is not within b. Async-signal-safe. */
int fg_unwind_signal_frame(struct fg_unwind_tables *t, struct fg_bounds b, struct fg_regs *r, uintptr_t scratch[4]);

/* Which set of rows steps now: a new one after every refresh that read a
 * library (sets are kept until exit, so one never comes back). */
static inline uintptr_t fg_unwind_tables_version(struct fg_unwind_tables *t)
{
  return (uintptr_t)atomic_load_explicit(&t->set, memory_order_acquire);
}

#endif
