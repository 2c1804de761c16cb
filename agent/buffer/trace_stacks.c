/* Traces to profile stacks; see fg/trace_stacks.h. */
#include "fg/trace_stacks.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fg/sample_record.h"

int fg_trace_stacks_init(struct fg_trace_stacks *s, uint32_t max_frames, struct fg_stack_namer namer)
{
  fg_u64_map_init(&s->map);
  s->cap = max_frames + 4;   /* a root or marker, [native_cut], the state */
  s->frames = calloc(s->cap, sizeof *s->frames);
  s->namer = namer;
  return s->frames ? 0 : -1;
}

void fg_trace_stacks_free(struct fg_trace_stacks *s)
{
  fg_u64_map_free(&s->map);
  free(s->frames);
  s->frames = NULL;
}

/* A walk kept depth Java frames, counting a frame it could not read yet
 * (FG_FRAME_UNREAD) as one: named, such a frame may be several (what its
 * method inlined there). Where the names pass depth, the stack is cut
 * there, leaf first, as the walk would have cut it: how many of tr's frames
 * are named (*n), and how many outer names of the last of them are left out
 * (*outer); 1 when this cut the stack. */
static int cut_at_depth(const struct fg_trace_stacks *s, const struct fg_trace *tr, uint32_t *n, uint32_t *outer)
{
  uint32_t depth = s->namer.depth ? (uint32_t)*s->namer.depth : 0, java = 0, unread = 0;
  *outer = 0;
  for (uint32_t i = 0; i < *n && !unread; i++)
    unread = fg_trace_types(tr)[i] == FG_FRAME_UNREAD;
  if (!depth || !s->namer.expand || !unread)
    return 0;   /* a stack as the walk kept it */
  for (uint32_t i = 0; i < *n; i++) {
    uint8_t type = fg_trace_types(tr)[i];
    uint32_t names = type == FG_FRAME_UNREAD ? s->namer.expand(s->namer.ctx, tr, i, NULL, 0) : (uint32_t)fg_frame_is_java(type);
    if (type == FG_FRAME_UNREAD && !names)
      names = 1;
    if (java + names > depth) {   /* the names of frame i past depth go; all of them, a frame of one */
      *outer = java + names - depth;
      *n = *outer < names ? i + 1 : i;
      if (*outer >= names)
        *outer = 0;
      return 1;
    }
    java += names;
  }
  return 0;
}

/* The kind of stack tr's flags make: an alloc, lock or native event's, else a sample's. */
static enum fg_stack_event kind_of(uint32_t flags)
{
  return flags & FG_SAMPLE_ALLOC        ? FG_STACK_ALLOC
         : flags & FG_SAMPLE_LOCK       ? FG_STACK_LOCK
         : flags & FG_SAMPLE_NATIVEMEM  ? FG_STACK_NATIVEMEM
         : flags & FG_SAMPLE_NATIVELOCK ? FG_STACK_NATIVELOCK
         : flags & FG_SAMPLE_KERNEL_EVENT ? (enum fg_stack_event)(FG_STACK_KERNEL + ((flags & FG_SAMPLE_KERNEL_MASK) >>
                                                                              FG_SAMPLE_KERNEL_SHIFT))
                                        : FG_STACK_CPU;
}

