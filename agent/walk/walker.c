/* The stack walker; see walker.h. */
#include "walk/walker.h"

#include <string.h>
#include <ucontext.h>

#include "fg/clock.h"
#include "walk/x86/frame_pop.h"
#include "hotspot/osr_entry.h"
#include "native/unwind_tables.h"
#include "walk/vm_walker.h"
#include "walk/walk_cache.h"

/* Whether the walk's time budget is spent: no further retry then. */
static int past(uint64_t deadline_ns)
{
  return fg_clock_ns(CLOCK_MONOTONIC) > deadline_ns;
}

/* AsyncGetCallTrace's frames at bci -1 (SynchronizationEntryBCI: a record
 * at a method's entry, C1's counter_overflow call or a synchronized
 * method's monitorenter) at 0, as HotSpot's frames name them
 * (compiledVFrame::bci, what GetStackTrace reports) and the VM walker does
 * (pc_scopes.c); forte.cpp passes the raw -1 on, which is no bytecode
 * index. */
static int entry_bcis(ASGCT_CallFrame *f, int n)
{
  for (int i = 0; i < n; i++)
    if (f[i].lineno == -1 && f[i].method_id)
      f[i].lineno = 0;
  return n;
}

/* AsyncGetCallTrace from the registers r instead of the signal's, asked for
 * depth frames. */
static int asgct_at(const struct fg_walker *w, void *env, const ucontext_t *uc, const struct fg_regs *r,
                    ASGCT_CallFrame *frames, int depth)
{
  ucontext_t copy = *uc;
  copy.uc_mcontext.gregs[REG_RIP] = (greg_t)r->pc;
  copy.uc_mcontext.gregs[REG_RSP] = (greg_t)r->sp;
  copy.uc_mcontext.gregs[REG_RBP] = (greg_t)r->fp;
  ASGCT_CallTrace trace = {env, 0, frames};
  w->asgct(&trace, depth, &copy);
  return entry_bcis(frames, trace.num_frames);
}

static int asgct_from(const struct fg_walker *w, void *env, const ucontext_t *uc, const struct fg_regs *r,
                      ASGCT_CallFrame *frames)
{
  return asgct_at(w, env, uc, r, frames, w->depth + 1);
}

static int recoverable(int tick)
{
  return tick == FG_TICK_UNKNOWN_JAVA || tick == FG_TICK_NOT_WALKABLE_JAVA ||
         tick == FG_TICK_UNKNOWN_NOT_JAVA || tick == FG_TICK_NOT_WALKABLE_NOT_JAVA;
}

/* The frames of compiled method m at the first debug record at or after pc,
 * innermost first; 0 when m has none there. */
int fg_walk_scopes_at(const struct fg_code_blob *m, uintptr_t pc, ASGCT_CallFrame *f, uint8_t *types, int room)
{
  jmethodID id = atomic_load_explicit(&m->method, memory_order_relaxed);
  struct fg_scope_frame entering;
  if (id && room > 0 && fg_osr_entering(m, id, pc, &entering)) {   /* no record names it (osr_entry.h) */
    f[0] = (ASGCT_CallFrame){entering.bci, entering.method};
    types[0] = FG_FRAME_JAVA;
    return 1;
  }
  int at = fg_pc_scopes_at_or_above(m->scopes, pc);
  if (at < 0)
    return 0;
  const struct fg_pc_scopes *s = m->scopes;
  int n = 0;
  for (uint32_t i = s->records[at].first; i < s->records[at + 1].first && n < room; i++, n++) {
    f[n] = (ASGCT_CallFrame){s->frames[i].bci, s->frames[i].method};
    types[n] = FG_FRAME_JAVA;
  }
  return n;
}

/* A stub called from compiled code is a call without a safepoint record of
 * its own, and ASGCT, asked from inside the call instruction, may take the
 * caller's inlined frames from a record of other code. With
 * DebugNonSafepoints C2 records an instruction's scopes at the pc where it
 * ends, so the call's scopes are those of the first record at or after the
 * return address: HotSpot's own rule for a pc between records
 * (CompiledMethod::pc_desc_near, used by forte.cpp). The last record before
 * the return address belongs to the instruction before the call: on JDK 25
 * that dropped AbstractStringBuilder.shift between delete and its arraycopy
 * stub in 93% of a delete loop's samples. Where the call ends its block,
 * the record is found as fg_vm_stub_call_named_at says, and none may name
 * it: the method alone then. The caller's inlined frames are taken from
 * the record, the rest from ASGCT. Returns the new frame count. */
