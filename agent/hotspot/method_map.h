/* Method* -> jmethodID and the method's bytecode range, for the VM walker's
 * interpreted frames: the handler reads a frame's Method* and bcp from the
 * stack and finds both here, without JVMTI and without reading metaspace.
 * Filled outside the handler, when a class is prepared (fg_classes_preload)
 * and for the classes loaded before the agent.
 *
 * Open addressing, keys published last with release: lookups are plain
 * loads (async-signal-safe), writers take a mutex. A method whose class was
 * unloaded is removed (its key becomes FG_METHOD_REMOVED, which probes pass
 * over and a new entry may take). When the live and removed entries pass
 * half the table, or the live ones fall under a sixteenth of it, the live
 * ones move to a new table a quarter full with them, so the map follows
 * the classes loaded now, not every class ever loaded.
 *
 * Readers: the signal handler's walk, the copy engine's, the alloc and
 * lock callbacks' walk on application threads (all three through
 * fg_vm_walk) and the drainer (code_discovery.c, from its passes and from
 * CompiledMethodLoad) each announce themselves with fg_method_map_enter
 * before their first lookup and fg_method_map_leave after their last use
 * of what it returned; a slot pointer is valid only in between. A table
 * swapped out is freed once no announced reader can hold it: see reclaim
 * in method_map.c for the argument. Entering and leaving are two atomic
 * increments of a counter (no lock, no allocation: async-signal-safe), and
 * the writer never waits for readers, so a handler that interrupts it
 * cannot deadlock and a reader stopped for good (a debugger) keeps old
 * tables allocated, never the writer. */
#ifndef FG_METHOD_MAP_H
#define FG_METHOD_MAP_H

#include <jni.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

struct fg_method_slot {
  _Atomic uintptr_t method;   /* the Method*; 0 for an empty slot */
  jmethodID id;
  uintptr_t code;             /* first bytecode; bci = bcp - code */
  uint32_t code_len;          /* 0: a native or abstract method */
};

struct fg_method_table {
  uint32_t mask;
  size_t bytes;                            /* the mapping's size */
  struct fg_method_table *retired_next;   /* swapped out: the next older one, under the map's lock */
  struct fg_method_slot e[];
};

#define FG_METHOD_REMOVED ((uintptr_t)1)   /* no Method* is odd */

struct fg_method_map {
  pthread_mutex_t lock;
  _Atomic(struct fg_method_table *) table;
  struct fg_method_table *retired;   /* swapped out since the last flip of epoch */
  struct fg_method_table *waiting;   /* swapped out before it: freed once readers[epoch - 1's parity] is 0 */
  uint32_t nretired;                 /* tables swapped out and not freed yet (retired and waiting) */
  _Atomic unsigned long epoch;       /* flipped by the writer, never by readers */
  _Atomic int readers[2];            /* readers announced under an epoch of each parity */
  uint32_t count;               /* live entries */
  uint32_t removed;             /* FG_METHOD_REMOVED keys in the current table */
  uint64_t gone;                /* methods removed so far */
  _Atomic uint32_t generation;   /* bumped after an entry is rewritten with other values or removed */
};

int fg_method_map_init(struct fg_method_map *m);
void fg_method_map_free(struct fg_method_map *m);

/* A reader announces itself before its first lookup: the token for
 * fg_method_map_leave. Async-signal-safe (atomics); readers nest (a
 * handler interrupting a walk on the same thread enters again). Retries
 * only while the writer flips the epoch under it, which it does at most
 * once a put or remove. */
static inline unsigned fg_method_map_enter(struct fg_method_map *m)
{
  for (;;) {
    unsigned long e = atomic_load(&m->epoch);
    atomic_fetch_add(&m->readers[e & 1], 1);
    if (atomic_load(&m->epoch) == e)   /* counted under the epoch it read: see reclaim */
      return (unsigned)(e & 1);
    atomic_fetch_sub(&m->readers[e & 1], 1);
  }
}

/* After the reader's last use of a slot fg_method_map_get returned. */
static inline void fg_method_map_leave(struct fg_method_map *m, unsigned token)
{
  atomic_fetch_sub(&m->readers[token], 1);
}
/* Removes method's entry (its class was unloaded). 0, or -1 when it had none. */
int fg_method_map_remove(struct fg_method_map *m, uintptr_t method);

/* Adds or replaces method's entry. -1 when memory runs out (the map keeps
 * what it had). Not async-signal-safe. A replaced entry's values are
 * rewritten in place: a handler reading it at that moment may see old and
 * new values mixed, which happens only when a freed Method*'s address is
 * reused by another class's method. */
int fg_method_map_put(struct fg_method_map *m, uintptr_t method, jmethodID id, uintptr_t code, uint32_t code_len);

/* Changes after an entry's values changed (walk_cache.h keeps walks under
 * one generation). Async-signal-safe. */
static inline uint32_t fg_method_map_generation(const struct fg_method_map *m)
{
  return atomic_load_explicit(&m->generation, memory_order_acquire);
}

/* method's entry, or NULL. Async-signal-safe. Between fg_method_map_enter
 * and fg_method_map_leave only (or under the map's lock, as its writers). */
const struct fg_method_slot *fg_method_map_get(const struct fg_method_map *m, uintptr_t method);

/* method's jmethodID, or NULL: a lookup that announces itself, for readers
 * that use nothing else of the entry (the drainer's). */
jmethodID fg_method_map_id(struct fg_method_map *m, uintptr_t method);

#endif
