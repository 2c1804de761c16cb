/* Where HotSpot's generated code lives: the stubs (DynamicCodeGenerated:
 * arraycopy, the interpreter, adapters, ...) and the compiled methods
 * (read from the code heap as samples find them, code_discovery.h, or
 * CompiledMethodLoad/Unload where that cannot be read), so that the signal
 * handler can tell what the interrupted pc was running when
 * AsyncGetCallTrace could not.
 *
 * Written by JVMTI callbacks under a lock; read by the signal handler without
 * one. Entries are appended in fixed chunks that are never freed or moved, and
 * a count published with release order says how many are complete, so a
 * reader never sees half an entry. An unloaded method's entry is emptied
 * (method NULL) rather than removed. */
#ifndef FG_CODE_MAP_H
#define FG_CODE_MAP_H

#include <jni.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include "walk/x86/frame_layout.h"
#include "hotspot/pc_scopes.h"

#define FG_CODE_CHUNK 4096
#define FG_CODE_CHUNKS 256            /* up to 1M entries */

/* Where a compiled method's frame may be found once HotSpot deoptimized it
 * under a running callee (vm_deopt.h): its return address then points at
 * one of two handlers, and the pc it had is in the frame's own slot. */
struct fg_deopt_sites {
  uint32_t handler, mh_handler;       /* the handlers' offsets from start; 0: none */
  int32_t orig_pc;                    /* the saved pc's slot, in bytes from the frame's sp; -1: unknown */
  uint32_t osr_entry, osr_return;     /* an OSR method: its entry and the return address of its call of
                                         OSR_migration_end, offsets from start (osr_entry.h); 0: none */
  int32_t entry_bci;                  /* with osr_return: nmethod::_entry_bci, the bci it is entered at */
};

struct fg_code_blob {
  uintptr_t start, end;               /* [start, end) */
  _Atomic(jmethodID) method;          /* compiled method; NULL for a stub or once unloaded */
  const struct fg_pc_scopes *scopes;  /* compiled method's scopes, or NULL */
  struct fg_frame_layout layout;      /* the frame its entry code builds; frame_bytes 0: unknown */
  char name[48];                      /* stub name ("jint_arraycopy"); "" for a method */
  uint32_t prev;                      /* 1 + the entry that started in the same granule before it; 0 none */
  int16_t enter;                      /* stubs: offset of push rbp; mov rbp, rsp (fg_stub_enter_at), -1 none */
  uint16_t i2c_end;                   /* adapter blobs: offset just after the i2c part (fg_i2c_end); 0 others */
  uint16_t c2i_tail;                  /* adapter blobs: where r13 holds the caller's sp (fg_c2i_tail); 0 none */
  uint8_t cookie;                     /* the nmethod entry barrier stub: the length of the push of its
                                         cookie before push rbp (frame_pop.c); 0 others */
  struct fg_realigned_frame realigned; /* stubs that realign rsp and keep rbp for data; to 0 for others */
  struct fg_deopt_sites deopt;        /* methods: where a deoptimized frame returns; orig_pc -1 for stubs */
  uintptr_t nm;                       /* methods read from the code heap: their nmethod; 0 others */
  int32_t compile_id;                 /* with nm: its compile id, which a method compiled there later lacks */
  _Atomic uint8_t stale;              /* a lookup found another method's compile id at nm (said once) */
};

/* The pcs of compiled code that lookups found in no live entry, for the
 * code heap's reader to add (code_discovery.h): a slot by pc, the last
 * one written wins, taken with an exchange. Written by signal handlers,
 * which wake the reader (the drainer) with a write to wake_fd unless a
 * wake is pending, as a ring half full does: the sooner a method is read,
 * the fewer samples AsyncGetCallTrace walks alone. */
#define FG_CODE_WANTS 64

struct fg_code_list;

struct fg_code_wants {
  _Atomic uintptr_t pc[FG_CODE_WANTS];
  const struct fg_code_list *stubs;   /* a pc in one of them is no method's: not wanted */
  long nm_compile_id;                 /* nmethod::_compile_id's offset: an entry read from the code heap
                                         whose nmethod no longer has its id is stale (freed, its place
                                         taken) and found as none; -1: not checked */
  long nm_block_used;                 /* HeapBlock::_used from the nmethod (negative: its block's header
                                         is before it): an entry whose block is free is stale too; 0:
                                         not checked */
  _Atomic uint32_t *generation;       /* the map's, changed when a lookup first finds an entry stale */
  int wake_fd;                        /* -1: none, the reader comes at its next pass */
  _Atomic int *wake_pending;          /* set by the waker, cleared by the woken */
};

/* Granules of the code cache, so that finding the entry holding a pc reads
 * a few entries rather than all of them. Set up once the code cache's bounds
 * are known; entries are indexed as they are added. */
#define FG_CODE_GRANULE_SHIFT 10

/* Side by side, so that a lookup reads one cache line of the index. */
struct fg_code_granule {
  _Atomic uint32_t starts;            /* 1 + the newest entry starting in it */
  _Atomic uint32_t covers;            /* 1 + the newest entry running into it from before */
};

