/* Frame layouts of compiled methods, read from entry and exit code in the
 * encodings HotSpot's x86-64 assemblers emit (C1, C2; JDK 17 and 25). */
#include "unit.h"

#include <string.h>

#include "walk/x86/frame_layout.h"

/* C2 with a stack bang: inline-cache check (compressed class pointers),
 * alignment nop, bang, push rbp, sub rsp, 0x30. */
static const uint8_t c2_bang[] = {
  0x44, 0x8b, 0x56, 0x08,                   /* mov r10d, [rsi + 8] */
  0x49, 0xc1, 0xe2, 0x03,                   /* shl r10, 3 */
  0x4c, 0x3b, 0xd0,                         /* cmp r10, rax */
  0x0f, 0x85, 0x00, 0x00, 0x00, 0x00,       /* jne ic_miss */
  0x66, 0x90,                               /* nop */
  0x89, 0x84, 0x24, 0x00, 0xc0, 0xfe, 0xff, /* mov [rsp - 0x14000], eax */
  0x55,                                     /* push rbp */
  0x48, 0x83, 0xec, 0x30,                   /* sub rsp, 0x30 */
  0x90,                                     /* body */
};

static void c2_frame_with_bang(void **state)
{
  (void)state;
  struct fg_frame_layout l;
  assert_int_equal(fg_frame_layout_of(c2_bang, sizeof c2_bang, &l), 0);
  assert_int_equal(l.frame_bytes, 0x30 + 16);
  assert_int_equal(l.build, 26);
  assert_int_equal(l.sub, 27);
  assert_int_equal(l.complete, 31);
  assert_true(l.pushes_rbp);
  /* at the check and the bang only the return address is on the stack */
  assert_int_equal(fg_frame_state_at(&l, 0), FG_FRAME_NOT_BUILT);
  assert_int_equal(fg_frame_state_at(&l, 19), FG_FRAME_NOT_BUILT);
  assert_int_equal(fg_frame_state_at(&l, 26), FG_FRAME_NOT_BUILT);   /* at push rbp */
  assert_int_equal(fg_frame_state_at(&l, 27), FG_FRAME_RBP_PUSHED);  /* at sub */
  assert_int_equal(fg_frame_state_at(&l, 31), FG_FRAME_COMPLETE);
  assert_int_equal(fg_frame_state_at(&l, 400), FG_FRAME_COMPLETE);
}

/* C1 (JDK 17): the check jumps over a jmp to the miss handler, then the
 * bang and push rbp; mov rbp, rsp (the mov's other encoding). */
static void c1_frame(void **state)
{
  (void)state;
  static const uint8_t code[] = {
    0x44, 0x8b, 0x56, 0x08,                         /* mov r10d, [rsi + 8] */
    0x49, 0xbb, 0, 0, 0, 0x13, 0xe8, 0x7f, 0, 0,    /* movabs r11, class base */
    0x4d, 0x03, 0xd3,                               /* add r10, r11 */
    0x49, 0x3b, 0xc2,                               /* cmp rax, r10 */
    0x0f, 0x84, 0x06, 0x00, 0x00, 0x00,             /* je verified entry */
    0xe9, 0xa1, 0x1f, 0xac, 0xff,                   /* jmp ic_miss */
    0x90,                                           /* nop */
    0x89, 0x84, 0x24, 0x00, 0xc0, 0xfe, 0xff,       /* bang */
    0x55, 0x48, 0x8b, 0xec,                         /* push rbp; mov rbp, rsp */
    0x48, 0x83, 0xec, 0x40,                         /* sub rsp, 0x40 */
  };
  struct fg_frame_layout l;
  assert_int_equal(fg_frame_layout_of(code, sizeof code, &l), 0);
  assert_int_equal(l.frame_bytes, 0x40 + 16);
  assert_int_equal(l.build, 39);
  assert_int_equal(l.complete, 47);
}

