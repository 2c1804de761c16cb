/* Method* -> jmethodID and the method's bytecode range, for the VM walker's
 * interpreted frames: the handler reads a frame's Method* and bcp from the
 * stack and finds both here, without JVMTI and without reading metaspace.
 * Filled outside the handler, when a class is prepared (fg_classes_preload)
 * and for the classes loaded before the agent.
 *
 * Open addressing, keys published last with release: lookups are plain
 * loads (async-signal-safe), writers take a mutex. A full table is replaced
 * by one twice its size; the old ones are kept until the map is freed,
 * since a handler may still be reading one. */
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
  struct fg_method_slot e[];
};

#define FG_METHOD_MAP_MAX_TABLES 28

struct fg_method_map {
  pthread_mutex_t lock;
  _Atomic(struct fg_method_table *) table;
  struct fg_method_table *tables[FG_METHOD_MAP_MAX_TABLES];   /* every table made, the current last */
  int ntables;
  uint32_t count;
  _Atomic uint32_t generation;   /* bumped after an entry is rewritten with other values */
};

int fg_method_map_init(struct fg_method_map *m);
void fg_method_map_free(struct fg_method_map *m);

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
