/* The call traces of a profiling session, shared by every thread: each
 * distinct stack (its frames, their bcis and types, and the flags that shape
 * it) is stored once, and a sample is one word naming it. The signal handler
 * finds or adds a trace without a lock and without malloc:
 *
 *  - traces live in arena chunks (mmap), carved with an atomic bump; the
 *    drainer keeps a spare chunk ready, its pages already faulted in, and a
 *    handler that finds none maps one itself (a system call, safe in a
 *    signal handler);
 *  - an open-addressing index of trace pointers, filled by compare-and-swap,
 *    finds a stack by its key: two 64-bit hashes of its frames, count and
 *    flags, both kept in the index slot, so that a stack seen before is found
 *    in one cache line without reading its trace (on the demo at 1 ms, 800-1 100
 *    cycles a signal less than comparing the frames: results/handler-parts.md).
 *    When the index is half full the drainer makes one twice as big; handlers
 *    move to it at three quarters, and a lookup reads the older indexes too,
 *    so no trace is moved or lost. Two handlers adding the same new stack at
 *    once may both store it: the drainer's profile merges them by their
 *    frames.
 *
 * The key is trusted: two different stacks with the same key would share a
 * trace. The hash runs four chains of a 64-bit bijective mix, frame i from
 * the outermost feeding chain i % 4: two stacks of one length that differ at
 * one place of a chain never leave it in the same state, so their chains meet
 * only when one of them takes two or more different frames and still comes
 * out the same (about 2^-64 a pair of stacks, as for stacks of different
 * lengths); otherwise both 64-bit halves of the key must match by chance.
 * With a million distinct stacks that is about 3e-8 a profile.
 *
 * Nothing is freed while sampling runs (a handler may be reading any of it);
 * fg_trace_table_destroy frees everything once no handler can run.
 * A byte limit (memlimit=) bounds the chunks and indexes mapped: a new trace
 * that would pass it is refused and counted, known traces still match. */
#ifndef FG_TRACE_TABLE_H
#define FG_TRACE_TABLE_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "fg/forte.h"

/* What a frame in a walk is; kept per frame in its trace. */
enum fg_frame_type {
  FG_FRAME_JAVA = 0,         /* a Java frame, how it runs unknown */
  FG_FRAME_INTERPRETED = 1,
  FG_FRAME_COMPILED = 2,
  FG_FRAME_INLINED = 3,
  FG_FRAME_NATIVE_PC = 4,    /* method_id holds a native pc */
  FG_FRAME_STUB = 5,         /* method_id holds a const struct fg_code_blob * */
  FG_FRAME_KERNEL_PC = 6,    /* method_id holds a kernel pc (event=cpu's callchain) */
  FG_FRAME_CLASS = 7,        /* alloc and lock: method_id holds a class's id (java_events/class_names.h) */
  FG_FRAME_UNREAD = 8,       /* method_id holds a pc in a compiled method the code map had not read (lineno
                                1: the interrupted frame's, 0: a call's return address), named when the
                                trace is (the method and what it inlined there) */
};

/* Whether a frame of this type names a Java method (its method_id a jmethodID). */
static inline int fg_frame_is_java(uint8_t type)
{
  return type == FG_FRAME_JAVA || type == FG_FRAME_INTERPRETED || type == FG_FRAME_COMPILED ||
         type == FG_FRAME_INLINED;
}

/* One stored stack. Traces are 16-byte aligned (a sample may keep 4 bits
 * beside the pointer); the arrays follow the header. */
struct fg_trace {
  uint64_t hash;     /* its key's first half (the index slot keeps both) */
  uint32_t id;       /* 1, 2, ...: in the order traces were added */
  uint32_t n;        /* frames, leaf first */
  uint32_t flags;    /* the walk's flags (FG_SAMPLE_*, tick code included) */
  uint32_t pad;
  /* uint64_t methods[n]; int32_t bcis[n]; uint8_t types[n]; */
};

static inline const uint64_t *fg_trace_methods(const struct fg_trace *t)
{
  return (const uint64_t *)(t + 1);
}

static inline const int32_t *fg_trace_bcis(const struct fg_trace *t)
{
  return (const int32_t *)(fg_trace_methods(t) + t->n);
}

static inline const uint8_t *fg_trace_types(const struct fg_trace *t)
{
  return (const uint8_t *)(fg_trace_bcis(t) + t->n);
}

