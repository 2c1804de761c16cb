/* Popping one frame of HotSpot-generated code on x86-64: the registers of
 * the caller from those of the callee, by what the callee's code is (a stub,
 * a compiled method) and where in it the pc is. Every stack word is read
 * through fg_read_stack, which checks it against the thread's stack.
 * Async-signal-safe: no locks, no allocation. */
#ifndef FG_FRAME_POP_H
#define FG_FRAME_POP_H

#include <stdint.h>

#include "hotspot/code_map.h"

struct fg_regs {
  uintptr_t pc, sp, fp;
};

/* The thread's stack [lo, hi); hi 0 when unknown (nothing is read then).
 * delta 0: the live stack. A copy of [lo, hi) taken at the sample
 * (walker=copy) is read at addr + delta: its address less lo. */
struct fg_bounds {
  uintptr_t lo, hi;
  uintptr_t delta;
  int off_thread;   /* a copy walked later: a library's code it names may have been unloaded since */
};

/* A word of the thread's stack (or of its copy); 0 when addr is not inside it. */
static inline int fg_read_stack(struct fg_bounds b, uintptr_t addr, uintptr_t *out)
{
  if (b.hi < sizeof(uintptr_t) || addr % sizeof(uintptr_t) || addr < b.lo || addr > b.hi - sizeof(uintptr_t))
    return 0;
  *out = *(const uintptr_t *)(addr + b.delta);
  return 1;
}

/* Only the return address is on the stack (at sp). */
int fg_pop_return(struct fg_bounds b, struct fg_regs *r);

/* rbp points at the saved rbp, the return address above it. Inline: every
 * frame of a deep stack comes through here or fg_pop_sized. */
static inline int fg_pop_rbp_frame(struct fg_bounds b, struct fg_regs *r)
{
  uintptr_t saved, ret;
  if (r->fp < r->sp || !fg_read_stack(b, r->fp, &saved) || !fg_read_stack(b, r->fp + 8, &ret))
    return 0;
  r->sp = r->fp + 16;
  r->fp = saved;
  r->pc = ret;
  return 1;
}

/* A stub's frame: frameless (its entry, a ret, itable/vtable stubs,
 * exception dispatch), begun with push rbp; mov rbp, rsp, or laid out as a
 * compiled method's (C2's runtime stubs) when its entry code was
 * understood. */
int fg_pop_stub(const struct fg_code_blob *s, struct fg_bounds b, struct fg_regs *r);

/* How the top frame of a compiled method pops at a pc: a pure function of
 * the pc and the method's code, so the walker can keep it (pc_cache.h). */
enum fg_top_pop {
  FG_POP_FAIL,         /* not known: no guess */
  FG_POP_RETURN,       /* only the return address, at sp */
  FG_POP_SAVED_RBP,    /* the saved rbp at sp, the return address above it */
  FG_POP_ALLOCATED,    /* the frame allocated, rbp not stored yet (the register is still the caller's) */
  FG_POP_COMPLETE,     /* the whole frame (fg_pop_sized) */
};

/* Where pc is in compiled method m's code: entry, prologue, body or
 * epilogue (frame_layout.h). */
enum fg_top_pop fg_top_pop_plan(const struct fg_code_blob *m, uintptr_t pc);

/* Pops a top frame by plan, its frame's size and kind being those of the
 * method's layout. */
int fg_pop_planned(enum fg_top_pop plan, uint32_t frame_bytes, int rbp_based, struct fg_bounds b, struct fg_regs *r);

/* The top frame of a compiled method, wherever pc is in its code:
 * fg_pop_planned with fg_top_pop_plan. */
int fg_pop_method(const struct fg_code_blob *m, struct fg_bounds b, struct fg_regs *r);

/* A compiled frame stopped at a call (every frame but the top one): its
 * whole frame is built, the return address at sp + frame_bytes - 8. */
int fg_pop_complete(const struct fg_code_blob *m, struct fg_bounds b, struct fg_regs *r);

/* The same from the layout's two fields: through rbp when rbp_based, else
 * frame_bytes (0: unknown, no pop). */
static inline int fg_pop_sized(uint32_t frame_bytes, int rbp_based, struct fg_bounds b, struct fg_regs *r)
{
  if (rbp_based)
    return fg_pop_rbp_frame(b, r);
  uintptr_t sender_sp = r->sp + frame_bytes, ret, saved;
  if (!frame_bytes || !fg_read_stack(b, sender_sp - 8, &ret) || !fg_read_stack(b, sender_sp - 16, &saved))
    return 0;
  r->pc = ret;
  r->sp = sender_sp;
  r->fp = saved;
  return 1;
}

#endif
