/* A thread's last walk, kept so that the next one stops where the two
 * stacks meet. Between two samples a thread mostly runs near its leaf: the
 * frames under it are where they were, with the same return addresses and
 * saved registers, and walking them again is most of a deep stack's cost.
 *
 * The VM walker's step from a caller frame (a frame stopped at a call) is a
 * function of the registers it met the frame with, of the stack words it
 * reads (logged here as they are read), of the code map and the method map,
 * and of whether the frame before it was a Java call; the native walker's
 * (threads with no Java, walker.c) of the registers, the words it reads and
 * the unwind tables. A walk that reaches a caller frame at the same pc, sp
 * and fp as a kept frame, with the same flag, while every stack word the
 * kept walk read from that frame on still holds what it read and no map
 * changed (their versions), would write the kept walk's frames from there
 * on: they are copied from its
 * trace instead, and the hash of those frames is kept too, so that storing
 * the trace hashes only the frames before them (fg_trace_table_put_known).
 * The words are checked from the stack's end toward its leaf once a walk,
 * so a walk reads each at most once.
 *
 * Kept frames and reads are stored at the end of their arrays, so that a
 * walk that stopped at kept frame i puts its own frames just before i's and
 * keeps the rest where it is. The arrays live in the thread's scratch room.
 * Written and read only by the thread's own signal handler: no atomics.
 * Async-signal-safe: plain loads and stores, memcpy. */
#ifndef FG_WALK_CACHE_H
#define FG_WALK_CACHE_H

#include <stddef.h>
#include <stdint.h>

#include "fg/forte.h"
#include "fg/trace_table.h"
#include "walk/x86/frame_pop.h"

struct fg_cached_frame {
  uintptr_t pc, sp, fp;     /* the registers the walk met the frame with */
  uint32_t reads_at;        /* its first read in the reads */
  uint32_t to_end : 30;     /* the walk's frames from its first on (while a walk runs: the frames before it) */
  uint32_t java_call : 1;   /* the walker's flag as it came to it: the frame before was a Java call */
  uint32_t sized : 1;       /* popped by its size or rbp: it read the next frame's fp and pc just below its sp */
};

struct fg_stack_read {
  uintptr_t addr, value;
};

#define FG_WALK_CACHE_NONE UINT32_MAX

/* The frames a thread's last walk had, below which the next one does
 * without the cache: the arrays it reads and writes are cold a millisecond
 * later, and on a short stack they cost more than the frames they save
 * (bench_walk times both by depth, caches evicted between walks:
 * results/walk.md). A native frame's step costs several times a Java one's. */
#define FG_WALK_CACHE_MIN_JAVA 40
#define FG_WALK_CACHE_MIN_NATIVE 8

struct fg_walk_cache {
  /* first, in one line: all a walk too short for the cache touches */
  uint32_t last_n;                   /* the last walk's frames, used or not */
  uint32_t min_java, min_native;     /* FG_WALK_CACHE_MIN_*, set by fg_walk_cache_init */
  int recording;                     /* this walk uses the cache and its frames and reads fit so far */
  int pending;                       /* this walk may be kept (fg_walk_cache_commit): its frames are last_n */
  uint32_t spliced_at;               /* the kept frame it went on from, or FG_WALK_CACHE_NONE */
  int usable;                        /* the kept walk may be matched in this walk */
  uint32_t cap, read_cap;
  /* the walk kept: frames[first..cap), their reads from frames[first].reads_at
   * to read_cap; trace holds its frames, the last of them its own */
  struct fg_cached_frame *frames;
  struct fg_trace_hash *hashes;      /* per kept frame: the hash of the trace's frames from its first on */
  struct fg_stack_read *reads;
  uint32_t first;
  const struct fg_trace *trace;      /* NULL: nothing kept */
  uintptr_t code_version, method_version;   /* what the walk's maps were (fg_walk_cache_begin) */
  struct fg_bounds bounds;
  /* the walk under way: its caller frames and their reads */
  struct fg_cached_frame *made;
  struct fg_stack_read *made_reads;
  uint32_t made_n, made_reads_n;
  uintptr_t now_code, now_method;
  struct fg_bounds now_bounds;
  uint32_t at;                       /* the first kept frame not below the walk's frame */
  uint32_t verified;                 /* kept frames[verified..]'s reads still hold */
  uint32_t mismatch;                 /* a kept frame whose reads changed (then verified = mismatch + 1), or NONE */
};

/* Bytes of memory a cache for walks of up to frames frames uses. */
size_t fg_walk_cache_bytes(int frames);

/* A cache over mem, fg_walk_cache_bytes(frames) zeroed bytes (aligned to 8). */
void fg_walk_cache_init(struct fg_walk_cache *c, void *mem, int frames);

/* A walk begins: the versions of the maps it reads (the VM walker: the code
 * map's and the method map's generations; the native walker, native: the
 * unwind tables' set and the code cache's span) and the stack's bounds.
 * Returns 1 when the walk uses the cache (its go_on, read and sized calls),
 * 0 when the last walk was too short for it to pay (min_java, min_native);
 * either way fg_walk_cache_end follows. */
int fg_walk_cache_begin(struct fg_walk_cache *c, uintptr_t code_version, uintptr_t method_version,
                        struct fg_bounds b, int native);

/* At a caller frame r, having written n of room frames: the kept walk's
 * frames from there on copied to f/types, their count (the walk ends
 * there); else -1, and the frame is entered: logged reads are its own. */
int fg_walk_cache_go_on(struct fg_walk_cache *c, const struct fg_regs *r, int java_call, ASGCT_CallFrame *f,
                        uint8_t *types, int n, int room);

/* The frame entered last was popped by its size or through rbp: it read
 * the caller's rbp and return address at sp - 16 and sp - 8 of the next
 * frame, so they are checked against its registers instead of logged. */
static inline void fg_walk_cache_sized(struct fg_walk_cache *c)
{
  if (c->recording && c->made_n > 0)
    c->made[c->made_n - 1].sized = 1;
}

/* The walk read value at addr for the frame it entered last. */
static inline void fg_walk_cache_read(struct fg_walk_cache *c, uintptr_t addr, uintptr_t value)
{
  if (!c->recording)
    return;
  if (c->made_reads_n == c->read_cap) {
    c->recording = 0;
    return;
  }
  c->made_reads[c->made_reads_n++] = (struct fg_stack_read){addr, value};
}

/* What a walk that went on from a kept frame knows of its trace, before it
 * is committed: its last frames are the kept trace's. 0 for another walk. */
int fg_walk_cache_suffix(const struct fg_walk_cache *c, struct fg_trace_suffix *known);

/* The walk has n frames; ended: it ended at its last frame or went on from
 * a kept one (not cut by its room, nor handed on). */
void fg_walk_cache_end(struct fg_walk_cache *c, int n, int ended);

/* The ended walk's trace (its frames the last of trace's), or NULL: the walk
 * is kept in place of the last one, or the last one stays. Called after
 * every walk, ended or not, begun or not. */
void fg_walk_cache_commit(struct fg_walk_cache *c, const struct fg_trace *trace);

#endif
