/* The VM walker through stubs, adapters and exception dispatch: a leaf
 * stub kept as a frame of its own, stubs entered after a move or that
 * realign rsp, method-handle intrinsics, i2c and c2i adapters, C1's and
 * C2's exception paths (fixture: vm_walker_fixture.h). */
#include "vm_walker_fixture.h"

/* A leaf stub (frameless, at its entry) is a frame of its own that does
 * not count against the Java frames asked for. */
static void leaf_stub_is_kept_beyond_depth(void **state)
{
  (void)state;
  *(int32_t *)(thread + 16) = IN_JAVA;
  stack[99] = CALL_RET;                            /* the call into the stub */
  struct fg_regs r = {(uintptr_t)(code + 2560), at(99), 0};
  ASGCT_CallFrame f[16];
  uint8_t types[16];
  int stubs;
  struct fg_regs unknown;
  assert_int_equal(walk_room(&r, 1, 2, f, types, &stubs, &unknown), 3);
  assert_int_equal(stubs, 1);
  assert_int_equal(types[0], FG_FRAME_STUB);
  assert_string_equal(((const struct fg_code_blob *)(uintptr_t)f[0].method_id)->name, "jint_arraycopy");
  assert_ptr_equal(f[1].method_id, ID(3));   /* the caller's frames from the call's record */
  assert_int_equal(f[1].lineno, 9);
  assert_ptr_equal(f[2].method_id, ID(2));
  assert_int_equal(f[2].lineno, 11);
  assert_int_equal(walk(&r, 1, f, types), 4);
  assert_ptr_equal(f[3].method_id, ID(1));
  /* a leaf call into a stub has no record at its return address: the
   * record after it names the call while the code after it goes on with its
   * block (a mov here); past the method's last record, nothing */
  COMPILED[298] = 0x48;
  COMPILED[299] = 0x89;
  stack[99] = CALL_RET - 2;
  assert_int_equal(walk(&r, 1, f, types), 4);
  stack[99] = CALL_RET + 1;
  assert_int_equal(walk(&r, 1, f, types), 0);
  /* the call ends an out-of-line block with a jump back (C2's AVX-512
   * arraycopy): the record after the jump's target names it, not the next
   * record (TOP_PC's, bci 5) */
  static const uint8_t back[] = {0x44, 0x8b, 0xcd, 0xeb, 297 - 185};   /* mov r9d, ebp; jmp COMPILED + 297 */
  memcpy(COMPILED + 180, back, sizeof back);
  stack[99] = (uintptr_t)(COMPILED + 180);
  assert_int_equal(walk(&r, 1, f, types), 4);
  assert_ptr_equal(f[1].method_id, ID(3));
  assert_int_equal(f[1].lineno, 9);
  /* JDK 21's post-call nop, then the jump back: the same */
  static const uint8_t nop_back[] = {0x0f, 0x1f, 0x84, 0x00, 0x12, 0x34, 0x56, 0x78, 0xeb, 297 - 190};
  memcpy(COMPILED + 180, nop_back, sizeof nop_back);
  assert_int_equal(walk(&r, 1, f, types), 4);
  assert_int_equal(f[1].lineno, 9);
  /* padding first: the next record is the next block's, none names the call: the method alone */
  static const uint8_t pad[] = {0x44, 0x8b, 0xcd, 0x66, 0x90};   /* mov r9d, ebp; xchg ax, ax */
  memcpy(COMPILED + 180, pad, sizeof pad);
  assert_int_equal(walk(&r, 1, f, types), 3);
  assert_ptr_equal(f[1].method_id, ID(2));
  assert_int_equal(f[1].lineno, -1);
  assert_ptr_equal(f[2].method_id, ID(1));
}

/* The nmethod entry barrier pushes a cookie below its rbp frame: its
 * caller is a word above an rbp frame's return address, at each point of
 * its entry and exit as in its body (the first thread into a method whose
 * barrier is armed runs it, every new method's on JDK 25). */
