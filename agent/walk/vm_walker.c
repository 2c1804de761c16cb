/* The VM walker; see vm_walker.h. Async-signal-safe: plain loads only. */
#include "vm_walker.h"

#include <string.h>

#include "call_sites.h"
#include "method_map.h"
#include "vm_offsets.h"

/* Slots of frames as HotSpot lays them out on x86-64 (frame_x86.hpp), in
 * bytes from rbp. */
#define INTERPRETER_SENDER_SP (-1 * 8)
#define INTERPRETER_METHOD (-3 * 8)
#define INTERPRETER_BCP (-8 * 8)
#define ENTRY_CALL_WRAPPER (-6 * 8)

#define NATIVE_BCI (-3)   /* what ASGCT reports for a native method's frame */

/* STEP_UNKNOWN: the pc is code the walker has no record of (a method whose
 * CompiledMethodLoad has not come yet, or was unloaded): the registers are
 * the caller's, right for AsyncGetCallTrace to go on from */
enum step { STEP_NEXT, STEP_DONE, STEP_FAIL, STEP_UNKNOWN };

/* A pc's compiled method and the frames of its first debug record at or
 * above it, as found once in this walk: a deep stack returns to the same
 * few pcs again and again (recursion), cheaper to find here than even in
 * the call-site table. */
#define MEMO_SLOTS 8
struct memo {
  uintptr_t pc;
  struct fg_call_site_info info;
};

struct walk {
  const struct fg_walker *w;
  struct fg_bounds b;
  ASGCT_CallFrame *f;
  uint8_t *types;
  int n, room;
  int java_call;   /* the frame just read was a Java method's: its caller is at a Java call */
  const struct fg_top_regs *top;   /* the interrupted frame's scratch registers, or NULL */
  struct memo memo[MEMO_SLOTS];      /* pc 0: empty (no code is there) */
};

/* pc as the code map says it is now. */
static struct fg_call_site_info look_up(const struct fg_code_map *code, uintptr_t pc)
{
  const struct fg_code_blob *m = fg_code_map_find(&code->methods, pc);
  struct fg_call_site_info i = {.m = m, .id = m ? atomic_load_explicit(&m->method, memory_order_relaxed) : NULL};
  int at = m ? fg_pc_scopes_at_or_above(m->scopes, pc) : -1;
  if (at >= 0) {
    const struct fg_pc_scopes *s = m->scopes;
    i.methods = s->methods + s->start[at];
    i.bcis = s->bcis + s->start[at];
    i.count = s->start[at + 1] - s->start[at];
    i.exact = s->pc[at] == pc;
    i.own = i.count && i.methods[i.count - 1] == i.id;
  }
  return i;
}

/* What is known of pc, a pc in the code cache: the compiled method holding
 * it (m NULL when none does), the frames of its first record at or above pc
 * (count 0: none) and whether that record is at pc itself (HotSpot records
 * debug info at the return address of every Java call). From this walk's
 * memo, else the call-site table, else the code map (kept in both then, the
 * table only for a live method). */
static const struct fg_call_site_info *method_at(struct walk *k, uintptr_t pc)
{
  struct memo *e = &k->memo[(pc ^ (pc >> 7)) % MEMO_SLOTS];
  if (e->pc == pc && pc)
    return &e->info;
  struct fg_call_sites *sites = k->w->sites;
  uint32_t generation = fg_code_map_generation(k->w->code);
  struct fg_call_site_info known;
  if (sites && fg_call_sites_get(sites, pc, generation, &known)) {
    e->info = known;
  } else {
    e->info = look_up(k->w->code, pc);
    if (sites && e->info.id)
      fg_call_sites_put(sites, pc, generation, &e->info);
  }
  e->pc = pc;
  return &e->info;
}

static void emit(struct walk *k, jint bci, jmethodID id, uint8_t type)
{
  k->f[k->n] = (ASGCT_CallFrame){bci, id};
  k->types[k->n++] = k->w->annotate || type == FG_FRAME_STUB ? type : FG_FRAME_JAVA;
}

/* A frame anchor's registers: the last Java frame of a thread that left
 * Java (for the VM, native code, or a call back into Java). Its pc is set
 * lazily (JDK-8178287); the return address below sp is the same pc then.
 * STEP_DONE: the anchor is empty, no Java frame below. */