static int scopes_before_call(const struct fg_walker *w, uintptr_t ret, ASGCT_CallFrame *f, uint8_t *types,
                              int n, int room)
{
  const struct fg_code_blob *m = fg_code_map_find(&w->code->methods, ret);
  jmethodID id = m ? atomic_load_explicit(&m->method, memory_order_relaxed) : NULL;
  uintptr_t named = id && m->scopes ? fg_vm_stub_call_named_at(m, ret) : 0;
  int at = named ? fg_pc_scopes_at_or_above(m->scopes, named) : -1;
  if (!id || !m->scopes || (named && at < 0))
    return n;
  const struct fg_pc_scopes *s = m->scopes;
  uint32_t first = named ? s->records[at].first : 0, count = named ? s->records[at + 1].first - first : 1;
  if (named && (count == 0 || s->frames[first + count - 1].method != id))
    return n;   /* not a chain that ends in the method itself */
  int own = -1;   /* ASGCT's frames down to and with the method itself */
  for (int i = 0; i < n; i++)
    if (f[i].method_id == id) {
      own = i + 1;
      break;
    }
  if (own < 0)
    return n;
  int rest = n - own, total = (int)count + rest;
  if (total > room)
    return n;
  memmove(f + count, f + own, (size_t)rest * sizeof *f);
  for (uint32_t i = 0; i < count; i++)
    f[i] = named ? (ASGCT_CallFrame){s->frames[first + i].bci, s->frames[first + i].method}
                 : (ASGCT_CallFrame){-1, id};
  /* every frame written here is a Java one: the types past ASGCT's count
   * still hold an earlier walk's, and a stale FG_FRAME_STUB there made the
   * drainer read a jmethodID as a stub and print its bytes as a name */
  for (int i = 0; i < total; i++)
    types[i] = FG_FRAME_JAVA;
  return total;
}

/* Pops the stub or method frame at r (up to two: a stub called from a
 * method's epilogue) and retries ASGCT. On success the popped frames are
 * written at out[0..] and the Java frames after them; returns the total. */
static int recover(const struct fg_walker *w, void *env, const ucontext_t *uc, struct fg_bounds b,
                   struct fg_regs r, ASGCT_CallFrame *out, uint8_t *types, int room, uint64_t deadline_ns)
{
  int popped = 0;
  int limit = room - (w->depth + 1);   /* what ASGCT may write after the popped frames */
  for (int attempt = 0; attempt < 3 && popped < limit - 1; attempt++) {
    if (attempt > 0 && past(deadline_ns))
      return 0;
    if (!fg_code_map_contains(w->code, r.pc))
      return 0;
    const struct fg_code_blob *blob = fg_code_map_find(&w->code->stubs, r.pc);
    int ok;
    if (blob) {
      out[popped] = (ASGCT_CallFrame){0, (jmethodID)(uintptr_t)blob};
      types[popped] = FG_FRAME_STUB;
      ok = fg_pop_stub(blob, b, &r);
    } else if ((blob = fg_code_map_find(&w->code->methods, r.pc)) != NULL) {
      jmethodID m = atomic_load_explicit(&blob->method, memory_order_relaxed);
      if (!m)
        return 0;
      /* the method and what it inlined at pc: for the top frame by HotSpot's
       * rule (the first record after pc), for a caller the call's own record */
      int own = fg_walk_scopes_at(blob, attempt == 0 ? r.pc + 1 : r.pc, out + popped, types + popped, limit - popped - 1);
      if (own <= 0) {
        out[popped] = (ASGCT_CallFrame){-1, m};
        types[popped] = FG_FRAME_COMPILED;
        own = 1;
      }
      ok = fg_pop_method(blob, b, &r);
      popped += own - 1;
    } else {
      return 0;
    }
    if (!ok)
      return 0;
    popped++;
    /* r.pc is a return address. For the top frame ASGCT takes the debug
     * info of the first instruction ending after pc, which for a return
     * address is the code after the call, not the call: ask from inside the
     * call instruction. */
    struct fg_regs at_call = r;
    at_call.pc--;
    int n = asgct_from(w, env, uc, &at_call, out + popped);
    if (n > 0) {
      for (int i = 0; i < n && popped + i < room; i++)
        types[popped + i] = FG_FRAME_JAVA;
      if (blob && !atomic_load_explicit(&blob->method, memory_order_relaxed))
        n = scopes_before_call(w, r.pc, out + popped, types + popped, n, room - popped);
      return popped + n;
    }
    if (!recoverable(n))
      return 0;
  }
  return 0;
}

