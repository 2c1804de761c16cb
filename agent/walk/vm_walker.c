/* The VM walker; see vm_walker.h. Async-signal-safe: plain loads only in a
 * live walk (a copy's walk, off-thread, reads metaspace with process_vm_readv). */
#include "walk/vm_walker.h"
#include "native/safe_read.h"

#include <string.h>

#include "hotspot/method_map.h"
#include "hotspot/osr_entry.h"
#include "hotspot/vm_offsets.h"
#include "walk/vm_walk.h"
#include "walk/walk_cache.h"

static int is_interpreter(const struct fg_code_blob *s);

/* A method without debug records or a frame (a method-handle intrinsic: a
 * few moves and a tail jump) returns through the address at sp as long as
 * nothing before pc moved rsp. */
static enum fg_top_pop frameless_plan(const struct fg_code_blob *m, uintptr_t pc)
{
  const struct fg_frame_layout *l = &m->layout;
  if (m->scopes || l->frame_bytes || l->rbp_based ||
      !fg_code_keeps_rsp((const uint8_t *)m->start, m->end - m->start, 0, pc - m->start))
    return FG_POP_FAIL;
  return FG_POP_RETURN;
}

/* The frames of m's first record at or above at (count 0: none), and
 * whether it is at pc itself (HotSpot records debug info at the return
 * address of every Java call). */
static int record_at(const struct fg_code_blob *m, uintptr_t at, uintptr_t pc, struct fg_pc_info *i)
{
  int r = fg_pc_scopes_at_or_above(m->scopes, at);
  if (r < 0)
    return r;
  const struct fg_pc_scopes *s = m->scopes;
  i->frames = s->frames + s->records[r].first;
  i->count = s->records[r + 1].first - s->records[r].first;
  i->exact = fg_pc_record_pc(s, (uint32_t)r) == pc;
  i->own = i->count && i->frames[i->count - 1].method == i->id;
  for (uint32_t j = 0; j < i->count && j < FG_PC_INLINE_FRAMES; j++)
    i->inline_frames[j] = i->frames[j];
  return r;
}

/* pc in m's OSR entry (osr_entry.h): i then names the method alone at its
 * entry bci, whatever record comes after the pc. Not an exact record:
 * no Java call returns there. */
static int osr_entering(const struct fg_code_blob *m, uintptr_t pc, struct fg_pc_info *i)
{
  struct fg_scope_frame f;
  if (!i->id || !fg_osr_entering(m, i->id, pc, &f))
    return 0;
  i->frames = NULL;
  i->count = 1;
  i->inline_frames[0] = f;
  i->own = 1;
  i->exact = 0;
  return 1;
}

/* How a top frame at pc in m's OSR entry pops: C1's entry builds the frame
 * again (stack bang, push rbp, sub rsp), so before that the method's own
 * layout, read at its first byte, does not hold; the walk fails there
 * rather than pop a frame not built yet. An entry that builds none (C2's
 * follows the method's prologue) pops as the method does. */
static enum fg_top_pop osr_entry_plan(const struct fg_code_blob *m, uintptr_t pc)
{
  const uint8_t *entry = (const uint8_t *)(m->start + m->deopt.osr_entry);
  size_t left = m->end - (uintptr_t)entry;
  struct fg_frame_layout l;
  if (fg_frame_layout_of(entry, left < 128 ? left : 128, &l) == 0 && (l.frame_bytes || l.rbp_based) &&
      pc < (uintptr_t)entry + l.complete)
    return FG_POP_FAIL;
  return fg_top_pop_plan(m, pc);
}

/* The top pcs around pc (itself a top pc in m's body, its record r) that
 * look up as it does: in its granule (FG_PC_RANGE_BYTES), in m, at or
 * above the record before r (a pc there takes r as the first record after
 * it) and below r, and with the frame built, no epilogue under way, at each
 * byte from pc to the range's ends (every byte, whether an instruction
 * starts there or not: a range is never wider than what is known). *hi 0:
 * none wider than pc itself. */
static void top_range(const struct fg_code_blob *m, int r, uintptr_t pc, uintptr_t *lo, uintptr_t *hi)
{
  const struct fg_pc_scopes *s = m->scopes;
  uintptr_t from = pc - pc % FG_PC_RANGE_BYTES, to = from + FG_PC_RANGE_BYTES;
  if (from < m->start)
    from = m->start;
  if (to > m->end)
    to = m->end;
  uintptr_t next = fg_pc_record_pc(s, (uint32_t)r);
  if (to > next)
    to = next;
  if (r > 0 && from < fg_pc_record_pc(s, (uint32_t)r - 1))
    from = fg_pc_record_pc(s, (uint32_t)r - 1);
  uintptr_t osr_from = m->start + m->deopt.osr_entry, osr_to = m->start + m->deopt.osr_return + 1;
  if (m->deopt.osr_return && pc < osr_from && to > osr_from)
    to = osr_from;   /* an OSR entry's pcs look up as its entry bci (osr_entry.h), not as the record after */
  if (m->deopt.osr_return && pc >= osr_to && from < osr_to)
    from = osr_to;
  uintptr_t a = pc, b = pc + 1;
  while (a > from && fg_top_pop_plan(m, a - 1) == FG_POP_COMPLETE)
    a--;
  while (b < to && fg_top_pop_plan(m, b) == FG_POP_COMPLETE)
    b++;
  *lo = a;
  *hi = b - a > 1 ? b : 0;
}