static void entry_barrier_keeps_its_caller(void **state)
{
  (void)state;
  *(int32_t *)(thread + 16) = IN_JAVA;
  ASGCT_CallFrame f[16];
  uint8_t types[16];
  stack[97] = 0x5555;                              /* the saved rbp */
  stack[98] = (uintptr_t)-1;                       /* the cookie */
  stack[99] = CALL_RET;                            /* the call into the barrier */
  uintptr_t s = (uintptr_t)(code + ENTRY_BARRIER);
  struct fg_regs points[] = {
    {s + 20, at(90), at(97)},     /* the body: rbp frames it */
    {s, at(99), 0x5555},          /* entry: the return address at sp */
    {s + 5, at(98), 0x5555},      /* after the cookie's push */
    {s + 6, at(97), 0x5555},      /* after push rbp */
    {s + 41, at(98), 0x5555},     /* after leave: add rsp, 8 */
    {s + 45, at(99), 0x5555},     /* at ret */
  };
  for (size_t i = 0; i < sizeof points / sizeof points[0]; i++) {
    assert_int_equal(walk(&points[i], 1, f, types), 4);
    assert_string_equal(((const struct fg_code_blob *)(uintptr_t)f[0].method_id)->name, "method_entry_barrier");
    assert_ptr_equal(f[1].method_id, ID(3));
    assert_ptr_equal(f[3].method_id, ID(1));
  }
}

/* The interrupted compiled frame inside an intrinsic that pushed two
 * registers: sp + frame size misses the return address by two words, and
 * the walker finds it two words further because there it is a Java call. */
static void pushed_registers_in_the_top_frame(void **state)
{
  (void)state;
  *(int32_t *)(thread + 16) = IN_JAVA;
  stack[98] = 0x1111;                              /* the pushed registers */
  stack[99] = 0x2222;
  struct fg_regs r = {TOP_PC, at(98), 0};
  ASGCT_CallFrame f[16];
  uint8_t types[16];
  assert_int_equal(walk(&r, 1, f, types), 3);
  assert_ptr_equal(f[2].method_id, ID(1));
  assert_int_equal(f[2].lineno, 12);
  /* nothing that is a Java call within four words: no stack */
  stack[105] = 0x3333;
  assert_int_equal(walk(&r, 1, f, types), 0);
}

/* A stub that moves an argument before push rbp; mov rbp, rsp: before the
 * push only the return address is on the stack, after the mov rbp frames it. */
static void stub_entered_after_a_move(void **state)
{
  (void)state;
  *(int32_t *)(thread + 16) = IN_JAVA;
  ASGCT_CallFrame f[16];
  uint8_t types[16];
  stack[99] = CALL_RET;
  struct fg_regs at_push = {(uintptr_t)(code + 3800 + 3), at(99), 0x1234};
  assert_int_equal(walk(&at_push, 1, f, types), 4);
  stack[98] = 0x1234;                              /* the saved rbp, the return address above it */
  struct fg_regs in_loop = {(uintptr_t)(code + 3800 + 30), at(90), at(98)};
  assert_int_equal(walk(&in_loop, 1, f, types), 4);
  assert_ptr_equal(f[3].method_id, ID(1));
}

/* A stub that realigned rsp and uses rbp for data (SHA-512 on AVX2): in its
 * body and at its reload the caller is found through the rsp it kept in its
 * frame; before it realigns, through rbp; at each pop after the reload, from
 * sp less what was popped; at leave with rbp still data, the walk fails
 * rather than follow it. */