/* A thread in the VM whose frame anchor has a Java sp but no pc (set lazily
 * by HotSpot, JDK-8178287): ASGCT says unknown_not_Java. The pc is the
 * return address just below that sp; it is put into the anchor for the
 * retry, as HotSpot's own make_walkable would, and taken out again. Only
 * this thread writes its anchor while it runs this handler. */
static int retry_with_anchor_pc(const struct fg_walker *w, void *env, void *ucontext, struct fg_bounds b,
                                ASGCT_CallFrame *frames)
{
  if (!w->anchor_known || !b.hi)
    return 0;
  char *anchor = (char *)env + w->env_to_anchor;
  uintptr_t sp = *(volatile uintptr_t *)(anchor + w->anchor_sp);
  volatile uintptr_t *pc = (volatile uintptr_t *)(anchor + w->anchor_pc);
  uintptr_t ret;
  if (!sp || *pc || !fg_read_stack(b, sp - 8, &ret) || !fg_code_map_contains(w->code, ret))
    return 0;
  *pc = ret;
  atomic_signal_fence(memory_order_seq_cst);
  ASGCT_CallTrace trace = {env, 0, frames};
  w->asgct(&trace, w->depth + 1, ucontext);
  atomic_signal_fence(memory_order_seq_cst);
  *pc = 0;
  return entry_bcis(frames, trace.num_frames);
}

/* AsyncGetCallTrace's first frame when pc, where its walk began, is in an
 * OSR method's entry: HotSpot names it by the first debug record after pc
 * (pc_desc_near), which there is another place's, C1's synchronization
 * entry at bci -1 among them; the frame is the method at its entry bci
 * (osr_entry.h). */
static void osr_entry_bci(const struct fg_walker *w, uintptr_t pc, ASGCT_CallFrame *f, int n)
{
  if (n <= 0 || !fg_code_map_contains(w->code, pc))
    return;
  const struct fg_code_blob *m = fg_code_map_find(&w->code->methods, pc);
  jmethodID id = m ? atomic_load_explicit(&m->method, memory_order_relaxed) : NULL;
  struct fg_scope_frame entering;
  if (id && f[0].method_id == id && fg_osr_entering(m, id, pc, &entering))
    f[0].lineno = entering.bci;
}

/* Marks the top Java frames: interpreted when pc is in the interpreter; when
 * pc is in a compiled method M, the frames above M's own are inlined into it. */
static void annotate(const struct fg_walker *w, uintptr_t pc, const ASGCT_CallFrame *f, uint8_t *types,
                     int n)
{
  if (n <= 0 || !fg_code_map_contains(w->code, pc))
    return;
  const struct fg_code_blob *m = fg_code_map_find(&w->code->methods, pc);
  jmethodID id = m ? atomic_load_explicit(&m->method, memory_order_relaxed) : NULL;
  if (id) {
    for (int i = 0; i < n; i++) {
      if (f[i].method_id == id) {
        for (int j = 0; j < i; j++)
          types[j] = FG_FRAME_INLINED;
        types[i] = FG_FRAME_COMPILED;
        return;
      }
    }
    return;
  }
  const struct fg_code_blob *s = fg_code_map_find(&w->code->stubs, pc);
  if (s && strcmp(s->name, "Interpreter") == 0)
    types[0] = FG_FRAME_INTERPRETED;
}

/* Native frames from the signal context's registers r up to the first pc
 * in the code cache (whose registers land in java) or the end of the stack,
 * by the libraries' DWARF call frame information (unwind_tables.h), each
 * read of the stack checked against its bounds (unknown bounds: the leaf
 * frame only). A frame with no rule ends the walk (NATIVE_CUT): no guess through
 * rbp, which code built without frame pointers uses for anything. kept: a
 * thread with no Java's last walk (walk_cache.h), begun and used, or NULL;
 * *ended: the walk ended as the next one from the same registers would, not
 * at Java or cut by the depth; 2 when it ended past the thread's first frame
 * (clone3's), the whole stack walked. at_call: r's pc is a return address (a
 * caller's), not the interrupted one. sig: NULL, or the walk goes on through
 * signal frames (a signal handler's return into the C library's sigreturn
 * trampoline) from the context the kernel saved, and sig->java_top says
 * whether Java was reached just past one: java's pc is then an interrupted
 * one, its scratch registers in sig->scratch. */
