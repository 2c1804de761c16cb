/* walker=copy: copies held back because their walk met code the code map
 * has no record of yet. HotSpot installs a compiled method and runs it; the
 * code map reads it from the code heap once a lookup asked for it
 * (code_discovery.h), and a walk from the copy, with no AsyncGetCallTrace
 * behind it, stopped there meanwhile. A held copy is walked again once the
 * map has more methods, until FG_COPY_HELD_NS has passed.
 *
 * Entries keep the order they came in, and a thread with a copy held has
 * its later copies held behind it, so each thread's samples are stored in
 * the order they were taken. The copy engine's alone (not async-signal-safe:
 * it allocates). */
#ifndef FG_COPY_HELD_H
#define FG_COPY_HELD_H

#include <stddef.h>
#include <stdint.h>

#define FG_COPY_HELD_MAX 64          /* copies held at most: the oldest gives up first */
#define FG_COPY_HELD_NS 100000000ull /* how long a copy waits for its record */
#define FG_COPY_GAVE_UP 16           /* pcs whose record never came, remembered */

struct fg_copy_held_entry {
  int tid;
  uint64_t since_ns;                 /* when it was held, CLOCK_MONOTONIC */
  uint32_t methods_seen;             /* the code map's methods at its last walk */
  int walked;                        /* 0: held behind its thread's first without a walk of its own */
  uint32_t size;
  uint8_t *rec;                      /* the sample record, copied */
};

struct fg_copy_held {
  struct fg_copy_held_entry e[FG_COPY_HELD_MAX];
  uint32_t n;
  uintptr_t gave_up[FG_COPY_GAVE_UP];
  uint32_t gave_up_next;
};

/* Whether a copy of tid is held. */
int fg_copy_held_has(const struct fg_copy_held *h, int tid);

/* Holds a copy of the record rec[0..size) after the others; walked: its
 * walk stopped at code with no record when the map held methods_seen
 * methods (0: it only follows its thread's held copy, not walked yet). 0;
 * -1 when FG_COPY_HELD_MAX are held or there is no memory. */
int fg_copy_held_add(struct fg_copy_held *h, int tid, const uint8_t *rec, size_t size, uint64_t now_ns,
                     uint32_t methods_seen, int walked);

/* Lets entry i go, the others keeping their order. */
void fg_copy_held_remove(struct fg_copy_held *h, uint32_t i);

/* Walks again each held copy that is due, in the order they came, through
 * walk(ctx, entry, last), which returns 1 when it stored the copy (it is let
 * go) and 0 when its code still has no record (it waits, and its thread's
 * later copies behind it). A copy is due when it was never walked, when the
 * code map holds more methods than at its last walk, or when last: it
 * waited FG_COPY_HELD_NS, or the caller says last (its thread ends, or
 * sampling does), and it is then stored however it walks. tid: only that
 * thread's copies; 0: all. */
void fg_copy_held_release(struct fg_copy_held *h, int tid, int last, uint32_t methods_seen, uint64_t now_ns,
                          int (*walk)(void *ctx, const struct fg_copy_held_entry *x, int last), void *ctx);

/* pc's record never came in a copy's time: copies stopped there are not
 * held again. */
void fg_copy_held_give_up(struct fg_copy_held *h, uintptr_t pc);
int fg_copy_held_gave_up_on(const struct fg_copy_held *h, uintptr_t pc);

/* Every entry let go, and the pcs given up on forgotten. */
void fg_copy_held_clear(struct fg_copy_held *h);

#endif