/* -XX:+PreserveFramePointer: push rbp; mov rbp, rsp; sub rsp, imm32. */
static void frame_pointer_kept(void **state)
{
  (void)state;
  static const uint8_t code[] = {0x55, 0x48, 0x89, 0xe5, 0x48, 0x81, 0xec, 0x20, 0x01, 0x00, 0x00, 0x90};
  struct fg_frame_layout l;
  assert_int_equal(fg_frame_layout_of(code, sizeof code, &l), 0);
  assert_int_equal(l.frame_bytes, 0x120 + 16);
  assert_int_equal(l.sub, 4);
  assert_int_equal(l.complete, 11);
  assert_int_equal(fg_frame_state_at(&l, 1), FG_FRAME_RBP_PUSHED);
  assert_int_equal(fg_frame_state_at(&l, 4), FG_FRAME_RBP_PUSHED);
}

/* C2 without a bang: sub rsp, N; mov [rsp + N - 8], rbp. Between the two
 * the frame is allocated but rbp still holds the caller's. */
static void c2_frame_without_bang(void **state)
{
  (void)state;
  static const uint8_t code[] = {0x48, 0x81, 0xec, 0x18, 0x00, 0x00, 0x00,   /* sub rsp, 0x18 */
                                 0x48, 0x89, 0x6c, 0x24, 0x10,               /* mov [rsp + 0x10], rbp */
                                 0x90};
  struct fg_frame_layout l;
  assert_int_equal(fg_frame_layout_of(code, sizeof code, &l), 0);
  assert_int_equal(l.frame_bytes, 0x18 + 8);
  assert_false(l.pushes_rbp);
  assert_int_equal(fg_frame_state_at(&l, 0), FG_FRAME_NOT_BUILT);
  assert_int_equal(fg_frame_state_at(&l, 7), FG_FRAME_ALLOCATED);
  assert_int_equal(fg_frame_state_at(&l, 12), FG_FRAME_COMPLETE);
}

/* C2's runtime stubs (_new_array_Java): sub rsp, 8; mov [rsp], rbp; then
 * the frame anchor and the call into the VM. */
static void c2_runtime_stub_frame(void **state)
{
  (void)state;
  static const uint8_t code[] = {0x48, 0x81, 0xec, 0x08, 0x00, 0x00, 0x00,         /* sub rsp, 8 */
                                 0x48, 0x89, 0x2c, 0x24,                           /* mov [rsp], rbp */
                                 0x49, 0x89, 0xa7, 0x90, 0x02, 0x00, 0x00};        /* mov [r15 + 0x290], rsp */
  struct fg_frame_layout l;
  assert_int_equal(fg_frame_layout_of(code, sizeof code, &l), 0);
  assert_int_equal(l.frame_bytes, 16);
  assert_int_equal(l.complete, 11);
  assert_int_equal(fg_frame_state_at(&l, 7), FG_FRAME_ALLOCATED);
  assert_int_equal(fg_frame_state_at(&l, 11), FG_FRAME_COMPLETE);
}

/* JDK 25: an entry patched with a call (not entrant) before the bang; the
 * frame below it is laid out as before. */
static void patched_entry(void **state)
{
  (void)state;
  static const uint8_t code[] = {0xe8, 0xcb, 0x75, 0x1b, 0x18,                         /* call */
                                 0x66, 0x66, 0x66, 0x0f, 0x1f, 0x84, 0, 0, 0, 0, 0,    /* nop */
                                 0x89, 0x84, 0x24, 0x00, 0xc0, 0xfe, 0xff,             /* bang */
                                 0x55, 0x48, 0x83, 0xec, 0x50};                        /* push rbp; sub rsp, 0x50 */
  struct fg_frame_layout l;
  assert_int_equal(fg_frame_layout_of(code, sizeof code, &l), 0);
  assert_int_equal(l.frame_bytes, 0x50 + 16);
  assert_int_equal(l.build, 23);
}

/* A native method's wrapper keeps rbp as its frame pointer and has no
 * fixed-size frame: found through rbp once the mov is done. */
static void native_wrapper_is_rbp_based(void **state)
{
  (void)state;
  static const uint8_t code[] = {0x55, 0x48, 0x8b, 0xec,                       /* push rbp; mov rbp, rsp */
                                 0x0f, 0x1f, 0x84, 0x00, 0xfc, 0, 0, 0,       /* nop */
                                 0xc5, 0xf8, 0x77};                           /* vzeroupper */
  struct fg_frame_layout l;
  assert_int_equal(fg_frame_layout_of(code, sizeof code, &l), 0);
  assert_true(l.rbp_based);
  assert_int_equal(l.frame_bytes, 0);
  assert_int_equal(fg_frame_state_at(&l, 0), FG_FRAME_NOT_BUILT);
  assert_int_equal(fg_frame_state_at(&l, 1), FG_FRAME_RBP_PUSHED);
  assert_int_equal(fg_frame_state_at(&l, 4), FG_FRAME_COMPLETE);
}

