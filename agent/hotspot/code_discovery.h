/* The code map's compiled methods read from the code heap (code_heap.h)
 * as samples find them: a lookup that finds no live entry for a pc in the
 * code cache leaves the pc (code_map.h, fg_code_wants); the drainer's
 * pass takes those pcs, finds each one's nmethod, names its scopes'
 * methods through the Method* map (or the method's class where the map
 * has none, a retransformed method), and adds the entry. The sample that
 * met the pc was walked by AsyncGetCallTrace from there (walker=vm) or
 * held for the entry (walker=copy), as for a method whose load event had
 * not come.
 *
 * With no unload event, entries whose nmethod is gone are found by
 * reading each one's compile id again, a slice of the map each pass: a
 * method compiled where a freed one was has another. Until the sweep
 * reaches it, a sample in the new code is named after the freed method. */
#ifndef FG_CODE_DISCOVERY_H
#define FG_CODE_DISCOVERY_H

#include <jni.h>
#include <pthread.h>
#include <stdint.h>

struct fg_code_map;
struct fg_code_heap;
struct fg_method_map;
struct fg_vm_deopt;

#define FG_CODE_TRIED 256

struct fg_code_discovery {
  pthread_mutex_t lock;               /* the drainer's pass and the copy engine's take */
  struct fg_code_map *code;
  struct fg_code_heap *heap;
  struct fg_method_map *methods;
  const struct fg_vm_deopt *deopt;
  uint32_t next;                      /* the sweep's next entry */
  uint64_t swept_ns;                  /* CLOCK_MONOTONIC at the last sweep; 0: none yet */
  int names_learned;                  /* fg_code_heap_learn_names was run this session */
  uint64_t tried[FG_CODE_TRIED];      /* nmethods not added (a frame without a jmethodID, malformed
                                         records): nm ^ compile id, so a want for them is dropped */
  uint64_t found, unnamed, gone;      /* nmethods added, not added for want of their method's
                                         jmethodID, swept */
};

/* A jmethodID for Method* method (ctx: the discovery): the Method* map's,
 * or the one its class holds. */
jmethodID fg_code_discovery_method_id(void *ctx, uintptr_t method);

/* The jmethodID of the method whose nmethod holds pc in the code heap now,
 * or NULL: freed, or (*unnamed set) no jmethodID names its method (a
 * method-handle intrinsic is in no class's methods). For a frame that could
 * not be read in time. *bci: the method's entry bci when pc is in its OSR
 * entry (osr_entry.h), else -1 (not known). */
jmethodID fg_code_discovery_method_at(struct fg_code_discovery *d, uintptr_t pc, int *unnamed, jint *bci);

/* Takes the wants, adds their methods, and sweeps a slice: the drainer's
 * pass. Not async-signal-safe. */
void fg_code_discovery_pass(struct fg_code_discovery *d);

/* Takes the wants and adds their methods, unless a pass is under way:
 * the copy engine's, whose copies wait for them while the drainer may be
 * busy naming or verifying for longer than a copy is held. */
void fg_code_discovery_take(struct fg_code_discovery *d);

#endif