struct signal_step {
  int java_top;
  struct fg_top_regs scratch;
};

static int walk_native_from(const struct fg_walker *w, struct fg_regs r, int at_call, struct fg_bounds b,
                            struct fg_walk_cache *kept, ASGCT_CallFrame *frames, uint8_t *types, struct fg_regs *java,
                            int *reached_java, int *ended, struct signal_step *sig)
{
  *reached_java = 0;
  *ended = 0;
  if (sig)
    sig->java_top = 0;
  int n = 0, interrupted = !at_call;   /* r's pc was interrupted, not a return address */
  while (r.pc) {
    if (fg_code_map_contains(w->code, r.pc)) {
      *java = r;
      *reached_java = 1;
      if (sig)
        sig->java_top = n > 0 && interrupted;
      return n;
    }
    if (n == w->native_depth)
      return n;
    int got = kept && n > 0 ? fg_walk_cache_go_on(kept, &r, 0, frames + n, types + n, n, w->native_depth) : -1;
    if (got >= 0) {
      n += got;
      break;
    }
    /* return addresses point after the call: name the call's own byte */
    frames[n] = (ASGCT_CallFrame){0, (jmethodID)(uintptr_t)(interrupted ? r.pc : r.pc - 1)};
    types[n++] = FG_FRAME_NATIVE_PC;
    uintptr_t fp_at, regs[4];
    if (!b.hi || !w->unwind)
      break;
    if (!fg_unwind_step(w->unwind, b, interrupted, &r, &fp_at)) {
      if (!sig || !fg_unwind_signal_frame(w->unwind, b, &r, regs))
        break;
      sig->scratch = (struct fg_top_regs){regs[0], regs[1], regs[2], regs[3]};
      interrupted = 1;
      continue;
    }
    interrupted = 0;
    if (kept && n > 1 && r.pc) {   /* what a caller frame's step read (nothing past the first frame) */
      fg_walk_cache_read(kept, r.sp - 8, r.pc);
      if (fp_at)
        fg_walk_cache_read(kept, fp_at, r.fp);
    }
  }
  /* at the stack's end (2: past the thread's first frame), a frame with no
   * rule or a kept frame */
  *ended = !r.pc && n > 0 ? 2 : 1;
  return n;
}

/* walk_native_from the signal's registers. */
static int walk_native(const struct fg_walker *w, struct fg_regs r, struct fg_bounds b, struct fg_walk_cache *kept,
                       ASGCT_CallFrame *frames, uint8_t *types, struct fg_regs *java, int *reached_java,
                       int *ended)
{
  return walk_native_from(w, r, 0, b, kept, frames, types, java, reached_java, ended, NULL);
}

/* The native walk of a thread with no Java, with its last walk kept: what
 * it depends on besides the stack is the unwind tables' set, and the code
 * cache's span (it ends at a pc in it; the span only grows, so its size
 * tells any change). */
static int walk_native_kept(const struct fg_walker *w, struct fg_regs r, struct fg_bounds b,
                            struct fg_walk_cache *kept, ASGCT_CallFrame *frames, uint8_t *types)
{
  uintptr_t span = atomic_load_explicit(&w->code->hi, memory_order_relaxed) -
                   atomic_load_explicit(&w->code->lo, memory_order_relaxed);
  int used = fg_walk_cache_begin(kept, w->unwind ? fg_unwind_tables_version(w->unwind) : 0, span, b, 1);
  struct fg_regs java;
  int reached_java, ended;
  int n = walk_native(w, r, b, used ? kept : NULL, frames, types, &java, &reached_java, &ended);
  fg_walk_cache_end(kept, n, ended);
  return n;
}

/* The frames of the compiled method (and what it inlined) that pc is in,
 * by the rule HotSpot uses for a top frame: the first debug record after pc. */