/* C2's ExceptionBlob pushes the exception pc as its return address, then
 * lays its frame out as a runtime stub does. */
static void exception_blob_pushes_its_return_address(void **state)
{
  (void)state;
  static const uint8_t code[] = {0x52,                          /* push rdx */
                                 0x48, 0x83, 0xec, 0x08,        /* sub rsp, 8 */
                                 0x48, 0x89, 0x2c, 0x24,        /* mov [rsp], rbp */
                                 0x49, 0x89, 0x87, 0xd0, 0x03, 0x00, 0x00};
  struct fg_frame_layout l;
  assert_int_equal(fg_frame_layout_of(code, sizeof code, &l), 0);
  assert_true(l.pushes_return);
  assert_int_equal(l.frame_bytes, 16);
  assert_int_equal(l.complete, 9);
  assert_int_equal(fg_frame_state_at(&l, 1), FG_FRAME_NOT_BUILT);   /* only the pushed pc */
  assert_int_equal(fg_frame_state_at(&l, 9), FG_FRAME_COMPLETE);
}

/* Code that is not a frame HotSpot builds is not guessed at. */
static void unknown_entry_code_has_no_layout(void **state)
{
  (void)state;
  struct fg_frame_layout l;
  static const uint8_t no_store[] = {0x48, 0x81, 0xec, 0x18, 0, 0, 0, 0x90, 0x90, 0x90, 0x90, 0x90};
  assert_int_equal(fg_frame_layout_of(no_store, sizeof no_store, &l), -1);
  assert_int_equal(l.frame_bytes, 0);
  static const uint8_t nops[] = {0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90};
  assert_int_equal(fg_frame_layout_of(nops, sizeof nops, &l), -1);
  static const uint8_t call_rax[] = {0xff, 0xd0, 0x55, 0x48, 0x83, 0xec, 0x30};
  assert_int_equal(fg_frame_layout_of(call_rax, sizeof call_rax, &l), -1);
  static const uint8_t push_only[] = {0x55, 0x90, 0x90, 0x90};   /* push rbp and no frame pointer */
  assert_int_equal(fg_frame_layout_of(push_only, sizeof push_only, &l), -1);
  assert_false(l.rbp_based);
  static const uint8_t odd_size[] = {0x55, 0x48, 0x83, 0xec, 0x31};   /* not a multiple of 8 */
  assert_int_equal(fg_frame_layout_of(odd_size, sizeof odd_size, &l), -1);
  static const uint8_t cut[] = {0x55, 0x48, 0x83};   /* the sub does not fit */
  assert_int_equal(fg_frame_layout_of(cut, sizeof cut, &l), -1);
}

/* The epilogue: add rsp, 0x30; pop rbp; the return poll (cmp rsp, [r15 +
 * d32]; ja stub); ret. Then the poll stub: movabs r10, pc; mov [r15 + d32],
 * r10; jmp SafepointBlob. */
static const uint8_t epilogue[] = {
  0x48, 0x83, 0xc4, 0x30,                   /*  0 add rsp, 0x30 */
  0x5d,                                     /*  4 pop rbp */
  0x49, 0x3b, 0xa7, 0x48, 0x03, 0x00, 0x00, /*  5 cmp rsp, [r15 + 0x348] */
  0x0f, 0x87, 0x10, 0x00, 0x00, 0x00,       /* 12 ja stub */
  0xc3,                                     /* 18 ret */
  0x49, 0xba, 1, 2, 3, 4, 5, 6, 7, 8,       /* 19 movabs r10, pc */
  0x4d, 0x89, 0x97, 0x60, 0x03, 0x00, 0x00, /* 29 mov [r15 + 0x360], r10 */
  0xe9, 0x00, 0x00, 0x00, 0x00,             /* 36 jmp */
};

