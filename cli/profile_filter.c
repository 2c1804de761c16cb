/* Include / exclude / reverse over a profile; see fg/profile_filter.h. */
#include "fg/event_kinds.h"
#include "fg/profile_filter.h"

#include <stdlib.h>
#include <string.h>

#include "fg/profile.h"

static bool any_frame_matches(const struct fg_profile *p, const struct fg_stack *s, const regex_t *re)
{
  const uint32_t *frames = fg_stack_frames(p, s);
  for (uint32_t i = 0; i < s->nframes; i++)
    if (regexec(re, fg_profile_name(p, frames[i]), 0, NULL, 0) == 0)
      return true;
  return false;
}

int fg_profile_filter(const struct fg_profile *src, const struct fg_filter *f, struct fg_profile *dst)
{
  if (fg_profile_copy_frame(dst, src) != 0)
    return -1;
  dst->timeline.dropped = 0;
  size_t longest = 1;
  for (uint32_t i = 0; i < src->nstacks; i++)
    if (src->stacks[i].nframes > longest)
      longest = src->stacks[i].nframes;
  uint32_t *frames = malloc(longest * sizeof *frames);
  uint32_t *to = malloc((src->nstacks ? src->nstacks : 1) * sizeof *to);   /* src stack -> dst's, or UINT32_MAX */
  if (!frames || !to) {
    free(frames);
    free(to);
    return -1;
  }
  /* the filtered profile accounts for the samples (and alloc and lock events) it keeps */
  memset(dst->stats.failed, 0, sizeof dst->stats.failed);
  dst->stats.taken = dst->stats.java = dst->stats.no_jnienv = dst->stats.truncated = 0;
  dst->stats.overruns = dst->stats.no_slot = 0;
  struct fg_event_stats *ev[FG_STACK_EVENTS];
  for (int e = 1; e < FG_STACK_EVENTS; e++) {
    ev[e] = fg_stats_event(&dst->stats, (enum fg_stack_event)e);
    ev[e]->taken = ev[e]->stored = ev[e]->weight = ev[e]->events = ev[e]->no_thread = ev[e]->no_memory = 0;
    ev[e]->no_class = ev[e]->log_full = ev[e]->merged = ev[e]->lost_weight = 0;
  }
  int rc = 0;
  for (uint32_t i = 0; rc == 0 && i < src->nstacks; i++) {
    const struct fg_stack *s = &src->stacks[i];
    to[i] = UINT32_MAX;
    if ((f->include && !any_frame_matches(src, s, f->include)) ||
        (f->exclude && any_frame_matches(src, s, f->exclude)))
      continue;
    const uint32_t *in = fg_stack_frames(src, s);
    for (uint32_t k = 0; k < s->nframes; k++)
      frames[k] = f->reverse ? in[s->nframes - 1 - k] : in[k];
    if (s->event == FG_STACK_CPU) {
      fg_profile_account(dst, in, s->nframes, s->count);   /* by the root, before reversing */
    } else {
      struct fg_event_stats *e = ev[s->event];
      e->taken += s->events;
      e->stored += s->events;
      e->weight += s->count;
      e->events += s->events;
    }
    int64_t k = fg_profile_add_like(dst, s, s->thread, frames, s->nframes);
    if (k < 0) {
      rc = -1;
      break;
    }
    to[i] = (uint32_t)k;
  }
  if (rc == 0)   /* the kept stacks' samples in time order */
    rc = fg_profile_copy_timeline(dst, src, to);
  free(frames);
  free(to);
  return rc;
}