/* pc as the code map says it is now. top: the interrupted pc, whose record
 * is the first after it (HotSpot's rule for a pc between records) and whose
 * frame's way of popping is kept too. */
static void look_up(const struct fg_code_map *code, uintptr_t pc, int top, struct fg_pc_info *i, uintptr_t *lo,
                    uintptr_t *hi)
{
  memset(i, 0, sizeof *i);
  *hi = 0;
  const struct fg_code_blob *m = fg_code_map_find(&code->methods, pc);
  if (m) {
    i->kind = FG_PC_METHOD;
    i->blob = m;
    i->id = atomic_load_explicit(&m->method, memory_order_relaxed);
    i->frame_bytes = m->layout.frame_bytes;
    i->rbp_based = m->layout.rbp_based;
    i->scoped = m->scopes != NULL;
    int r = record_at(m, top ? pc + 1 : pc, pc, i);
    int entering = osr_entering(m, pc, i);
    if (top) {
      enum fg_top_pop plan = entering ? osr_entry_plan(m, pc) : fg_top_pop_plan(m, pc);
      i->top_pop = (uint8_t)(plan != FG_POP_FAIL ? plan : frameless_plan(m, pc));
      i->in_body = plan == FG_POP_COMPLETE && m->layout.frame_bytes;   /* past the prologue, before any epilogue */
      if (i->in_body && i->id && r >= 0 && !entering)
        top_range(m, r, pc, lo, hi);
    }
    return;
  }
  const struct fg_code_blob *s = fg_code_map_find(&code->stubs, pc);
  if (s) {
    i->kind = FG_PC_STUB;
    i->blob = s;
    i->interpreter = (uint8_t)is_interpreter(s);
  }
}

int fg_vm_frames_at(const struct fg_code_map *code, uintptr_t pc, int top, struct fg_scope_frame *out, int room,
                    jmethodID *method, int *scoped)
{
  struct fg_pc_info i;
  uintptr_t lo, hi;
  look_up(code, pc, top, &i, &lo, &hi);
  if (i.kind != FG_PC_METHOD || !i.id)
    return -1;
  *method = i.id;
  *scoped = i.scoped;
  const struct fg_scope_frame *f = fg_pc_frames(&i);
  int n = (int)i.count < room ? (int)i.count : room;
  for (int j = 0; j < n; j++)
    out[j] = f[j];
  return n;
}

/* pc_at past its memo: the pc cache (for a top pc, its range next) or the
 * code map, kept in memo slot e under key (and a top pc's range with it).
 * Out of line: the frame loop inlines only pc_at's hit. */
__attribute__((noinline)) const struct fg_pc_info *fg_vm_pc_looked_up(struct walk *k, uintptr_t pc, int top,
                                                                    uintptr_t key, struct memo *e)
{
  struct fg_pc_cache *cache = k->w->pcs;
  if (!cache || (!fg_pc_cache_get(cache, pc, top, k->generation, &e->info) &&
                 !(top && fg_pc_cache_get_range(cache, pc, k->generation, &e->info)))) {
    uintptr_t lo = 0, hi;
    look_up(k->w->code, pc, top, &e->info, &lo, &hi);
    if (cache && ((e->info.kind == FG_PC_METHOD && e->info.id) || e->info.kind == FG_PC_STUB))
      fg_pc_cache_put(cache, pc, top, k->generation, &e->info);
    if (cache && hi)
      fg_pc_cache_put_range(cache, lo, hi, k->generation, &e->info);
  }
  e->key = key;
  return &e->info;
}

/* A frame anchor's registers: the last Java frame of a thread that left
 * Java (for the VM, native code, or a call back into Java). Its pc is set
 * lazily (JDK-8178287); the return address below sp is the same pc then.
 * STEP_DONE: the anchor is empty, no Java frame below. */
