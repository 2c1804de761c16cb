/* The summary's kernel event section; see summary_kernel.h. */
#include "output/summary_kernel.h"

#include <inttypes.h>

static double pct(uint64_t part, uint64_t whole)
{
  return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

/* Kernel event i's section. */
static int write_one(FILE *out, const struct fg_stats *s, int i)
{
  const struct fg_event_stats *k = &s->kernel[i];
  const struct fg_kevent_stats *ks = &s->kevent[i];
  uint64_t lost = fg_event_stats_lost(k);
  if (fprintf(out, "kernel event: %s, a sample every %" PRIu64 " events, each thread's own perf_events counter%s\n"
                   "  events:            %" PRIu64 " (%" PRIu64 " samples of %" PRIu64 ")\n"
                   "  threads:           %" PRIu64 " given a counter",
              ks->name, k->interval,
              ks->user_only ? " (user work only: perf_event_paranoid refuses the kernel's to the JVM)" : "",
              k->weight, k->events, k->interval, ks->threads) < 0)
    return -1;
  if (ks->no_fd && fprintf(out, ", %" PRIu64 " given none (its budget of %" PRIu64 " descriptors spent)",
                           ks->no_fd, ks->fd_budget) < 0)
    return -1;
  if (ks->refused && fprintf(out, ", %" PRIu64 " refused by the kernel (ended as it came)", ks->refused) < 0)
    return -1;
  if (fprintf(out, "\n  samples taken:     %" PRIu64 "\n"
                   "  stored:            %" PRIu64 " (%.2f%%), %" PRIu64 " with no Java stack (the walk failed)\n"
                   "  lost:              %" PRIu64 " (%.2f%%)",
              k->taken, k->stored, pct(k->stored, k->taken), k->no_stack, lost, pct(lost, k->taken)) < 0)
    return -1;
  if (k->no_memory && fprintf(out, ": %" PRIu64 " with the thread's ring full or the stack over memlimit",
                              k->no_memory) < 0)
    return -1;
  if (k->no_thread && fprintf(out, "%s%" PRIu64 " of threads with no record", k->no_memory ? ", " : ": ",
                              k->no_thread) < 0)
    return -1;
  return fprintf(out, "\n  accounting:        taken %" PRIu64 " = stored %" PRIu64 " + lost %" PRIu64 ": %s\n", k->taken,
                 k->stored, lost, k->taken == k->stored + lost ? "OK" : "MISMATCH") < 0 ? -1 : 0;
}

int fg_write_kernel_summary(FILE *out, const struct fg_stats *s)
{
  for (int i = 0; i < FG_KERNEL_EVENTS_MAX; i++)
    if (s->kernel[i].on && write_one(out, s, i) != 0)
      return -1;
  return 0;
}