struct fg_trace_chunk {
  _Atomic size_t used;               /* bytes carved from data */
  size_t size;                       /* bytes of data */
  struct fg_trace_chunk *prev;       /* the chunk it followed, to free at the end */
  size_t mapped;                     /* bytes mapped for it, header included */
  _Alignas(16) unsigned char data[];
};

/* An index slot: one trace's key and address, one 16-byte-aligned pair. */
struct fg_trace_slot {
  /* the trace's address with the top 16 bits of its hash above it (user
   * addresses fit in 48 bits); 0: empty; FG_TRACE_SLOT_CLAIMED: being
   * written (check follows, then the address with release order) */
  _Atomic uintptr_t at;
  _Atomic uint64_t check;            /* the key's second half */
} __attribute__((aligned(16)));

#define FG_TRACE_SLOT_CLAIMED ((uintptr_t)1)

struct fg_trace_index {
  uint32_t capacity;                 /* slots, a power of two */
  _Atomic uint32_t used;
  struct fg_trace_index *older;      /* the index it took over from, still searched */
  size_t mapped;
  struct fg_trace_slot slots[];
};

struct fg_trace_table {
  _Atomic(struct fg_trace_index *) index;     /* the newest */
  _Atomic(struct fg_trace_index *) spare_index;
  _Atomic(struct fg_trace_chunk *) chunk;      /* carving from it */
  _Atomic(struct fg_trace_chunk *) spare_chunk;
  _Atomic uint32_t next_id;
  _Atomic uint32_t stored;           /* traces in the table */
  _Atomic uint64_t mapped;           /* bytes of chunks and indexes */
  uint64_t limit;                    /* 0: none */
  _Atomic uint64_t refused;          /* new traces refused: the limit, or mmap failed */
  _Atomic uint64_t handler_maps;     /* chunks or indexes a handler had to map itself */
  size_t chunk_bytes;                /* a chunk's usual size */
};

/* An empty table with an index of index_slots (a power of two) and one
 * chunk of chunk_bytes; limit 0 means none. 0, or -1 when out of memory. */
int fg_trace_table_init(struct fg_trace_table *t, uint32_t index_slots, size_t chunk_bytes, uint64_t limit);
/* A new limit for what is mapped from now on (0: none); the stacks kept so
 * far count against it. */
void fg_trace_table_set_limit(struct fg_trace_table *t, uint64_t limit);
void fg_trace_table_destroy(struct fg_trace_table *t);

/* The trace of frames[0..n) with their types and the walk's flags, added if
 * new; NULL when it is new and the limit (or the system) refuses the memory.
 * Async-signal-safe, lock-free, any number of threads at once. */
const struct fg_trace *fg_trace_table_put(struct fg_trace_table *t, const ASGCT_CallFrame *frames,
                                          const uint8_t *types, uint32_t n, uint32_t flags);

/* A stack's hash as it is taken, outermost frame first, in four chains
 * (frame i from the outermost in chain i % 4), so that a deep stack's hash
 * waits on a quarter as many multiplies one after the other, and so that the
 * hash of a stack's outer part can be kept and taken on from. */
struct fg_trace_hash {
  uint64_t chain[4];
  uint32_t taken;                    /* frames taken so far */
};

void fg_trace_hash_begin(struct fg_trace_hash *h);

/* Takes tr's frames [from, to), the outermost (to - 1) first. */
void fg_trace_hash_trace_frames(struct fg_trace_hash *h, const struct fg_trace *tr, uint32_t from, uint32_t to);

/* What is known of a stack about to be put: hash is the hash of its last
 * len frames (fg_trace_hash_trace_frames from fg_trace_hash_begin over a
 * trace that ends with them). */
struct fg_trace_suffix {
  uint32_t len;
  struct fg_trace_hash hash;
};

/* fg_trace_table_put, hashing only the frames before the known suffix and
 * taking on from its hash: the suffix's frames are not read. */
const struct fg_trace *fg_trace_table_put_known(struct fg_trace_table *t, const ASGCT_CallFrame *frames,
                                                const uint8_t *types, uint32_t n, uint32_t flags,
                                                const struct fg_trace_suffix *known);

/* The drainer's turn: a bigger index ready once the newest is half full, a
 * spare chunk once the current one is half used, so that handlers seldom map
 * memory themselves; both with their pages faulted in (as are the first
 * ones, by fg_trace_table_init), so that handlers do not fault them in one
 * by one. Not async-signal-safe (it may block in mmap). */
void fg_trace_table_prepare(struct fg_trace_table *t);

/* Traces stored so far (a stack two threads added at once counts twice). */
uint32_t fg_trace_table_count(struct fg_trace_table *t);

#endif
