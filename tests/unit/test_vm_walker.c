/* The VM walker on a stack laid out as HotSpot lays out x86-64 frames: a
 * compiled method with an inlined callee, called from an interpreted
 * method, called from the call stub; a thread in Java and one in the VM.
 * A frame it cannot read makes the walk fail (0), never a guess. */
#include "vm_walker_fixture.h"

static void thread_in_java(void **state)
{
  (void)state;
  *(int32_t *)(thread + 16) = IN_JAVA;
  struct fg_regs r = {TOP_PC, at(100), 0x1234};
  ASGCT_CallFrame f[16];
  uint8_t types[16];
  assert_int_equal(walk(&r, 1, f, types), 3);
  assert_ptr_equal(f[0].method_id, ID(3));
  assert_int_equal(f[0].lineno, 5);
  assert_int_equal(types[0], FG_FRAME_INLINED);
  assert_ptr_equal(f[1].method_id, ID(2));
  assert_int_equal(f[1].lineno, 7);
  assert_int_equal(types[1], FG_FRAME_COMPILED);
  assert_ptr_equal(f[2].method_id, ID(1));
  assert_int_equal(f[2].lineno, 12);
  assert_int_equal(types[2], FG_FRAME_INTERPRETED);
}

/* In the VM the walk starts at the anchor: the interpreted frame that
 * called into the VM, its pc left for the walker to find below sp. */
static void thread_in_the_vm(void **state)
{
  (void)state;
  *(int32_t *)(thread + 16) = IN_VM;
  stack[150 - 1] = (uintptr_t)(code + 600);        /* return address into the interpreter */
  *(uintptr_t *)(thread + 64) = at(150);           /* anchor sp */
  *(uintptr_t *)(thread + 64 + 16) = at(200);      /* anchor fp */
  ASGCT_CallFrame f[16];
  uint8_t types[16];
  assert_int_equal(walk(NULL, 0, f, types), 1);
  assert_ptr_equal(f[0].method_id, ID(1));
  assert_int_equal(f[0].lineno, 12);
  /* an empty anchor: no Java frame to walk, ASGCT decides */
  *(uintptr_t *)(thread + 64) = 0;
  assert_int_equal(walk(NULL, 0, f, types), 0);
}

/* A compiled method called by a compiled method: the caller's return
 * address must be a Java call's, with a record of its own; any other pc means
 * the callee's frame was not the size it seemed (an intrinsic pushing
 * registers) and the walk stops rather than guess. */
static void java_caller_needs_its_call_record(void **state)
{
  (void)state;
  *(int32_t *)(thread + 16) = IN_JAVA;
  stack[105] = CALL_RET;                           /* the top frame returns into the method again */
  stack[110] = at(200);                            /* that frame: 0x30 bytes from word 106 */
  stack[111] = (uintptr_t)(code + 500);
  struct fg_regs r = {TOP_PC, at(100), 0};
  ASGCT_CallFrame f[16];
  uint8_t types[16];
  assert_int_equal(walk(&r, 1, f, types), 5);
  assert_int_equal(f[2].lineno, 9);
  assert_int_equal(f[3].lineno, 11);
  stack[105] = CALL_RET - 2;
  assert_int_equal(walk(&r, 1, f, types), 0);
}

/* A caller deoptimized while its callee runs: HotSpot patched the return
 * address to one of the method's deoptimization handlers and saved the pc
 * it replaced in the caller's own frame. The walk names the caller at that
 * pc, through either handler; a handler's pc with no saved call beside it,
 * or in a method whose handlers are not known, still stops the walk. */