static enum step anchor_regs(const struct walk *k, uintptr_t anchor, int on_stack, struct fg_regs *r)
{
  const struct fg_vm_offsets *vm = k->w->vm;
  uintptr_t sp, pc, fp;
  if (on_stack) {
    if (!fg_read_stack(k->b, anchor + vm->anchor_sp, &sp) || !fg_read_stack(k->b, anchor + vm->anchor_pc, &pc) ||
        !fg_read_stack(k->b, anchor + vm->anchor_fp, &fp))
      return STEP_FAIL;
  } else {   /* the thread's own anchor, inside its JavaThread */
    sp = *(volatile uintptr_t *)(anchor + vm->anchor_sp);
    pc = *(volatile uintptr_t *)(anchor + vm->anchor_pc);
    fp = *(volatile uintptr_t *)(anchor + vm->anchor_fp);
  }
  if (!sp)
    return STEP_DONE;
  if (!pc && !fg_read_stack(k->b, sp - 8, &pc))
    return STEP_FAIL;
  *r = (struct fg_regs){pc, sp, fp};
  return STEP_NEXT;
}

static int is_interpreter(const struct fg_code_blob *s);

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

/* Whether r is a Java caller stopped at a call, as proven as it can be
 * without walking on: a compiled method with a debug record at exactly that
 * return address, the call stub's return address, or the interpreter with
 * a known Method* and a bcp inside its bytecodes at rbp. */
static int at_java_call(struct walk *k, const struct fg_regs *r)
{
  const struct fg_code_map *code = k->w->code;
  if (!fg_code_map_contains(code, r->pc))
    return 0;
  if (r->pc == k->w->vm->call_stub_return)
    return 1;
  const struct fg_call_site_info *c = method_at(k, r->pc);
  if (c->m)
    return c->id && c->exact;
  const struct fg_code_blob *s = fg_code_map_find(&code->stubs, r->pc);
  uintptr_t method, bcp;
  if (!s || !is_interpreter(s) || !fg_read_stack(k->b, r->fp + INTERPRETER_METHOD, &method) ||
      !fg_read_stack(k->b, r->fp + INTERPRETER_BCP, &bcp))
    return 0;
  const struct fg_method_slot *e = fg_method_map_get(k->w->methods, method);
  jint bci;
  return e && e->id && bci_of(e, bcp, &bci);
}

/* Code in the code cache that no entry holds: a method whose
 * CompiledMethodLoad has not come yet, which may be a true caller. */
static int unknown_code(struct walk *k, uintptr_t pc)
{
  const struct fg_code_map *code = k->w->code;
  return fg_code_map_contains(code, pc) && !method_at(k, pc)->m && !fg_code_map_find(&code->stubs, pc);
}

/* The interrupted compiled frame's caller. In the body, C2's intrinsics for
 * String.compareTo and StringUTF16.compress (and others) push registers for
 * a while, so sp + frame size misses the return address by those pushes;
 * when the caller that gives is no Java call, the slots one to four words
 * further are tried, and one is taken only if it is at a Java call (a data
 * word that passes for one would have to be a return address with a debug
 * record of its own). Otherwise the first answer stands and the next frame
 * decides. */
static int pop_top_compiled(struct walk *k, const struct fg_code_blob *m, struct fg_regs *r)
{
  struct fg_regs first = *r;
  if (!fg_pop_method(m, k->b, &first)) {
    /* no frame of its own to read (a method-handle intrinsic: a few moves
     * and a tail jump): its return address is at sp if nothing before pc
     * moved rsp */
    const struct fg_frame_layout *l = &m->layout;
    if (m->scopes || l->frame_bytes || l->rbp_based ||
        !fg_code_keeps_rsp((const uint8_t *)m->start, m->end - m->start, 0, r->pc - m->start))
      return 0;
    return fg_pop_return(k->b, r);
  }
  if (!at_java_call(k, &first) && fg_in_method_body(m, r->pc) && !unknown_code(k, first.pc)) {
    for (int pushed = 1; pushed <= 4; pushed++) {
      struct fg_regs t = *r;
      t.sp += 8 * (uintptr_t)pushed;
      if (fg_pop_complete(m, k->b, &t) && at_java_call(k, &t)) {
        *r = t;
        return 1;
      }
    }
  }
  *r = first;
  return 1;
}

/* A caller's frames at its call, as many as there is room for. */
static int call_scopes(struct walk *k, const struct fg_call_site_info *call)
{
  int n = k->room - k->n < (int)call->count ? k->room - k->n : (int)call->count;
  for (int i = 0; i < n; i++)
    k->f[k->n + i] = (ASGCT_CallFrame){call->bcis[i], call->methods[i]};
  return n;
}

/* A compiled method's frame: its own and its inlined frames at pc, then
 * the caller's registers. call: what method_at knows of a caller's pc; NULL
 * for the interrupted frame. */
