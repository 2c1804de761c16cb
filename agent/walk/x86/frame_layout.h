/* How a compiled method's x86-64 code builds and tears down its frame, read
 * from the bytes HotSpot emits (C1 and C2, JDK 17 and 25), so that the walker
 * can pop the frame exactly wherever the pc is: in the inline-cache check,
 * the stack bang, half-way through the prologue, in the body, or after the
 * epilogue's `pop rbp` (the return poll and its stub).
 *
 *   entry:  [inline-cache check, nops] [stack bang] push rbp [mov rbp, rsp] sub rsp, N
 *      or:  [inline-cache check, nops] [stack bang] sub rsp, N; mov [rsp + N - 8], rbp
 *   exit:   add rsp, M; pop rbp; cmp rsp, [r15 + poll]; ja <poll stub>; ret
 *   poll stub: movabs r10, <pc> (or lea r10, [rip + d]); mov [r15 + d], r10; jmp <SafepointBlob>
 *
 * Pure functions of bytes: unit-tested on the code HotSpot printed. */
#ifndef FG_FRAME_LAYOUT_H
#define FG_FRAME_LAYOUT_H

#include <stddef.h>
#include <stdint.h>

struct fg_frame_layout {
  uint32_t frame_bytes;   /* the whole frame with its return address; 0: entry code not understood */
  uint16_t build;         /* offset of the instruction that first moves rsp (push rbp, or sub rsp) */
  uint16_t sub;           /* offset of sub rsp, N */
  uint16_t complete;      /* offset from which the frame and the saved rbp are in place */
  uint8_t pushes_rbp;     /* push rbp (N + 16 bytes) rather than a store of rbp into the frame (N + 8) */
  uint8_t rbp_based;      /* push rbp; mov rbp, rsp and no sub: a frame found through rbp (native
                             wrappers); frame_bytes 0, complete after the mov */
  uint8_t pushes_return;  /* begins with push rdx, the return address it is entered without (C2's
                             ExceptionBlob): at its first byte nothing of the frame is known */
};

/* Reads the entry code (len bytes from the method's first byte). 0, or -1
 * (frame_bytes 0, not rbp_based) when an instruction before the frame is
 * built is not one HotSpot is known to emit there. */
int fg_frame_layout_of(const uint8_t *code, size_t len, struct fg_frame_layout *out);

enum fg_frame_state {
  FG_FRAME_NOT_BUILT,     /* only the return address: it is at sp */
  FG_FRAME_RBP_PUSHED,    /* saved rbp at sp, return address at sp + 8 */
  FG_FRAME_ALLOCATED,     /* rsp moved by N, rbp not stored yet (still the caller's) */
  FG_FRAME_COMPLETE,      /* return address at sp + frame_bytes - 8, saved rbp below it */
};

/* The frame's state at offset off of a method whose layout is l
 * (l->frame_bytes != 0), as the entry code leaves it; the epilogue is told
 * apart by fg_frame_is_popped. */
enum fg_frame_state fg_frame_state_at(const struct fg_frame_layout *l, size_t off);

/* 1 when the instruction at code[at] (of len bytes) runs after the frame's
 * `pop rbp`, with only the return address left: the return poll, `ret`, the
 * poll stub, or a jump straight after `pop rbp` (C1's unwind).
 * Async-signal-safe (reads code[0 .. len) only). fg_frame_state_at is too. */
int fg_frame_is_popped(const uint8_t *code, size_t len, size_t at);

/* 1 when the straight-line code from offset from up to offset at (an
 * instruction boundary) is made of instructions that leave rsp as it was
 * (moves, shifts, compares, tests, jumps, nops, in HotSpot's encodings), so that
 * at `at` the stack is as it was at `from`. Any instruction it does not know
 * answers 0. Async-signal-safe. */
int fg_code_keeps_rsp(const uint8_t *code, size_t len, size_t from, size_t at);

/* How the straight-line code at code[0] (a leaf call's return address)
 * goes on before offset until (the next debug record): FG_FLOW_JUMP when an
 * unconditional jump comes first (*target: its target, from code), the
 * call's block ending in a jump back; FG_FLOW_ENDED when a nop does
 * (HotSpot pads only to a branch target: the next block), past the 8-byte
 * nop JDK 21 and later put after every call; FG_FLOW_ON when
 * neither does before until, 64 bytes or an instruction it does not read.
 * Async-signal-safe. */
enum fg_code_flow { FG_FLOW_ON, FG_FLOW_JUMP, FG_FLOW_ENDED };
enum fg_code_flow fg_code_flow_after(const uint8_t *code, size_t len, size_t until, intptr_t *target);

/* Where a stub's push rbp; mov rbp, rsp is: at its start, or after a few
 * instructions that leave rsp alone (the fill stubs move an argument
 * first); -1 when it has none in its first 16 bytes. */
int fg_stub_enter_at(const uint8_t *code, size_t len);

/* A stub that realigns rsp for its vector work and keeps the rsp it had in
 * its frame, leaving rbp free for other use (SHA-256 and SHA-512 on AVX2
 * without the SHA extensions, JDK 17 and 25: rbp holds the round constants'
 * address there):
 *   push rbp; mov rbp, rsp; [sub rsp, N]; push r...; mov R, rsp;
 *   sub rsp, M; and rsp, -A; mov [rsp + D], R
 *   body (rbp is not the frame pointer)
 *   mov rsp, [rsp + D]; pop r...; [pop rbp; pop r...]; ...; leave; ret
 * From the store to the reload (included: it has not run yet), the rsp it
 * kept is at [rsp + D] and its frame pointer (where the caller's rbp is
 * saved, the return address above it) fp_above bytes above that. After the
 * reload, at the k-th pop, rsp is the kept one plus 8 k; SHA-256 restores
 * rbp only with the pop of the one it pushed. */
struct fg_realigned_frame {
  uint16_t from, to;      /* [from, to]: where [rsp + saved_at] holds the kept rsp; to 0: not such a stub */
  uint16_t saved_at;      /* D */
  uint16_t fp_above;      /* 8 for each push after mov rbp, rsp, plus N */
  uint16_t exit_from;     /* just after the reload: its first pop */
  uint8_t exit_pops;      /* the pops from there, up to and with pop rbp */
  uint8_t exit_wide;      /* bit k: the k-th of them has a REX prefix (two bytes) */
};

/* Pops the reload has been followed by at offset off of a realigned stub,
 * -1 when off is not one of its exit_pops pops (frame_layout.h). */
int fg_realigned_pops_done(const struct fg_realigned_frame *f, size_t off);

/* Reads a stub's code after its push rbp; mov rbp, rsp at offset enter
 * (fg_stub_enter_at). 0 when it realigns as above, -1 (to 0) otherwise. */
int fg_realigned_frame_of(const uint8_t *code, size_t len, size_t enter, struct fg_realigned_frame *out);

/* An adapter blob holds the i2c adapter first, ending with its jump to the
 * compiled entry (jmp r11), then the c2i adapters: the offset just after
 * that jump, or 0 when there is none in the first 256 bytes. */
size_t fg_i2c_end(const uint8_t *code, size_t len);

/* Where a c2i adapter's last part begins, the one that lays out the
 * interpreter's arguments: from there to its jump r13 holds the caller's
 * sp and the return address is in rax or at rsp (JDK 17: pop rax; mov r13,
 * rsp; JDK 25: lea r13, [rsp + 8]; pop rax). The offset just after the
 * first of those at or after from; 0 when there is none. */
size_t fg_c2i_tail(const uint8_t *code, size_t len, size_t from);

#endif