struct fg_code_list {
  struct fg_code_blob *chunks[FG_CODE_CHUNKS];
  _Atomic uint32_t count;
  struct fg_code_granule *granule;    /* per granule */
  uintptr_t index_lo;                 /* the first granule's address */
  _Atomic uint32_t granules;          /* 0 until the bounds are set */
  uint32_t widest;                    /* most granules an indexed entry runs into past its first */
  _Atomic(struct fg_code_wants *) wants;   /* methods, while they are read from the code heap: where a
                                              lookup inside the index's bounds that finds no live entry
                                              leaves its pc; NULL else */
};

struct fg_code_map {
  pthread_mutex_t lock;
  struct fg_code_list stubs, methods;
  _Atomic uintptr_t lo, hi;           /* bounds of every entry seen, or the code cache's */
  _Atomic int bounds_fixed;           /* lo/hi come from the VM: do not widen */
  _Atomic uint32_t generation;        /* bumped after a method is unloaded or an entry is added over a
                                         live one (a method not unloaded yet, or a stub) */
  uint64_t dropped;                   /* entries that did not fit */
  struct fg_code_wants wants;         /* methods.wants while a session reads the code heap */
};

int fg_code_map_init(struct fg_code_map *m);
void fg_code_map_free(struct fg_code_map *m);

/* Sets the code cache's bounds as the VM knows them (gHotSpotVMStructs). */
void fg_code_map_set_bounds(struct fg_code_map *m, uintptr_t lo, uintptr_t hi);

/* Not async-signal-safe (they lock and allocate): JVMTI callbacks only. */
void fg_code_map_add_stub(struct fg_code_map *m, const char *name, const void *addr, int32_t len);
/* Where a method read from the code heap (code_heap.h) came from. */
struct fg_code_origin {
  uintptr_t nm;                       /* its nmethod */
  int32_t compile_id;
  uint32_t frame_bytes;               /* CodeBlob::_frame_size: the layout when the entry code is not
                                         the compiler's any more (a method made not entrant has its
                                         verified entry patched with a jump) */
};

/* origin: NULL for a CompiledMethodLoad's. */
void fg_code_map_add_method(struct fg_code_map *m, jmethodID method, const void *addr, int32_t len,
                            const void *compile_info, const struct fg_deopt_sites *deopt,
                            const struct fg_code_origin *origin);
void fg_code_map_remove_method(struct fg_code_map *m, jmethodID method, const void *addr);

/* Async-signal-safe lookups (plain loads, no calls). */
static inline int fg_code_map_contains(const struct fg_code_map *m, uintptr_t pc)
{
  return pc >= atomic_load_explicit(&m->lo, memory_order_relaxed) &&
         pc < atomic_load_explicit(&m->hi, memory_order_relaxed);
}

/* Which entries hold which pcs: read it before a lookup whose answer is
 * kept (pc_cache.h); a change that can make such an answer wrong gives
 * another number. An entry added over code no live entry holds changes no
 * answer that was kept (a pc in no entry is never kept), so it leaves the
 * number alone: HotSpot's JIT keeps compiling in a steady run, and every
 * load used to discard the whole cache. */
static inline uint32_t fg_code_map_generation(const struct fg_code_map *m)
{
  return atomic_load_explicit(&m->generation, memory_order_acquire);
}

/* The newest entry holding pc, or NULL: a granule's few entries once the
 * bounds are set, every entry before. With l->wants: a stale entry (its
 * nmethod's compile id changed: freed and its place taken, before the sweep
 * came to it) is found as none, and a pc in the bounds with no entry, a
 * dead one (method NULL) or a stale one, and in no stub, is left there. The
 * id is read with a plain load at the nmethod, in the code heap, which
 * stays committed (CodeHeap::shrink_by is Unimplemented()). */
const struct fg_code_blob *fg_code_map_find(const struct fg_code_list *l, uintptr_t pc);

/* The same, leaving no want and not checking staleness. */
const struct fg_code_blob *fg_code_map_lookup(const struct fg_code_list *l, uintptr_t pc);

/* Whether b, read from the code heap, no longer holds its nmethod: its
 * block is free, or its compile id changed; never for a CompiledMethodLoad's
 * entry. CodeHeap::deallocate clears only the block's _used, and an
 * allocation from a free block takes its tail (CodeHeap::search_freelist),
 * so another method's code can cover b's pcs while b's header still holds
 * b's compile id. Plain loads of the code heap, whose memory stays committed
 * (CodeHeap::shrink_by is Unimplemented()). */
static inline int fg_code_blob_stale(const struct fg_code_wants *w, const struct fg_code_blob *b)
{
  return b->nm && w->nm_compile_id >= 0 &&
         ((w->nm_block_used && !*(const volatile uint8_t *)(b->nm + (uintptr_t)w->nm_block_used)) ||
          *(const volatile int32_t *)(b->nm + (uintptr_t)w->nm_compile_id) != b->compile_id);
}

/* Empties the live method entries read from the code heap (nm set) among
 * the next n after *next (round robin over the list) for which gone says
 * their nmethod is no more, as an unload does. How many it emptied. Not
 * async-signal-safe (it locks). */
uint32_t fg_code_map_sweep(struct fg_code_map *m, uint32_t *next, uint32_t n,
                           int (*gone)(void *ctx, const struct fg_code_blob *b), void *ctx);

#endif
