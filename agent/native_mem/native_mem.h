/* nativemem, leak and nativelock: the application's calls to malloc,
 * calloc, realloc, free, posix_memalign, aligned_alloc, memalign, valloc,
 * pvalloc, reallocarray and to pthread_mutex_lock and _timedlock,
 * pthread_rwlock_rdlock, _wrlock, _timedrdlock and _timedwrlock, seen by pointing
 * every loaded object's import slots for them at fgagent's hooks
 * (import_patch.h), and the slots put back at the session's stop.
 *
 * A hook runs inside the application's malloc or lock: it calls the
 * original first (the symbol's global definition: libc's, or jemalloc's or
 * tcmalloc's under LD_PRELOAD), then decides with a thread-local byte count
 * (initial-exec TLS: no allocation on first touch) whether the call is
 * sampled (nm_sampling.h). A sampled call's stack is walked on the thread by
 * the signal handler's walker from the hook's caller (its native frames,
 * then the Java ones from the thread's frame anchor), stored in the trace
 * table, and the event goes into a lock-free queue (nm_queue.h) the drainer
 * empties at each pass; with leak, into the table of live sampled addresses
 * (leak_table.h) instead, which free empties, and what is left at the stop
 * becomes the profile. No malloc, no lock, no JNI or JVMTI in a hook.
 *
 * Libraries loaded later: JVM_LoadLibrary (System.load and loadLibrary,
 * from libjava) is hooked too and patches what it loaded before it returns;
 * every drainer pass patches objects any other dlopen loaded since. */
#ifndef FG_NATIVE_MEM_H
#define FG_NATIVE_MEM_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "native_mem/leak_table.h"
#include "native_mem/nm_queue.h"

struct fg_agent;
struct fg_drainer;

#define FG_NM_QUEUE_SLOTS (1u << 14)   /* 1 MB of events between two drainer passes */
#define FG_NM_ROOMS 64                 /* walks under way at once; a sample finding none is lost */
#define FG_NM_JAVA_DEPTH 2048          /* Java frames a hook's walk keeps at most */
#define FG_NM_TRAIL_FREED (1u << 19)   /* leak: frees the profile's trail keeps for the recording (20 MB) */

/* leak: the profile thread of the address in the same slot of the table, while its record was its thread's. */
struct fg_leak_owner {
  uintptr_t addr;
  uint64_t serial;
  uint32_t thread;
};

/* What the hooks lost, of one event (nativemem or nativelock). */
struct fg_nm_counts {
  _Atomic uint64_t taken;        /* sampled calls (waits at or over the threshold) */
  _Atomic uint64_t no_room;      /* no walk room free (more threads sampling at once than FG_NM_ROOMS) */
  _Atomic uint64_t no_memory;    /* the trace table refused the stack (memlimit) */
  _Atomic uint64_t full;         /* the queue or the leak table was full */
  _Atomic uint64_t lost_weight;  /* the bytes or nanoseconds of those */
  _Atomic uint64_t below;        /* nativelock: contended waits shorter than the threshold */
};

struct fg_native_mem {
  _Atomic int mem_on, lock_on, leak_on;   /* what the hooks record now */
  uint64_t interval;             /* nativemem=: mean bytes between samples, 0 every call */
  uint64_t lock_ns;              /* nativelock=: the shortest wait recorded */
  _Atomic uint32_t session;      /* counts starts: a thread's byte count from an earlier one is drawn again */
  _Atomic int inflight;          /* sampled calls being recorded */
  _Atomic uint64_t rooms_busy;   /* a bit a walk room */
  void *rooms;                   /* FG_NM_ROOMS rooms of room_frames frames and types, mapped once */
  int room_frames;
  struct fg_agent *agent;
  struct fg_nm_queue queue;
  struct fg_leak_table leaks;
  struct fg_leak_owner *owners;  /* the drainer's: the profile thread of each live address's thread, named while
                                    it lived (an allocation outlives its thread, whose record is taken again) */
  struct fg_nm_counts mem, lock;
  _Atomic uint64_t leak_flush;   /* 1: the stop asks the drainer's last pass for the table */
  _Atomic uint64_t frees_unrecorded;   /* leak: frees of sampled allocations the queue had no room for */
  _Atomic uint64_t frees_late;         /* leak: held addresses malloc gave again: their frees went unseen */
  uint64_t loads_seen;           /* dlpi_adds when the objects were last patched */
  uint32_t patched_slots, foreign_slots, patch_failed;
  int patched;                   /* the import slots point at the hooks (set and cleared under the patching lock) */
  int hook_kinds;                /* FG_NM_HOOK_*: the session's hooks */
};

#define FG_NM_HOOK_MEM 1u
#define FG_NM_HOOK_LOCK 2u

extern struct fg_native_mem fg_nm;

/* Turns on what a->opts asks (nativemem, leak, nativelock): 0, or -1 with a
 * line in msg saying what is not recorded and why. */
int fg_native_mem_start(struct fg_agent *a, char *msg, size_t len);
/* Puts the import slots back and waits out sampled calls being recorded:
 * after it no event is queued; leak's table waits for the drainer's last pass. */
void fg_native_mem_stop(struct fg_agent *a);
/* The drainer's pass: queued events into the profile, objects loaded since
 * patched; the last pass (after stop) takes leak's table too. */
void fg_native_mem_drain(struct fg_drainer *d);

/* hooks.c: the hooks and the originals they call; the walk of a sampled
 * call (native_mem.c), from its caller's pc, stack and frame pointers. */
void fg_nm_hooks_resolve(void);
enum { FG_NM_PATCH_START, FG_NM_PATCH_MORE, FG_NM_PATCH_RESTORE };
int fg_nm_hooks_patch(int how, uint32_t *slots, uint32_t *foreign, uint32_t *failed);
void fg_nm_record(int event, uintptr_t addr, uint64_t weight, uint64_t calls, uintptr_t pc, uintptr_t sp,
                  uintptr_t fp);
/* leak: the sampled allocation at addr (its record r, taken out of leak's
 * table) freed at freed_ns: queued for the profile's trail (the recording's
 * profiler.Free), or counted in frees_unrecorded. freed_ns is read before
 * the block goes back to the allocator: once it has, another thread may be
 * given the address and record its allocation, which must come later. */
void fg_nm_freed(uintptr_t addr, struct fg_nm_record *r, uint64_t freed_ns);

#endif