static void epilogue_after_pop_rbp(void **state)
{
  (void)state;
  size_t len = sizeof epilogue;
  assert_false(fg_frame_is_popped(epilogue, len, 0));   /* add rsp: the frame is still there */
  assert_false(fg_frame_is_popped(epilogue, len, 4));   /* pop rbp: rbp still on the stack */
  assert_true(fg_frame_is_popped(epilogue, len, 5));    /* the poll */
  assert_true(fg_frame_is_popped(epilogue, len, 12));   /* ja */
  assert_true(fg_frame_is_popped(epilogue, len, 18));   /* ret */
  assert_true(fg_frame_is_popped(epilogue, len, 19));   /* the poll stub */
  assert_true(fg_frame_is_popped(epilogue, len, 29));
  assert_true(fg_frame_is_popped(epilogue, len, 36));
  assert_false(fg_frame_is_popped(epilogue, len, len));  /* past the code */
}

/* The short forms: cmp rsp, [r15 + d8]; ja rel8; ret, and C1's unwind
 * (pop rbp; jmp). A jmp elsewhere in a body is not an epilogue. */
static void short_epilogues(void **state)
{
  (void)state;
  static const uint8_t code[] = {0x5d, 0x49, 0x3b, 0x67, 0x20, 0x77, 0x05, 0xc3,   /* 0 pop; 1 cmp; 5 ja; 7 ret */
                                 0x5d, 0xe9, 0, 0, 0, 0,                           /* 8 pop; 9 jmp */
                                 0x90, 0xe9, 0, 0, 0, 0};                          /* 14 nop; 15 jmp */
  assert_true(fg_frame_is_popped(code, sizeof code, 1));
  assert_true(fg_frame_is_popped(code, sizeof code, 5));
  assert_true(fg_frame_is_popped(code, sizeof code, 9));
  assert_false(fg_frame_is_popped(code, sizeof code, 15));
  assert_false(fg_frame_is_popped(code, sizeof code, 14));
}

/* A c2i adapter's checks (JDK 25's bytes) leave rsp alone up to its pop of
 * the return address; from there, or from inside an instruction, no. */
static void checks_that_keep_rsp(void **state)
{
  (void)state;
  static const uint8_t c2i[] = {
    0x44, 0x8b, 0x56, 0x08,                         /*  0 mov r10d, [rsi + 8] */
    0x44, 0x3b, 0x50, 0x08,                         /*  4 cmp r10d, [rax + 8] */
    0x0f, 0x85, 0x3d, 0x70, 0xff, 0xff,             /*  8 jne ic_miss */
    0x48, 0x8b, 0x18,                               /* 14 mov rbx, [rax] */
    0x48, 0x83, 0x7b, 0x48, 0x00,                   /* 17 cmp qword [rbx + 0x48], 0 */
    0x0f, 0x84, 0x37, 0x04, 0x00, 0x00,             /* 22 je */
    0x44, 0x0f, 0xb7, 0x53, 0x2c,                   /* 28 movzx r10d, word [rbx + 0x2c] */
    0x41, 0xf6, 0xc2, 0x08,                         /* 33 test r10b, 8 */
    0x4d, 0x3b, 0xba, 0x38, 0x01, 0x00, 0x00,       /* 37 cmp r15, [r10 + 0x138] */
    0x41, 0x80, 0x7f, 0x48, 0x00,                   /* 44 cmp byte [r15 + 0x48], 0 */
    0x58,                                           /* 49 pop rax */
    0x4c, 0x8b, 0xec,                               /* 50 mov r13, rsp */
  };
  assert_true(fg_code_keeps_rsp(c2i, sizeof c2i, 0, 0));
  assert_true(fg_code_keeps_rsp(c2i, sizeof c2i, 0, 22));
  assert_true(fg_code_keeps_rsp(c2i, sizeof c2i, 0, 49));
  assert_false(fg_code_keeps_rsp(c2i, sizeof c2i, 0, 50));   /* after pop rax */
  assert_false(fg_code_keeps_rsp(c2i, sizeof c2i, 0, 16));   /* inside mov rbx, [rax] */
  /* a method-handle intrinsic: mov ebx, [rsi + 0x14]; shl rbx, 3; jmp [rbx + 0x40] */
  static const uint8_t mh[] = {0x8b, 0x5e, 0x14, 0x48, 0xc1, 0xe3, 0x03, 0xff, 0x63, 0x40};
  assert_true(fg_code_keeps_rsp(mh, sizeof mh, 0, 7));
  assert_true(fg_code_keeps_rsp(mh, sizeof mh, 0, 10));
  static const uint8_t call_rax[] = {0xff, 0xd0};   /* call rax pushes */
  assert_false(fg_code_keeps_rsp(call_rax, sizeof call_rax, 0, 2));
  static const uint8_t moves_rsp[] = {0x48, 0x8b, 0xe5,       /* mov rsp, rbp */
                                      0x48, 0x83, 0xec, 0x08, /* sub rsp, 8 */
                                      0x48, 0x8d, 0x64, 0x24, 0x08};   /* lea rsp, [rsp + 8] */
  assert_false(fg_code_keeps_rsp(moves_rsp, sizeof moves_rsp, 0, 3));
  assert_false(fg_code_keeps_rsp(moves_rsp, sizeof moves_rsp, 3, 7));
  assert_false(fg_code_keeps_rsp(moves_rsp, sizeof moves_rsp, 7, 12));
}

