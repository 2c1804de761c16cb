/* Profiles made from profiles: one event's stacks, every thread merged into
 * one, the names of one line's bytecode indexes and of overloads merged, one
 * appended to another. Names keep their files and descriptors on the way. */
#include "fg/profile.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fg/grow_array.h"
#include "fg/utf8.h"

/* dst (with no name yet) gets every name of src at the same id, with its
 * bytecode index, file and descriptor (part of its key or not). */
static int copy_names(struct fg_profile *dst, const struct fg_profile *src)
{
  for (uint32_t i = 0; i < src->nnames; i++) {
    const char *keyed = src->keyed[i] ? src->descriptors[i] : NULL;
    if (fg_profile_intern_method(dst, src->names[i], (enum fg_frame_kind)src->kinds[i], src->bcis[i], keyed) !=
        (int64_t)i)
      return -1;
    if (src->files[i] && fg_profile_set_file(dst, i, src->files[i]) != 0)
      return -1;
    if (!keyed && fg_profile_note_descriptor(dst, i, src->descriptors[i]) != 0)
      return -1;
  }
  return 0;
}

/* ids[i] becomes the id in dst of src's name i by its text and kind alone
 * (a bytecode index and a descriptor key dropped), its descriptor noted and
 * its file kept. */
static int map_names(struct fg_profile *dst, const struct fg_profile *src, uint32_t *ids)
{
  for (uint32_t i = 0; i < src->nnames; i++) {
    int64_t id = fg_profile_intern(dst, src->names[i], (enum fg_frame_kind)src->kinds[i]);
    if (id < 0 || fg_profile_note_descriptor(dst, (uint32_t)id, src->descriptors[i]) != 0 ||
        (src->files[i] && !dst->files[id] && fg_profile_set_file(dst, (uint32_t)id, src->files[i]) != 0))
      return -1;
    ids[i] = (uint32_t)id;
  }
  return 0;
}

/* The frames of src's longest stack, at least 1. */
static size_t longest_stack(const struct fg_profile *src)
{
  size_t longest = 1;
  for (uint32_t i = 0; i < src->nstacks; i++)
    if (src->stacks[i].nframes > longest)
      longest = src->stacks[i].nframes;
  return longest;
}

int fg_profile_merge_threads(const struct fg_profile *src, bool thread_roots, struct fg_profile *dst)
{
  fg_profile_init(dst);
  dst->stats = src->stats;
  if (fg_profile_add_thread(dst, 0, "all") < 0 || copy_names(dst, src) != 0)
    return -1;
  uint32_t *roots = calloc(src->nthreads ? src->nthreads : 1, sizeof *roots);
  uint32_t *frames = malloc((longest_stack(src) + 1) * sizeof *frames);
  int rc = roots && frames ? 0 : -1;
  for (uint32_t t = 0; rc == 0 && thread_roots && t < src->nthreads; t++) {
    char cut[256], name[300];   /* a long name is cut on a character boundary */
    snprintf(name, sizeof name, "[%s tid=%d]", fg_utf8_copy(cut, sizeof cut, src->threads[t].name),
             src->threads[t].tid);
    int64_t id = fg_profile_intern(dst, name, FG_KIND_THREAD);
    if (id < 0)
      rc = -1;
    else
      roots[t] = (uint32_t)id;
  }
  for (uint32_t i = 0; rc == 0 && i < src->nstacks; i++) {
    const struct fg_stack *s = &src->stacks[i];
    uint32_t n = 0;
    if (thread_roots)
      frames[n++] = roots[s->thread];
    memcpy(frames + n, fg_stack_frames(src, s), s->nframes * sizeof *frames);
    if (fg_profile_add_like(dst, s, 0, frames, n + s->nframes) < 0)
      rc = -1;
  }
  dst->event = src->event;
  free(roots);
  free(frames);
  return rc;
}

/* dst (initialised) gets src's stats, event, timeline room and threads (same indexes). */
static int copy_threads(struct fg_profile *dst, const struct fg_profile *src)
{
  dst->stats = src->stats;
  dst->event = src->event;
  dst->timeline.max = src->timeline.max;
  dst->timeline.dropped = src->timeline.dropped;
  for (uint32_t t = 0; t < src->nthreads; t++) {
    if (fg_profile_add_thread(dst, src->threads[t].tid, src->threads[t].name) != (int64_t)t)
      return -1;
    dst->threads[t].java_id = src->threads[t].java_id;
  }
  return 0;
}

int fg_profile_copy_frame(struct fg_profile *dst, const struct fg_profile *src)
{
  fg_profile_init(dst);
  return copy_names(dst, src) != 0 ? -1 : copy_threads(dst, src);
}

/* The JVM's events drawn beside the samples: every event's page shows them. */
static int copy_marks(struct fg_profile *dst, const struct fg_profile *src)
{
  dst->marks.max = src->marks.max;
  dst->marks.dropped = src->marks.dropped;
  if (!src->marks.n)
    return 0;
  if (!(dst->marks.m = malloc((size_t)src->marks.n * sizeof *dst->marks.m)))
    return -1;
  memcpy(dst->marks.m, src->marks.m, (size_t)src->marks.n * sizeof *dst->marks.m);
  dst->marks.n = dst->marks.cap = src->marks.n;
  return 0;
}

