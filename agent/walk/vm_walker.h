/* fgagent's own Java stack walker (walker=vm): AsyncGetCallTrace's output
 * for a thread, read from HotSpot's frames directly rather than through the
 * VM's walker, which gives up where a frame is not at a safepoint record
 * (a stub, a prologue, a runtime stub's call into the VM).
 *
 * Each frame is read by its kind (vm_frames.c):
 *  - compiled: the method and what it inlined from its debug records at
 *    the exact pc (code_heap.h), the frame's size from its entry code;
 *  - interpreted: Method* and bcp from the frame's fixed slots, turned into
 *    the jmethodID and bci through the method map (no metaspace read);
 *  - entry (the call stub): on to the frame anchor its call wrapper saved;
 *  - stubs, C1 and C2 runtime stubs: popped by their layouts.
 * The walk starts at the signal's registers for a thread in Java, at the
 * thread's frame anchor for one in the VM or in native code.
 *
 * Every stack read is checked against the thread's stack, every code read
 * against a known code blob. A frame it cannot read makes the whole walk
 * fail (0), never a guess: the caller then asks AsyncGetCallTrace.
 * Async-signal-safe. */
#ifndef FG_VM_WALKER_H
#define FG_VM_WALKER_H

#include "walk/x86/frame_pop.h"
#include "walk/walker.h"

/* The interrupted frame's scratch registers that hold its caller where the
 * stack does not: a c2i adapter laying out the interpreter's arguments
 * keeps the return address in rax (until it stores it at rsp) and the
 * caller's sp in r13; C2's exception blob is entered with the return
 * address in rdx, which its first instruction pushes; the interpreter
 * building a method's frame has the Method* in rbx, the caller's sp in r13
 * and the return address in rax, at rsp or above rbp. */
struct fg_walk_cache;

struct fg_top_regs {
  uintptr_t rax, rbx, rdx, r13;
};

/* Writes the Java stack of the thread whose JNIEnv is env, leaf first, up
 * to java_room Java frames after the stub frame (at most one) at the leaf;
 * f and types hold java_room + 1. java: the registers at the first pc in
 * the code cache (the signal's, or where the native walk reached it); top:
 * non-NULL when they are the interrupted ones (pc may be anywhere in a
 * frame), not a return address, with that frame's scratch registers. Returns the frames written (java_room Java
 * ones: there may be more), or 0; *stubs: the stub frames among them.
 * When a caller's return address is code the walker has no record of (a
 * method compiled moments ago, not read yet) and cannot name from the code
 * heap (fg_vm_unread_method),
 * the frames so far are returned and *unknown holds that caller's
 * registers, to go on with AsyncGetCallTrace; unknown->pc is 0 otherwise.
 * kept: the thread's last walk (walk_cache.h), or NULL; a walk that meets
 * it goes on from it, and one that ends is left in it to be committed.
 * With w->from_copy (walker=copy) the thread's state and anchor are not
 * read: the walk starts at java or not at all; and when a frame cannot be
 * read near the end of a copy that was cut (w->copy_cut), the frames so far
 * are returned and *copy_end is 1. */
int fg_vm_walk(const struct fg_walker *w, void *env, const struct fg_regs *java, const struct fg_top_regs *top,
               struct fg_bounds b, struct fg_walk_cache *kept, ASGCT_CallFrame *f, uint8_t *types, int java_room,
               int *stubs, struct fg_regs *unknown, int *copy_end);

/* The frames the code map's debug record names at pc (top: the interrupted
 * pc, the first record after it; else a call's return address), innermost
 * first, as a walk reads them: at most room into out. How many (0: the
 * method has no record there), or -1 when pc is in no live method of the
 * map; *method its method, *scoped whether it has records at all (not a
 * native method's wrapper). For the drainer, naming FG_FRAME_UNREAD. */
int fg_vm_frames_at(const struct fg_code_map *code, uintptr_t pc, int top, struct fg_scope_frame *out, int room,
                    jmethodID *method, int *scoped);

/* Where the debug record that names a leaf stub's call returning to pc in
 * compiled method m (with records) is found, as the first record at or
 * after it: pc itself when a record is there, none is after it, or the
 * code after the call goes on with the call's block up to the next record;
 * the target of the jump that comes first (an out-of-line block's jump
 * back, fg_code_flow_after); 0 when no record names it (padding comes
 * first: the next record is the next block's). HotSpot records no scope at
 * a leaf call's return address, and by its own rule (the first record
 * after) took append's record for delete's copy where C2's AVX-512
 * arraycopy calls its stub out of line (JDK 17), and deleteLoop's where
 * JDK 25's call is out of line too, behind its post-call nop. Plain loads of m's code: the code heap
 * stays committed (CodeHeap::shrink_by is Unimplemented()).
 * Async-signal-safe. */
uintptr_t fg_vm_stub_call_named_at(const struct fg_code_blob *m, uintptr_t pc);

#endif