/* JDK 17's c2i adapter (bytes from a run): the unverified entry decodes the
 * receiver's compressed class (add rbx, r10) and the verified one tests the
 * class's init state (test r10d, imm32) before the call-site patching moves
 * rsp (and rsp, -16); after pop rax; mov r13, rsp its last part begins. */
static void jdk17_c2i_checks_and_tail(void **state)
{
  (void)state;
  static const uint8_t c2i[] = {
    0x8b, 0x5e, 0x08,                               /*  0 mov ebx, [rsi + 8] */
    0x49, 0xba, 0, 0, 0, 0xab, 0x0f, 0x7f, 0, 0,    /*  3 movabs r10, base */
    0x49, 0x03, 0xda,                               /* 13 add rbx, r10 */
    0x48, 0x3b, 0x58, 0x08,                         /* 16 cmp rbx, [rax + 8] */
    0x48, 0x8b, 0x18,                               /* 20 mov rbx, [rax] */
    0x0f, 0x84, 0x05, 0, 0, 0,                      /* 23 je verified */
    0xe9, 0x36, 0xa2, 0xff, 0xff,                   /* 29 jmp ic_miss */
    0x44, 0x8b, 0x53, 0x28,                         /* 34 verified: mov r10d, [rbx + 0x28] */
    0x41, 0xf7, 0xc2, 0x08, 0, 0, 0,                /* 38 test r10d, 8 */
    0x0f, 0x84, 0x2c, 0, 0, 0,                      /* 45 je */
    0x41, 0x80, 0xba, 0x3b, 0x01, 0, 0, 0x04,       /* 51 cmp byte [r10 + 0x13b], 4 */
    0x48, 0x81, 0x7b, 0x48, 0, 0, 0, 0,             /* 59 cmp qword [rbx + 0x48], 0 */
    0x4c, 0x8b, 0xec,                               /* 67 mov r13, rsp */
    0x48, 0x8b, 0x04, 0x24,                         /* 70 mov rax, [rsp] */
    0x48, 0x83, 0xe4, 0xf0,                         /* 74 and rsp, -16 */
    0x9c,                                           /* 78 pushf */
    0x58,                                           /* 79 pop rax (skip_fixup) */
    0x4c, 0x8b, 0xec,                               /* 80 mov r13, rsp */
    0x48, 0x83, 0xec, 0x10,                         /* 83 sub rsp, 16 */
  };
  assert_true(fg_code_keeps_rsp(c2i, sizeof c2i, 0, 34));
  assert_true(fg_code_keeps_rsp(c2i, sizeof c2i, 0, 45));
  assert_true(fg_code_keeps_rsp(c2i, sizeof c2i, 0, 74));
  assert_false(fg_code_keeps_rsp(c2i, sizeof c2i, 0, 78));   /* after and rsp, -16 */
  assert_int_equal(fg_c2i_tail(c2i, sizeof c2i, 0), 83);
  /* JDK 25's: lea r13, [rsp + 8]; pop rax; its last part begins at the pop */
  static const uint8_t jdk25[] = {0x49, 0x8b, 0xe5, 0x4c, 0x8d, 0x6c, 0x24, 0x08, 0x58, 0x48, 0x83, 0xec, 0x20};
  assert_int_equal(fg_c2i_tail(jdk25, sizeof jdk25, 0), 8);
  assert_int_equal(fg_c2i_tail(c2i, 79, 0), 0);   /* none */
  /* arithmetic on rsp itself moves it */
  static const uint8_t add_rsp[] = {0x48, 0x03, 0xe0};   /* add rsp, rax */
  assert_false(fg_code_keeps_rsp(add_rsp, sizeof add_rsp, 0, 3));
  static const uint8_t mov_rsp_imm[] = {0x48, 0xc7, 0xc4, 0, 0, 0, 0};   /* mov rsp, 0 */
  assert_false(fg_code_keeps_rsp(mov_rsp_imm, sizeof mov_rsp_imm, 0, 7));
}