static void deoptimized_caller_walked_at_its_saved_pc(void **state)
{
  (void)state;
  *(int32_t *)(thread + 16) = IN_JAVA;
  stack[105] = (uintptr_t)(COMPILED + 900);        /* the top frame returns into the handler */
  stack[108] = CALL_RET;                           /* the caller's slot, 16 bytes above its sp (word 106) */
  stack[110] = at(200);
  stack[111] = (uintptr_t)(code + 500);
  struct fg_regs r = {TOP_PC, at(100), 0};
  ASGCT_CallFrame f[16];
  uint8_t types[16];
  assert_int_equal(walk(&r, 1, f, types), 0);      /* handlers not known */
  add_compiled_deopt(ID(2), &(struct fg_deopt_sites){.handler = 900, .mh_handler = 950, .orig_pc = 16});
  assert_int_equal(walk(&r, 1, f, types), 5);
  assert_ptr_equal(f[2].method_id, ID(3));
  assert_int_equal(f[2].lineno, 9);
  assert_ptr_equal(f[3].method_id, ID(2));
  assert_int_equal(f[3].lineno, 11);
  assert_ptr_equal(f[4].method_id, ID(1));
  stack[105] = (uintptr_t)(COMPILED + 950);        /* the method-handle call site's handler */
  assert_int_equal(walk(&r, 1, f, types), 5);
  assert_int_equal(f[3].lineno, 11);
  stack[108] = CALL_RET - 2;                       /* the slot holds no call's return address */
  assert_int_equal(walk(&r, 1, f, types), 0);
  stack[108] = CALL_RET;
  stack[105] = (uintptr_t)(COMPILED + 901);        /* next to a handler, not at it */
  assert_int_equal(walk(&r, 1, f, types), 0);
}

/* Recursion: four callers return to the same pc, whose method and record
 * the walker looks up once; each frame still yields its own two frames, a
 * room too small cuts the stack inside a frame's records, and a frame
 * returning elsewhere without a record still stops the walk. */
static void recursion_returns_to_the_same_pc(void **state)
{
  (void)state;
  *(int32_t *)(thread + 16) = IN_JAVA;
  for (int fp = 76; fp < 100; fp += 6)
    stack[fp + 5] = CALL_RET;                      /* each 0x30-byte frame returns into the method again */
  struct fg_regs r = {TOP_PC, at(76), 0};
  ASGCT_CallFrame f[16];
  uint8_t types[16];
  assert_int_equal(walk(&r, 1, f, types), 2 + 4 * 2 + 1);
  for (int i = 2; i < 10; i += 2) {
    assert_ptr_equal(f[i].method_id, ID(3));
    assert_int_equal(f[i].lineno, 9);
    assert_int_equal(types[i], FG_FRAME_INLINED);
    assert_ptr_equal(f[i + 1].method_id, ID(2));
    assert_int_equal(f[i + 1].lineno, 11);
    assert_int_equal(types[i + 1], FG_FRAME_COMPILED);
  }
  assert_ptr_equal(f[10].method_id, ID(1));
  int stubs;
  struct fg_regs unknown;
  assert_int_equal(walk_room(&r, 1, 7, f, types, &stubs, &unknown), 7);
  assert_ptr_equal(f[6].method_id, ID(3));
  stack[93] = CALL_RET - 2;                        /* the third caller: no record there */
  assert_int_equal(walk(&r, 1, f, types), 0);
}

/* With a pc cache the frames come from it: what it holds for the
 * generation the code map is at is taken as is (here records planted at
 * the recursion's return address and at the top pc), also after a method
 * was loaded into code no entry held, and nothing it holds once a method
 * was unloaded. A stub's pc is kept too (the interpreter's,
 * here), a pc in no blob never. */