static int64_t build(struct fg_trace_stacks *s, struct fg_profile *p, uint32_t thread, int64_t thread_frame,
                     const struct fg_trace *tr, uint32_t state, enum fg_stack_event e)
{
  uint32_t n = tr->n < s->cap - 4 ? tr->n : s->cap - 4, flags = tr->flags, count = 0, outer;
  int64_t id;
  if (cut_at_depth(s, tr, &n, &outer))
    flags |= FG_SAMPLE_TRUNCATED;
  if (thread_frame >= 0) {
    s->frames[count++] = (uint32_t)thread_frame;
  } else if (flags & FG_SAMPLE_FAILED) {
    char name[48];
    snprintf(name, sizeof name, "[%s]", fg_tick_name(fg_tick_index(fg_trace_tick(tr))));
    if ((id = fg_profile_intern(p, name, FG_KIND_MARKER)) >= 0)
      s->frames[count++] = (uint32_t)id;
  } else if ((flags & FG_SAMPLE_TRUNCATED) && (id = fg_profile_intern(p, "[truncated]", FG_KIND_MARKER)) >= 0) {
    s->frames[count++] = (uint32_t)id;
  }
  int cut = (flags & FG_SAMPLE_NATIVE_CUT) != 0;
  for (uint32_t i = n; i-- > 0;) {   /* traces are leaf first */
    if (fg_trace_types(tr)[i] == FG_FRAME_UNREAD && s->namer.expand) {   /* the method and what it inlined */
      uint32_t room = count + 2 < s->cap ? s->cap - 2 - count : 0;   /* the state's and one more left */
      uint32_t got = room ? s->namer.expand(s->namer.ctx, tr, i, s->frames + count, room) : 0;
      if (got && i + 1 == n && outer) {   /* cut at depth: its outer names go */
        uint32_t keep = got > outer ? got - outer : 0;
        memmove(s->frames + count, s->frames + count + (got - keep), keep * sizeof *s->frames);
        got = keep;
      }
      count += got;
      if (got || (i + 1 == n && outer))
        continue;
    }
    if (cut && fg_trace_types(tr)[i] == FG_FRAME_NATIVE_PC) {
      cut = 0;   /* between the Java frames and the native ones */
      if (count + 1 < s->cap && (id = fg_profile_intern(p, "[native_cut]", FG_KIND_MARKER)) >= 0)
        s->frames[count++] = (uint32_t)id;
    }
    if (count + 1 < s->cap && (id = s->namer.frame(s->namer.ctx, tr, i)) >= 0)
      s->frames[count++] = (uint32_t)id;
  }
  if (state && s->namer.state && (id = fg_profile_intern(p, s->namer.state(state), FG_KIND_MARKER)) >= 0)
    s->frames[count++] = (uint32_t)id;
  return fg_profile_event_stack(p, e, thread, s->frames, count);
}

int64_t fg_trace_stack(struct fg_trace_stacks *s, struct fg_profile *p, uint32_t thread, int64_t thread_frame,
                       const struct fg_trace *tr, uint32_t state)
{
  /* 28 bits of thread and 4 of state beside the trace's id: a thread index
   * past them (never seen) is built every time rather than mixed up */
  int keyed = thread < (1u << 28);
  uint64_t key = (uint64_t)tr->id << 32 | (uint64_t)thread << 4 | (state & 15u);
  uint32_t at;
  if (keyed && fg_u64_map_get(&s->map, key, &at))
    return at;
  int64_t idx = build(s, p, thread, thread_frame, tr, state, kind_of(tr->flags));
  if (idx >= 0 && keyed)
    fg_u64_map_put(&s->map, key, (uint32_t)idx);
  return idx;
}

int64_t fg_trace_stack_as(struct fg_trace_stacks *s, struct fg_profile *p, uint32_t thread, const struct fg_trace *tr,
                          enum fg_stack_event e)
{
  return e == kind_of(tr->flags) ? fg_trace_stack(s, p, thread, -1, tr, 0) : build(s, p, thread, -1, tr, 0, e);
}

void fg_trace_account(struct fg_stats *st, const struct fg_trace *tr, int64_t thread_frame, uint64_t weight)
{
  uint32_t flags = tr->flags;
  if (flags & FG_SAMPLE_BUDGET)
    st->budget_cut += weight;
  if (flags & FG_SAMPLE_NATIVE_CUT)
    st->native_cut += weight;
  if (thread_frame >= 0) {
    st->no_jnienv += weight;
  } else if (flags & FG_SAMPLE_FAILED) {
    st->failed[fg_tick_index(fg_trace_tick(tr))] += weight;
  } else {
    st->java += weight;
    if (flags & FG_SAMPLE_RECOVERED)
      st->recovered += weight;
    if (flags & FG_SAMPLE_VM_WALKED)
      st->vm_walked += weight;
    if (flags & FG_SAMPLE_TRUNCATED)
      st->truncated += weight;
    if (flags & FG_SAMPLE_COPY_CUT)
      st->copy_cut += weight;
  }
}
