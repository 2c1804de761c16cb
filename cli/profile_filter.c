/* Include / exclude / reverse over a profile; see fg/profile_filter.h. */
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
  fg_profile_init(dst);
  dst->stats = src->stats;
  for (uint32_t i = 0; i < src->nnames; i++) {
    if (fg_profile_intern(dst, src->names[i], (enum fg_frame_kind)src->kinds[i]) != (int64_t)i)
      return -1;
    if (src->files[i] && fg_profile_set_file(dst, i, src->files[i]) != 0)
      return -1;
  }
  for (uint32_t t = 0; t < src->nthreads; t++)
    if (fg_profile_add_thread(dst, src->threads[t].tid, src->threads[t].name) < 0)
      return -1;
  size_t longest = 1;
  for (uint32_t i = 0; i < src->nstacks; i++)
    if (src->stacks[i].nframes > longest)
      longest = src->stacks[i].nframes;
  uint32_t *frames = malloc(longest * sizeof *frames);
  if (!frames)
    return -1;
  /* the filtered profile accounts for the samples it keeps */
  memset(dst->stats.failed, 0, sizeof dst->stats.failed);
  dst->stats.taken = dst->stats.java = dst->stats.no_jnienv = dst->stats.truncated = 0;
  dst->stats.overruns = dst->stats.no_slot = 0;
  int rc = 0;
  for (uint32_t i = 0; rc == 0 && i < src->nstacks; i++) {
    const struct fg_stack *s = &src->stacks[i];
    if ((f->include && !any_frame_matches(src, s, f->include)) ||
        (f->exclude && any_frame_matches(src, s, f->exclude)))
      continue;
    const uint32_t *in = fg_stack_frames(src, s);
    for (uint32_t k = 0; k < s->nframes; k++)
      frames[k] = f->reverse ? in[s->nframes - 1 - k] : in[k];
    fg_profile_account(dst, in, s->nframes, s->count);   /* by the root, before reversing */
    rc = fg_profile_add(dst, s->thread, frames, s->nframes, s->count);
  }
  free(frames);
  return rc;
}