static enum step anchor_regs(struct walk *k, uintptr_t anchor, int on_stack, struct fg_regs *r)
{
  const struct fg_vm_offsets *vm = k->w->vm;
  uintptr_t sp, pc, fp;
  if (on_stack) {
    if (!stack_word(k, anchor + vm->anchor_sp, &sp) || !stack_word(k, anchor + vm->anchor_pc, &pc) ||
        !stack_word(k, anchor + vm->anchor_fp, &fp))
      return STEP_FAIL;
  } else {   /* the thread's own anchor, inside its JavaThread */
    sp = *(volatile uintptr_t *)(anchor + vm->anchor_sp);
    pc = *(volatile uintptr_t *)(anchor + vm->anchor_pc);
    fp = *(volatile uintptr_t *)(anchor + vm->anchor_fp);
  }
  if (!sp)
    return STEP_DONE;
  if (!pc && !stack_word(k, sp - 8, &pc))
    return STEP_FAIL;
  *r = (struct fg_regs){pc, sp, fp};
  return STEP_NEXT;
}

/* The bci of an interpreted frame of method e whose bcp slot holds bcp:
 * NATIVE_BCI for a native method; 0 when bcp is outside its bytecodes. */
static int bci_of(const struct fg_method_slot *e, uintptr_t bcp, jint *bci)
{
  if (e->code_len == 0)
    *bci = NATIVE_BCI;
  else if (bcp >= e->code && bcp < e->code + e->code_len)
    *bci = (jint)(bcp - e->code);
  else
    return 0;
  return 1;
}

/* A caller r in m at one of m's deoptimization handlers: HotSpot patched
 * the return address when it deoptimized the frame under a running callee
 * (vm_deopt.h). The pc it replaced, from the frame's own slot, when that
 * lies in m; 0 otherwise. */
static uintptr_t saved_deopt_pc(struct walk *k, const struct fg_code_blob *m, const struct fg_regs *r)
{
  uint32_t at = (uint32_t)(r->pc - m->start);
  uintptr_t pc;
  if (m->deopt.orig_pc < 0 || !at || (at != m->deopt.handler && at != m->deopt.mh_handler) ||
      !stack_word(k, r->sp + (uintptr_t)m->deopt.orig_pc, &pc) || pc <= m->start || pc >= m->end)
    return 0;
  return pc;
}

/* The pc saved_deopt_pc finds, when it is a call's return address in the
 * same method, as the pc to walk the frame at; 0 otherwise. */
static uintptr_t pc_before_deopt(struct walk *k, const struct fg_code_blob *m, const struct fg_regs *r)
{
  uintptr_t pc = saved_deopt_pc(k, m, r);
  if (!pc)
    return 0;
  const struct fg_pc_info *i = pc_at(k, pc, 0);
  return i->kind == FG_PC_METHOD && i->blob == m && i->exact ? pc : 0;
}

int fg_vm_unread_method(struct walk *k, uintptr_t pc, struct fg_code_blob *m)
{
  const struct fg_code_heap *h = k->w->heap;
  struct fg_nmethod n;
  if (!h || k->w->from_copy || fg_code_heap_find_live(h, pc, &n) != 0)
    return 0;
  /* a Method* the map does not hold (a retransformed class's new one, a
   * method-handle intrinsic) may be one the drainer cannot name either:
   * AsyncGetCallTrace walks it */
  const struct fg_method_slot *e = method_entry(k, n.method);
  if (!e || !e->id)
    return 0;
  *m = (struct fg_code_blob){.start = n.code_begin, .end = n.code_end};
  atomic_store_explicit(&m->method, e->id, memory_order_relaxed);
  if (!k->w->deopt ||   /* plain loads of the header, in the code heap */
      fg_vm_deopt_sites_of(k->w->deopt, n.nm, (const void *)n.code_begin, n.code_end - n.code_begin, &m->deopt) != 0)
    m->deopt = (struct fg_deopt_sites){.orig_pc = -1};
  size_t len = m->end - m->start;
  fg_frame_layout_of((const uint8_t *)m->start, len < 128 ? len : 128, &m->layout);
  if (!m->layout.frame_bytes && !m->layout.rbp_based) {   /* entry patched (not entrant): built by now */
    memset(&m->layout, 0, sizeof m->layout);
    m->layout.frame_bytes = n.frame_bytes;
  }
  k->unread = 1;
  return 1;
}

int fg_vm_after_call(uintptr_t pc)
{
  const uint8_t *c = (const uint8_t *)pc;
  return c[-5] == 0xe8 || (c[-2] == 0xff && (c[-1] & 0xf8) == 0xd0) ||
         (c[-3] == 0x41 && c[-2] == 0xff && (c[-1] & 0xf8) == 0xd0);
}

/* A caller r in m, a method not read yet (fg_vm_unread_method): stopped
 * after a call instruction, or deoptimized under its callee (its return
 * address patched to a deoptimization handler, the pc it replaced in its
 * frame, as saved_deopt_pc reads it) with that pc after one. */
