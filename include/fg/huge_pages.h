/* A hint that a large buffer be backed by transparent huge pages: one
 * fault a 2 MB page instead of 512, which is most of what filling a large
 * buffer costs in a guest (each fault exits to the hypervisor). Only the
 * 2 MB-aligned interior is advised; a kernel without THP, or with it off,
 * ignores it. It changes no byte. */
#ifndef FG_HUGE_PAGES_H
#define FG_HUGE_PAGES_H

#include <stddef.h>
#include <stdint.h>
#include <sys/mman.h>

#define FG_HUGE_PAGE (2u << 20)

static inline void fg_huge_pages_hint(void *p, size_t len)
{
#ifdef MADV_HUGEPAGE
  uintptr_t a = ((uintptr_t)p + FG_HUGE_PAGE - 1) & ~(uintptr_t)(FG_HUGE_PAGE - 1);
  uintptr_t b = ((uintptr_t)p + len) & ~(uintptr_t)(FG_HUGE_PAGE - 1);
  if (p && b > a)
    madvise((void *)a, b - a, MADV_HUGEPAGE);
#else
  (void)p;
  (void)len;
#endif
}

#endif