static void realigned_stub_keeps_its_caller(void **state)
{
  (void)state;
  *(int32_t *)(thread + 16) = IN_JAVA;
  ASGCT_CallFrame f[16];
  uint8_t types[16];
  stack[99] = CALL_RET;                            /* the call into the stub */
  stack[98] = 0x1234;                              /* enter: the caller's rbp */
  stack[97] = 0x5555;                              /* push rdx; push rcx */
  stack[96] = 0x6666;
  uintptr_t kept = at(96), sp = (kept - 0x70) & ~(uintptr_t)31, table = 0x7f4030201000;
  stack[(sp + 0x38 - at(0)) / 8] = kept;
  struct fg_regs in_body = {(uintptr_t)(code + REALIGNED_STUB + 40), sp, table};
  assert_int_equal(walk(&in_body, 1, f, types), 4);
  assert_string_equal(((const struct fg_code_blob *)(uintptr_t)f[0].method_id)->name, "sha512_implCompress");
  assert_ptr_equal(f[1].method_id, ID(3));
  assert_int_equal(f[1].lineno, 9);
  assert_ptr_equal(f[3].method_id, ID(1));
  /* after the pushes, before the realignment: rbp is still the frame pointer */
  struct fg_regs pushed = {(uintptr_t)(code + REALIGNED_STUB + 6), kept, at(98)};
  assert_int_equal(walk(&pushed, 1, f, types), 4);
  struct fg_regs reload = {(uintptr_t)(code + REALIGNED_STUB + 100), sp, table}, popping[] = {
      {(uintptr_t)(code + REALIGNED_STUB + 105), kept, table}, {(uintptr_t)(code + REALIGNED_STUB + 106), kept + 8, table}};
  assert_int_equal(walk(&reload, 1, f, types), 4);
  assert_int_equal(walk(&popping[0], 1, f, types), 4);
  assert_int_equal(walk(&popping[1], 1, f, types), 4);
  struct fg_regs leave = {(uintptr_t)(code + REALIGNED_STUB + 107), kept + 16, table};
  assert_int_equal(walk(&leave, 1, f, types), 0);
  /* a kept rsp below its own slot is no kept rsp */
  stack[(sp + 0x38 - at(0)) / 8] = sp;
  assert_int_equal(walk(&in_body, 1, f, types), 0);
}

/* A method-handle intrinsic at its tail jump: the return address at sp. */
static void method_handle_intrinsic_without_a_frame(void **state)
{
  (void)state;
  *(int32_t *)(thread + 16) = IN_JAVA;
  stack[99] = CALL_RET;
  struct fg_regs r = {(uintptr_t)(code + 3700 + 7), at(99), 0};
  ASGCT_CallFrame f[16];
  uint8_t types[16];
  assert_int_equal(walk(&r, 1, f, types), 4);
  assert_ptr_equal(f[0].method_id, ID(4));
  assert_ptr_equal(f[1].method_id, ID(3));
  assert_ptr_equal(f[3].method_id, ID(1));
}

/* C1's unwind_exception, reached by the native walk at its leaf call into
 * the VM, made with the stack aligned 8 bytes down: the return address it
 * unwinds to is at sp + 8, the caller's frames after it. */
static void exception_dispatch_at_an_aligned_leaf_call(void **state)
{
  (void)state;
  *(int32_t *)(thread + 16) = IN_JAVA;
  stack[99] = CALL_RET;
  struct fg_regs r = {(uintptr_t)(code + 3072 + 20), at(98), 0};
  ASGCT_CallFrame f[16];
  uint8_t types[16];
  assert_int_equal(walk(&r, 0, f, types), 4);
  assert_string_equal(((const struct fg_code_blob *)(uintptr_t)f[0].method_id)->name, "unwind_exception Runtime1 stub");
  assert_ptr_equal(f[1].method_id, ID(3));
  assert_ptr_equal(f[3].method_id, ID(1));
}

/* Adapters: in the i2c part the interpreted caller is found through rbp; in
 * the c2i part's checks the compiled caller's return address is at sp;
 * once c2i has popped it, nothing is guessed. */
static void adapters_between_interpreted_and_compiled_code(void **state)
{
  (void)state;
  *(int32_t *)(thread + 16) = IN_JAVA;
  ASGCT_CallFrame f[16];
  uint8_t types[16];
  struct fg_regs i2c = {(uintptr_t)(code + 3328 + 4), at(50), at(200)};   /* after pop rax: sp moved */
  assert_int_equal(walk(&i2c, 1, f, types), 2);
  assert_int_equal(types[0], FG_FRAME_STUB);
  assert_ptr_equal(f[1].method_id, ID(1));
  assert_int_equal(f[1].lineno, 12);
  stack[99] = CALL_RET;
  struct fg_regs c2i = {(uintptr_t)(code + 3328 + 20), at(99), 0x1234};   /* at jne */
  assert_int_equal(walk(&c2i, 1, f, types), 4);
  assert_ptr_equal(f[1].method_id, ID(3));
  assert_ptr_equal(f[3].method_id, ID(1));
  c2i.pc = (uintptr_t)(code + 3328 + 27);   /* after pop rax: the return address is no longer at sp */
  c2i.sp = at(98);
  assert_int_equal(walk(&c2i, 1, f, types), 0);
}

