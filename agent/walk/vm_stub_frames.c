/* Stubs and adapters met as the interrupted frame; see vm_walk.h.
 * Async-signal-safe: plain loads only. */
#include <string.h>

#include "walk/vm_walk.h"

static int same_page(uintptr_t a, uintptr_t b)
{
  return (a >> 12) == (b >> 12);   /* pc's page is mapped: it runs; the next may be reserved only */
}

/* The inline-cache buffer's stubs (movabs rax, <cached value>; jmp <entry>),
 * which JVMTI does not report: a call site being switched to a new target
 * jumps through one, with only the return address on the stack. */
int fg_vm_in_ic_stub(uintptr_t pc)
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
  if (!fg_vm_at_java_call(k, &c)) {
    if (!fg_read_stack(k->b, r->sp, &at_sp))
      return 0;
    c.pc = at_sp;
    if (!fg_vm_at_java_call(k, &c))
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
enum step fg_vm_adapter_frame(struct walk *k, const struct fg_code_blob *s, struct fg_regs *r)
{
  size_t at = r->pc - s->start, i2c = s->i2c_end;
  emit(k, 0, (jmethodID)(uintptr_t)s, FG_FRAME_STUB);
  if (at < i2c)
    return fg_vm_interpreted_frame(k, 0, r);
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
    if (fg_pop_complete(m, k->b, &beyond) && fg_vm_at_java_call(k, &beyond)) {
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
int fg_vm_pop_called_leaf(struct walk *k, const struct fg_code_blob *s, struct fg_regs *r)
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
    const struct fg_pc_info *c = pc_at(k, ret, 0);
    const struct fg_code_blob *m = c->kind == FG_PC_METHOD ? c->blob : NULL;
    struct fg_code_blob unread;
    if ((!m || !atomic_load_explicit(&m->method, memory_order_relaxed)) && c->kind != FG_PC_STUB &&
        fg_vm_unread_method(k, ret, &unread)) {
      m = &unread;   /* not read yet: as its entry code and header say */
    }
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
