/* speedscope's file format: shared frames (one per frame name), and a
 * "sampled" profile per thread (per_thread) or one for all threads. Stacks
 * are root first; weights are nanoseconds (samples x the time one sample
 * stands for) when the interval is known, else sample counts. The summary's
 * accounting line goes in "exporter". */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "fg/utf8.h"
#include "fg/output.h"
#include "fg/profile.h"
#include "output/json_text.h"

static int put_frames(FILE *out, const struct fg_profile *p)
{
  if (fputs("\"shared\":{\"frames\":[", out) < 0)
    return -1;
  for (uint32_t i = 0; i < p->nnames; i++) {
    const char *file = fg_profile_file(p, i);
    if ((i && fputc(',', out) == EOF) || fputs("{\"name\":", out) < 0 ||
        fg_put_json_string(out, p->names[i]) != 0)
      return -1;
    if (file && (fputs(",\"file\":", out) < 0 || fg_put_json_string(out, file) != 0))
      return -1;
    if (fputc('}', out) == EOF)
      return -1;
  }
  return fputs("]}", out) < 0 ? -1 : 0;
}

/* Whether stack s is in thread's profile (thread UINT32_MAX: every thread's). */
static int included(const struct fg_profile *p, const struct fg_stack *s, uint32_t thread)
{
  return s->event == p->event && (thread == UINT32_MAX || s->thread == thread);
}

/* One sampled profile of the stacks of thread (or of all, UINT32_MAX): a
 * stack's weight is its count times weight (alloc and lock: 1, their counts
 * are bytes and nanoseconds). */
static int put_profile(FILE *out, const struct fg_profile *p, uint32_t thread, const char *name,
                       uint64_t weight)
{
  const char *unit = p->event != FG_STACK_CPU ? fg_stack_event_unit(p->event) : weight ? "nanoseconds" : "none";
  uint64_t unit_weight = weight ? weight : 1, total = 0;
  for (uint32_t i = 0; i < p->nstacks; i++)
    if (included(p, &p->stacks[i], thread))
      total += p->stacks[i].count * unit_weight;
  if (fputs("{\"type\":\"sampled\",\"name\":", out) < 0 || fg_put_json_string(out, name) != 0 ||
      fprintf(out, ",\"unit\":\"%s\",\"startValue\":0,\"endValue\":%" PRIu64 ",\"samples\":[",
              unit, total) < 0)
    return -1;
  int first = 1;
  for (uint32_t i = 0; i < p->nstacks; i++) {
    const struct fg_stack *s = &p->stacks[i];
    if (!included(p, s, thread))
      continue;
    if ((!first && fputc(',', out) == EOF) || fputc('[', out) == EOF)
      return -1;
    const uint32_t *frames = fg_stack_frames(p, s);
    for (uint32_t f = 0; f < s->nframes; f++)
      if (fprintf(out, f ? ",%u" : "%u", frames[f]) < 0)
        return -1;
    if (fputc(']', out) == EOF)
      return -1;
    first = 0;
  }
  if (fputs("],\"weights\":[", out) < 0)
    return -1;
  first = 1;
  for (uint32_t i = 0; i < p->nstacks; i++) {
    if (!included(p, &p->stacks[i], thread))
      continue;
    if (fprintf(out, first ? "%" PRIu64 : ",%" PRIu64, p->stacks[i].count * unit_weight) < 0)
      return -1;
    first = 0;
  }
  return fputs("]}", out) < 0 ? -1 : 0;
}

static int put_exporter(FILE *out, const struct fg_stats *s)
{
  char text[256];
  snprintf(text, sizeof text, "fgagent: %" PRIu64 " samples stored of %" PRIu64 " taken, %" PRIu64
           " lost, %" PRIu64 " failed walks, %" PRIu64 " without a JNIEnv; interval %.3f ms",
           fg_stats_stored(s), s->taken, fg_stats_lost(s), fg_stats_failed_total(s), s->no_jnienv,
           (double)s->interval_ns / 1e6);
  return fputs("\"exporter\":", out) < 0 || fg_put_json_string(out, text) != 0 ? -1 : 0;
}

int fg_write_speedscope(FILE *out, const struct fg_profile *p, const struct fg_output_settings *cfg)
{
  const char *title = cfg->title ? cfg->title : "fgagent profile";
  uint64_t weight = p->event == FG_STACK_CPU ? fg_stats_ns_per_sample(&p->stats) : 1;
  if (fputs("{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\",\"name\":", out) < 0 ||
      fg_put_json_string(out, title) != 0 || fputc(',', out) == EOF ||
      put_exporter(out, &p->stats) != 0 || fputs(",\"activeProfileIndex\":0,", out) < 0 ||
      put_frames(out, p) != 0 || fputs(",\"profiles\":[", out) < 0)
    return -1;
  if (!cfg->per_thread)
    return put_profile(out, p, UINT32_MAX, "all threads", weight) || fputs("]}\n", out) < 0 ? -1 : 0;
  int first = 1;
  for (uint32_t t = 0; t < p->nthreads; t++) {
    int used = 0;
    for (uint32_t i = 0; i < p->nstacks && !used; i++)
      used = p->stacks[i].thread == t;
    if (!used)
      continue;
    char cut[256], name[300];   /* a long name is cut on a character boundary */
    snprintf(name, sizeof name, "%s tid=%d", fg_utf8_copy(cut, sizeof cut, p->threads[t].name), p->threads[t].tid);
    if ((!first && fputc(',', out) == EOF) || put_profile(out, p, t, name, weight) != 0)
      return -1;
    first = 0;
  }
  return fputs("]}\n", out) < 0 ? -1 : 0;
}