static int select_stacks(const struct fg_profile *src, enum fg_stack_event e, struct fg_profile *dst, int trail)
{
  if (fg_profile_copy_frame(dst, src) != 0)
    return -1;
  dst->event = e;
  uint32_t *to = malloc((src->nstacks ? src->nstacks : 1) * sizeof *to);   /* src's stack -> dst's, or UINT32_MAX */
  if (!to)
    return -1;
  int rc = 0;
  for (uint32_t i = 0; rc == 0 && i < src->nstacks; i++) {
    const struct fg_stack *s = &src->stacks[i];
    to[i] = UINT32_MAX;
    if (s->event != e || (s->count == 0 && s->events == 0 && (e == FG_STACK_LIVE || (e == FG_STACK_NATIVEMEM && !trail))))
      continue;   /* a live stack of an earlier report whose objects have all gone since; leak's freed */
    int64_t k = fg_profile_add_like(dst, s, s->thread, fg_stack_frames(src, s), s->nframes);
    if (k < 0) {
      rc = -1;
      break;
    }
    to[i] = (uint32_t)k;
  }
  if (rc == 0)
    rc = fg_profile_copy_timeline(dst, src, to);
  if (rc == 0)
    rc = copy_marks(dst, src);
  for (uint32_t i = 0; rc == 0 && trail && i < src->trail.n; i++) {
    struct fg_native_trail_entry entry = src->trail.e[i];
    if (entry.stack >= src->nstacks || to[entry.stack] == UINT32_MAX)
      continue;
    entry.stack = to[entry.stack];
    dst->trail.max = src->trail.max;
    rc = fg_native_trail_add(&dst->trail, &entry);
  }
  if (trail)
    dst->trail.dropped = src->trail.dropped;
  free(to);
  return rc;
}

int fg_profile_select(const struct fg_profile *src, enum fg_stack_event e, struct fg_profile *dst)
{
  return select_stacks(src, e, dst, 0);
}

int fg_profile_select_trail(const struct fg_profile *src, enum fg_stack_event e, struct fg_profile *dst)
{
  return select_stacks(src, e, dst, 1);
}

int fg_profile_copy_timeline(struct fg_profile *dst, const struct fg_profile *src, const uint32_t *to)
{
  for (uint32_t i = 0; i < src->timeline.n; i++) {
    struct fg_timeline_entry entry = src->timeline.entries[i];
    if (entry.stack >= src->nstacks || to[entry.stack] == UINT32_MAX)
      continue;
    entry.stack = to[entry.stack];
    if (fg_grow_array((void **)&dst->timeline.entries, &dst->timeline.cap, sizeof entry, dst->timeline.n + 1) != 0)
      return -1;
    dst->timeline.entries[dst->timeline.n++] = entry;
  }
  return 0;
}

int fg_profile_append(struct fg_profile *dst, const struct fg_profile *src)
{
  uint32_t *ids = malloc((src->nnames ? src->nnames : 1) * sizeof *ids);
  uint32_t *frames = malloc(longest_stack(src) * sizeof *frames);
  int rc = ids && frames && dst->nthreads > 0 ? map_names(dst, src, ids) : -1;
  for (uint32_t i = 0; rc == 0 && i < src->nstacks; i++) {
    const struct fg_stack *s = &src->stacks[i];
    const uint32_t *in = fg_stack_frames(src, s);
    for (uint32_t k = 0; k < s->nframes; k++)
      frames[k] = ids[in[k]];
    rc = fg_profile_add(dst, 0, frames, s->nframes, s->count);
  }
  if (rc == 0) {
    struct fg_stats *d = &dst->stats;
    const struct fg_stats *s = &src->stats;
    d->taken += s->taken;
    d->java += s->java;
    d->no_jnienv += s->no_jnienv;
    d->overruns += s->overruns;
    d->no_slot += s->no_slot;
    d->truncated += s->truncated;
    for (int t = 0; t <= FG_TICK_COUNT; t++)
      d->failed[t] += s->failed[t];
  }
  free(ids);
  free(frames);
  return rc;
}

int fg_profile_merge_variants(const struct fg_profile *src, struct fg_profile *dst)
{
  fg_profile_init(dst);
  if (copy_threads(dst, src) != 0)
    return -1;
  uint32_t *ids = malloc((src->nnames ? src->nnames : 1) * sizeof *ids);
  uint32_t *to = malloc((src->nstacks ? src->nstacks : 1) * sizeof *to);   /* src's stack -> dst's */
  uint32_t *frames = malloc(longest_stack(src) * sizeof *frames);
  int rc = ids && to && frames ? map_names(dst, src, ids) : -1;
  for (uint32_t i = 0; rc == 0 && i < src->nstacks; i++) {
    const struct fg_stack *s = &src->stacks[i];
    const uint32_t *in = fg_stack_frames(src, s);
    for (uint32_t k = 0; k < s->nframes; k++)
      frames[k] = ids[in[k]];
    int64_t k = fg_profile_add_like(dst, s, s->thread, frames, s->nframes);
    if (k < 0)
      rc = -1;
    else
      to[i] = (uint32_t)k;
  }
  if (rc == 0)
    rc = fg_profile_copy_timeline(dst, src, to);
  free(ids);
  free(to);
  free(frames);
  return rc;
}
