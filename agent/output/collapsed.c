/* Collapsed stacks, the format flamegraph.pl and most tools read:
 *   root;caller;leaf count
 * one line per unique stack, sorted, identical stacks merged. */
#include <stdlib.h>
#include <string.h>

#include "fg/output.h"
#include "fg/profile.h"
#include "output/text_buffer.h"

struct line {
  char *text;
  uint64_t count;
};

static int by_text(const void *a, const void *b)
{
  return strcmp(((const struct line *)a)->text, ((const struct line *)b)->text);
}

/* flamegraph.pl's annotation of how a frame ran, as async-profiler writes it. */
static const char *kind_suffix(enum fg_frame_kind kind)
{
  switch (kind) {
  case FG_KIND_COMPILED: return "_[j]";
  case FG_KIND_INLINED: return "_[i]";
  case FG_KIND_INTERPRETED: return "_[0]";
  case FG_KIND_KERNEL: return "_[k]";
  default: return "";
  }
}

/* The stack as "root;...;leaf", with a [thread tid=N] root when per_thread. */
static char *stack_text(const struct fg_profile *p, const struct fg_stack *s, bool per_thread)
{
  struct fg_text t;
  fg_text_init(&t);
  const uint32_t *frames = fg_stack_frames(p, s);
  if (per_thread) {
    const struct fg_thread_info *th = &p->threads[s->thread];
    fg_text_add(&t, "[");
    fg_text_add_sanitized(&t, th->name, ";\r\n");
    fg_text_addf(&t, " tid=%d]", th->tid);
  }
  if (s->nframes == 0)   /* a sample of no frames: a line every reader of the format takes */
    fg_text_add(&t, per_thread ? ";[no_stack]" : "[no_stack]");
  for (uint32_t i = 0; i < s->nframes; i++) {
    if (i > 0 || per_thread)
      fg_text_add(&t, ";");
    fg_text_add_sanitized(&t, fg_profile_name(p, frames[i]), ";\r\n");
    fg_text_add(&t, kind_suffix(fg_profile_kind(p, frames[i])));
  }
  return fg_text_take(&t);
}

int fg_write_collapsed(FILE *out, const struct fg_profile *p, const struct fg_output_settings *cfg)
{
  struct line *lines = calloc(p->nstacks ? p->nstacks : 1, sizeof *lines);
  int rc = lines ? 0 : -1;
  uint32_t n = 0;
  for (; rc == 0 && n < p->nstacks; n++) {
    lines[n].text = stack_text(p, &p->stacks[n], cfg->per_thread);
    lines[n].count = p->stacks[n].count;
    if (!lines[n].text)
      rc = -1;
  }
  if (rc == 0) {
    qsort(lines, n, sizeof *lines, by_text);
    for (uint32_t i = 0; i < n && rc == 0; i++) {
      uint64_t count = lines[i].count;
      while (i + 1 < n && strcmp(lines[i].text, lines[i + 1].text) == 0)
        count += lines[++i].count;
      if (count > 0 && fprintf(out, "%s %llu\n", lines[i].text, (unsigned long long)count) < 0)
        rc = -1;
    }
  }
  for (uint32_t i = 0; lines && i < n; i++)
    free(lines[i].text);
  free(lines);
  return rc;
}
