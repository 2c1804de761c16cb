/* The hooks' bounded queue; see nm_queue.h. */
#include "native_mem/nm_queue.h"

#include <string.h>
#include <sys/mman.h>

int fg_nm_queue_init(struct fg_nm_queue *q, uint32_t slots)
{
  memset(q, 0, sizeof *q);
  if (slots < 2 || (slots & (slots - 1)))
    return -1;
  void *m = mmap(NULL, (size_t)slots * sizeof *q->slots, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (m == MAP_FAILED)
    return -1;
  q->slots = m;
  q->mask = slots - 1;
  fg_nm_queue_reset(q);
  return 0;
}

void fg_nm_queue_reset(struct fg_nm_queue *q)
{
  for (uint64_t i = 0; i <= q->mask; i++)
    atomic_store_explicit(&q->slots[i].seq, i, memory_order_relaxed);
  q->tail = 0;
  atomic_store_explicit(&q->head, 0, memory_order_release);
}

int fg_nm_queue_push(struct fg_nm_queue *q, const struct fg_nm_record *r)
{
  uint64_t pos = atomic_load_explicit(&q->head, memory_order_relaxed);
  for (;;) {
    struct fg_nm_slot *s = &q->slots[pos & q->mask];
    uint64_t seq = atomic_load_explicit(&s->seq, memory_order_acquire);
    int64_t dif = (int64_t)(seq - pos);
    if (dif == 0) {
      if (atomic_compare_exchange_weak_explicit(&q->head, &pos, pos + 1, memory_order_relaxed,
                                                memory_order_relaxed)) {
        s->r = *r;
        atomic_store_explicit(&s->seq, pos + 1, memory_order_release);
        return 1;
      }
    } else if (dif < 0) {
      return 0;   /* a lap behind: full */
    } else {
      pos = atomic_load_explicit(&q->head, memory_order_relaxed);
    }
  }
}

int fg_nm_queue_pop(struct fg_nm_queue *q, struct fg_nm_record *r)
{
  struct fg_nm_slot *s = &q->slots[q->tail & q->mask];
  if (atomic_load_explicit(&s->seq, memory_order_acquire) != q->tail + 1)
    return 0;
  *r = s->r;
  atomic_store_explicit(&s->seq, q->tail + q->mask + 1, memory_order_release);
  q->tail++;
  return 1;
}

uint64_t fg_nm_queue_used(struct fg_nm_queue *q)
{
  return atomic_load_explicit(&q->head, memory_order_relaxed) - q->tail;
}