static void frames_from_the_pc_cache(void **state)
{
  (void)state;
  struct fg_pc_cache pcs;
  assert_int_equal(fg_pc_cache_init(&pcs), 0);
  walker.pcs = &pcs;
  *(int32_t *)(thread + 16) = IN_JAVA;
  for (int fp = 76; fp < 100; fp += 6)
    stack[fp + 5] = CALL_RET;
  struct fg_regs r = {TOP_PC, at(76), 0};
  ASGCT_CallFrame f[16];
  uint8_t types[16];
  assert_int_equal(walk(&r, 1, f, types), 11);
  struct fg_pc_info kept, top;
  uint32_t generation = fg_code_map_generation(&map);
  assert_true(fg_pc_cache_get(&pcs, CALL_RET, 0, generation, &kept));
  assert_int_equal(kept.count, 2);
  assert_int_equal(kept.inline_frames[0].bci, 9);
  assert_true(kept.exact && kept.own);
  assert_int_equal(kept.frame_bytes, 0x30);
  assert_true(fg_pc_cache_get(&pcs, TOP_PC, 1, generation, &top));
  assert_int_equal(top.inline_frames[0].bci, 5);   /* the record after the pc */
  assert_int_equal(top.top_pop, FG_POP_COMPLETE);
  assert_true(top.in_body);
  assert_false(fg_pc_cache_get(&pcs, TOP_PC, 0, generation, &top));   /* only asked as a top pc */
  kept.inline_frames[0].bci = 41;
  kept.inline_frames[1].bci = 42;
  fg_pc_cache_put(&pcs, CALL_RET, 0, generation, &kept);
  top.inline_frames[1].bci = 77;
  fg_pc_cache_put(&pcs, TOP_PC, 1, generation, &top);
  assert_int_equal(walk(&r, 1, f, types), 11);
  assert_int_equal(f[1].lineno, 77);
  assert_int_equal(f[2].lineno, 41);
  assert_int_equal(f[9].lineno, 42);
  struct fg_pc_info stub;
  assert_true(fg_pc_cache_get(&pcs, (uintptr_t)(code + 500), 0, generation, &stub));   /* the interpreter */
  assert_int_equal(stub.kind, FG_PC_STUB);
  assert_true(stub.interpreter);
  fg_code_map_add_method(&map, ID(5), code + 3400, 100, NULL, NULL, NULL);   /* a method loaded where nothing was */
  assert_int_equal(walk(&r, 1, f, types), 11);
  assert_int_equal(f[2].lineno, 41);                              /* changes no answer kept */
  fg_code_map_remove_method(&map, ID(5), code + 3400);            /* any method unloaded */
  assert_int_equal(walk(&r, 1, f, types), 11);
  assert_int_equal(f[1].lineno, 7);
  assert_int_equal(f[2].lineno, 9);
  assert_int_equal(f[9].lineno, 11);
  /* a caller in no blob: handed on, and not kept */
  stack[81] = (uintptr_t)(code + 3600);
  int stubs;
  struct fg_regs unknown;
  assert_int_equal(walk_room(&r, 1, 15, f, types, &stubs, &unknown), 2);
  assert_int_equal(unknown.pc, (uintptr_t)(code + 3600));
  assert_false(fg_pc_cache_get(&pcs, (uintptr_t)(code + 3600), 0, fg_code_map_generation(&map), &kept));
  walker.pcs = NULL;
  fg_pc_cache_free(&pcs);
}

/* A top pc looked up for the first time keeps, beside its own key, the
 * range of pcs around it that look up as it does (its granule, below the
 * record after it, the frame built at each byte): a pc in the range is
 * answered by it, never differently from a lookup (not past the record,
 * nor past an epilogue's byte, a ret), and not once the code map changed. */
static void top_range_answers_for_its_neighbours(void **state)
{
  (void)state;
  struct fg_pc_cache pcs;
  assert_int_equal(fg_pc_cache_init(&pcs), 0);
  *(int32_t *)(thread + 16) = IN_JAVA;
  /* a granule inside the method's body, below its first record (TOP_PC + 3) */
  uintptr_t g = (TOP_PC - FG_PC_RANGE_BYTES) - (TOP_PC - FG_PC_RANGE_BYTES) % FG_PC_RANGE_BYTES;
  assert_true(g > (uintptr_t)COMPILED + 16 && g + FG_PC_RANGE_BYTES <= TOP_PC);
  *(uint8_t *)(g + 20) = 0xc3;   /* a ret: popped there */
  ASGCT_CallFrame f[16], plain[16];
  uint8_t types[16], plain_types[16];
  walker.pcs = &pcs;
  struct fg_regs r = {g + 32, at(100), 0};
  assert_int_equal(walk(&r, 1, f, types), 3);
  uint32_t generation = fg_code_map_generation(&map);
  struct fg_pc_info got;
  for (uintptr_t pc = g; pc < g + FG_PC_RANGE_BYTES; pc++)
    assert_int_equal(fg_pc_cache_get_range(&pcs, pc, generation, &got), pc >= g + 21);
  /* every pc walks as without the cache, each range kept on the way
   * included: up to the first record, past it (the next record's frames);
   * pcs taken upward, then downward into a cache of their own */
  for (int down = 0; down <= 1; down++) {
    struct fg_pc_cache own;
    assert_int_equal(fg_pc_cache_init(&own), 0);
    uintptr_t span = TOP_PC + 2 * FG_PC_RANGE_BYTES - g;
    for (uintptr_t i = 0; i < span; i++) {
      uintptr_t pc = down ? g + span - 1 - i : g + i;
      struct fg_regs a = {pc, at(100), 0}, b = a;
      walker.pcs = &own;
      int n = walk_room(&a, 1, 15, f, types, &(int){0}, &(struct fg_regs){0});
      walker.pcs = NULL;
      int m = walk_room(&b, 1, 15, plain, plain_types, &(int){0}, &(struct fg_regs){0});
      assert_int_equal(n, m);
      for (int j = 0; j < n; j++) {
        assert_ptr_equal(f[j].method_id, plain[j].method_id);
        assert_int_equal(f[j].lineno, plain[j].lineno);
        assert_int_equal(types[j], plain_types[j]);
      }
    }
    fg_pc_cache_free(&own);
  }
  /* a pc never looked up is answered by the range (planted here) */
  assert_true(fg_pc_cache_get_range(&pcs, g + 32, generation, &got));
  got.inline_frames[0].bci = 77;
  fg_pc_cache_put_range(&pcs, g + 21, g + FG_PC_RANGE_BYTES, generation, &got);
  walker.pcs = &pcs;
  struct fg_regs fresh = {g + 50, at(100), 0};
  assert_false(fg_pc_cache_get(&pcs, g + 50, 1, generation, &got));
  assert_int_equal(walk(&fresh, 1, f, types), 3);
  assert_int_equal(f[0].lineno, 77);
  fg_code_map_remove_method(&map, ID(2), COMPILED);   /* unloaded: nothing kept answers */
  assert_false(fg_pc_cache_get_range(&pcs, g + 50, fg_code_map_generation(&map), &got));
  walker.pcs = NULL;
  fg_pc_cache_free(&pcs);
}