static int unread_at_call(struct walk *k, const struct fg_code_blob *m, const struct fg_regs *r)
{
  if (r->pc >= m->start + 5 && fg_vm_after_call(r->pc))
    return 1;
  uintptr_t pc = saved_deopt_pc(k, m, r);
  return pc >= m->start + 5 && fg_vm_after_call(pc);
}

/* Whether r is a Java caller stopped at a call, as proven as it can be
 * without walking on: a compiled method with a debug record at exactly that
 * return address (or at a deoptimization handler, the pc it replaced such
 * a one), the call stub's return address, or the interpreter with a known
 * Method* and a bcp inside its bytecodes at rbp. */
int fg_vm_at_java_call(struct walk *k, const struct fg_regs *r)
{
  if (!fg_code_map_contains(k->w->code, r->pc))
    return 0;
  if (r->pc == k->w->vm->call_stub_return)
    return 1;
  const struct fg_pc_info *c = pc_at(k, r->pc, 0);
  if (c->kind == FG_PC_METHOD && c->id)
    return c->exact || pc_before_deopt(k, c->blob, r);
  struct fg_code_blob unread;
  if (c->kind != FG_PC_STUB)   /* not read yet: after a call instruction is all there is to go by */
    return fg_vm_unread_method(k, r->pc, &unread) && unread_at_call(k, &unread, r);
  uintptr_t method, bcp;
  if (c->kind != FG_PC_STUB || !c->interpreter || !fg_read_stack(k->b, r->fp + INTERPRETER_METHOD, &method) ||
      !fg_read_stack(k->b, r->fp + INTERPRETER_BCP, &bcp))
    return 0;
  const struct fg_method_slot *e = method_entry(k, method);
  jint bci;
  return e && e->id && bci_of(e, bcp, &bci);
}

/* Code in the code cache that no entry holds: a method the code map has
 * not read yet, which may be a true caller. */
static int unknown_code(struct walk *k, uintptr_t pc)
{
  return fg_code_map_contains(k->w->code, pc) && pc_at(k, pc, 0)->kind == FG_PC_UNKNOWN;
}

/* The interrupted compiled frame's caller. In the body, C2's intrinsics for
 * String.compareTo and StringUTF16.compress (and others) push registers for
 * a while, so sp + frame size misses the return address by those pushes;
 * when the caller that gives is no Java call, the slots one to four words
 * further are tried, and one is taken only if it is at a Java call (a data
 * word that passes for one would have to be a return address with a debug
 * record of its own). Otherwise the first answer stands and the next frame
 * decides. */
static int pop_top_compiled(struct walk *k, const struct fg_pc_info *top, struct fg_regs *r)
{
  /* copied first: the lookups below may reuse the memo slot top is in */
  uint32_t frame_bytes = top->frame_bytes;
  int rbp_based = top->rbp_based, in_body = top->in_body;
  struct fg_regs first = *r;
  if (!fg_pop_planned((enum fg_top_pop)top->top_pop, frame_bytes, rbp_based, k->b, &first))
    return 0;
  if (in_body && !fg_vm_at_java_call(k, &first) && !unknown_code(k, first.pc)) {
    for (int pushed = 1; pushed <= 4; pushed++) {
      struct fg_regs t = *r;
      t.sp += 8 * (uintptr_t)pushed;
      if (fg_pop_sized(frame_bytes, rbp_based, k->b, &t) && fg_vm_at_java_call(k, &t)) {
        *r = t;
        return 1;
      }
    }
  }
  *r = first;
  return 1;
}

/* The frames of a pc's record, as many as there is room for, typed as a
 * compiled frame and what it inlined. Through locals: a store through
 * types (bytes) may alias anything, so k's fields would be read again for
 * every frame. */
static int record_frames(struct walk *k, const struct fg_pc_info *i)
{
  int n = k->room - k->n < (int)i->count ? k->room - k->n : (int)i->count;
  ASGCT_CallFrame *f = k->f + k->n;
  uint8_t *types = k->types + k->n;
  const struct fg_scope_frame *from = fg_pc_frames(i);
  uint8_t inlined = k->w->annotate ? FG_FRAME_INLINED : FG_FRAME_JAVA;
  for (int j = 0; j < n; j++) {
    f[j] = (ASGCT_CallFrame){from[j].bci, from[j].method};
    types[j] = inlined;
  }
  if (n > 0)
    types[n - 1] = k->w->annotate ? FG_FRAME_COMPILED : FG_FRAME_JAVA;
  return n;
}

