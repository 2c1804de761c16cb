/* Frame popping; see frame_pop.h. */
#include "walk/x86/frame_pop.h"

#include <string.h>

/* A realigned stub's frame: its own slots (SHA-256's is 0x220 bytes) and the alignment. */
#define MAX_REALIGNED_FRAME (64 * 1024)

/* Code byte at pc + off when it lies inside blob b. */
static int code_at(const struct fg_code_blob *b, uintptr_t pc, int off, uint8_t *out)
{
  uintptr_t a = pc + (intptr_t)off;
  if (a < b->start || a >= b->end)
    return 0;
  *out = *(const uint8_t *)a;
  return 1;
}

static int code_is(const struct fg_code_blob *b, uintptr_t pc, int off, const uint8_t *bytes, int n)
{
  for (int i = 0; i < n; i++) {
    uint8_t c;
    if (!code_at(b, pc, off + i, &c) || c != bytes[i])
      return 0;
  }
  return 1;
}

static const uint8_t RET[] = {0xc3};
static const uint8_t POP_RBP[] = {0x5d};

/* The caller's registers if pc sits where only the return address is on the
 * stack: the first instruction, or a ret. */
int fg_pop_return(struct fg_bounds b, struct fg_regs *r)
{
  uintptr_t ret;
  if (!fg_read_stack(b, r->sp, &ret))
    return 0;
  r->pc = ret;
  r->sp += 8;
  return 1;
}

/* Whether part occurs in name; plain loops (this runs in the handler). */
static int name_has(const char *name, const char *part)
{
  for (; *name; name++) {
    size_t i = 0;
    while (part[i] && name[i] == part[i])
      i++;
    if (!part[i])
      return 1;
  }
  return 0;
}

/* A realigned stub in its body (frame_layout.h): the rsp it kept, read
 * from its slot, must lie above the slot and within the stub's own frame;
 * the frame pointer fp_above bytes above it is then popped as rbp would be. */
static int pop_realigned(const struct fg_realigned_frame *f, struct fg_bounds b, struct fg_regs *r)
{
  uintptr_t kept;
  if (!fg_read_stack(b, r->sp + f->saved_at, &kept) || kept <= r->sp + f->saved_at ||
      kept - r->sp > MAX_REALIGNED_FRAME)
    return 0;
  struct fg_regs at = {r->pc, kept, kept + f->fp_above};
  if (!fg_pop_rbp_frame(b, &at))
    return 0;
  *r = at;
  return 1;
}

/* A realigned stub after its reload, popped pops into its exit: its frame
 * pointer is fp_above over the rsp it kept, which is popped * 8 below sp. */
static int pop_realigned_exit(const struct fg_realigned_frame *f, int popped, struct fg_bounds b, struct fg_regs *r)
{
  uintptr_t kept = r->sp - 8 * (uintptr_t)popped;
  struct fg_regs at = {r->pc, kept, kept + f->fp_above};
  if (!fg_pop_rbp_frame(b, &at))
    return 0;
  *r = at;
  return 1;
}

static const uint8_t ADD_RSP_8[] = {0x48, 0x83, 0xc4, 0x08};

/* The nmethod entry barrier (StubGenerator::generate_method_entry_barrier)
 * pushes a cookie (-1, the slot deoptimization writes a new rsp into) before
 * push rbp; mov rbp, rsp, and pops it after leave: its return address is a
 * word above an rbp frame's. Taken by the first thread to enter a method
 * whose barrier is armed (every new one on JDK 25 unless CompiledMethodLoad
 * ran it first on the Service thread). */
static int pop_entry_barrier(const struct fg_code_blob *s, struct fg_bounds b, struct fg_regs *r)
{
  uintptr_t at = r->pc - s->start, rbp_at = 0;
  struct fg_regs c = *r;   /* r stays as it was when this fails */
  if (at == 0 || code_is(s, r->pc, 0, RET, 1))
    ;                      /* the return address at sp */
  else if (at == s->cookie || code_is(s, r->pc, 0, ADD_RSP_8, 4))
    c.sp += 8;             /* the cookie at sp */
  else if (at == (uintptr_t)s->cookie + 1 || code_is(s, r->pc, 0, POP_RBP, 1))
    rbp_at = r->sp;        /* the saved rbp at sp, then the cookie */
  else if (at > s->cookie)
    rbp_at = r->fp;        /* the body: an rbp frame over the cookie */
  else
    return 0;              /* inside the cookie's push: no instruction starts there */
  if (rbp_at) {
    c.sp = rbp_at + 16;
    if (!fg_read_stack(b, rbp_at, &c.fp))
      return 0;
  }
  if (!fg_pop_return(b, &c))
    return 0;
  *r = c;
  return 1;
}