/* A caller in code with no record yet (CompiledMethodLoad comes late): the
 * frames so far, and that caller's registers for AsyncGetCallTrace. */
static void caller_without_a_record_is_handed_on(void **state)
{
  (void)state;
  *(int32_t *)(thread + 16) = IN_JAVA;
  stack[105] = (uintptr_t)(code + 3500);   /* past the adapters, in no blob */
  struct fg_regs r = {TOP_PC, at(100), 0};
  ASGCT_CallFrame f[16];
  uint8_t types[16];
  int stubs;
  struct fg_regs unknown;
  assert_int_equal(walk_room(&r, 1, 15, f, types, &stubs, &unknown), 2);
  assert_int_equal(unknown.pc, (uintptr_t)(code + 3500));
  assert_int_equal(unknown.sp, at(106));
  assert_int_equal(unknown.fp, at(200));
  /* from a copy, with no AsyncGetCallTrace: the frames so far under a
   * tick, and the caller's pc, for a walk again once its record has come */
  struct fg_stack_copy c = {.pc = TOP_PC, .sp = at(100), .stack = (const uint8_t *)&stack[100],
                            .copied = (512 - 100) * sizeof(uintptr_t)};
  ASGCT_CallFrame cf[FG_MAX_NATIVE_DEPTH + 80];
  uint8_t ct[FG_MAX_NATIVE_DEPTH + 80];
  struct fg_walk w = fg_walk_copy(&walker, thread, &c, cf, ct);
  assert_int_equal(w.tick, FG_TICK_UNKNOWN_JAVA);
  assert_int_equal(w.n, 2);
  assert_int_equal(w.no_record, (uintptr_t)(code + 3500));
  /* a method compiled there once and unloaded: its space reused by code whose record is still to come */
  fg_code_map_add_method(&map, ID(9), code + 3480, 64, NULL, NULL, NULL);
  fg_code_map_remove_method(&map, ID(9), code + 3480);
  w = fg_walk_copy(&walker, thread, &c, cf, ct);
  assert_int_equal(w.no_record, (uintptr_t)(code + 3500));
  fg_code_map_add_stub(&map, "some_stub", code + 3480, 64);   /* a record there, which cannot be walked through */
  w = fg_walk_copy(&walker, thread, &c, cf, ct);
  assert_true(w.flags & FG_SAMPLE_FAILED);
  assert_int_equal(w.no_record, 0);   /* its record came: nothing to wait for */
  /* the interrupted frame itself unknown: no walk */
  r.pc = (uintptr_t)(code + 3600);
  assert_int_equal(walk(&r, 1, f, types), 0);
}

/* The interpreter building a method's frame, its Method* slot not yet
 * written: the method is rbx's; its compiled caller's return address at
 * sp with the sender's sp in r13, or above the new rbp. */