uintptr_t fg_vm_stub_call_named_at(const struct fg_code_blob *m, uintptr_t pc)
{
  int r = fg_pc_scopes_at_or_above(m->scopes, pc);
  uintptr_t next = r >= 0 ? fg_pc_record_pc(m->scopes, (uint32_t)r) : pc;
  if (next == pc)
    return pc;   /* its own, or past the last record (a slow path: the method alone) */
  intptr_t to = 0;
  switch (fg_code_flow_after((const uint8_t *)pc, m->end - pc, next - pc, &to)) {
  case FG_FLOW_ON:
    return pc;
  case FG_FLOW_JUMP:
    return pc + (uintptr_t)to >= m->start && pc + (uintptr_t)to < m->end ? pc + (uintptr_t)to : 0;
  case FG_FLOW_ENDED:
    break;
  }
  return 0;
}

/* A leaf stub's caller at pc: the record that names the call
 * (fg_vm_stub_call_named_at), or NULL when none does. */
static const struct fg_pc_info *stub_caller_record(struct walk *k, const struct fg_pc_info *i, uintptr_t pc)
{
  uintptr_t at = fg_vm_stub_call_named_at(i->blob, pc);
  if (at == pc || !at)
    return at ? i : NULL;
  const struct fg_pc_info *j = pc_at(k, at, 0);
  return j->kind == FG_PC_METHOD && j->blob == i->blob && j->id == i->id ? j : NULL;
}

/* A compiled method's frame: its own and its inlined frames at pc, then
 * the caller's registers. i: what pc_at knows of the pc; top: the
 * interrupted frame. */
static enum step compiled_frame(struct walk *k, const struct fg_pc_info *i, int top, struct fg_regs *r)
{
  /* A caller stopped at a Java call: HotSpot records debug info at every
   * such call's return address (leaf calls to stubs and the VM have none).
   * A pc with no record of its own is no return address: the callee's frame
   * was popped by a wrong size (C2's intrinsics for String.compareTo and
   * StringUTF16.compress push and pop registers inside the body, so sp +
   * frame size is off while they run). Fail rather than guess on. */
  if (!top && k->java_call && i->scoped && !i->exact)
    return STEP_FAIL;
  const struct fg_pc_info *named = !top && k->stub_call && i->scoped && !i->exact ? stub_caller_record(k, i, r->pc) : i;
  int got = named ? record_frames(k, named) : 0;
  if (got > 0 && !named->own && k->n + got < k->room)
    return STEP_FAIL;   /* a record that does not end in the method itself */
  if (got <= 0) {
    if (!i->scoped)
      emit(k, NATIVE_BCI, i->id, FG_FRAME_COMPILED);   /* a native method's wrapper: no debug records */
    else if (top || (k->stub_call && (k->w->from_copy || !named)))
      /* a stub's caller no record names (above), or in the method's
       * out-of-line slow path past its last record: the method is known,
       * not its bci nor what it inlined there. The live walk leaves the
       * latter to AsyncGetCallTrace; a copy has nothing behind it */
      emit(k, -1, i->id, FG_FRAME_COMPILED);
    else
      return STEP_FAIL;   /* a Java call always has a record at its return address */
  } else {
    k->n += got;
  }
  if (top)
    return pop_top_compiled(k, i, r) ? STEP_NEXT : STEP_FAIL;
  if (!fg_pop_sized(i->frame_bytes, i->rbp_based, k->b, r))
    return STEP_FAIL;
  if (k->logging)
    fg_walk_cache_sized(k->kept);   /* either way read the caller's rbp and return address just below its sp */
  return STEP_NEXT;
}

/* The interrupted frame is the interpreter building a method's frame (its
 * Method* slot not written yet): the method is in rbx, and its caller is
 * taken from the first of the places the entry code keeps it in turn that
 * is at a Java call: the return address at rsp or in rax with the sender's
 * sp in r13, then, once rbp is this frame's, the return address above rbp
 * with the sender's sp in its slot or still in r13. */
static enum step entering_frame(struct walk *k, struct fg_regs *r)
{
  const struct fg_top_regs *t = k->top;
  const struct fg_method_slot *e = method_entry(k, t->rbx);
  if (!e || !e->id)
    return STEP_FAIL;
  uintptr_t at_sp = 0, link = 0, above_fp = 0, sender_sp = 0;
  fg_read_stack(k->b, r->sp, &at_sp);
  if (r->fp >= r->sp) {
    fg_read_stack(k->b, r->fp, &link);
    fg_read_stack(k->b, r->fp + 8, &above_fp);
    fg_read_stack(k->b, r->fp + INTERPRETER_SENDER_SP, &sender_sp);
  }
  const struct fg_regs tries[] = {
      {at_sp, t->r13, r->fp}, {t->rax, t->r13, r->fp}, {above_fp, sender_sp, link}, {above_fp, t->r13, link}};
  for (size_t i = 0; i < sizeof tries / sizeof *tries; i++) {
    if (tries[i].pc && tries[i].sp > r->sp && tries[i].sp < k->b.hi && fg_vm_at_java_call(k, &tries[i])) {
      emit(k, 0, e->id, FG_FRAME_INTERPRETED);   /* being entered: bci 0, as for a frame being set up */
      *r = tries[i];
      return STEP_NEXT;
    }
  }
  return STEP_FAIL;
}

