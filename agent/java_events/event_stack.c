/* An alloc or lock event's stack, taken in the JVMTI callback on the thread
 * itself; see java_events.h.
 *
 * The callback runs with the thread in native (JvmtiJavaThreadEventTransition)
 * and its frame anchor set, below a stack that does not move while it runs:
 * fgagent's own walker (walker=vm) reads it from the anchor, as it reads a
 * thread blocked in native for a CPU sample. It is the JVM's GetStackTrace's
 * walk without the vframe objects. Where it cannot (not walker=vm, stack
 * bounds not known yet, code or a method it has no record of, a stack deeper
 * than the first room), GetStackTrace walks. With verify, every stack the
 * own walker took is also asked of GetStackTrace and compared frame by
 * frame: method and bytecode index. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fg/sample_record.h"
#include "java_events/java_events.h"
#include "jvmti/agent.h"
#include "jvmti/threads.h"
#include "walk/vm_walker.h"

/* Frames walked without the heap: deeper stacks take a second, allocated walk. */
#define ON_STACK_FRAMES 128

/* The calling thread's Java frames by fgagent's walker into f/types (room
 * java_room + 1: a runtime stub at the leaf is written, then dropped),
 * leaf first; the frames kept, or -1 when it cannot walk the whole stack. */
static int own_walk(const struct fg_agent *a, const struct fg_thread *t, ASGCT_CallFrame *f, uint8_t *types,
                    int java_room)
{
  if (!t)
    return -1;   /* a thread with no record: no stack bounds */
  uintptr_t hi = __atomic_load_n(&t->stack_hi, __ATOMIC_ACQUIRE);
  struct fg_walker w = a->sampler.walker;
  if (!w.use_vm || !hi || !t->env)
    return -1;
  w.heap = NULL;   /* a method not read yet: GetStackTrace names it whole, bci and inlined frames too */
  /* the sampler's walker walks live stacks (fg_walk_copy sets from_copy on a copy of its own) */
  struct fg_bounds b = {t->stack_lo, hi, 0, 0};
  struct fg_regs unknown;
  int stubs = 0, copy_end = 0;
  int n = fg_vm_walk(&w, t->env, NULL, NULL, b, NULL, f, types, java_room, &stubs, &unknown, &copy_end);
  if (n <= 0 || unknown.pc)
    return -1;   /* a caller with no record yet (not read from the code heap yet): the JVM's walk */
  if (stubs) {   /* the runtime stub the allocation or lock called the VM through: no Java frame */
    memmove(f, f + 1, (size_t)(n - 1) * sizeof *f);
    memmove(types, types + 1, (size_t)(n - 1));
    n--;
  }
  return n;
}

/* JVMTI's location of a frame as ASGCT's lineno: a native method's is -1 there, -3 here. */
static int same_frame(const ASGCT_CallFrame *f, const jvmtiFrameInfo *j)
{
  return f->method_id == j->method && (f->lineno == (jint)j->location || (f->lineno < 0 && j->location < 0));
}

static void method_text(jvmtiEnv *jvmti, jmethodID m, char *out, size_t len)
{
  jclass klass = NULL;
  char *cls = NULL, *name = NULL;
  if (m && (*jvmti)->GetMethodDeclaringClass(jvmti, m, &klass) == JVMTI_ERROR_NONE &&
      (*jvmti)->GetClassSignature(jvmti, klass, &cls, NULL) == JVMTI_ERROR_NONE &&
      (*jvmti)->GetMethodName(jvmti, m, &name, NULL, NULL) == JVMTI_ERROR_NONE)
    snprintf(out, len, "%s.%s", cls, name);
  else
    snprintf(out, len, "%p", (void *)m);
  if (cls)
    (*jvmti)->Deallocate(jvmti, (unsigned char *)cls);
  if (name)
    (*jvmti)->Deallocate(jvmti, (unsigned char *)name);
}

/* verify: the n frames the own walker kept (cut: it stopped at the room)
 * against GetStackTrace's. 1 when they agree; else 0, with the first
 * difference described in why. */
