/* What the walker learned of a return address in compiled code (the
 * method holding it and the frames of its debug record there), kept across
 * walks and threads: a profile samples the same stacks again and again, and
 * a frame found here costs one slot instead of a code map lookup and a
 * binary search of the method's records.
 *
 * A direct-mapped table written and read by signal handlers on any thread,
 * without locks: each slot is a sequence lock (odd while written; a writer
 * that finds it odd, or loses the race to make it so, leaves the slot
 * alone), and a reader takes a slot only when its sequence was even and the
 * same before and after the read. A slot also holds the code map's
 * generation it was filled under (fg_code_map_generation, bumped by every
 * method loaded or unloaded) and is not taken under another: the blobs and
 * records it points to are never freed, but they may no longer be what
 * holds that pc. Async-signal-safe: plain loads and stores, atomics. The
 * sequence lock's fences are those of x86-64, the only target of the
 * walker. */
#ifndef FG_CALL_SITES_H
#define FG_CALL_SITES_H

#include <jni.h>
#include <stdatomic.h>
#include <stdint.h>

#include "code_map.h"

#define FG_CALL_SITE_BITS 12   /* 4096 slots of 64 bytes */

/* A pc in compiled code, as the walker needs it. */
struct fg_call_site_info {
  const struct fg_code_blob *m;   /* the compiled method holding the pc */
  jmethodID id;                   /* m's method when it was looked up */
  const jmethodID *methods;       /* the frames of m's first record at or above the pc, innermost first */
  const jint *bcis;
  uint32_t count;                 /* 0: no record there */
  uint8_t exact;                  /* that record is at the pc itself: the pc is a Java call's return address */
  uint8_t own;                    /* its outermost frame is m's method */
};

struct fg_call_site {
  _Atomic uint32_t seq;
  uint32_t generation;
  uintptr_t pc;
  struct fg_call_site_info info;
} __attribute__((aligned(64)));

struct fg_call_sites {
  struct fg_call_site *slots;
};

/* Not async-signal-safe (they allocate and free): at start and exit. */
int fg_call_sites_init(struct fg_call_sites *c);
void fg_call_sites_free(struct fg_call_sites *c);

/* 1 and *out when pc's slot holds pc as it was under generation. */
int fg_call_sites_get(const struct fg_call_sites *c, uintptr_t pc, uint32_t generation,
                      struct fg_call_site_info *out);

/* Keeps what is known of pc, looked up under generation (read before the
 * lookup), unless another thread is writing its slot. */
void fg_call_sites_put(struct fg_call_sites *c, uintptr_t pc, uint32_t generation,
                       const struct fg_call_site_info *in);

#endif
