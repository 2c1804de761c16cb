/* The VM walker on a stack laid out as HotSpot lays out x86-64 frames: a
 * compiled method with an inlined callee, called from an interpreted
 * method, called from the call stub; a thread in Java and one in the VM.
 * A frame it cannot read makes the walk fail (0), never a guess. */
#include "unit.h"

#include <jvmti.h>
#include <jvmticmlr.h>
#include <string.h>

#include "../../agent/walk/pc_cache.h"
#include "../../agent/walk/method_map.h"
#include "../../agent/walk/vm_offsets.h"
#include "../../agent/walk/vm_walker.h"

static uint8_t code[5 * 1024];      /* [0, 1k) interpreter, [1k, 2k) a compiled method, [2k, 5k) stubs */
static uintptr_t stack[512];
static uint8_t bytecodes[100];
static char thread[256];            /* a JavaThread: the JNIEnv at 0, state at 16, anchor at 64 */
static struct fg_code_map map;
static struct fg_method_map methods;
static struct fg_vm_offsets vm;
static struct fg_walker walker;
static struct fg_top_regs scratch;  /* the interrupted frame's rax, rbx, rdx, r13 */

#define IN_JAVA 8
#define IN_VM 6
#define INTERPRETED_METHOD ((uintptr_t)0x7f00aa001000ull)
#define ID(i) ((jmethodID)(uintptr_t)(0x100 * (i)))
#define COMPILED (code + 1024)
#define TOP_PC ((uintptr_t)(COMPILED + 200))
#define CALL_RET ((uintptr_t)(COMPILED + 300))   /* a call's return address in the compiled method */
#define SUBTYPE_STUB 3900
#define EXCEPTION_BLOB 3950
#define REALIGNED_STUB 4096

static uintptr_t at(int word) { return (uintptr_t)&stack[word]; }

