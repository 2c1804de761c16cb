/* What the walker learned of a pc in the code cache, kept across walks and
 * threads: a profile samples the same code again and again, and a pc found
 * here costs one slot (two adjacent cache lines) instead of a code map
 * lookup, the method's debug records and its frame layout, each a cache
 * miss of its own once the application's work between two samples has
 * evicted them. Kept for the return addresses of callers and for the
 * interrupted pcs of top frames (which take the record after the pc, and
 * how the frame pops there), as two keys; and, for top pcs, as ranges: the
 * pcs of one granule of code that look up as one (between the same two
 * debug records, the frame built at each of their bytes) are kept once, so
 * that a pc sampled for the first time near one sampled before is found.
 * A profile's interrupted pcs are most of them new for a long while (on the
 * demo a third of its top frames missed, two thirds of those in empty
 * slots, and a table twice the size missed as often), and a miss costs a
 * code map lookup, the method's record and its frame's plan: 6 000-8 000
 * cycles against about 500 for a hit.
 *
 * A direct-mapped table written and read by signal handlers on any thread,
 * without locks: each slot is a sequence lock (odd while written; a writer
 * that finds it odd, or loses the race to make it so, leaves the slot
 * alone), and a reader takes a slot only when its sequence was even and the
 * same before and after the read. A slot also holds the code map's
 * generation it was filled under (fg_code_map_generation: bumped when a
 * method is unloaded, or loaded over code the map held before) and is not
 * taken under another: the blobs and records it points to are never freed,
 * but they may no longer be what holds that pc. Async-signal-safe: plain
 * loads and stores, atomics. The sequence lock's fences are those of
 * x86-64, the only target of the walker. */
#ifndef FG_PC_CACHE_H
#define FG_PC_CACHE_H

#include <jni.h>
#include <stdatomic.h>
#include <stdint.h>

#include "hotspot/code_map.h"

#define FG_PC_CACHE_BITS 13      /* 8192 slots of 128 bytes: 1 MB, on one huge page where the kernel gives one */
#define FG_PC_INLINE_FRAMES 4    /* a record's frames kept in the slot itself; deeper ones through pointers */

enum fg_pc_kind {
  FG_PC_UNKNOWN,   /* in no blob the map holds (not kept) */
  FG_PC_METHOD,    /* a compiled method */
  FG_PC_STUB,      /* a stub, adapter or the interpreter */
};

/* A pc in the code cache, as the walker needs it. */
struct fg_pc_info {
  const struct fg_code_blob *blob;   /* the method or stub holding the pc */
  jmethodID id;                      /* a method's id when it was looked up */
  const struct fg_scope_frame *frames;   /* the frames of the method's first record at or above the pc (a
                                            top pc: above pc + 1), innermost first; see fg_pc_frames */
  uint32_t count;                    /* 0: no record there */
  uint32_t frame_bytes;              /* the method's frame (blob->layout) */
  uint8_t kind;                      /* enum fg_pc_kind */
  uint8_t exact;                     /* the record is at the pc itself: a Java call's return address */
  uint8_t own;                       /* the record's outermost frame is the method itself */
  uint8_t scoped;                    /* the method has debug records at all (not a native wrapper) */
  uint8_t rbp_based;                 /* the method's frame is found through rbp (blob->layout) */
  uint8_t interpreter;               /* a stub: the interpreter */
  uint8_t top_pop;                   /* a top pc: how its frame pops there (enum fg_top_pop) */
  uint8_t in_body;                   /* a top pc: in the body, its whole frame built and not torn down */
  struct fg_scope_frame inline_frames[FG_PC_INLINE_FRAMES];
};

/* The record's frames (count of them): the slot's own copy when it holds them. */
static inline const struct fg_scope_frame *fg_pc_frames(const struct fg_pc_info *i)
{
  return i->count <= FG_PC_INLINE_FRAMES ? i->inline_frames : i->frames;
}

/* A pc's key: an interrupted pc (top) is known apart from the same pc as a
 * return address. 0 only for pc 0, which is never kept. */
static inline uintptr_t fg_pc_key(uintptr_t pc, int top)
{
  return pc << 2 | (top != 0);
}

#define FG_PC_RANGE_BYTES 64   /* a top range's granule of code */

/* The key of the top range kept for pc's granule: apart from every pc's
 * key (bit 1). */
static inline uintptr_t fg_pc_range_key(uintptr_t pc)
{
  return (pc / FG_PC_RANGE_BYTES) << 2 | 2;
}

struct fg_pc_slot {
  _Atomic uint32_t seq;
  uint32_t generation;
  uintptr_t key;                     /* fg_pc_key or fg_pc_range_key; 0: empty */
  struct fg_pc_info info;
  uint16_t lo, hi;                   /* a range's pcs: [lo, hi) from its granule's start */
} __attribute__((aligned(128)));
_Static_assert(sizeof(struct fg_pc_slot) == 128, "a slot is two cache lines");

struct fg_pc_cache {
  struct fg_pc_slot *slots;
  void *base;                        /* the mapping, and its size */
  size_t bytes;
};

/* Not async-signal-safe (they map and unmap): at start and exit. */
int fg_pc_cache_init(struct fg_pc_cache *c);
void fg_pc_cache_free(struct fg_pc_cache *c);

/* 1 and *out when (pc, top)'s slot holds it as it was under generation. */
int fg_pc_cache_get(const struct fg_pc_cache *c, uintptr_t pc, int top, uint32_t generation, struct fg_pc_info *out);

/* Keeps what is known of (pc, top), looked up under generation (read before
 * the lookup), unless another thread is writing its slot. */
void fg_pc_cache_put(struct fg_pc_cache *c, uintptr_t pc, int top, uint32_t generation, const struct fg_pc_info *in);

/* 1 and *out when a range kept under generation holds the top pc pc. */
int fg_pc_cache_get_range(const struct fg_pc_cache *c, uintptr_t pc, uint32_t generation, struct fg_pc_info *out);

/* Keeps in for every top pc in [lo, hi), a range inside one granule
 * (nothing otherwise), as fg_pc_cache_put keeps a pc. */
void fg_pc_cache_put_range(struct fg_pc_cache *c, uintptr_t lo, uintptr_t hi, uint32_t generation,
                           const struct fg_pc_info *in);

/* The slot a key goes to. */
static inline uint32_t fg_pc_slot_index(uintptr_t key)
{
  return (uint32_t)((key * 0x9e3779b97f4a7c15ull) >> (64 - FG_PC_CACHE_BITS));
}

/* Asks for pc's slot ahead of its lookup: the handler asks for the
 * interrupted pc's as the signal begins, so that the slot's cache miss
 * overlaps the handler's first parts instead of starting the walk (the
 * walk's part 240-510 cycles less a signal at 1 ms, results/handler-parts.md);
 * for a top pc, its range's slot too. slots: the cache's, kept where the
 * handler reads anyway; NULL: none. */
static inline void fg_pc_cache_prefetch(const struct fg_pc_slot *slots, uintptr_t pc, int top)
{
  if (!slots)
    return;
  const char *s = (const char *)&slots[fg_pc_slot_index(fg_pc_key(pc, top))];
  __builtin_prefetch(s);
  __builtin_prefetch(s + 64);   /* a slot is two lines */
  if (top) {
    const char *r = (const char *)&slots[fg_pc_slot_index(fg_pc_range_key(pc))];
    __builtin_prefetch(r);
    __builtin_prefetch(r + 64);
  }
}

#endif