static void interpreted_frame_being_built(void **state)
{
  (void)state;
  *(int32_t *)(thread + 16) = IN_JAVA;
  ASGCT_CallFrame f[16];
  uint8_t types[16];
  stack[99] = CALL_RET;
  struct fg_regs entry = {(uintptr_t)(code + 100), at(99), 0x1234};
  scratch = (struct fg_top_regs){0, INTERPRETED_METHOD, 0, at(100)};
  assert_int_equal(walk(&entry, 1, f, types), 4);
  assert_ptr_equal(f[0].method_id, ID(1));
  assert_int_equal(f[0].lineno, 0);   /* being entered: bci 0, as HotSpot says */
  assert_int_equal(types[0], FG_FRAME_INTERPRETED);
  assert_ptr_equal(f[1].method_id, ID(3));
  assert_ptr_equal(f[3].method_id, ID(1));
  /* after push rax; push rbp; mov rbp, rsp: the return address above rbp */
  stack[99] = 0;
  stack[97] = 0x1234;                          /* the saved rbp */
  stack[98] = CALL_RET;
  struct fg_regs framed = {(uintptr_t)(code + 100), at(95), at(97)};
  assert_int_equal(walk(&framed, 1, f, types), 4);
  assert_ptr_equal(f[3].method_id, ID(1));
  scratch.rbx = INTERPRETED_METHOD + 8;        /* no known method in rbx: no guess */
  assert_int_equal(walk(&framed, 1, f, types), 0);
}

/* The interrupted frame in the interpreter with a bcp outside its Method*'s
 * bytecodes: a frame being set up (bci 0) only when rbx holds that Method*
 * too, as all through the interpreter's entry; otherwise the Method* is
 * another method's now (freed, and its place taken by a retransformed
 * class's new method): no guess, AsyncGetCallTrace names it. */
static void a_top_bcp_outside_its_method_is_no_entry(void **state)
{
  (void)state;
  *(int32_t *)(thread + 16) = IN_JAVA;
  ASGCT_CallFrame f[16];
  uint8_t types[16];
  stack[200 - 8] = (uintptr_t)bytecodes + 100;   /* past its bytecodes */
  struct fg_regs r = {(uintptr_t)(code + 600), at(190), at(200)};
  scratch.rbx = INTERPRETED_METHOD;
  assert_int_equal(walk(&r, 1, f, types), 1);
  assert_ptr_equal(f[0].method_id, ID(1));
  assert_int_equal(f[0].lineno, 0);
  scratch.rbx = 0x5000;   /* a running method's rbx: any value */
  assert_int_equal(walk(&r, 1, f, types), 0);
  stack[200 - 8] = (uintptr_t)bytecodes + 12;    /* inside: read as it is, whatever rbx holds */
  assert_int_equal(walk(&r, 1, f, types), 1);
  assert_int_equal(f[0].lineno, 12);
}

/* A Method* the map holds whose ConstMethod is another now: the method it
 * named was freed and another took its place (a retransformed class's new
 * methods reuse the old ones' metaspace). Not named by the old entry. */
static void a_method_freed_and_taken_is_not_named(void **state)
{
  (void)state;
  *(int32_t *)(thread + 16) = IN_JAVA;
  ASGCT_CallFrame f[16];
  uint8_t types[16];
  struct fg_regs r = {TOP_PC, at(100), 0x1234};
  assert_int_equal(walk(&r, 1, f, types), 3);
  static uint8_t other[64];
  fake_method[1] = (uintptr_t)other;
  assert_int_equal(walk(&r, 1, f, types), 0);
  fake_method[1] = (uintptr_t)bytecodes;
  assert_int_equal(walk(&r, 1, f, types), 3);
}

/* Frames it cannot read end the walk with 0: an unknown Method*, a bcp
 * outside a caller's bytecodes, a return address into no known code. */
static void unreadable_frames_fail(void **state)
{
  (void)state;
  *(int32_t *)(thread + 16) = IN_JAVA;
  struct fg_regs r = {TOP_PC, at(100), 0};
  ASGCT_CallFrame f[16];
  uint8_t types[16];
  stack[200 - 3] = INTERPRETED_METHOD + 8;
  assert_int_equal(walk(&r, 1, f, types), 0);
  stack[200 - 3] = INTERPRETED_METHOD;
  stack[200 - 8] = (uintptr_t)bytecodes + 100;
  assert_int_equal(walk(&r, 1, f, types), 0);
  stack[200 - 8] = (uintptr_t)bytecodes + 12;
  stack[105] = (uintptr_t)&stack[0];
  assert_int_equal(walk(&r, 1, f, types), 0);
  stack[105] = (uintptr_t)(code + 500);
  assert_int_equal(walk(&r, 1, f, types), 3);
  /* a thread in Java whose pc the native walk could not bring back to Java */
  assert_int_equal(walk(NULL, 0, f, types), 0);
}