static int top_scopes(const struct fg_walker *w, uintptr_t pc, ASGCT_CallFrame *f, uint8_t *types, int room)
{
  if (!fg_code_map_contains(w->code, pc))
    return 0;
  const struct fg_code_blob *m = fg_code_map_find(&w->code->methods, pc);
  if (!m || !atomic_load_explicit(&m->method, memory_order_relaxed))
    return 0;
  return fg_walk_scopes_at(m, pc + 1, f, types, room);
}

/* The stub, adapter or interpreter that pc is in, as one frame: the walk
 * failed, but the time is still named by the code it was spent in. */
static int stub_at(const struct fg_walker *w, uintptr_t pc, ASGCT_CallFrame *f, uint8_t *types)
{
  if (!fg_code_map_contains(w->code, pc))
    return 0;
  const struct fg_code_blob *stub = fg_code_map_find(&w->code->stubs, pc);
  if (!stub)
    return 0;
  f[0] = (ASGCT_CallFrame){0, (jmethodID)(uintptr_t)stub};
  types[0] = FG_FRAME_STUB;
  return 1;
}

/* What a failed walk keeps: the compiled method (and what it inlined) or
 * the stub, adapter or interpreter that pc is in; 0 frames when neither. */
static int code_at(const struct fg_walker *w, uintptr_t pc, ASGCT_CallFrame *f, uint8_t *types, int room)
{
  int own = top_scopes(w, pc, f, types, room);
  return own ? own : stub_at(w, pc, f, types);
}

/* A thread blocked in the VM below a stub (C1's monitorenter, a C2 runtime
 * stub), where ASGCT walks only from the frame anchor and fails: the stub
 * is popped through rbp and the compiled method it returns to, with what
 * that method inlined at the call, is kept; the callers stay unknown. */
static int caller_of_stub(const struct fg_walker *w, struct fg_bounds b, struct fg_regs r, ASGCT_CallFrame *f,
                          uint8_t *types, int room)
{
  const struct fg_code_blob *stub = fg_code_map_find(&w->code->stubs, r.pc);
  if (!stub || room < 2 || !fg_pop_stub(stub, b, &r) || !fg_code_map_contains(w->code, r.pc))
    return 0;
  const struct fg_code_blob *m = fg_code_map_find(&w->code->methods, r.pc);
  if (!m || !atomic_load_explicit(&m->method, memory_order_relaxed))
    return 0;
  int n = fg_walk_scopes_at(m, r.pc, f + 1, types + 1, room - 1);
  if (n <= 0)
    return 0;
  f[0] = (ASGCT_CallFrame){0, (jmethodID)(uintptr_t)stub};
  types[0] = FG_FRAME_STUB;
  return n + 1;
}

/* The vm walker stopped at a caller in code it has no record of (a method
 * the code map has not read yet): AsyncGetCallTrace goes on from
 * that caller, asked from inside its call instruction as recovery does, for
 * the depth left. Returns the frames in all, or 0 when it fails too (the
 * whole sample is then AsyncGetCallTrace's). */
static int asgct_beyond(const struct fg_walker *w, void *env, const ucontext_t *uc, const struct fg_regs *caller,
                        ASGCT_CallFrame *f, uint8_t *types, int n, int depth)
{
  if (depth <= 0)
    return n;
  struct fg_regs at_call = *caller;
  at_call.pc--;
  int more = asgct_at(w, env, uc, &at_call, f + n, depth);
  if (more <= 0)
    return 0;
  for (int i = 0; i < more; i++)
    types[n + i] = FG_FRAME_JAVA;
  return n + more;
}

/* A walk that found n frames after k native ones, the first stubs of them
 * stub frames that do not count against depth. */
static struct fg_walk finish(const struct fg_walker *w, const struct fg_walker *config, struct fg_walk res, int k,
                             int n, int stubs, int reached_java, uint32_t flags)
{
  res.flags |= flags;
  if (n - stubs > w->depth) {
    n = w->depth + stubs;
    res.flags |= FG_SAMPLE_TRUNCATED;
    if (w->depth < config->depth)
      res.flags |= FG_SAMPLE_BUDGET;   /* cut shorter than depth by the time budget */
  }
  if (k > 0 && !reached_java)
    res.flags |= FG_SAMPLE_NATIVE_CUT;
  res.n = k + n;
  return res;
}

