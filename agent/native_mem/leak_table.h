/* nativemem,leak: the sampled allocations of the session not freed yet,
 * by address. A fixed budget (FG_LEAK_SLOTS, mapped once: keys 8 bytes and
 * a record each) of open addressing with a bounded probe window; lock-free,
 * for hooks inside malloc and free: a key goes EMPTY -> BUSY (claimed by one
 * compare-and-swap) -> address (the record written first, published with a
 * release store) -> TOMB (freed: one compare-and-swap from that address) ->
 * BUSY (claimed again)... A key is never EMPTY again within a session, so a
 * look-up stops at the first EMPTY one: no insert went past it. A table
 * with no room in the address's window refuses (the caller counts it
 * lost). A late free from a hook still running when the next session
 * emptied the table finds no key equal to its address and changes nothing. */
#ifndef FG_LEAK_TABLE_H
#define FG_LEAK_TABLE_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "native_mem/nm_record.h"

#define FG_LEAK_SLOTS (1u << 17)   /* 128 Ki sampled allocations alive at once: 9 MB */
#define FG_LEAK_WINDOW 32          /* slots a key may be from its hash's */

struct fg_leak_table {
  _Atomic uintptr_t *keys;
  struct fg_nm_record *records;
  uint32_t mask;
  _Atomic uint64_t live;        /* addresses held (a moment's view) */
  _Atomic uint64_t freed;       /* addresses removed since the last take (the drainer's) */
};

/* slots: a power of two. 0, or -1 when the memory is refused. */
int fg_leak_table_init(struct fg_leak_table *t, uint32_t slots);
/* Forgets every address; only while no hook may insert. */
void fg_leak_table_reset(struct fg_leak_table *t);
/* 1 when addr (a pointer malloc gave: not 0, 1 or 2) is held with r, 0 when its window is full. */
int fg_leak_table_insert(struct fg_leak_table *t, uintptr_t addr, const struct fg_nm_record *r);
/* 1 when addr was held and is no more; its record copied into *out (when
 * not NULL) first: an address is given again only after its free, so the
 * slot's record is its own until the free takes it out. */
int fg_leak_table_take(struct fg_leak_table *t, uintptr_t addr, struct fg_nm_record *out);
static inline int fg_leak_table_remove(struct fg_leak_table *t, uintptr_t addr)
{
  return fg_leak_table_take(t, addr, NULL);
}
/* addr taken (fg_leak_table_take) before a realloc that then failed: still
 * the caller's, so no other thread can hold it; held again with r, and not
 * counted as freed. 1, or 0 when its window is full. */
int fg_leak_table_put_back(struct fg_leak_table *t, uintptr_t addr, const struct fg_nm_record *r);
/* Calls f on each address still held, with its record. */
void fg_leak_table_each(struct fg_leak_table *t, void (*f)(void *ctx, uintptr_t addr, const struct fg_nm_record *r),
                        void *ctx);

#endif