/* walker=copy: the stack copied elsewhere (and the live one wiped) walks
 * as the live one did, whatever the thread's state says now (it has run on
 * since); a copy cut short keeps the frames it holds, marked truncated by the
 * copy, unless the copy was whole (then the walk failed: the top method's
 * own frames under a tick). */
static void a_copy_walks_as_the_stack(void **state)
{
  (void)state;
  *(int32_t *)(thread + 16) = IN_VM;   /* the anchor empty: a live walk would find no Java */
  static uintptr_t copy[512];
  memcpy(copy, stack, sizeof copy);
  memset(stack, 0, sizeof stack);   /* the walk reads the copy only */
  struct fg_stack_copy c = {.pc = TOP_PC, .sp = at(100), .fp = 0x1234, .stack = (const uint8_t *)&copy[100],
                            .copied = (512 - 100) * sizeof(uintptr_t), .cut = 0};
  ASGCT_CallFrame f[FG_MAX_NATIVE_DEPTH + 80];
  uint8_t types[FG_MAX_NATIVE_DEPTH + 80];
  struct fg_walk w = fg_walk_copy(&walker, thread, &c, f, types);
  assert_int_equal(w.n, 3);
  assert_int_equal(w.flags, FG_SAMPLE_VM_WALKED);
  assert_ptr_equal(f[0].method_id, ID(3));
  assert_ptr_equal(f[1].method_id, ID(2));
  assert_ptr_equal(f[2].method_id, ID(1));
  assert_int_equal(f[2].lineno, 12);

  c.copied = (204 - 100) * sizeof(uintptr_t);   /* ends inside the interpreted frame's caller */
  c.cut = 1;
  w = fg_walk_copy(&walker, thread, &c, f, types);
  assert_int_equal(w.n, 3);
  assert_int_equal(w.flags, FG_SAMPLE_VM_WALKED | FG_SAMPLE_TRUNCATED | FG_SAMPLE_COPY_CUT);
  assert_ptr_equal(f[2].method_id, ID(1));

  c.cut = 0;   /* the stack ended there: the walk failed */
  w = fg_walk_copy(&walker, thread, &c, f, types);
  assert_true(w.flags & FG_SAMPLE_FAILED);
  assert_int_equal(w.tick, FG_TICK_NOT_WALKABLE_JAVA);
  assert_int_equal(w.n, 2);   /* the compiled method and what it inlined, at the pc */
  assert_ptr_equal(f[0].method_id, ID(3));
  assert_ptr_equal(f[1].method_id, ID(2));
  assert_int_equal(w.no_record, 0);   /* its code is known: a walk again would fail again */

  c.pc = (uintptr_t)(code + 3500);   /* code with no record, no native walk to Java */
  w = fg_walk_copy(&walker, thread, &c, f, types);
  assert_true(w.flags & FG_SAMPLE_FAILED);
  assert_int_equal(w.tick, FG_TICK_NOT_WALKABLE_JAVA);
  assert_int_equal(w.no_record, (uintptr_t)(code + 3500));   /* a record to come may let it go on */
  c.pc = 0x1000;   /* outside the code cache, no unwind tables: native frames stop at the leaf */
  walker.native_depth = FG_MAX_NATIVE_DEPTH;   /* cstack=native */
  w = fg_walk_copy(&walker, thread, &c, f, types);
  assert_int_equal(w.tick, FG_TICK_UNKNOWN_NOT_JAVA);
  assert_int_equal(w.n, 1);
  assert_true(w.flags & FG_SAMPLE_NATIVE_CUT);
  /* a stub the VM called from its own code (jint_fill, its frame built):
   * popped by its layout, the native walk goes on from its caller */
  stack[90] = 0x2000;                              /* the saved rbp */
  stack[91] = 0x1001;                              /* the return address, in no code cache */
  struct fg_stack_copy from_vm = c;
  from_vm.pc = (uintptr_t)(code + 3800 + 30);
  from_vm.sp = at(88);
  from_vm.fp = at(90);
  memcpy(copy, stack, sizeof copy);
  from_vm.stack = (const uint8_t *)&copy[88];
  from_vm.copied = (512 - 88) * sizeof(uintptr_t);
  w = fg_walk_copy(&walker, thread, &from_vm, f, types);
  assert_int_equal(w.n, 2);
  assert_int_equal(types[0], FG_FRAME_STUB);
  assert_int_equal(types[1], FG_FRAME_NATIVE_PC);
  assert_int_equal((uintptr_t)f[1].method_id, 0x1000);   /* the call's own byte */
  assert_int_equal(w.tick, FG_TICK_UNKNOWN_NOT_JAVA);   /* no unwind tables here: no further */
  w = fg_walk_copy(&walker, NULL, &c, f, types);   /* no JNIEnv: native frames only */
  assert_int_equal(w.tick, FG_TICK_NO_JAVA_FRAME);
  assert_int_equal(w.n, 1);
  walker.native_depth = 0;   /* cstack=no: walked, not kept */
  w = fg_walk_copy(&walker, thread, &c, f, types);
  assert_int_equal(w.tick, FG_TICK_UNKNOWN_NOT_JAVA);
  assert_int_equal(w.n, 0);
  assert_false(w.flags & FG_SAMPLE_NATIVE_CUT);
}

