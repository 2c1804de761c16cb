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
 * the classes loaded now, not every class ever loaded. A table swapped out is freed once no reader can be in it: the
 * readers (the signal handlers and the copy engine's passes) count
 * themselves in the counter fg_method_map_set_readers gives; without one,
 * old tables are kept until the map is freed. */
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
  struct fg_method_table *retired_next;   /* swapped out: the next older one, under the map's lock */
  struct fg_method_slot e[];
};

#define FG_METHOD_REMOVED ((uintptr_t)1)   /* no Method* is odd */

struct fg_method_map {
  pthread_mutex_t lock;
  _Atomic(struct fg_method_table *) table;
  struct fg_method_table *retired;   /* tables swapped out, not freed yet */
  uint32_t nretired;
  const _Atomic int *readers;   /* readers in a table now; NULL: none counted, old tables kept */
  uint32_t count;               /* live entries */
  uint32_t removed;             /* FG_METHOD_REMOVED keys in the current table */
  uint64_t gone;                /* methods removed so far */
  _Atomic uint32_t generation;   /* bumped after an entry is rewritten with other values or removed */
};

int fg_method_map_init(struct fg_method_map *m);
void fg_method_map_free(struct fg_method_map *m);
/* The counter every reader holds raised while it may hold a table (the
 * sampler's in_handler), so that swapped-out tables can be freed. */
void fg_method_map_set_readers(struct fg_method_map *m, const _Atomic int *readers);
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

/* method's entry, or NULL. Async-signal-safe. */
const struct fg_method_slot *fg_method_map_get(const struct fg_method_map *m, uintptr_t method);

#endif