/* The walk of a thread with no JNIEnv: its k native frames. */
static struct fg_walk no_java(int k)
{
  return (struct fg_walk){k, FG_SAMPLE_FAILED, FG_TICK_NO_JAVA_FRAME, 0};
}

struct fg_walk fg_walk_stack(const struct fg_walker *config, int depth, uint64_t deadline_ns, void *env,
                             void *ucontext, uintptr_t stack_lo, uintptr_t stack_hi, struct fg_walk_cache *kept,
                             ASGCT_CallFrame *frames, uint8_t *types)
{
  struct fg_walker walker = *config;   /* this walk's own, at the depth its budget allows */
  if (depth > 0 && depth < walker.depth)
    walker.depth = depth;
  const struct fg_walker *w = &walker;
  ucontext_t *uc = ucontext;
  struct fg_walk res = {0, 0, 0, 0};
  struct fg_regs top = {(uintptr_t)uc->uc_mcontext.gregs[REG_RIP], (uintptr_t)uc->uc_mcontext.gregs[REG_RSP],
                     (uintptr_t)uc->uc_mcontext.gregs[REG_RBP]};
  struct fg_bounds b = {stack_lo, stack_hi, 0, 0};

  int k = 0, reached_java = 1, ended = 0;
  struct fg_regs java = top;
  if (w->native_depth > 0 && !fg_code_map_contains(w->code, top.pc)) {
    if (!env && kept)   /* a Java thread's kept walk is the VM walker's */
      k = walk_native_kept(w, top, b, kept, frames, types);
    else
      k = walk_native(w, top, b, NULL, frames, types, &java, &reached_java, &ended);
  }
  if (!env)   /* no Java on this thread */
    return no_java(k);

  ASGCT_CallFrame *jf = frames + k;
  uint8_t *jt = types + k;
  int room = w->depth + 1 + FG_MAX_RECOVERED_FRAMES;   /* recovered frames, then depth + 1 Java ones */
  if (w->use_vm) {
    int stubs = 0;
    struct fg_regs unknown;
    const greg_t *g = uc->uc_mcontext.gregs;
    struct fg_top_regs scratch = {(uintptr_t)g[REG_RAX], (uintptr_t)g[REG_RBX], (uintptr_t)g[REG_RDX],
                                  (uintptr_t)g[REG_R13]};
    int copy_end;
    int n = fg_vm_walk(w, env, reached_java ? &java : NULL, k == 0 ? &scratch : NULL, b, kept, jf, jt, w->depth + 1,
                       &stubs, &unknown, &copy_end);
    if (n > 0 && unknown.pc)
      n = asgct_beyond(w, env, uc, &unknown, jf, jt, n, w->depth + 1 - (n - stubs));
    if (n > 0)
      return finish(w, config, res, k, n, stubs, reached_java, FG_SAMPLE_VM_WALKED);
  }
  ASGCT_CallTrace trace = {env, 0, jf};
  w->asgct(&trace, w->depth + 1, ucontext);
  int n = entry_bcis(jf, trace.num_frames);
  int first_tick = n;
  if (n <= 0 && past(deadline_ns)) {
    res.flags |= FG_SAMPLE_BUDGET;   /* no retry: the first walk took the whole budget */
  } else if (n <= 0 && k > 0 && reached_java) {
    /* a native leaf call from Java: walk Java from where the native part ended */
    n = asgct_from(w, env, uc, &java, jf);
  }
  int recovered = 0;
  int retry = !(res.flags & FG_SAMPLE_BUDGET);
  if (n <= 0 && retry && w->recover && (n == FG_TICK_UNKNOWN_NOT_JAVA || n == FG_TICK_NOT_WALKABLE_NOT_JAVA)) {
    int r = retry_with_anchor_pc(w, env, ucontext, b, jf);
    if (r > 0)
      n = r;
  }
  if (n <= 0 && retry && w->recover && b.hi && recoverable(n)) {
    int r = recover(w, env, uc, b, reached_java ? java : top, jf, jt, room, deadline_ns);
    if (r > 0) {
      n = r;
      recovered = 1;
    }
  } else if (n > 0) {
    for (int i = 0; i < n && i < room; i++)
      jt[i] = FG_FRAME_JAVA;
    osr_entry_bci(w, reached_java ? java.pc : top.pc, jf, n);
  }
  if (n > 0) {
    if (w->annotate && !recovered)
      annotate(w, reached_java ? java.pc : top.pc, jf, jt, n);
    return finish(w, config, res, k, n, 0, reached_java, first_tick <= 0 ? FG_SAMPLE_RECOVERED : 0);
  }
  res.n = k;
  res.flags |= FG_SAMPLE_FAILED;
  res.tick = first_tick;   /* <= 0: a first walk that succeeded returned above */
  /* The native walk went past the thread's first frame and met no Java: a
   * thread ending (JavaThread::exit, its ThreadEnd) or not started yet has
   * none. AsyncGetCallTrace says unknown_not_Java there, as HotSpot's
   * pd_get_top_frame fails before forte.cpp asks has_last_Java_frame; as
   * the copy walk does, call it what it is. */
  if (!reached_java && ended == 2 &&
      (res.tick == FG_TICK_UNKNOWN_NOT_JAVA || res.tick == FG_TICK_NOT_WALKABLE_NOT_JAVA))
    res.tick = FG_TICK_NO_JAVA_FRAME;
  /* The stack is lost, but when pc is in a compiled method its own frames
   * are known: keep them above the tick marker, so the time lands on the
   * right method even though its callers are unknown; in a stub, an adapter
   * or the interpreter, keep that code's name. */
  if (w->recover && (res.tick == FG_TICK_UNKNOWN_JAVA || res.tick == FG_TICK_NOT_WALKABLE_JAVA)) {
    uintptr_t pc = reached_java ? java.pc : top.pc;
    res.n = k + code_at(w, pc, frames + k, types + k, room);
  } else if (w->recover && k > 0 && reached_java && b.hi)
    res.n = k + caller_of_stub(w, b, java, frames + k, types + k, room);
  return res;
}