int fg_pop_stub(const struct fg_code_blob *s, struct fg_bounds b, struct fg_regs *r)
{
  if (s->cookie)
    return pop_entry_barrier(s, b, r);
  if (r->pc == s->start || code_is(s, r->pc, 0, RET, 1) || strncmp(s->name, "itable", 6) == 0 ||
      strncmp(s->name, "vtable", 6) == 0 || (s->enter > 0 && r->pc <= s->start + (uintptr_t)s->enter))
    return fg_pop_return(b, r);
  if (s->enter >= 0) {
    if (r->pc == s->start + (uintptr_t)s->enter + 1) {   /* after push rbp */
      uintptr_t ret;
      if (!fg_read_stack(b, r->sp + 8, &ret))
        return 0;
      r->pc = ret;
      r->sp += 16;
      return 1;
    }
    const struct fg_realigned_frame *f = &s->realigned;
    if (f->to && r->pc >= s->start + f->from && r->pc <= s->start + f->to)
      return pop_realigned(f, b, r);   /* rbp is the stub's data there */
    int popped = f->to ? fg_realigned_pops_done(f, r->pc - s->start) : -1;
    if (popped >= 0)
      return pop_realigned_exit(f, popped, b, r);   /* rsp is the kept one again, rbp may still be data */
    return fg_pop_rbp_frame(b, r);
  }
  /* C2's runtime stubs lay out their frame as a compiled method does (sub
   * rsp, N; mov [rsp + N - 8], rbp), and only they among stubs */
  if (s->layout.frame_bytes && !s->layout.pushes_rbp)
    return fg_pop_method(s, b, r);
  /* exception dispatch with no frame of its own: the return address it
   * unwinds to stays at sp while it asks the VM for the handler (C1's
   * unwind_exception, StubRoutines' "forward exception", forward_exception
   * from JDK 25); and the instruction cache's flush, which the VM calls as
   * it installs code (x86-64's pushes nothing: icache_x86.cpp) */
  if (name_has(s->name, "unwind_exception") || name_has(s->name, "forward_exception") ||
      name_has(s->name, "forward exception") || name_has(s->name, "flush_icache_stub"))
    return fg_pop_return(b, r);
  return 0;
}

/* The saved rbp at sp, the return address above it. */
static int pop_saved_rbp(struct fg_bounds b, struct fg_regs *r)
{
  uintptr_t saved, ret;
  if (!fg_read_stack(b, r->sp, &saved) || !fg_read_stack(b, r->sp + 8, &ret))
    return 0;
  r->fp = saved;
  r->pc = ret;
  r->sp += 16;
  return 1;
}

/* After the epilogue's pop rbp only the return address is left, at pop rbp
 * the saved rbp too; elsewhere the entry code's layout says how much of the
 * frame is built. A method whose entry code was not understood is not
 * popped (no guess). */
enum fg_top_pop fg_top_pop_plan(const struct fg_code_blob *m, uintptr_t pc)
{
  if (pc < m->start || pc >= m->end)
    return FG_POP_FAIL;
  const uint8_t *code = (const uint8_t *)m->start;
  size_t len = m->end - m->start, at = pc - m->start;
  if (fg_frame_is_popped(code, len, at))
    return FG_POP_RETURN;
  if (code[at] == POP_RBP[0])
    return FG_POP_SAVED_RBP;
  const struct fg_frame_layout *l = &m->layout;
  if ((!l->frame_bytes && !l->rbp_based) || (l->pushes_return && at == 0))
    return FG_POP_FAIL;
  switch (fg_frame_state_at(l, at)) {
  case FG_FRAME_NOT_BUILT:
    return FG_POP_RETURN;
  case FG_FRAME_RBP_PUSHED:
    return FG_POP_SAVED_RBP;
  case FG_FRAME_ALLOCATED:
    return FG_POP_ALLOCATED;
  case FG_FRAME_COMPLETE:
    return FG_POP_COMPLETE;
  }
  return FG_POP_FAIL;
}

int fg_pop_planned(enum fg_top_pop plan, uint32_t frame_bytes, int rbp_based, struct fg_bounds b, struct fg_regs *r)
{
  uintptr_t ret;
  switch (plan) {
  case FG_POP_RETURN:
    return fg_pop_return(b, r);
  case FG_POP_SAVED_RBP:
    return pop_saved_rbp(b, r);
  case FG_POP_ALLOCATED:   /* rbp not stored yet: the register still holds the caller's */
    if (!frame_bytes || !fg_read_stack(b, r->sp + frame_bytes - 8, &ret))
      return 0;
    r->pc = ret;
    r->sp += frame_bytes;
    return 1;
  case FG_POP_COMPLETE:
    return fg_pop_sized(frame_bytes, rbp_based, b, r);
  case FG_POP_FAIL:
    break;
  }
  return 0;
}

int fg_pop_method(const struct fg_code_blob *m, struct fg_bounds b, struct fg_regs *r)
{
  return fg_pop_planned(fg_top_pop_plan(m, r->pc), m->layout.frame_bytes, m->layout.rbp_based, b, r);
}

int fg_pop_complete(const struct fg_code_blob *m, struct fg_bounds b, struct fg_regs *r)
{
  return fg_pop_sized(m->layout.frame_bytes, m->layout.rbp_based, b, r);
}