/* A stub called from a compiled method's out-of-line slow path (C1 calls
 * its G1 post-barrier stub so), past the method's last debug record: the
 * live walk leaves it to AsyncGetCallTrace (0); from a copy, with nothing
 * behind it, the method is kept without a bci and the walk goes on. */
static void stub_called_from_a_slow_path(void **state)
{
  (void)state;
  *(int32_t *)(thread + 16) = IN_JAVA;
  stack[90] = 0x5555;                              /* jint_fill's saved rbp: the method's */
  stack[91] = (uintptr_t)(COMPILED + 600);         /* its return address, past the last record */
  stack[96] = at(200);                             /* the method's saved rbp: the interpreted frame's */
  stack[97] = (uintptr_t)(code + 500);             /* and its return address into the interpreter */
  struct fg_regs r = {(uintptr_t)(code + 3800 + 30), at(88), at(90)};
  ASGCT_CallFrame f[16];
  uint8_t types[16];
  int stubs;
  struct fg_regs unknown;
  assert_int_equal(walk_room(&r, 1, 15, f, types, &stubs, &unknown), 0);
  walker.from_copy = 1;
  int n = walk_room(&r, 1, 15, f, types, &stubs, &unknown);
  walker.from_copy = 0;
  assert_int_equal(n, 3);
  assert_int_equal(types[0], FG_FRAME_STUB);
  assert_ptr_equal(f[1].method_id, ID(2));
  assert_int_equal(f[1].lineno, -1);
  assert_ptr_equal(f[2].method_id, ID(1));
  assert_int_equal(f[2].lineno, 12);
}

/* The instruction cache's flush, frameless, called by the VM as it
 * installs code: from a copy, popped through the return address at sp and
 * walked on natively. */
static void icache_flush_called_by_the_vm(void **state)
{
  (void)state;
  fg_code_map_add_stub(&map, "flush_icache_stub", code + 4400, 32);
  stack[88] = 0x1001;                              /* the return address, in no code cache */
  struct fg_stack_copy c = {.pc = (uintptr_t)(code + 4400 + 10), .sp = at(88), .fp = 0x7777,
                            .stack = (const uint8_t *)&stack[88], .copied = (512 - 88) * sizeof(uintptr_t)};
  ASGCT_CallFrame f[FG_MAX_NATIVE_DEPTH + 80];
  uint8_t types[FG_MAX_NATIVE_DEPTH + 80];
  walker.native_depth = FG_MAX_NATIVE_DEPTH;
  struct fg_walk w = fg_walk_copy(&walker, thread, &c, f, types);
  assert_int_equal(w.n, 2);
  assert_int_equal(types[0], FG_FRAME_STUB);
  assert_string_equal(((const struct fg_code_blob *)(uintptr_t)f[0].method_id)->name, "flush_icache_stub");
  assert_int_equal((uintptr_t)f[1].method_id, 0x1000);
}

/* An OSR method entered from the interpreter: a sample inside
 * OSR_migration_end (a leaf call, no debug record at its return address)
 * has the method as its first Java frame, at that return address, below
 * the native frames. The frame is the method alone at its entry bci, not
 * what the next record says (here none: the records are below the entry, as
 * where C1 puts its OSR entry after the body); so is the interrupted pc
 * between the entry's frame build and the call, and the walker.c lookup
 * that recovery and a failed walk use. Before the entry's own prologue has
 * built the frame (C1 builds it again there), the walk fails rather than
 * pop a frame by the method's first prologue. */