static int setup(void **state)
{
  (void)state;
  memset(code, 0x90, sizeof code);
  /* the compiled method's entry: push rbp; sub rsp, 0x20 (a 0x30-byte frame) */
  static const uint8_t entry[] = {0x55, 0x48, 0x83, 0xec, 0x20};
  memcpy(COMPILED, entry, sizeof entry);
  fg_code_map_init(&map);
  fg_code_map_add_stub(&map, "Interpreter", code, 1024);
  fg_code_map_add_stub(&map, "call_stub", code + 2048, 512);
  fg_code_map_add_stub(&map, "jint_arraycopy", code + 2560, 512);
  fg_code_map_add_stub(&map, "unwind_exception Runtime1 stub", code + 3072, 256);
  /* an adapter blob: i2c (mov r11, rsp; pop rax; and rsp, -16; push rax; jmp r11), then c2i
   * (mov r10d, [rsi + 8]; cmp r10d, [rax + 8]; jne; pop rax; mov r13, rsp; sub rsp, 16;
   * mov [rsp], rax; jmp [rbx + 0x40]) */
  static const uint8_t adapters[] = {0x4c, 0x8b, 0xdc, 0x58, 0x48, 0x83, 0xe4, 0xf0, 0x50, 0x41, 0xff, 0xe3,
                                     0x44, 0x8b, 0x56, 0x08, 0x44, 0x3b, 0x50, 0x08, 0x0f, 0x85, 0, 0, 0, 0, 0x58,
                                     0x4c, 0x8b, 0xec, 0x48, 0x83, 0xec, 0x10, 0x48, 0x89, 0x04, 0x24,
                                     0xff, 0x63, 0x40};
  memcpy(code + 3328, adapters, sizeof adapters);
  fg_code_map_add_stub(&map, "I2C/C2I adapters(0xbb)", code + 3328, sizeof adapters);
  /* a method-handle intrinsic: no debug records, no frame (mov; shl; jmp [rbx + 0x40]) */
  static const uint8_t mh[] = {0x8b, 0x5e, 0x14, 0x48, 0xc1, 0xe3, 0x03, 0xff, 0x63, 0x40};
  memcpy(code + 3700, mh, sizeof mh);
  fg_code_map_add_method(&map, ID(4), code + 3700, sizeof mh, NULL);
  /* a fill stub: mov r11, rdx; push rbp; mov rbp, rsp; then its loop */
  static const uint8_t fill[] = {0x4c, 0x8b, 0xda, 0x55, 0x48, 0x8b, 0xec};
  memcpy(code + 3800, fill, sizeof fill);
  fg_code_map_add_stub(&map, "jint_fill", code + 3800, 64);
  /* C1's slow_subtype_check: push rdi; push rsi; push rcx; push rax; ...; no frame of its own */
  static const uint8_t subtype[] = {0x57, 0x56, 0x51, 0x50, 0x48, 0x8b, 0x74, 0x24, 0x30};
  memcpy(code + SUBTYPE_STUB, subtype, sizeof subtype);
  fg_code_map_add_stub(&map, "slow_subtype_check Runtime1 stub", code + SUBTYPE_STUB, 32);
  /* C2's exception blob: push rdx (the return address it is entered without); sub rsp, 8; mov [rsp], rbp */
  static const uint8_t exception[] = {0x52, 0x48, 0x83, 0xec, 0x08, 0x48, 0x89, 0x2c, 0x24};
  memcpy(code + EXCEPTION_BLOB, exception, sizeof exception);
  fg_code_map_add_stub(&map, "ExceptionBlob", code + EXCEPTION_BLOB, 32);
  /* SHA-512 on AVX2: enter; push rdx; push rcx; mov rax, rsp; sub rsp, 0x70; and rsp, -32;
   * mov [rsp + 0x38], rax; movabs rbp, table ... mov rsp, [rsp + 0x38] at 100; pops; leave; ret */
  static const uint8_t realigned[] = {0x55, 0x48, 0x8b, 0xec, 0x52, 0x51, 0x48, 0x8b, 0xc4, 0x48, 0x83, 0xec, 0x70,
                                      0x48, 0x83, 0xe4, 0xe0, 0x48, 0x89, 0x44, 0x24, 0x38,
                                      0x48, 0xbd, 0, 0x10, 0x20, 0x30, 0x40, 0x7f, 0, 0};
  static const uint8_t realigned_exit[] = {0x48, 0x8b, 0x64, 0x24, 0x38, 0x59, 0x5a, 0xc9, 0xc3};
  memcpy(code + REALIGNED_STUB, realigned, sizeof realigned);
  memcpy(code + REALIGNED_STUB + 100, realigned_exit, sizeof realigned_exit);
  fg_code_map_add_stub(&map, "sha512_implCompress", code + REALIGNED_STUB, 128);
  fg_code_map_set_bounds(&map, (uintptr_t)code, (uintptr_t)(code + sizeof code));   /* [3400, 3700): no record */
  static const uint8_t add_rsp_8[] = {0x48, 0x83, 0xc4, 0x08};
  memcpy(code + 3072 + 20, add_rsp_8, sizeof add_rsp_8);
  /* debug records: just after TOP_PC, inlinee (id 3, bci 5) in the method (id 2, bci 7); at
   * CALL_RET, a call's return address, the same frames at bcis 9 and 11 */
  static jmethodID frames_methods[] = {ID(3), ID(2)};
  static jint top_bcis[] = {5, 7}, call_bcis[] = {9, 11};
  static PCStackInfo pc[2];
  pc[0] = (PCStackInfo){(void *)(TOP_PC + 3), 2, frames_methods, top_bcis};
  pc[1] = (PCStackInfo){(void *)CALL_RET, 2, frames_methods, call_bcis};
  static jvmtiCompiledMethodLoadInlineRecord rec;
  rec.header = (jvmtiCompiledMethodLoadRecordHeader){JVMTI_CMLR_INLINE_INFO, JVMTI_CMLR_MAJOR_VERSION,
                                                     JVMTI_CMLR_MINOR_VERSION, NULL};
  rec.numpcs = 2;
  rec.pcinfo = pc;
  fg_code_map_add_method(&map, ID(2), COMPILED, 1024, &rec);
  fg_method_map_init(&methods);
  fg_method_map_put(&methods, INTERPRETED_METHOD, ID(1), (uintptr_t)bytecodes, sizeof bytecodes);
  vm = (struct fg_vm_offsets){.known = 1, .env_to_state = 16, .env_to_anchor = 64, .anchor_sp = 0,
                              .anchor_pc = 8, .anchor_fp = 16, .wrapper_anchor = 0,
                              .call_stub_return = (uintptr_t)(code + 2100), .in_java = IN_JAVA};
  walker = (struct fg_walker){.code = &map, .depth = 64, .annotate = 1, .use_vm = 1, .vm = &vm, .methods = &methods};
  memset(stack, 0, sizeof stack);
  memset(thread, 0, sizeof thread);
  scratch = (struct fg_top_regs){0, 0, 0, 0};
  /* compiled frame at word 100: 0x30 bytes, saved rbp and return address at its top */
  stack[104] = at(200);                            /* saved rbp: the interpreted frame's fp */
  stack[105] = (uintptr_t)(code + 500);            /* return address into the interpreter */
  /* interpreted frame, fp at word 200 */
  stack[200 - 3] = INTERPRETED_METHOD;
  stack[200 - 8] = (uintptr_t)bytecodes + 12;      /* bcp: bci 12 */
  stack[200 - 1] = at(203);                        /* the sender's sp */
  stack[200] = at(300);                            /* link: the call stub's rbp */
  stack[201] = vm.call_stub_return;
  /* the call stub's frame, fp at word 300: its JavaCallWrapper at word 400, anchor empty */
  stack[300 - 6] = at(400);
  return 0;
}

