/* The VM walker's fixture for its unit tests: a stack laid out as HotSpot
 * lays out x86-64 frames: a compiled method with an inlined callee, called
 * from an interpreted method, called from the call stub; stubs and adapters
 * in the code map; a thread in Java or in the VM. Included by
 * test_vm_walker.c (Java frames) and test_vm_walker_stubs.c (stubs,
 * adapters, exception dispatch), each its own program. */
#ifndef VM_WALKER_FIXTURE_H
#define VM_WALKER_FIXTURE_H

#include "unit.h"

#include <jvmti.h>
#include <jvmticmlr.h>
#include <string.h>

#include "walk/pc_cache.h"
#include "hotspot/method_map.h"
#include "hotspot/vm_offsets.h"
#include "walk/vm_walker.h"

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
static uintptr_t fake_method[4];   /* a Method: its ConstMethod* at 8 (the bytecodes follow a ConstMethod of 0 bytes) */
#define INTERPRETED_METHOD ((uintptr_t)fake_method)
#define ID(i) ((jmethodID)(uintptr_t)(0x100 * (i)))
#define COMPILED (code + 1024)
#define TOP_PC ((uintptr_t)(COMPILED + 200))
#define CALL_RET ((uintptr_t)(COMPILED + 300))   /* a call's return address in the compiled method */
#define SUBTYPE_STUB 3900
#define EXCEPTION_BLOB 3950
#define REALIGNED_STUB 4096
#define ENTRY_BARRIER 4400

static inline uintptr_t at(int word) { return (uintptr_t)&stack[word]; }

/* The compiled method at COMPILED, as method, with its debug records: just
 * after TOP_PC, inlinee (id 3, bci 5) in the method (bci 7); at CALL_RET, a
 * call's return address, the same frames at bcis 9 and 11; deoptimization
 * handlers where deopt says (NULL: none known). */
static inline void add_compiled_deopt(jmethodID method, const struct fg_deopt_sites *deopt)
{
  static jmethodID frames_methods[2];
  static jint top_bcis[] = {5, 7}, call_bcis[] = {9, 11};
  static PCStackInfo pc[2];
  frames_methods[0] = ID(3);
  frames_methods[1] = method;
  pc[0] = (PCStackInfo){(void *)(TOP_PC + 3), 2, frames_methods, top_bcis};
  pc[1] = (PCStackInfo){(void *)CALL_RET, 2, frames_methods, call_bcis};
  static jvmtiCompiledMethodLoadInlineRecord rec;
  rec.header = (jvmtiCompiledMethodLoadRecordHeader){JVMTI_CMLR_INLINE_INFO, JVMTI_CMLR_MAJOR_VERSION,
                                                     JVMTI_CMLR_MINOR_VERSION, NULL};
  rec.numpcs = 2;
  rec.pcinfo = pc;
  fg_code_map_add_method(&map, method, COMPILED, 1024, &rec, deopt, NULL);   /* copies the records */
}

static inline void add_compiled(jmethodID method)
{
  add_compiled_deopt(method, NULL);
}

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
  fg_code_map_add_method(&map, ID(4), code + 3700, sizeof mh, NULL, NULL, NULL);
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
  /* the nmethod entry barrier: push -1 (a cookie); push rbp; mov rbp, rsp; ... at 40: leave;
   * add rsp, 8; ret */
  static const uint8_t barrier[] = {0x68, 0xff, 0xff, 0xff, 0xff, 0x55, 0x48, 0x8b, 0xec};
  static const uint8_t barrier_exit[] = {0xc9, 0x48, 0x83, 0xc4, 0x08, 0xc3};
  memcpy(code + ENTRY_BARRIER, barrier, sizeof barrier);
  memcpy(code + ENTRY_BARRIER + 40, barrier_exit, sizeof barrier_exit);
  fg_code_map_add_stub(&map, "method_entry_barrier", code + ENTRY_BARRIER, 64);
  fg_code_map_set_bounds(&map, (uintptr_t)code, (uintptr_t)(code + sizeof code));   /* [3400, 3700): no record */
  static const uint8_t add_rsp_8[] = {0x48, 0x83, 0xc4, 0x08};
  memcpy(code + 3072 + 20, add_rsp_8, sizeof add_rsp_8);
  add_compiled(ID(2));
  fg_method_map_init(&methods);
  fg_method_map_put(&methods, INTERPRETED_METHOD, ID(1), (uintptr_t)bytecodes, sizeof bytecodes);
  vm = (struct fg_vm_offsets){.known = 1, .env_to_state = 16, .env_to_anchor = 64, .anchor_sp = 0,
                              .anchor_pc = 8, .anchor_fp = 16, .wrapper_anchor = 0,
                              .call_stub_return = (uintptr_t)(code + 2100), .in_java = IN_JAVA,
                              .const_method = 8, .const_method_bytes = 0};
  fake_method[1] = (uintptr_t)bytecodes;
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
static inline int walk_room(const struct fg_regs *java, int top, int room, ASGCT_CallFrame *f, uint8_t *types, int *stubs,
                     struct fg_regs *unknown)
{
  struct fg_bounds b = {(uintptr_t)stack, (uintptr_t)(stack + 512), 0, 0};
  int copy_end;
  return fg_vm_walk(&walker, thread, java, top ? &scratch : NULL, b, NULL, f, types, room, stubs, unknown, &copy_end);
}

/* A whole walk: no caller handed on, the leaf stub counted when there is one. */
static inline int walk(const struct fg_regs *java, int top, ASGCT_CallFrame *f, uint8_t *types)
{
  int stubs;
  struct fg_regs unknown;
  int n = walk_room(java, top, 15, f, types, &stubs, &unknown);
  assert_int_equal(unknown.pc, 0);
  assert_int_equal(stubs, n > 0 && types[0] == FG_FRAME_STUB);
  return n;
}

#endif