/* SHA-256 on AVX2 (JDK 17 and 25, from PrintStubCode on a CPU without the
 * SHA extensions): after enter, sub rsp, 0x20 and eight pushes it keeps rsp
 * in rax, realigns rsp and stores rax at [rsp + 0x218]; rbp then holds its
 * table. Its exit reloads rsp from that slot. */
static void sha256_realigns_and_keeps_rsp(void **state)
{
  (void)state;
  static uint8_t code[200];
  static const uint8_t entry[] = {
    0x55, 0x48, 0x8b, 0xec,                         /*  0 push rbp; mov rbp, rsp */
    0x48, 0x83, 0xec, 0x20,                         /*  4 sub rsp, 0x20 */
    0x51, 0x52, 0x53, 0x55,                         /*  8 push rcx, rdx, rbx, rbp */
    0x41, 0x54, 0x41, 0x55, 0x41, 0x56, 0x41, 0x57, /* 12 push r12 .. r15 */
    0x48, 0x8b, 0xc4,                               /* 20 mov rax, rsp */
    0x48, 0x81, 0xec, 0x20, 0x02, 0x00, 0x00,       /* 23 sub rsp, 0x220 */
    0x48, 0x83, 0xe4, 0xe0,                         /* 30 and rsp, -32 */
    0x48, 0x89, 0x84, 0x24, 0x18, 0x02, 0x00, 0x00, /* 34 mov [rsp + 0x218], rax */
    0x48, 0xbd, 0, 0x75, 0x14, 0xe7, 0x8c, 0x7f, 0, 0,   /* 42 movabs rbp, table */
  };
  static const uint8_t exit[] = {
    0x48, 0x8b, 0xa4, 0x24, 0x18, 0x02, 0x00, 0x00, /* mov rsp, [rsp + 0x218] */
    0x41, 0x5f, 0x41, 0x5e, 0x41, 0x5d, 0x41, 0x5c, 0x5d, 0x5b, 0x5a, 0x59,   /* pops */
    0x48, 0x83, 0xc4, 0x20, 0xc9, 0xc3,             /* add rsp, 0x20; leave; ret */
  };
  memset(code, 0x90, sizeof code);
  memcpy(code, entry, sizeof entry);
  memcpy(code + 150, exit, sizeof exit);
  assert_int_equal(fg_stub_enter_at(code, sizeof code), 0);
  struct fg_realigned_frame f;
  assert_int_equal(fg_realigned_frame_of(code, sizeof code, 0, &f), 0);
  assert_int_equal(f.from, 42);
  assert_int_equal(f.to, 150);
  assert_int_equal(f.saved_at, 0x218);
  assert_int_equal(f.fp_above, 0x20 + 8 * 8);
  /* after the reload: pop r15 .. r12 (two bytes each), then pop rbp, which ends the range */
  assert_int_equal(f.exit_from, 158);
  assert_int_equal(f.exit_pops, 5);
  assert_int_equal(f.exit_wide, 0x0f);
  static const int pops_done[] = {-1, 0, -1, 1, -1, 2, -1, 3, -1, 4, -1};   /* offsets 157 .. 167 */
  for (int i = 0; i < 11; i++)
    assert_int_equal(fg_realigned_pops_done(&f, 157 + (size_t)i), pops_done[i]);
  /* without the reload there is no end to the body: not such a stub */
  assert_int_equal(fg_realigned_frame_of(code, 150, 0, &f), -1);
  assert_int_equal(f.to, 0);
  /* a slot outside what sub rsp reserved is no saved rsp */
  code[37] = 0x20;   /* mov [rsp + 0x220], rax */
  assert_int_equal(fg_realigned_frame_of(code, sizeof code, 0, &f), -1);
  code[37] = 0x18;
  /* the store from another register than the copy */
  code[36] = 0x9c;   /* mov [rsp + 0x218], rbx */
  assert_int_equal(fg_realigned_frame_of(code, sizeof code, 0, &f), -1);
}