/* A stub the VM calls from its own code (an arraycopy for Unsafe.copyMemory,
 * the instruction cache's flush as code is installed), popped by its
 * layout into *top when its caller is native code: its one frame, for the
 * native walk to go on from the caller. 0 for any other pc. The live walk
 * meets none: it starts at the thread's frame anchor, below them. */
static int stub_called_from_native(const struct fg_walker *w, struct fg_bounds b, struct fg_regs *top,
                                   ASGCT_CallFrame *frames, uint8_t *types)
{
  const struct fg_code_blob *s = fg_code_map_find(&w->code->stubs, top->pc);
  struct fg_regs caller = *top;
  if (!s || strcmp(s->name, "Interpreter") == 0 || !fg_pop_stub(s, b, &caller) || !caller.pc ||
      fg_code_map_contains(w->code, caller.pc))
    return 0;
  frames[0] = (ASGCT_CallFrame){0, (jmethodID)(uintptr_t)s};
  types[0] = FG_FRAME_STUB;
  *top = caller;
  return 1;
}

/* pc when it is in the code cache but in no stub or live method the map
 * holds, else 0. An unloaded method's entry counts as none: in a JVM that
 * has run a while, new code goes where dead code was, and a method
 * compiled there runs before the code map reads it, finding only the dead
 * entry (the copy is then held for the read, as over fresh space). */
static uintptr_t in_no_entry(const struct fg_walker *w, uintptr_t pc)
{
  const struct fg_code_blob *m = fg_code_map_find(&w->code->methods, pc);
  return fg_code_map_contains(w->code, pc) && (!m || !atomic_load_explicit(&m->method, memory_order_relaxed)) &&
                 !fg_code_map_find(&w->code->stubs, pc)
             ? pc
             : 0;
}

/* A leaf stub's caller not read yet: the first word of those the search
 * for its caller reads (fg_vm_pop_called_leaf, which takes only callers
 * the map holds) that is in the code cache but in no entry; else 0. */
static uintptr_t leaf_caller_in_no_entry(const struct fg_walker *w, struct fg_bounds b, const struct fg_regs *top)
{
  const struct fg_code_blob *s = fg_code_map_find(&w->code->stubs, top->pc);
  if (!s || s->enter >= 0 || s->layout.frame_bytes)
    return 0;
  for (uintptr_t slot = top->sp; slot < top->sp + 16 * 8; slot += 8) {
    uintptr_t ret;
    if (!fg_read_stack(b, slot, &ret))
      break;
    uintptr_t pc = in_no_entry(w, ret);
    if (pc)
      return pc;
  }
  return 0;
}