static enum step compiled_frame(struct walk *k, const struct fg_code_blob *m, jmethodID id,
                                const struct fg_call_site_info *call, struct fg_regs *r)
{
  int top = call == NULL;
  /* A caller stopped at a Java call: HotSpot records debug info at every
   * such call's return address (leaf calls to stubs and the VM have none).
   * A pc with no record of its own is no return address: the callee's frame
   * was popped by a wrong size (C2's intrinsics for String.compareTo and
   * StringUTF16.compress push and pop registers inside the body, so sp +
   * frame size is off while they run). Fail rather than guess on. */
  if (!top && k->java_call && m->scopes && !call->exact)
    return STEP_FAIL;
  int got = top ? fg_walk_scopes_at(m, r->pc + 1, k->f + k->n, k->types + k->n, k->room - k->n)
                : call_scopes(k, call);
  int own = top ? got > 0 && k->f[k->n + got - 1].method_id == id : call->own;
  if (got > 0 && !own && k->n + got < k->room)
    return STEP_FAIL;   /* a record that does not end in the method itself */
  if (got <= 0) {
    if (!m->scopes)
      emit(k, NATIVE_BCI, id, FG_FRAME_COMPILED);   /* a native method's wrapper: no debug records */
    else if (top)
      emit(k, -1, id, FG_FRAME_COMPILED);
    else
      return STEP_FAIL;   /* a call always has a record at its return address */
  } else {
    for (int i = 0; i < got; i++)
      k->types[k->n + i] = k->w->annotate ? (i + 1 < got ? FG_FRAME_INLINED : FG_FRAME_COMPILED) : FG_FRAME_JAVA;
    k->n += got;
  }
  return (top ? pop_top_compiled(k, m, r) : fg_pop_complete(m, k->b, r)) ? STEP_NEXT : STEP_FAIL;
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
  const struct fg_method_slot *e = fg_method_map_get(k->w->methods, t->rbx);
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
    if (tries[i].pc && tries[i].sp > r->sp && tries[i].sp < k->b.hi && at_java_call(k, &tries[i])) {
      emit(k, -1, e->id, FG_FRAME_INTERPRETED);
      *r = tries[i];
      return STEP_NEXT;
    }
  }
  return STEP_FAIL;
}