/* SHA-512 on AVX2: two pushes, no sub before them, the kept rsp at
 * [rsp + 0x38] (a disp8), rbp stored into the frame rather than pushed. An
 * ordinary stub (enter, then its work) is not realigned. */
static void sha512_realigns_and_keeps_rsp(void **state)
{
  (void)state;
  static const uint8_t code[] = {
    0x55, 0x48, 0x8b, 0xec,                         /*  0 push rbp; mov rbp, rsp */
    0x52, 0x51,                                     /*  4 push rdx; push rcx */
    0x48, 0x8b, 0xc4,                               /*  6 mov rax, rsp */
    0x48, 0x83, 0xec, 0x70,                         /*  9 sub rsp, 0x70 */
    0x48, 0x83, 0xe4, 0xe0,                         /* 13 and rsp, -32 */
    0x48, 0x89, 0x44, 0x24, 0x38,                   /* 17 mov [rsp + 0x38], rax */
    0x48, 0x89, 0x6c, 0x24, 0x40,                   /* 22 mov [rsp + 0x40], rbp */
    0x90, 0x90,                                     /* 27 body */
    0x48, 0x8b, 0x6c, 0x24, 0x40,                   /* 29 mov rbp, [rsp + 0x40] */
    0x48, 0x8b, 0x64, 0x24, 0x38,                   /* 34 mov rsp, [rsp + 0x38] */
    0x59, 0x5a, 0xc9, 0xc3,                         /* 39 pop rcx; pop rdx; leave; ret */
  };
  struct fg_realigned_frame f;
  assert_int_equal(fg_realigned_frame_of(code, sizeof code, 0, &f), 0);
  assert_int_equal(f.from, 22);
  assert_int_equal(f.to, 34);
  assert_int_equal(f.saved_at, 0x38);
  assert_int_equal(f.fp_above, 16);
  assert_int_equal(f.exit_from, 39);   /* pop rcx; pop rdx: no pop rbp, the pops end at leave */
  assert_int_equal(f.exit_pops, 2);
  assert_int_equal(fg_realigned_pops_done(&f, 40), 1);
  static const uint8_t fill[] = {0x55, 0x48, 0x8b, 0xec, 0x48, 0x8b, 0xc7, 0x90, 0xc9, 0xc3};
  assert_int_equal(fg_realigned_frame_of(fill, sizeof fill, 0, &f), -1);
  assert_int_equal(f.to, 0);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(c2_frame_with_bang),
    cmocka_unit_test(c1_frame),
    cmocka_unit_test(frame_pointer_kept),
    cmocka_unit_test(c2_frame_without_bang),
    cmocka_unit_test(c2_runtime_stub_frame),
    cmocka_unit_test(patched_entry),
    cmocka_unit_test(native_wrapper_is_rbp_based),
    cmocka_unit_test(exception_blob_pushes_its_return_address),
    cmocka_unit_test(unknown_entry_code_has_no_layout),
    cmocka_unit_test(checks_that_keep_rsp),
    cmocka_unit_test(jdk17_c2i_checks_and_tail),
    cmocka_unit_test(epilogue_after_pop_rbp),
    cmocka_unit_test(short_epilogues),
    cmocka_unit_test(sha256_realigns_and_keeps_rsp),
    cmocka_unit_test(sha512_realigns_and_keeps_rsp),
  };
  return cmocka_run_group_tests_name("frame_layout", tests, NULL, NULL);
}