/* The c2i adapter's last part: r13 holds the caller's sp, the return
 * address is in rax, then at rsp once stored; neither is taken unless it
 * is a Java call's, nor r13 when it is far above sp. */
static void c2i_tail_keeps_its_caller_in_registers(void **state)
{
  (void)state;
  *(int32_t *)(thread + 16) = IN_JAVA;
  ASGCT_CallFrame f[16];
  uint8_t types[16];
  struct fg_regs before_store = {(uintptr_t)(code + 3328 + 34), at(98), 0x1234};   /* after sub rsp, 16 */
  scratch = (struct fg_top_regs){CALL_RET, 0, 0, at(100)};
  assert_int_equal(walk(&before_store, 1, f, types), 4);
  assert_int_equal(types[0], FG_FRAME_STUB);
  assert_ptr_equal(f[1].method_id, ID(3));
  assert_ptr_equal(f[3].method_id, ID(1));
  struct fg_regs at_jump = {(uintptr_t)(code + 3328 + 38), at(98), 0x1234};   /* stored at rsp, rax reused */
  scratch.rax = 0x5555;
  stack[98] = CALL_RET;
  assert_int_equal(walk(&at_jump, 1, f, types), 4);
  stack[98] = CALL_RET - 2;   /* no Java call's return address anywhere */
  assert_int_equal(walk(&at_jump, 1, f, types), 0);
  stack[98] = CALL_RET;
  scratch.r13 = at(400);   /* further above sp than any arguments reach */
  assert_int_equal(walk(&at_jump, 1, f, types), 0);
}

/* C1's slow_subtype_check pushes registers and has no frame: its return
 * address is the word above sp that returns from a call of it, and the two
 * arguments C1 pushed before the call lie between it and the caller's
 * frame. A stale word that would make a second, different caller is a
 * reason to give up. */
static void leaf_stub_found_by_its_call(void **state)
{
  (void)state;
  *(int32_t *)(thread + 16) = IN_JAVA;
  uint8_t *call = (uint8_t *)CALL_RET - 5;   /* call rel32 to the stub, at the return address */
  int32_t rel = (int32_t)((intptr_t)(code + SUBTYPE_STUB) - (intptr_t)CALL_RET);
  call[0] = 0xe8;
  memcpy(call + 1, &rel, sizeof rel);
  stack[94] = CALL_RET;                        /* above the four pushed registers at 90-93 */
  stack[95] = 0x70000001;                      /* the two arguments */
  stack[96] = 0x70000002;
  stack[101] = at(200);                        /* the caller's frame: 0x30 bytes from word 97 */
  stack[102] = (uintptr_t)(code + 500);
  struct fg_regs r = {(uintptr_t)(code + SUBTYPE_STUB + 4), at(90), 0x1234};
  ASGCT_CallFrame f[16];
  uint8_t types[16];
  assert_int_equal(walk(&r, 1, f, types), 4);
  assert_string_equal(((const struct fg_code_blob *)(uintptr_t)f[0].method_id)->name,
                      "slow_subtype_check Runtime1 stub");
  assert_int_equal(f[1].lineno, 9);
  assert_ptr_equal(f[3].method_id, ID(1));
  assert_int_equal(f[3].lineno, 12);
  stack[91] = CALL_RET;                        /* a stale one whose frame also leads to a Java call */
  stack[97] = (uintptr_t)(code + 500);
  stack[96] = at(200);
  assert_int_equal(walk(&r, 1, f, types), 0);
}

/* C2's exception blob at its first instruction: the return address is in
 * rdx, not yet pushed. */