/* Whether the Method* method is still the one e was made for: its
 * ConstMethod (Method::_constMethod) is the one whose bytecodes e holds. A
 * Method* freed (a retransformed class's old methods, once off every stack)
 * and taken by another method keeps its address, with another ConstMethod.
 * A live walk reads it with a plain load: it is the Method* of a frame
 * running on this thread and a key of the map, whose entries leave when
 * their class is unloaded, so it is metaspace in use. A copy's may have
 * been freed since the copy was taken: read in a way that cannot fault. */
static int method_is_entry(struct walk *k, uintptr_t method, const struct fg_method_slot *e)
{
  const struct fg_vm_offsets *o = k->w->vm;
  uintptr_t at = method + (uintptr_t)o->const_method, cm;
  if (k->w->from_copy) {
    if (!fg_safe_read(at, &cm, sizeof cm))
      return 0;
  } else {
    cm = *(const uintptr_t *)at;
  }
  return cm + (uintptr_t)o->const_method_bytes == e->code;
}

/* An interpreted frame: Method* and bcp from their slots. */
enum step fg_vm_interpreted_frame(struct walk *k, int top, struct fg_regs *r)
{
  uintptr_t method, bcp, sender_sp, link, ret;
  if (r->fp < r->sp || !stack_word(k, r->fp + INTERPRETER_METHOD, &method) ||
      !stack_word(k, r->fp + INTERPRETER_BCP, &bcp) || !stack_word(k, r->fp + INTERPRETER_SENDER_SP, &sender_sp) ||
      !stack_word(k, r->fp, &link) || !stack_word(k, r->fp + 8, &ret))
    return top && k->top ? entering_frame(k, r) : STEP_FAIL;
  const struct fg_method_slot *e = method_entry(k, method);
  if (!e || !e->id)
    return top && k->top ? entering_frame(k, r) : STEP_FAIL;
  if (!method_is_entry(k, method, e))
    return STEP_FAIL;   /* AsyncGetCallTrace names it */
  jint bci;
  if (!bci_of(e, bcp, &bci)) {
    /* a frame being set up (its bcp slot not written yet) has its Method* in
     * rbx as well, all through the interpreter's entry; any other frame with
     * a bcp outside the bytecodes is not this entry's method: its Method* was
     * freed and taken by another (a retransformed class's new methods reuse
     * the old ones' metaspace), and AsyncGetCallTrace names it */
    if (!top || !k->top || k->top->rbx != method)
      return STEP_FAIL;
    bci = 0;   /* its method is being entered; HotSpot's stack walks say bci 0
                  there too (vframeStreamCommon::fill_from_interpreter_frame) */
  }
  emit(k, bci, e->id, FG_FRAME_INTERPRETED);
  if (sender_sp <= r->fp)
    return STEP_FAIL;
  *r = (struct fg_regs){ret, sender_sp, link};
  return STEP_NEXT;
}

/* The call stub's frame, where Java was called from the VM: the walk goes on
 * at the frame anchor its JavaCallWrapper saved. */
static enum step entry_frame(struct walk *k, struct fg_regs *r)
{
  uintptr_t wrapper;
  if (!stack_word(k, r->fp + ENTRY_CALL_WRAPPER, &wrapper))
    return STEP_FAIL;
  return anchor_regs(k, wrapper + (uintptr_t)k->w->vm->wrapper_anchor, 1, r);
}

static int is_interpreter(const struct fg_code_blob *s)
{
  return strcmp(s->name, "Interpreter") == 0;
}

/* The safepoint handler a poll in a method's body traps into (HotSpot's
 * generate_handler_blob with cause_return false): it pushes rbx to make room
 * for a return address, builds an rbp frame, and writes the poll's pc into
 * that room before it calls the VM. The handler for a poll at a return
 * pushes nothing: its return address is the caller's own. */
static int poll_handler(const struct fg_code_blob *s)
{
  const uint8_t *c = (const uint8_t *)s->start;   /* push rbx; push rbp; mov rbp, rsp */
  return s->end - s->start >= 5 && strcmp(s->name, "SafepointBlob") == 0 && c[0] == 0x53 && c[1] == 0x55 &&
         c[2] == 0x48 && ((c[3] == 0x8b && c[4] == 0xec) || (c[3] == 0x89 && c[4] == 0xe5));
}

/* A frame in a compiled method the code map has not read yet: popped as
 * fg_vm_unread_method reads it; the caller of a Java method only at a call
 * (a stub's may be anywhere, as for a method read: compiled_frame). Written as its
 * pc (FG_FRAME_UNREAD, one frame as the method's would be), for the drainer
 * to name with the method's debug record once it has read it; the walk is
 * not kept. Else STEP_UNKNOWN: AsyncGetCallTrace from there. */
