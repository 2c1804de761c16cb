/* The leak table of nativemem,leak; see leak_table.h. */
#include "native_mem/leak_table.h"

#include <string.h>
#include <sys/mman.h>

#define KEY_EMPTY 0u
#define KEY_TOMB 1u
#define KEY_BUSY 2u

int fg_leak_table_init(struct fg_leak_table *t, uint32_t slots)
{
  memset(t, 0, sizeof *t);
  if (slots < FG_LEAK_WINDOW || (slots & (slots - 1)))
    return -1;
  size_t kb = (size_t)slots * sizeof *t->keys, rb = (size_t)slots * sizeof *t->records;
  void *k = mmap(NULL, kb, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  void *r = mmap(NULL, rb, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (k == MAP_FAILED || r == MAP_FAILED) {
    if (k != MAP_FAILED)
      munmap(k, kb);
    if (r != MAP_FAILED)
      munmap(r, rb);
    return -1;
  }
  t->keys = k;
  t->records = r;
  t->mask = slots - 1;
  return 0;
}

void fg_leak_table_reset(struct fg_leak_table *t)
{
  for (uint32_t i = 0; i <= t->mask; i++)
    atomic_store_explicit(&t->keys[i], KEY_EMPTY, memory_order_relaxed);
  atomic_store_explicit(&t->live, 0, memory_order_relaxed);
  atomic_store_explicit(&t->freed, 0, memory_order_release);
}

static uint32_t home(const struct fg_leak_table *t, uintptr_t addr)
{
  uint64_t h = (uint64_t)addr * 0x9e3779b97f4a7c15ull;
  return (uint32_t)(h >> 32) & t->mask;
}

int fg_leak_table_insert(struct fg_leak_table *t, uintptr_t addr, const struct fg_nm_record *r)
{
  uint32_t at = home(t, addr);
  for (uint32_t i = 0; i < FG_LEAK_WINDOW; i++, at = (at + 1) & t->mask) {
    uintptr_t k = atomic_load_explicit(&t->keys[at], memory_order_relaxed);
    if (k != KEY_EMPTY && k != KEY_TOMB)
      continue;
    if (!atomic_compare_exchange_strong_explicit(&t->keys[at], &k, KEY_BUSY, memory_order_acquire,
                                                 memory_order_relaxed))
      continue;
    t->records[at] = *r;
    atomic_store_explicit(&t->keys[at], addr, memory_order_release);
    atomic_fetch_add_explicit(&t->live, 1, memory_order_relaxed);
    return 1;
  }
  return 0;
}

int fg_leak_table_take(struct fg_leak_table *t, uintptr_t addr, struct fg_nm_record *out)
{
  uint32_t at = home(t, addr);
  for (uint32_t i = 0; i < FG_LEAK_WINDOW; i++, at = (at + 1) & t->mask) {
    uintptr_t k = atomic_load_explicit(&t->keys[at], out ? memory_order_acquire : memory_order_relaxed);
    if (k == KEY_EMPTY)
      return 0;
    if (k == addr && out)
      *out = t->records[at];   /* published before the key (release): read while the key is addr */
    if (k == addr &&
        atomic_compare_exchange_strong_explicit(&t->keys[at], &k, KEY_TOMB, memory_order_relaxed,
                                                memory_order_relaxed)) {
      atomic_fetch_sub_explicit(&t->live, 1, memory_order_relaxed);
      atomic_fetch_add_explicit(&t->freed, 1, memory_order_relaxed);
      return 1;
    }
  }
  return 0;
}

int fg_leak_table_put_back(struct fg_leak_table *t, uintptr_t addr, const struct fg_nm_record *r)
{
  if (!fg_leak_table_insert(t, addr, r))
    return 0;   /* its window filled meanwhile: it stays counted as freed, and is not reported */
  atomic_fetch_sub_explicit(&t->freed, 1, memory_order_relaxed);   /* modulo 2^64: the drainer may have taken it */
  return 1;
}

void fg_leak_table_each(struct fg_leak_table *t, void (*f)(void *ctx, uintptr_t addr, const struct fg_nm_record *r),
                        void *ctx)
{
  for (uint32_t i = 0; i <= t->mask; i++) {
    uintptr_t k = atomic_load_explicit(&t->keys[i], memory_order_acquire);
    if (k > KEY_BUSY)
      f(ctx, k, &t->records[i]);
  }
}
