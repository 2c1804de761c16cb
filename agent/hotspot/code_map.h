/* Where HotSpot's generated code lives: the stubs (DynamicCodeGenerated:
 * arraycopy, the interpreter, adapters, ...) and the compiled methods
 * (CompiledMethodLoad/Unload), so that the signal handler can tell what the
 * interrupted pc was running when AsyncGetCallTrace could not.
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
  struct fg_realigned_frame realigned; /* stubs that realign rsp and keep rbp for data; to 0 for others */
  struct fg_deopt_sites deopt;        /* methods: where a deoptimized frame returns; orig_pc -1 for stubs */
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
};

struct fg_code_map {
  pthread_mutex_t lock;
  struct fg_code_list stubs, methods;
  _Atomic uintptr_t lo, hi;           /* bounds of every entry seen, or the code cache's */
  _Atomic int bounds_fixed;           /* lo/hi come from the VM: do not widen */
  _Atomic uint32_t generation;        /* bumped after a method is unloaded or an entry is added over a
                                         live one (a method not unloaded yet, or a stub) */
  uint64_t dropped;                   /* entries that did not fit */
};

int fg_code_map_init(struct fg_code_map *m);
void fg_code_map_free(struct fg_code_map *m);

/* Sets the code cache's bounds as the VM knows them (gHotSpotVMStructs). */
void fg_code_map_set_bounds(struct fg_code_map *m, uintptr_t lo, uintptr_t hi);

/* Not async-signal-safe (they lock and allocate): JVMTI callbacks only. */
void fg_code_map_add_stub(struct fg_code_map *m, const char *name, const void *addr, int32_t len);
void fg_code_map_add_method(struct fg_code_map *m, jmethodID method, const void *addr, int32_t len,
                            const void *compile_info, const struct fg_deopt_sites *deopt);
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
 * bounds are set, every entry before. */
const struct fg_code_blob *fg_code_map_find(const struct fg_code_list *l, uintptr_t pc);

#endif