static int agrees_with_jvm(struct fg_agent *a, const ASGCT_CallFrame *f, int n, int cut, char *why, size_t len)
{
  jvmtiFrameInfo jvm[ON_STACK_FRAMES + 1];
  jint count = 0;
  if ((*a->jvmti)->GetStackTrace(a->jvmti, NULL, 0, ON_STACK_FRAMES + 1, jvm, &count) != JVMTI_ERROR_NONE) {
    snprintf(why, len, "GetStackTrace failed");
    return 0;
  }
  int i = 0;
  while (i < n && i < count && same_frame(&f[i], &jvm[i]))
    i++;
  if (i == n && (cut ? count > n : count == n))
    return 1;
  char ours[200] = "(none)", theirs[200] = "(none)";
  if (i < n)
    method_text(a->jvmti, f[i].method_id, ours, sizeof ours);
  if (i < count)
    method_text(a->jvmti, jvm[i].method, theirs, sizeof theirs);
  snprintf(why, len, "frame %d of %d: fgagent %s bci %d, the JVM %s bci %d (%d frames)", i, n, ours,
           i < n ? (int)f[i].lineno : -1, theirs, i < count ? (int)jvm[i].location : -1, (int)count);
  return 0;
}

/* The stack by GetStackTrace into frames + 1 (room want, or less when the
 * heap refuses): the frames written, *cut when there are more. */
static int jvm_walk(struct fg_agent *a, int want, jvmtiFrameInfo *info, int room, ASGCT_CallFrame **frames,
                    uint8_t **types, int *cut)
{
  jint count = 0;
  *cut = 0;
  if ((*a->jvmti)->GetStackTrace(a->jvmti, NULL, 0, want < room ? want : room, info, &count) != JVMTI_ERROR_NONE)
    return 0;
  jvmtiFrameInfo *all = NULL;
  if (count == room && want > room) {   /* deeper: all of it, or the first room's worth, cut */
    all = malloc((size_t)want * sizeof *all);
    ASGCT_CallFrame *f = malloc((size_t)(want + 1) * sizeof *f);
    uint8_t *ty = malloc((size_t)want + 1);
    jint deep = 0;
    if (all && f && ty && (*a->jvmti)->GetStackTrace(a->jvmti, NULL, 0, want, all, &deep) == JVMTI_ERROR_NONE) {
      info = all;
      count = deep;
      *frames = f;
      *types = ty;
    } else {
      free(f);
      free(ty);
      *cut = 1;
    }
  }
  int n = count < 0 ? 0 : count > want - 1 ? want - 1 : count;
  *cut |= count > n;
  for (int i = 0; i < n; i++) {
    (*frames)[i + 1] = (ASGCT_CallFrame){.lineno = (jint)info[i].location, .method_id = info[i].method};
    (*types)[i + 1] = FG_FRAME_JAVA;
  }
  free(all);
  return n;
}

const struct fg_trace *fg_java_events_stack(struct fg_agent *a, struct fg_thread *t, uint32_t class_id,
                                            uint32_t flags, enum fg_event_walk *walk)
{
  ASGCT_CallFrame frames_local[ON_STACK_FRAMES + 2];
  uint8_t types_local[ON_STACK_FRAMES + 2];
  ASGCT_CallFrame *frames = frames_local;
  uint8_t *types = types_local;
  int want = a->opts.depth + 1;   /* one more than depth tells a cut stack */
  int room = want < ON_STACK_FRAMES ? want : ON_STACK_FRAMES;
  int n = own_walk(a, t, frames + 1, types + 1, room), cut = 0;
  *walk = FG_EVENT_WALK_JVM;
  if (n >= room && want > room)
    n = -1;   /* deeper than the room: the JVM's walk, which sizes its own */
  if (n >= 0) {
    *walk = FG_EVENT_WALK_OWN;
    cut = n > a->opts.depth;
    if (cut)
      n = a->opts.depth;
    char why[512];
    if (a->opts.verify && !agrees_with_jvm(a, frames + 1, n, cut, why, sizeof why)) {
      *walk = FG_EVENT_WALK_DIFFERS;
      fg_event_log_difference(&a->events, t->serial, flags & FG_SAMPLE_ALLOC ? FG_STACK_ALLOC : FG_STACK_LOCK, why);
    }
  } else {
    jvmtiFrameInfo info[ON_STACK_FRAMES];
    n = jvm_walk(a, want, info, ON_STACK_FRAMES, &frames, &types, &cut);
  }
  if (cut)
    flags |= FG_SAMPLE_TRUNCATED;   /* deeper than depth, or than the first walk's room when memory ran out */
  frames[0] = (ASGCT_CallFrame){.lineno = 0, .method_id = (jmethodID)(uintptr_t)class_id};
  types[0] = FG_FRAME_CLASS;
  const struct fg_trace *tr = fg_trace_table_put(&a->traces, frames, types, (uint32_t)n + 1, flags);
  if (frames != frames_local) {
    free(frames);
    free(types);
  }
  return tr;
}