static void exception_blob_entered_with_rdx(void **state)
{
  (void)state;
  *(int32_t *)(thread + 16) = IN_JAVA;
  ASGCT_CallFrame f[16];
  uint8_t types[16];
  struct fg_regs r = {(uintptr_t)(code + EXCEPTION_BLOB), at(100), 0x1234};
  scratch.rdx = CALL_RET;
  assert_int_equal(walk(&r, 1, f, types), 4);
  assert_string_equal(((const struct fg_code_blob *)(uintptr_t)f[0].method_id)->name, "ExceptionBlob");
  assert_ptr_equal(f[3].method_id, ID(1));
  scratch.rdx = CALL_RET - 2;
  assert_int_equal(walk(&r, 1, f, types), 0);
}

/* The safepoint handler a poll in a method's body traps into: reached at
 * its call into the VM (the native walk's way from the VM's frames), its
 * rbp frame popped to the poll's pc it wrote in the room it pushed, and the
 * method walked from there as an interrupted frame, with the record after
 * the poll; the handler for a poll at a return pushes no room, and its
 * caller is at a call as any frame's. */
static void safepoint_handler_returns_to_the_poll(void **state)
{
  (void)state;
  *(int32_t *)(thread + 16) = IN_JAVA;
  /* push rbx; push rbp; mov rbp, rsp; ... call the VM at 20 */
  static const uint8_t in_body[] = {0x53, 0x55, 0x48, 0x8b, 0xec};
  memcpy(code + 4256, in_body, sizeof in_body);
  fg_code_map_add_stub(&map, "SafepointBlob", code + 4256, 32);
  stack[99] = TOP_PC;                              /* the room rbx made: the poll's pc */
  stack[98] = 0x5555;                              /* the method's rbp */
  struct fg_regs r = {(uintptr_t)(code + 4256 + 20), at(60), at(98)};
  ASGCT_CallFrame f[16];
  uint8_t types[16];
  assert_int_equal(walk(&r, 0, f, types), 4);
  assert_string_equal(((const struct fg_code_blob *)(uintptr_t)f[0].method_id)->name, "SafepointBlob");
  assert_ptr_equal(f[1].method_id, ID(3));         /* the record just after the poll */
  assert_int_equal(f[1].lineno, 5);
  assert_ptr_equal(f[2].method_id, ID(2));
  assert_int_equal(f[2].lineno, 7);
  assert_ptr_equal(f[3].method_id, ID(1));

  static const uint8_t at_return[] = {0x55, 0x48, 0x8b, 0xec};   /* push rbp; mov rbp, rsp */
  memcpy(code + 4300, at_return, sizeof at_return);
  fg_code_map_add_stub(&map, "SafepointBlob", code + 4300, 32);
  stack[99] = CALL_RET;                            /* the method's frame gone: its caller's call */
  r.pc = (uintptr_t)(code + 4300 + 20);
  assert_int_equal(walk(&r, 0, f, types), 4);
  assert_int_equal(f[1].lineno, 9);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test_setup_teardown(leaf_stub_is_kept_beyond_depth, setup, teardown),
    cmocka_unit_test_setup_teardown(entry_barrier_keeps_its_caller, setup, teardown),
    cmocka_unit_test_setup_teardown(pushed_registers_in_the_top_frame, setup, teardown),
    cmocka_unit_test_setup_teardown(stub_entered_after_a_move, setup, teardown),
    cmocka_unit_test_setup_teardown(realigned_stub_keeps_its_caller, setup, teardown),
    cmocka_unit_test_setup_teardown(method_handle_intrinsic_without_a_frame, setup, teardown),
    cmocka_unit_test_setup_teardown(exception_dispatch_at_an_aligned_leaf_call, setup, teardown),
    cmocka_unit_test_setup_teardown(adapters_between_interpreted_and_compiled_code, setup, teardown),
    cmocka_unit_test_setup_teardown(c2i_tail_keeps_its_caller_in_registers, setup, teardown),
    cmocka_unit_test_setup_teardown(leaf_stub_found_by_its_call, setup, teardown),
    cmocka_unit_test_setup_teardown(exception_blob_entered_with_rdx, setup, teardown),
    cmocka_unit_test_setup_teardown(safepoint_handler_returns_to_the_poll, setup, teardown),
  };
  return cmocka_run_group_tests_name("vm_walker_stubs", tests, NULL, NULL);
}
