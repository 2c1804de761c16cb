/* The summary's live section (alloc,live): of the allocations sampled, what
 * was alive at the report, every sample accounted for (buffer/drainer_live.c):
 *   tracked == collected + alive at the report,
 *   taken == stored + lost (the samples never tracked for want of a class
 *   or a stack, and the alive ones the report could not store). */
#include <inttypes.h>

#include "fg/output.h"
#include "fg/stats.h"
#include "java_events/live_objects.h"

int fg_write_summary_live(FILE *out, const struct fg_event_stats *e)
{
  uint64_t alive = e->tracked >= e->collected ? e->tracked - e->collected : 0, lost = fg_event_stats_lost(e);
  if (fprintf(out, "live: sampled allocations (a sample about every %" PRIu64 " bytes a thread allocates) whose "
                   "objects the collector had not cleared at the report (no GC forced)\n"
                   "  alive:             %.3f MB estimated, %" PRIu64 " objects, from %" PRIu64 " samples\n"
                   "  samples tracked:   %" PRIu64 ": %" PRIu64 " alive at the report, %" PRIu64 " collected before it\n",
              e->interval, (double)e->weight / 1e6, e->events, e->stored, e->tracked, alive, e->collected) < 0)
    return -1;
  if (e->untracked && fprintf(out, "  not tracked:       %" PRIu64 " samples: the table of %u weak references was full "
                                   "of objects still alive\n", e->untracked, FG_LIVE_MAX) < 0)
    return -1;
  if (lost && fprintf(out, "  lost:              %" PRIu64 " samples (%" PRIu64 " whose class JVMTI did not name, %"
                           PRIu64 " whose stack was refused: over memlimit or out of memory), %.3f MB\n",
                      lost, e->no_class, e->no_memory, (double)e->lost_weight / 1e6) < 0)
    return -1;
  int ok = e->taken == e->stored + lost && e->stored <= alive;
  return fprintf(out, "  accounting:        taken %" PRIu64 " = stored %" PRIu64 " + lost %" PRIu64 ", of %" PRIu64
                      " alive: %s\n", e->taken, e->stored, lost, alive, ok ? "OK" : "MISMATCH") < 0 ? -1 : 0;
}