/* fg_walk_copy with the native frames walked (k of them first), kept or not. */
static struct fg_walk walk_copy(const struct fg_walker *w, const struct fg_walker *config, void *env,
                                const struct fg_stack_copy *c, ASGCT_CallFrame *frames, uint8_t *types, int *native)
{
  struct fg_walk res = {0, 0, 0, 0};
  struct fg_regs top = {c->pc, c->sp, c->fp};
  struct fg_bounds b = {c->sp, c->sp + c->copied, (uintptr_t)c->stack - c->sp, 1};
  int k = 0, reached_java = 1, ended = 0;
  struct fg_regs java = top;
  struct signal_step sig = {0, {0, 0, 0, 0}};   /* a thread in a signal handler: walked on past it */
  if (!fg_code_map_contains(w->code, top.pc))
    k = walk_native_from(w, top, 0, b, NULL, frames, types, &java, &reached_java, &ended, &sig);
  else if ((k = stub_called_from_native(w, b, &java, frames, types)) > 0)
    k += walk_native_from(w, java, 1, b, NULL, frames + k, types + k, &java, &reached_java, &ended, &sig);
  *native = k;
  if (!env)
    return no_java(k);
  ASGCT_CallFrame *jf = frames + k;
  uint8_t *jt = types + k;
  int room = w->depth + 1 + FG_MAX_RECOVERED_FRAMES;
  int stubs = 0, copy_end = 0, n = 0;
  struct fg_regs unknown = {0, 0, 0};
  if (reached_java) {
    struct fg_top_regs scratch = {c->rax, c->rbx, c->rdx, c->r13};
    const struct fg_top_regs *interrupted = k == 0 ? &scratch : sig.java_top ? &sig.scratch : NULL;
    n = fg_vm_walk(w, env, &java, interrupted, b, NULL, jf, jt, w->depth + 1, &stubs, &unknown, &copy_end);
  }
  if (n > 0 && !unknown.pc) {
    res = finish(w, config, res, k, n, stubs, reached_java, FG_SAMPLE_VM_WALKED);
    if (copy_end)
      res.flags |= FG_SAMPLE_TRUNCATED | FG_SAMPLE_COPY_CUT;
    return res;
  }
  res.flags = FG_SAMPLE_FAILED;
  if (n > 0) {   /* a caller with no record: the frames so far, above the tick */
    res.tick = FG_TICK_UNKNOWN_JAVA;
    res.n = k + (n - stubs > w->depth ? w->depth + stubs : n);
    res.no_record = in_no_entry(w, unknown.pc);
    return res;
  }
  res.n = k;
  if (!reached_java && ended == 2)   /* the whole stack, and no Java on it (a thread's end) */
    res.tick = FG_TICK_NO_JAVA_FRAME;
  else if (!reached_java) {
    res.tick = FG_TICK_UNKNOWN_NOT_JAVA;
    if (k > 0)
      res.flags |= FG_SAMPLE_NATIVE_CUT;
  }
  if (!reached_java)
    return res;
  /* as fg_walk_stack keeps them: the method or stub the pc is in */
  res.tick = FG_TICK_NOT_WALKABLE_JAVA;
  res.n = k + code_at(w, java.pc, frames + k, types + k, room);
  res.no_record = in_no_entry(w, java.pc);
  if (!res.no_record && k == 0)   /* a leaf stub whose caller was not read yet: held for it as well */
    res.no_record = leaf_caller_in_no_entry(w, b, &java);
  return res;
}

struct fg_walk fg_walk_copy(const struct fg_walker *config, void *env, const struct fg_stack_copy *c,
                            ASGCT_CallFrame *frames, uint8_t *types)
{
  struct fg_walker walker = *config;
  walker.from_copy = 1;
  walker.copy_cut = c->cut;
  walker.native_depth = FG_MAX_NATIVE_DEPTH;   /* no anchor: the native frames are the way to Java */
  int k;
  struct fg_walk res = walk_copy(&walker, config, env, c, frames, types, &k);
  if (config->native_depth == 0 && k > 0) {   /* cstack=no: walked, not kept */
    memmove(frames, frames + k, (size_t)(res.n - k) * sizeof *frames);
    memmove(types, types + k, (size_t)(res.n - k));
    res.n -= k;
    res.flags &= ~FG_SAMPLE_NATIVE_CUT;
  }
  return res;
}
