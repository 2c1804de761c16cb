/* The VM walker's state while it walks, shared by its two files:
 * vm_walker.c (the frame loop; compiled, interpreted and entry frames) and
 * vm_stub_frames.c (stubs and adapters met as the interrupted frame).
 * Private to them. Async-signal-safe. */
#ifndef FG_VM_WALK_H
#define FG_VM_WALK_H

#include "hotspot/method_map.h"
#include "walk/pc_cache.h"
#include "walk/vm_walker.h"
#include "walk/walk_cache.h"

/* Slots of frames as HotSpot lays them out on x86-64 (frame_x86.hpp), in
 * bytes from rbp. */
#define INTERPRETER_SENDER_SP (-1 * 8)
#define INTERPRETER_METHOD (-3 * 8)
#define INTERPRETER_BCP (-8 * 8)
#define ENTRY_CALL_WRAPPER (-6 * 8)

#define NATIVE_BCI (-3)   /* what ASGCT reports for a native method's frame */

/* STEP_UNKNOWN: the pc is code the walker has no record of (a method the
 * code map has not read yet, or one unloaded) and cannot name from the code
 * heap either: the registers are the caller's, right for AsyncGetCallTrace
 * to go on from */
enum step { STEP_NEXT, STEP_DONE, STEP_FAIL, STEP_UNKNOWN };

/* What is known of a pc, as found once in this walk: a deep stack returns
 * to the same few pcs again and again (recursion), cheaper to find here
 * than even in the pc cache. key: fg_pc_key, 0 empty. */
#define MEMO_SLOTS 8
struct memo {
  uintptr_t key;
  struct fg_pc_info info;
};

struct walk {
  const struct fg_walker *w;
  struct fg_bounds b;
  ASGCT_CallFrame *f;
  uint8_t *types;
  int n, room;
  int java_call;   /* the frame just read was a Java method's: its caller is at a Java call */
  int stub_call;   /* the frame just read was the leaf stub's, popped by its layout: its caller is at a
                      call with no debug record (C1's slow paths call their stubs so) */
  const struct fg_top_regs *top;   /* the interrupted frame's scratch registers, or NULL */
  int at_poll;                     /* the frame just popped was the safepoint handler's: its caller was
                                      stopped at a safepoint poll, in its body, not at a call */
  uint32_t generation;             /* the code map's, read before any lookup */
  struct fg_walk_cache *kept;      /* the thread's last walk, or NULL */
  int logging;                     /* a caller frame's reads go into kept */
  int unread;                      /* a frame was named from the code heap's header alone (no bci, no
                                      inlined frames): the walk is not kept to be gone on from */
  int methods_in;                  /* the token of the walk's announcement to the method map, -1: none yet */
  struct memo memo[MEMO_SLOTS];
};

/* Whether pc, in a compiled method the code map has not read yet, is in
 * one the code heap holds (the live walk only: code_heap.h,
 * fg_code_heap_find_live) and the Method* map names: m is then a blob of
 * it made here (no scopes; the layout from its entry code, or its header's
 * frame size when that was patched), and k is not kept. */
int fg_vm_unread_method(struct walk *k, uintptr_t pc, struct fg_code_blob *m);

/* Whether pc follows a call instruction (call rel32, or through a
 * register); pc at least 5 bytes into mapped code. */
int fg_vm_after_call(uintptr_t pc);

/* A stack word a caller frame's step depends on: logged for the kept walk. */
static inline int stack_word(struct walk *k, uintptr_t addr, uintptr_t *out)
{
  if (!fg_read_stack(k->b, addr, out))
    return 0;
  if (k->logging)
    fg_walk_cache_read(k->kept, addr, *out);
  return 1;
}

/* method's entry in the Method* map, or NULL. The walk announces itself
 * to the map at its first lookup (walks of compiled code alone never do)
 * and leaves when it ends (fg_vm_walk): an entry is read only in between,
 * so no table the map swaps out meanwhile is freed under it
 * (method_map.h). */
static inline const struct fg_method_slot *method_entry(struct walk *k, uintptr_t method)
{
  if (k->methods_in < 0)
    k->methods_in = (int)fg_method_map_enter(k->w->methods);
  return fg_method_map_get(k->w->methods, method);
}

/* pc_at past its memo (vm_walker.c). */
const struct fg_pc_info *fg_vm_pc_looked_up(struct walk *k, uintptr_t pc, int top, uintptr_t key, struct memo *e);

/* What is known of pc, a pc in the code cache (top: the interrupted one):
 * from this walk's memo, else the pc cache, else the code map (kept in both
 * then, the cache only for a live method or a stub: a pc in no blob may be a
 * method the code map has not read yet). The pointer is good
 * until the next lookup. */
static inline const struct fg_pc_info *pc_at(struct walk *k, uintptr_t pc, int top)
{
  uintptr_t key = fg_pc_key(pc, top);
  struct memo *e = &k->memo[(key ^ (key >> 7)) % MEMO_SLOTS];
  if (e->key == key && pc)
    return &e->info;
  return fg_vm_pc_looked_up(k, pc, top, key, e);
}

static inline void emit(struct walk *k, jint bci, jmethodID id, uint8_t type)
{
  k->f[k->n] = (ASGCT_CallFrame){bci, id};
  k->types[k->n++] = k->w->annotate || type == FG_FRAME_STUB || type == FG_FRAME_UNREAD ? type : FG_FRAME_JAVA;
}

/* vm_walker.c: whether r is a Java caller stopped at a call; an interpreted
 * frame (top: the interrupted one). */
int fg_vm_at_java_call(struct walk *k, const struct fg_regs *r);
enum step fg_vm_interpreted_frame(struct walk *k, int top, struct fg_regs *r);

/* vm_stub_frames.c: the interrupted frame in an inline-cache stub, in an
 * adapter, or in a leaf stub with no frame of its own. */
int fg_vm_in_ic_stub(uintptr_t pc);
enum step fg_vm_adapter_frame(struct walk *k, const struct fg_code_blob *s, struct fg_regs *r);
int fg_vm_pop_called_leaf(struct walk *k, const struct fg_code_blob *s, struct fg_regs *r);

#endif
