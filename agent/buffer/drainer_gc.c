/* The JVM's GC pauses (jvmti/gc_events.c) into the profile's marks, on the
 * samples' clock; a pause the ring or the marks had no room for is counted
 * in the marks' dropped (the heatmap says how many). */
#include "buffer/drainer_internal.h"
#include "fg/gc_pauses.h"

void fg_drainer_drain_gc(struct fg_drainer *d)
{
  if (!d->gc)
    return;
  struct fg_marks *m = &d->profile->marks;
  struct fg_gc_pause got[64];
  uint32_t n;
  while ((n = fg_gc_pauses_take(d->gc, got, 64)) > 0) {
    for (uint32_t i = 0; i < n; i++)
      if (fg_marks_add(m, FG_MARK_GC_PAUSE, got[i].start_ns, got[i].end_ns - got[i].start_ns,
                       "GC pause (JVMTI)") != 0)
        m->dropped++;   /* out of memory: counted like one past max */
    if (n < 64)
      break;
  }
  uint64_t dropped = atomic_load(&d->gc->dropped);
  m->dropped += dropped - d->gc_dropped_counted;
  d->gc_dropped_counted = dropped;
}