static void osr_entry_named_at_its_entry_bci(void **state)
{
  (void)state;
  /* at 600: stack bang; push rbp; sub rsp, 0x20; mov rdi, rsi; then the call's return address at 624 */
  static const uint8_t entry[] = {0x89, 0x84, 0x24, 0x00, 0xc0, 0xfe, 0xff, 0x55, 0x48, 0x83, 0xec, 0x20, 0x48, 0x8b, 0xfe};
  memcpy(COMPILED + 600, entry, sizeof entry);
  *(int32_t *)(thread + 16) = IN_JAVA;
  struct fg_regs r = {(uintptr_t)(COMPILED + 624), at(100), 0};
  ASGCT_CallFrame f[16];
  uint8_t types[16];
  assert_int_equal(walk(&r, 0, f, types), 0);                  /* no record at or above: no frame to name it */
  add_compiled_deopt(ID(2), &(struct fg_deopt_sites){.orig_pc = -1, .osr_entry = 600, .osr_return = 624,
                                                       .entry_bci = 27});
  assert_int_equal(walk(&r, 0, f, types), 2);
  assert_ptr_equal(f[0].method_id, ID(2));
  assert_int_equal(f[0].lineno, 27);
  assert_int_equal(types[0], FG_FRAME_COMPILED);
  assert_ptr_equal(f[1].method_id, ID(1));
  assert_int_equal(f[1].lineno, 12);
  struct fg_regs top = {(uintptr_t)(COMPILED + 612), at(100), 0x1234};   /* after sub rsp: the frame is built */
  assert_int_equal(walk(&top, 1, f, types), 2);
  assert_int_equal(f[0].lineno, 27);
  assert_ptr_equal(f[1].method_id, ID(1));
  top.pc = (uintptr_t)(COMPILED + 607);                         /* at push rbp: not built yet */
  assert_int_equal(walk(&top, 1, f, types), 0);
  const struct fg_code_blob *m = fg_code_map_find(&map.methods, (uintptr_t)COMPILED);
  assert_int_equal(fg_walk_scopes_at(m, (uintptr_t)(COMPILED + 624), f, types, 4), 1);
  assert_ptr_equal(f[0].method_id, ID(2));
  assert_int_equal(f[0].lineno, 27);
  assert_int_equal(fg_walk_scopes_at(m, (uintptr_t)(COMPILED + 625), f, types, 4), 0);   /* past the call */
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test_setup_teardown(thread_in_java, setup, teardown),
    cmocka_unit_test_setup_teardown(thread_in_the_vm, setup, teardown),
    cmocka_unit_test_setup_teardown(java_caller_needs_its_call_record, setup, teardown),
    cmocka_unit_test_setup_teardown(deoptimized_caller_walked_at_its_saved_pc, setup, teardown),
    cmocka_unit_test_setup_teardown(recursion_returns_to_the_same_pc, setup, teardown),
    cmocka_unit_test_setup_teardown(frames_from_the_pc_cache, setup, teardown),
    cmocka_unit_test_setup_teardown(top_range_answers_for_its_neighbours, setup, teardown),
    cmocka_unit_test_setup_teardown(caller_without_a_record_is_handed_on, setup, teardown),
    cmocka_unit_test_setup_teardown(interpreted_frame_being_built, setup, teardown),
    cmocka_unit_test_setup_teardown(a_top_bcp_outside_its_method_is_no_entry, setup, teardown),
    cmocka_unit_test_setup_teardown(a_method_freed_and_taken_is_not_named, setup, teardown),
    cmocka_unit_test_setup_teardown(unreadable_frames_fail, setup, teardown),
    cmocka_unit_test_setup_teardown(a_copy_walks_as_the_stack, setup, teardown),
    cmocka_unit_test_setup_teardown(stub_called_from_a_slow_path, setup, teardown),
    cmocka_unit_test_setup_teardown(icache_flush_called_by_the_vm, setup, teardown),
    cmocka_unit_test_setup_teardown(osr_entry_named_at_its_entry_bci, setup, teardown),
  };
  return cmocka_run_group_tests_name("vm_walker", tests, NULL, NULL);
}