/* An interpreted frame: Method* and bcp from their slots. */
static enum step interpreted_frame(struct walk *k, int top, struct fg_regs *r)
{
  uintptr_t method, bcp, sender_sp, link, ret;
  if (r->fp < r->sp || !fg_read_stack(k->b, r->fp + INTERPRETER_METHOD, &method) ||
      !fg_read_stack(k->b, r->fp + INTERPRETER_BCP, &bcp) ||
      !fg_read_stack(k->b, r->fp + INTERPRETER_SENDER_SP, &sender_sp) || !fg_read_stack(k->b, r->fp, &link) ||
      !fg_read_stack(k->b, r->fp + 8, &ret))
    return top && k->top ? entering_frame(k, r) : STEP_FAIL;
  const struct fg_method_slot *e = fg_method_map_get(k->w->methods, method);
  if (!e || !e->id)
    return top && k->top ? entering_frame(k, r) : STEP_FAIL;
  jint bci;
  if (!bci_of(e, bcp, &bci)) {
    if (!top)
      return STEP_FAIL;
    bci = -1;   /* a frame being set up: the method is known, its bci not yet */
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
  if (!fg_read_stack(k->b, r->fp + ENTRY_CALL_WRAPPER, &wrapper))
    return STEP_FAIL;
  return anchor_regs(k, wrapper + (uintptr_t)k->w->vm->wrapper_anchor, 1, r);
}

static int same_page(uintptr_t a, uintptr_t b)
{
  return (a >> 12) == (b >> 12);   /* pc's page is mapped: it runs; the next may be reserved only */
}

/* The inline-cache buffer's stubs (movabs rax, <cached value>; jmp <entry>),
 * which JVMTI does not report: a call site being switched to a new target
 * jumps through one, with only the return address on the stack. */
static int in_ic_stub(uintptr_t pc)
{
  const uint8_t *p = (const uint8_t *)pc;
  if (same_page(pc, pc + 10) && p[0] == 0x48 && p[1] == 0xb8)
    return p[10] == 0xe9;
  return same_page(pc - 10, pc) && p[0] == 0xe9 && p[-10] == 0x48 && p[-9] == 0xb8;
}

/* The c2i adapter's last part: r13 holds the caller's sp, the return
 * address is in rax or, once stored back, at rsp. Either is taken only when
 * it is the return address of a Java call (a debug record at exactly that
 * pc) and r13 is above sp by no more than the interpreter's arguments. */
static int pop_c2i_tail(struct walk *k, struct fg_regs *r)
{
  const struct fg_top_regs *t = k->top;
  uintptr_t caller_sp = t->r13, at_sp;
  if (caller_sp <= r->sp || caller_sp - r->sp > 8 * 260 || caller_sp >= k->b.hi)
    return 0;
  struct fg_regs c = {t->rax, caller_sp, r->fp};
  if (!at_java_call(k, &c)) {
    if (!fg_read_stack(k->b, r->sp, &at_sp))
      return 0;
    c.pc = at_sp;
    if (!at_java_call(k, &c))
      return 0;
  }
  *r = c;
  return 1;
}

/* The interrupted frame in an adapter. In the i2c adapter an interpreted
 * caller is passing its arguments to compiled code: rsp moves about, but
 * rbp is still the caller's frame pointer. In a c2i adapter compiled code
 * called an interpreted method: until the adapter moves rsp (its checks of
 * the call site and the method's class come first) the return address is at
 * sp; in its last part r13 and rax keep the caller. In the call site's
 * patching between them the walk fails. */
static enum step adapter_frame(struct walk *k, const struct fg_code_blob *s, struct fg_regs *r)
{
  size_t at = r->pc - s->start, i2c = s->i2c_end;
  emit(k, 0, (jmethodID)(uintptr_t)s, FG_FRAME_STUB);
  if (at < i2c)
    return interpreted_frame(k, 0, r);
  if (fg_code_keeps_rsp((const uint8_t *)s->start, s->end - s->start, i2c, at))
    return fg_pop_return(k->b, r) ? STEP_NEXT : STEP_FAIL;
  if (s->c2i_tail && at >= s->c2i_tail && k->top)
    return pop_c2i_tail(k, r) ? STEP_NEXT : STEP_FAIL;
  return STEP_FAIL;
}

/* The callers a leaf stub may return to from slot, where ret, a pc in
 * compiled method m, is: the caller may have pushed the stub's arguments
 * (C1 pushes two for slow_subtype_check), so its sp is 0 to 4 words above
 * the slot; each whose frame pops to a Java call counts. Returns how many,
 * the last in *caller. */
static int callers_of_leaf(struct walk *k, const struct fg_code_blob *m, uintptr_t ret, uintptr_t slot,
                           uintptr_t fp, struct fg_regs *caller)
{
  int found = 0;
  for (uintptr_t args = 0; args <= 4; args++) {
    struct fg_regs c = {ret, slot + 8 + 8 * args, fp}, beyond = c;
    if (fg_pop_complete(m, k->b, &beyond) && at_java_call(k, &beyond)) {
      *caller = c;
      found++;
    }
  }
  return found;
}

/* A leaf stub with no frame of its own that pushes registers and moves rsp
 * as it goes (C1's slow_subtype_check): its return address is one of the 16
 * words above sp that a compiled method's call of this very stub (call
 * rel32 to inside it) returns to. The space the stub reserves may still
 * hold such a word from an earlier call, and the arguments' count is not
 * known: the caller is taken only when exactly one slot and argument count
 * lead to a Java call. */
static int pop_called_leaf(struct walk *k, const struct fg_code_blob *s, struct fg_regs *r)
{
  const struct fg_code_map *code = k->w->code;
  int found = 0;
  struct fg_regs caller;
  for (uintptr_t slot = r->sp; slot < r->sp + 16 * 8; slot += 8) {
    uintptr_t ret;
    if (!fg_read_stack(k->b, slot, &ret))
      break;
    if (!fg_code_map_contains(code, ret))
      continue;
    const struct fg_code_blob *m = method_at(k, ret)->m;
    if (!m || ret < m->start + 5)
      continue;
    const uint8_t *call = (const uint8_t *)(ret - 5);
    int32_t rel;
    memcpy(&rel, call + 1, sizeof rel);
    uintptr_t target = ret + (uintptr_t)(intptr_t)rel;
    if (call[0] == 0xe8 && target >= s->start && target < s->end &&
        atomic_load_explicit(&m->method, memory_order_relaxed))
      found += callers_of_leaf(k, m, ret, slot, r->fp, &caller);
  }
  if (found != 1)
    return 0;
  *r = caller;
  return 1;
}

static int is_interpreter(const struct fg_code_blob *s)
{
  return strcmp(s->name, "Interpreter") == 0;
}

/* One frame at r; top: pc may be anywhere in it (the interrupted frame);
 * first: no Java frame was read before it. */
static enum step frame(struct walk *k, int top, int first, struct fg_regs *r)
{
  const struct fg_code_map *code = k->w->code;
  if (!fg_code_map_contains(code, r->pc))
    return STEP_FAIL;
  if (r->pc == k->w->vm->call_stub_return)
    return entry_frame(k, r);
  if (top) {
    const struct fg_code_blob *m = fg_code_map_find(&code->methods, r->pc);
    jmethodID id = m ? atomic_load_explicit(&m->method, memory_order_relaxed) : NULL;
    if (m)
      return id ? compiled_frame(k, m, id, NULL, r) : STEP_UNKNOWN;   /* unloaded: nothing to name */
  } else {
    const struct fg_call_site_info *c = method_at(k, r->pc);
    if (c->m)
      return c->id ? compiled_frame(k, c->m, c->id, c, r) : STEP_UNKNOWN;
  }
  const struct fg_code_blob *s = fg_code_map_find(&code->stubs, r->pc);
  if (!s) {
    if (top)
      return in_ic_stub(r->pc) && fg_pop_return(k->b, r) ? STEP_NEXT : STEP_FAIL;
    return STEP_UNKNOWN;
  }
  if (is_interpreter(s))
    return interpreted_frame(k, top, r);
  /* any other stub is a leaf (arraycopy, vtable) or calls the VM (runtime
   * stubs), so it is only ever the first frame; one met as a caller (the
   * deoptimization blob as a patched return address) is not walked */
  if (!first)
    return STEP_FAIL;
  if (top && s->i2c_end)
    return adapter_frame(k, s, r);
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
    if (!k->top || !at_java_call(k, &caller))
      return STEP_FAIL;
    *r = caller;
    return STEP_NEXT;
  }
  if (fg_pop_stub(s, k->b, r))
    return STEP_NEXT;
  return top && s->enter < 0 && !s->layout.frame_bytes && pop_called_leaf(k, s, r) ? STEP_NEXT : STEP_FAIL;
}