static enum step unread_frame(struct walk *k, int top, struct fg_regs *r)
{
  struct fg_code_blob m;
  struct fg_regs caller = *r;
  if (!fg_vm_unread_method(k, r->pc, &m))
    return STEP_UNKNOWN;
  if (top ? !fg_pop_planned(fg_top_pop_plan(&m, r->pc), m.layout.frame_bytes, m.layout.rbp_based, k->b, &caller)
          : (k->java_call && !unread_at_call(k, &m, r)) ||
                !fg_pop_sized(m.layout.frame_bytes, m.layout.rbp_based, k->b, &caller))
    return STEP_UNKNOWN;
  /* deoptimized under its callee: the drainer names the pc the handler
   * replaced (at the handler itself no record names a bci) */
  uintptr_t saved = top ? 0 : saved_deopt_pc(k, &m, r);
  emit(k, top, (jmethodID)(saved ? saved : r->pc), FG_FRAME_UNREAD);
  *r = caller;
  return STEP_NEXT;
}

/* One frame at r; top: pc may be anywhere in it (the interrupted frame);
 * first: no Java frame was read before it. */
static enum step frame(struct walk *k, int top, int first, struct fg_regs *r)
{
  if (!fg_code_map_contains(k->w->code, r->pc))
    return STEP_FAIL;
  if (r->pc == k->w->vm->call_stub_return)
    return entry_frame(k, r);
  const struct fg_pc_info *i = pc_at(k, r->pc, top);
  if (i->kind == FG_PC_METHOD && !top && !i->exact) {   /* no call returns there: a deoptimized frame's? */
    uintptr_t pc = pc_before_deopt(k, i->blob, r);
    if (pc) {
      r->pc = pc;
      i = pc_at(k, pc, 0);
    }
  }
  if (i->kind == FG_PC_METHOD && i->id)
    return compiled_frame(k, i, top, r);
  if (i->kind != FG_PC_STUB) {   /* in no live entry: an unloaded method's place, or not read yet */
    if (top && i->kind != FG_PC_METHOD && fg_vm_in_ic_stub(r->pc))
      return fg_pop_return(k->b, r) ? STEP_NEXT : STEP_FAIL;
    return unread_frame(k, top, r);
  }
  const struct fg_code_blob *s = i->blob;
  if (i->interpreter)
    return fg_vm_interpreted_frame(k, top, r);
  /* any other stub is a leaf (arraycopy, vtable) or calls the VM (runtime
   * stubs), so it is only ever the first frame; one met as a caller (the
   * deoptimization blob as a patched return address) is not walked */
  if (!first)
    return STEP_FAIL;
  if (top && s->i2c_end)
    return fg_vm_adapter_frame(k, s, r);
  /* a stub stopped at a call into the VM (reached through the anchor or the
   * native walk): a leaf call that had to align the stack (HotSpot's
   * call_VM_leaf: sub rsp, 8; call; add rsp, 8) left sp 8 below the
   * stub's own */
  const uint8_t *c = (const uint8_t *)r->pc;
  if (!top && r->pc + 4 <= s->end && c[0] == 0x48 && c[1] == 0x83 && c[2] == 0xc4 && c[3] == 0x08)
    r->sp += 8;   /* add rsp, 8 */
  emit(k, 0, (jmethodID)(uintptr_t)s, FG_FRAME_STUB);
  if (top && r->pc == s->start && s->layout.pushes_return) {
    /* the exception blob before its push rdx: the return address is in rdx */
    struct fg_regs caller = {k->top ? k->top->rdx : 0, r->sp, r->fp};
    if (!k->top || !fg_vm_at_java_call(k, &caller))
      return STEP_FAIL;
    *r = caller;
    return STEP_NEXT;
  }
  if (!top && poll_handler(s)) {   /* at its call into the VM: its frame returns to the poll */
    if (!fg_pop_rbp_frame(k->b, r))
      return STEP_FAIL;
    k->at_poll = 1;
    k->top = NULL;   /* the registers were the VM's */
    return STEP_NEXT;
  }
  if (fg_pop_stub(s, k->b, r))
    return STEP_NEXT;
  return top && s->enter < 0 && !s->layout.frame_bytes && fg_vm_pop_called_leaf(k, s, r) ? STEP_NEXT : STEP_FAIL;
}

/* walker=copy: a frame at sp that could not be read lies so near the end of
 * a copy cut short of the stack that its reads (or its caller's) may be past
 * it: a frame's reads reach at most its size above sp, and few frames are
 * over FG_COPY_END_SLACK. */
