/* Popping one frame of HotSpot-generated code on x86-64: the registers of
 * the caller from those of the callee, by what the callee's code is (a stub,
 * a compiled method) and where in it the pc is. Every stack word is read
 * through fg_read_stack, which checks it against the thread's stack.
 * Async-signal-safe: no locks, no allocation. */
#ifndef FG_FRAME_POP_H
#define FG_FRAME_POP_H

#include <stdint.h>

#include "code_map.h"

struct fg_regs {
  uintptr_t pc, sp, fp;
};

/* The thread's stack [lo, hi); hi 0 when unknown (nothing is read then). */
struct fg_bounds {
  uintptr_t lo, hi;
};

/* A word of the thread's own stack; 0 when addr is not inside it. */
static inline int fg_read_stack(struct fg_bounds b, uintptr_t addr, uintptr_t *out)
{
  if (b.hi < sizeof(uintptr_t) || addr % sizeof(uintptr_t) || addr < b.lo || addr > b.hi - sizeof(uintptr_t))
    return 0;
  *out = *(const uintptr_t *)addr;
  return 1;
}

/* Only the return address is on the stack (at sp). */
int fg_pop_return(struct fg_bounds b, struct fg_regs *r);

/* rbp points at the saved rbp, the return address above it. */
int fg_pop_rbp_frame(struct fg_bounds b, struct fg_regs *r);

/* A stub's frame: frameless (its entry, a ret, itable/vtable stubs,
 * exception dispatch), begun with push rbp; mov rbp, rsp, or laid out as a
 * compiled method's (C2's runtime stubs) when its entry code was
 * understood. */
int fg_pop_stub(const struct fg_code_blob *s, struct fg_bounds b, struct fg_regs *r);

/* The top frame of a compiled method, wherever pc is in its code: entry,
 * prologue, body or epilogue (frame_layout.h). */
int fg_pop_method(const struct fg_code_blob *m, struct fg_bounds b, struct fg_regs *r);

/* 1 when pc is in compiled method m's body: its whole frame built, not yet
 * torn down (fg_pop_method pops it with fg_pop_complete there). */
int fg_in_method_body(const struct fg_code_blob *m, uintptr_t pc);

/* A compiled frame stopped at a call (every frame but the top one): its
 * whole frame is built, the return address at sp + frame_bytes - 8. */
int fg_pop_complete(const struct fg_code_blob *m, struct fg_bounds b, struct fg_regs *r);

#endif
