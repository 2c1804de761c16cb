/* The summary's nativemem and nativelock sections: every sampled call or
 * contended wait the hooks took accounted for (agent/native_mem). */
#include <inttypes.h>
#include <stdio.h>

#include "fg/output.h"
#include "fg/stats.h"

static double pct(uint64_t n, uint64_t of)
{
  return of ? 100.0 * (double)n / (double)of : 0.0;
}

static int write_losses(FILE *out, const struct fg_event_stats *e, uint64_t memlimit)
{
  uint64_t lost = fg_event_stats_lost(e);
  if (fprintf(out, "  lost:              %" PRIu64 " (%.2f%%)", lost, pct(lost, e->taken)) < 0)
    return -1;
  const char *sep = ": ";
  if (e->no_memory) {
    if (fprintf(out, "%s%" PRIu64 " whose stack had no room (more threads recording at once than walk rooms, or a "
                     "new stack over memlimit%s)", sep, e->no_memory, memlimit ? "" : ": none set") < 0)
      return -1;
    sep = ", ";
  }
  if (e->log_full) {
    if (fprintf(out, "%s%" PRIu64 " with the queue to the drainer%s full", sep, e->log_full,
                e->leak ? " or leak's table" : "") < 0)
      return -1;
    sep = ", ";
  }
  if (e->no_thread && fprintf(out, "%s%" PRIu64 " whose thread's record was taken by a new thread before the drainer "
                                   "came", sep, e->no_thread) < 0)
    return -1;
  if (fputc('\n', out) == EOF)
    return -1;
  uint64_t freed = e->leak ? e->freed : 0;
  char freed_text[40] = "";
  if (e->leak)
    snprintf(freed_text, sizeof freed_text, " + freed %" PRIu64, freed);
  return fprintf(out, "  accounting:        taken %" PRIu64 " = stored %" PRIu64 " + lost %" PRIu64 "%s: %s\n",
                 e->taken, e->stored, lost, freed_text, e->taken == e->stored + lost + freed ? "OK" : "MISMATCH") < 0
             ? -1 : 0;
}

static int write_nativemem(FILE *out, const struct fg_event_stats *e, uint64_t memlimit)
{
  if (fprintf(out, "nativemem: malloc, calloc, realloc, reallocarray, posix_memalign, aligned_alloc, memalign, "
                   "valloc and pvalloc through the import slots of every loaded library, ") < 0)
    return -1;
  if ((e->interval ? fprintf(out, "a sample about every %" PRIu64 " bytes a thread allocates", e->interval)
                   : fprintf(out, "every call")) < 0)
    return -1;
  if (e->leak && fprintf(out, "; leak: only what was not freed by the end") < 0)
    return -1;
  if (fprintf(out, "\n  estimated:         %.1f MB %s in %" PRIu64 " calls (each sample weighted by the chance "
                   "its size gave it)\n", (double)e->weight / 1e6, e->leak ? "not freed" : "allocated", e->events) < 0)
    return -1;
  if (fprintf(out, "  samples taken:     %" PRIu64 "\n  stored:            %" PRIu64 " (%.2f%%)\n", e->taken,
              e->stored, pct(e->stored, e->taken)) < 0)
    return -1;
  if (e->leak && fprintf(out, "  freed:             %" PRIu64 " (%.2f%%) freed before the end: not leaks\n", e->freed,
                         pct(e->freed, e->taken)) < 0)
    return -1;
  if (e->leak && e->frees_late &&
      fprintf(out, "  frees seen late:   %" PRIu64 " of them freed where no hook sees it (inside libc, or a library "
                   "loaded since and not patched yet), found when malloc gave the address again\n", e->frees_late) < 0)
    return -1;
  if (e->leak && e->frees_unrecorded &&
      fprintf(out, "  frees unrecorded:  %" PRIu64 " of them not in a .jfr, allocation and free (its budget of "
                   "524288 spent, or the queue full): its leaks are whole, its allocations short\n",
              e->frees_unrecorded) < 0)
    return -1;
  return write_losses(out, e, memlimit);
}

static int write_nativelock(FILE *out, const struct fg_event_stats *e, uint64_t memlimit)
{
  if (fprintf(out, "nativelock: contended pthread_mutex_lock, _timedlock and _clocklock, pthread_rwlock_rdlock, "
                   "_wrlock and their timed and clock variants: waits of at least %.3f us through the import slots of every loaded library\n"
                   "  waited:            %.3f ms in %" PRIu64 " waits\n"
                   "  shorter waits:     %" PRIu64 " (under the threshold, not recorded)\n"
                   "  waits taken:       %" PRIu64 "\n  stored:            %" PRIu64 " (%.2f%%)\n",
              (double)e->interval / 1e3, (double)e->weight / 1e6, e->events, e->below, e->taken, e->stored,
              pct(e->stored, e->taken)) < 0)
    return -1;
  return write_losses(out, e, memlimit);
}

int fg_write_native_summary(FILE *out, const struct fg_stats *s)
{
  if (s->nativemem.on && write_nativemem(out, &s->nativemem, s->memlimit) != 0)
    return -1;
  if (s->nativelock.on && write_nativelock(out, &s->nativelock, s->memlimit) != 0)
    return -1;
  return 0;
}