#define FG_COPY_END_SLACK 4096
static int copy_ran_out(const struct fg_walker *w, struct fg_bounds b, uintptr_t sp, int n)
{
  return w->from_copy && w->copy_cut && n > 0 && sp + FG_COPY_END_SLACK > b.hi;
}

/* The walk's end: its announcement to the method map withdrawn, after its
 * last read of an entry. n: what fg_vm_walk returns. */
static int walk_end(struct walk *k, int n)
{
  if (k->methods_in >= 0)
    fg_method_map_leave(k->w->methods, (unsigned)k->methods_in);
  return n;
}

int fg_vm_walk(const struct fg_walker *w, void *env, const struct fg_regs *java, const struct fg_top_regs *top_regs,
               struct fg_bounds b, struct fg_walk_cache *kept, ASGCT_CallFrame *f, uint8_t *types, int java_room,
               int *stubs, struct fg_regs *unknown, int *copy_end)
{
  const struct fg_vm_offsets *vm = w->vm;
  *stubs = 0;
  *copy_end = 0;
  unknown->pc = 0;
  if (!vm || !vm->known || !w->methods || !env || !b.hi || java_room <= 0)
    return 0;
  struct walk k;   /* not an initializer: that would clear the whole memo, its pcs are enough */
  k.w = w;
  k.b = b;
  k.f = f;
  k.types = types;
  k.n = 0;
  k.room = java_room;
  k.java_call = k.stub_call = k.at_poll = 0;
  k.top = top_regs;
  k.generation = fg_code_map_generation(w->code);
  k.kept = kept && fg_walk_cache_begin(kept, k.generation, fg_method_map_generation(w->methods), b, 0) ? kept : NULL;
  k.logging = 0;
  k.unread = 0;
  k.methods_in = -1;
  for (int i = 0; i < MEMO_SLOTS; i++)
    k.memo[i].key = 0;
  int java_is_top = top_regs != NULL;
  struct fg_regs r;
  int top;
  /* a stack copy's thread has run on since: its state and anchor are not the sample's */
  int32_t state = w->from_copy ? vm->in_java : *(volatile int32_t *)((char *)env + vm->env_to_state);
  if (state == vm->in_java) {
    if (!java)
      return walk_end(&k, 0);   /* in native code with no way back to Java: ASGCT decides */
    r = *java;
    top = java_is_top;
  } else {
    if (anchor_regs(&k, (uintptr_t)env + (uintptr_t)vm->env_to_anchor, 0, &r) != STEP_NEXT)
      return walk_end(&k, 0);
    /* stubs that save every register before calling the VM (resolve_*,
     * wrong_method, ic_miss) leave no fp in the anchor; the native walk
     * unwound the VM's frames to the same sp and restored rbp on the way */
    if (!r.fp && java && !java_is_top && java->sp == r.sp && java->pc == r.pc)
      r.fp = java->fp;
    top = 0;   /* the anchor's pc is a return address: the frame is at a call */
    k.top = NULL;
  }
  int leaf_stub = 0, ended = 0;
  for (int first = 1; k.n < k.room; first = 0) {
    if (k.kept && !first) {   /* a caller frame: where the last walk may be met */
      int got = fg_walk_cache_go_on(k.kept, &r, k.java_call, f + k.n, types + k.n, k.n, k.room);
      if (got >= 0) {
        k.n += got;
        ended = 1;
        break;
      }
      k.logging = 1;
    }
    uintptr_t sp = r.sp;
    int n = k.n, entered = r.pc == vm->call_stub_return;   /* an entry frame: on at an anchor */
    enum step s = frame(&k, top, first, &r);
    if (s == STEP_DONE) {
      ended = 1;
      break;
    }
    if (s == STEP_UNKNOWN && !first) {
      *unknown = r;   /* a caller at a call: the rest is AsyncGetCallTrace's */
      break;
    }
    /* every frame lies above the one before; only the exception blob,
     * entered with its caller's sp, leaves sp where it was */
    if (s != STEP_NEXT || r.sp < sp || (r.sp == sp && !first)) {
      if (s != STEP_FAIL || !copy_ran_out(w, b, sp, k.n))
        return walk_end(&k, 0);
      *copy_end = 1;   /* the frames so far stand; the rest is past the copy */
      break;
    }
    if (first && k.n >= 1 && types[0] == FG_FRAME_STUB) {
      leaf_stub = 1;   /* the leaf stub does not count against depth */
      k.room++;
    }
    k.java_call = k.n > n && types[k.n - 1] != FG_FRAME_STUB && !entered;
    k.stub_call = first && leaf_stub;
    top = k.at_poll;   /* every frame after the first is stopped at a call, but at a poll */
    k.at_poll = 0;
  }
  *stubs = leaf_stub;
  if (kept)
    fg_walk_cache_end(kept, k.n, ended && !k.unread);
  return walk_end(&k, k.n);
}
