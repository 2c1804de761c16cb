/* The call graph's timeline mode: every sample in time order, per CPU, as
 * ftrace's function_graph tracer prints a trace:
 *
 *  ------------------------------------------
 *  1)  worker-12  =>   main-1
 *  ------------------------------------------
 *
 *  1)    main-1    |               |  Main.run() {
 *  1)    main-1    | # 1000.000 us |    Main.hot();
 *  1)    main-1    |               |  } /+ Main.run +/
 *
 * A frame opens when a sample's stack goes deeper than the previous one's on
 * that CPU and closes when a later sample leaves it; a leaf's duration is the
 * time to the next sample on the same CPU (the interval for the last). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "fg/output.h"
#include "fg/profile.h"
#include "output/ftrace_columns.h"

static const struct fg_timeline_entry *sort_base;

static int by_cpu_then_time(const void *a, const void *b)
{
  const struct fg_timeline_entry *x = &sort_base[*(const uint32_t *)a], *y = &sort_base[*(const uint32_t *)b];
  if (x->cpu != y->cpu)
    return x->cpu < y->cpu ? -1 : 1;
  if (x->time_ns != y->time_ns)
    return x->time_ns < y->time_ns ? -1 : 1;
  return *(const uint32_t *)a < *(const uint32_t *)b ? -1 : 1;
}

static void proc_name(const struct fg_profile *p, uint32_t thread, char *buf, size_t len)
{
  const struct fg_thread_info *th = &p->threads[thread];
  snprintf(buf, len, "%s-%d", th->name, th->tid);
  for (char *c = buf; *c; c++)
    if (*c == '\n' || *c == '\r')
      *c = '_';
}

static int banner(FILE *out, const struct fg_profile *p, uint32_t cpu, uint32_t from, uint32_t to)
{
  char a[160], b[160];
  proc_name(p, from, a, sizeof a);
  proc_name(p, to, b, sizeof b);
  return fprintf(out, " ------------------------------------------\n %u) %s => %s\n"
                      " ------------------------------------------\n\n", cpu, a, b) < 0 ? -1 : 0;
}

static const char *call_suffix(const struct fg_profile *p, uint32_t name)
{
  enum fg_frame_kind k = fg_profile_kind(p, name);
  return (k == FG_KIND_MARKER || k == FG_KIND_THREAD) ? "" : "()";
}

static int line_start(FILE *out, const struct fg_profile *p, uint32_t cpu, uint32_t thread)
{
  return fprintf(out, " %u)", cpu) < 0 || fg_ft_task(out, &p->threads[thread]) ? -1 : 0;
}

int fg_write_timeline(FILE *out, const struct fg_profile *p, const struct fg_output_settings *cfg)
{
  (void)cfg;
  const struct fg_timeline *t = &p->timeline;
  if (fprintf(out, "# fgagent timeline: %u samples in time order per CPU%s", t->n,
              t->dropped ? "" : "\n") < 0 ||
      (t->dropped && fprintf(out, " (%" PRIu64 " more not kept)\n", t->dropped) < 0) ||
      fg_ft_put(out, "# CPU  TASK/PID         DURATION                  FUNCTION CALLS\n"
                     "# |     |    |           |   |                     |   |   |   |\n\n"))
    return -1;
  uint32_t *order = malloc((t->n ? t->n : 1) * sizeof *order);
  if (!order)
    return -1;
  for (uint32_t i = 0; i < t->n; i++)
    order[i] = i;
  sort_base = t->entries;
  qsort(order, t->n, sizeof *order, by_cpu_then_time);
  uint64_t interval = fg_stats_ns_per_sample(&p->stats);
  int rc = 0;
  const uint32_t *prev = NULL;   /* the previous sample's frames on this CPU, same thread */
  uint32_t prev_n = 0;
  for (uint32_t k = 0; k < t->n && rc == 0; k++) {
    const struct fg_timeline_entry *e = &t->entries[order[k]];
    const struct fg_timeline_entry *before = k ? &t->entries[order[k - 1]] : NULL;
    const struct fg_timeline_entry *next = k + 1 < t->n ? &t->entries[order[k + 1]] : NULL;
    if (!before || before->cpu != e->cpu) {
      prev = NULL;
      prev_n = 0;
    } else if (before->thread != e->thread) {
      rc = banner(out, p, e->cpu, before->thread, e->thread);
      prev = NULL;
      prev_n = 0;
    }
    const struct fg_stack *s = &p->stacks[e->stack];
    const uint32_t *f = fg_stack_frames(p, s);
    uint32_t n = s->nframes, opened = prev_n ? prev_n - 1 : 0, common = 0;
    while (common < opened && common + 1 < n && prev[common] == f[common])
      common++;
    for (uint32_t d = opened; d-- > common && rc == 0;)   /* close what this sample left */
      rc = line_start(out, p, e->cpu, e->thread) || fg_ft_no_duration(out) || fg_ft_indent(out, d) ||
           fprintf(out, "} /* %s */\n", fg_profile_name(p, prev[d])) < 0;
    for (uint32_t d = common; d + 1 < n && rc == 0; d++)   /* open what it entered */
      rc = line_start(out, p, e->cpu, e->thread) || fg_ft_no_duration(out) || fg_ft_indent(out, d) ||
           fprintf(out, "%s%s {\n", fg_profile_name(p, f[d]), call_suffix(p, f[d])) < 0;
    if (n && rc == 0) {
      uint64_t ns = next && next->cpu == e->cpu && next->thread == e->thread && next->time_ns > e->time_ns
                        ? next->time_ns - e->time_ns : interval;
      rc = line_start(out, p, e->cpu, e->thread) || fg_ft_duration(out, ns) || fg_ft_indent(out, n - 1) ||
           fprintf(out, "%s%s;\n", fg_profile_name(p, f[n - 1]), call_suffix(p, f[n - 1])) < 0;
    }
    prev = f;
    prev_n = n;
  }
  free(order);
  return rc ? -1 : 0;
}
