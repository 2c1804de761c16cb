/* The calling thread's stack, as the bounds the walkers' reads are checked
 * against. */
#ifndef FG_UNIT_OWN_STACK_H
#define FG_UNIT_OWN_STACK_H

#include <pthread.h>

#include "unit.h"
#include "walk/x86/frame_pop.h"

static inline struct fg_bounds own_stack(void)
{
  pthread_attr_t attr;
  void *addr;
  size_t size;
  assert_int_equal(pthread_getattr_np(pthread_self(), &attr), 0);
  assert_int_equal(pthread_attr_getstack(&attr, &addr, &size), 0);
  pthread_attr_destroy(&attr);
  return (struct fg_bounds){(uintptr_t)addr, (uintptr_t)addr + size, 0, 0};
}

#endif