int fg_vm_walk(const struct fg_walker *w, void *env, const struct fg_regs *java, const struct fg_top_regs *top_regs,
               struct fg_bounds b, ASGCT_CallFrame *f, uint8_t *types, int java_room, int *stubs,
               struct fg_regs *unknown)
{
  const struct fg_vm_offsets *vm = w->vm;
  *stubs = 0;
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
  k.java_call = 0;
  k.top = top_regs;
  for (int i = 0; i < MEMO_SLOTS; i++)
    k.memo[i].pc = 0;
  int java_is_top = top_regs != NULL;
  struct fg_regs r;
  int top;
  int32_t state = *(volatile int32_t *)((char *)env + vm->env_to_state);
  if (state == vm->in_java) {
    if (!java)
      return 0;   /* in native code with no way back to Java: ASGCT decides */
    r = *java;
    top = java_is_top;
  } else {
    if (anchor_regs(&k, (uintptr_t)env + (uintptr_t)vm->env_to_anchor, 0, &r) != STEP_NEXT)
      return 0;
    /* stubs that save every register before calling the VM (resolve_*,
     * wrong_method, ic_miss) leave no fp in the anchor; the native walk
     * unwound the VM's frames to the same sp and restored rbp on the way */
    if (!r.fp && java && !java_is_top && java->sp == r.sp && java->pc == r.pc)
      r.fp = java->fp;
    top = 0;   /* the anchor's pc is a return address: the frame is at a call */
    k.top = NULL;
  }
  int leaf_stub = 0;
  for (int first = 1; k.n < k.room; first = 0) {
    uintptr_t sp = r.sp;
    int n = k.n, entered = r.pc == vm->call_stub_return;   /* an entry frame: on at an anchor */
    enum step s = frame(&k, top, first, &r);
    if (s == STEP_DONE)
      break;
    if (s == STEP_UNKNOWN && !first) {
      *unknown = r;   /* a caller at a call: the rest is AsyncGetCallTrace's */
      break;
    }
    /* every frame lies above the one before; only the exception blob,
     * entered with its caller's sp, leaves sp where it was */
    if (s != STEP_NEXT || r.sp < sp || (r.sp == sp && !first))
      return 0;
    if (first && k.n >= 1 && types[0] == FG_FRAME_STUB) {
      leaf_stub = 1;   /* the leaf stub does not count against depth */
      k.room++;
    }
    k.java_call = k.n > n && types[k.n - 1] != FG_FRAME_STUB && !entered;
    top = 0;   /* every frame after the first is stopped at a call */
  }
  *stubs = leaf_stub;
  return k.n;
}