static int teardown(void **state)
{
  (void)state;
  fg_code_map_free(&map);
  fg_method_map_free(&methods);
  return 0;
}

/* The walk over the fake stack, for room Java frames. */
static int walk_room(const struct fg_regs *java, int top, int room, ASGCT_CallFrame *f, uint8_t *types, int *stubs,
                     struct fg_regs *unknown)
{
  struct fg_bounds b = {(uintptr_t)stack, (uintptr_t)(stack + 512)};
  return fg_vm_walk(&walker, thread, java, top ? &scratch : NULL, b, f, types, room, stubs, unknown);
}

/* A whole walk: no caller handed on, the leaf stub counted when there is one. */
static int walk(const struct fg_regs *java, int top, ASGCT_CallFrame *f, uint8_t *types)
{
  int stubs;
  struct fg_regs unknown;
  int n = walk_room(java, top, 15, f, types, &stubs, &unknown);
  assert_int_equal(unknown.pc, 0);
  assert_int_equal(stubs, n > 0 && types[0] == FG_FRAME_STUB);
  return n;
}

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
   * record after it names the call; past the method's last record, nothing */
  stack[99] = CALL_RET - 2;
  assert_int_equal(walk(&r, 1, f, types), 4);
  stack[99] = CALL_RET + 1;
  assert_int_equal(walk(&r, 1, f, types), 0);
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
  fg_code_map_add_method(&map, ID(5), code + 3400, 100, NULL);   /* a method loaded where nothing was */
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
  /* the interrupted frame itself unknown: no walk */
  r.pc = (uintptr_t)(code + 3600);
  assert_int_equal(walk(&r, 1, f, types), 0);
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
  assert_int_equal(f[0].lineno, -1);
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

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test_setup_teardown(thread_in_java, setup, teardown),
    cmocka_unit_test_setup_teardown(thread_in_the_vm, setup, teardown),
    cmocka_unit_test_setup_teardown(leaf_stub_is_kept_beyond_depth, setup, teardown),
    cmocka_unit_test_setup_teardown(exception_dispatch_at_an_aligned_leaf_call, setup, teardown),
    cmocka_unit_test_setup_teardown(caller_without_a_record_is_handed_on, setup, teardown),
    cmocka_unit_test_setup_teardown(adapters_between_interpreted_and_compiled_code, setup, teardown),
    cmocka_unit_test_setup_teardown(java_caller_needs_its_call_record, setup, teardown),
    cmocka_unit_test_setup_teardown(recursion_returns_to_the_same_pc, setup, teardown),
    cmocka_unit_test_setup_teardown(frames_from_the_pc_cache, setup, teardown),
    cmocka_unit_test_setup_teardown(pushed_registers_in_the_top_frame, setup, teardown),
    cmocka_unit_test_setup_teardown(method_handle_intrinsic_without_a_frame, setup, teardown),
    cmocka_unit_test_setup_teardown(stub_entered_after_a_move, setup, teardown),
    cmocka_unit_test_setup_teardown(realigned_stub_keeps_its_caller, setup, teardown),
    cmocka_unit_test_setup_teardown(unreadable_frames_fail, setup, teardown),
    cmocka_unit_test_setup_teardown(c2i_tail_keeps_its_caller_in_registers, setup, teardown),
    cmocka_unit_test_setup_teardown(leaf_stub_found_by_its_call, setup, teardown),
    cmocka_unit_test_setup_teardown(interpreted_frame_being_built, setup, teardown),
    cmocka_unit_test_setup_teardown(exception_blob_entered_with_rdx, setup, teardown),
  };
  return cmocka_run_group_tests_name("vm_walker", tests, NULL, NULL);
}
