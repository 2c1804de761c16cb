/* A compiled method's deoptimization sites read from its nmethod, as JDK 17
 * lays it out (the handlers and the code's start as addresses) and as JDK
 * 25 does (offsets from the nmethod), on a fake nmethod; and what
 * is refused: a blob that does not hold the code asked about, no blob, a
 * handler outside the code (a native wrapper's). */
#include "unit.h"

#include <string.h>

#include "hotspot/osr_entry.h"
#include "hotspot/vm_deopt.h"

static _Alignas(8) uint8_t nmethod[512];
#define CODE (nmethod + 256)
#define CODE_LEN 200
static void *found;

static void *fake_find_blob(void *pc)
{
  return pc == CODE ? found : NULL;
}

static void put_address(long at, const void *p) { memcpy(nmethod + at, &p, sizeof p); }
static void put_int(long at, int32_t v) { memcpy(nmethod + at, &v, sizeof v); }

static const struct fg_vm_deopt jdk17 = {.known = 1, .offsets_known = 1, .find_blob = fake_find_blob, .handler = 128, .mh_handler = 136,
                                         .orig_pc_offset = 200, .code_begin = 32};
static const struct fg_vm_deopt jdk25 = {.known = 1, .offsets_known = 1, .find_blob = fake_find_blob, .handler = 176, .mh_handler = 180,
                                         .handler_is_offset = 1, .orig_pc_offset = 208, .code_begin = 36,
                                         .code_is_offset = 1};

static void addresses_as_jdk17_keeps_them(void **state)
{
  (void)state;
  memset(nmethod, 0, sizeof nmethod);
  found = nmethod;
  put_address(32, CODE);
  put_address(128, CODE + 150);
  put_address(136, CODE + 170);
  put_int(200, 24);
  struct fg_deopt_sites s;
  assert_int_equal(fg_vm_deopt_sites(&jdk17, CODE, CODE_LEN, &s), 0);
  assert_int_equal(s.handler, 150);
  assert_int_equal(s.mh_handler, 170);
  assert_int_equal(s.orig_pc, 24);
  put_address(136, NULL);                    /* no method-handle handler */
  assert_int_equal(fg_vm_deopt_sites(&jdk17, CODE, CODE_LEN, &s), 0);
  assert_int_equal(s.mh_handler, 0);
  assert_int_equal(s.handler, 150);
  put_address(128, nmethod);                 /* a native wrapper's: the nmethod itself, outside the code */
  assert_int_equal(fg_vm_deopt_sites(&jdk17, CODE, CODE_LEN, &s), 0);
  assert_int_equal(s.handler, 0);
  assert_int_equal(s.orig_pc, -1);
}

static void offsets_as_jdk25_keeps_them(void **state)
{
  (void)state;
  memset(nmethod, 0, sizeof nmethod);
  found = nmethod;
  put_int(36, 256);                          /* the code's offset in the blob */
  put_int(176, 256 + 150);
  put_int(180, -1);                          /* none */
  put_int(208, 0);                           /* the slot at the frame's sp itself */
  struct fg_deopt_sites s;
  assert_int_equal(fg_vm_deopt_sites(&jdk25, CODE, CODE_LEN, &s), 0);
  assert_int_equal(s.handler, 150);
  assert_int_equal(s.mh_handler, 0);
  assert_int_equal(s.orig_pc, 0);
  /* the nmethod found in the code heap: the same, without the VM's lookup */
  struct fg_vm_deopt no_lookup = jdk25;
  no_lookup.known = 0;
  no_lookup.find_blob = NULL;
  memset(&s, 0, sizeof s);
  assert_int_equal(fg_vm_deopt_sites_of(&no_lookup, (uintptr_t)nmethod, CODE, CODE_LEN, &s), 0);
  assert_int_equal(s.handler, 150);
  assert_int_equal(s.orig_pc, 0);
  assert_int_equal(fg_vm_deopt_sites_of(&no_lookup, (uintptr_t)nmethod, CODE + 8, CODE_LEN, &s), -1);   /* not its code */
  no_lookup.offsets_known = 0;
  assert_int_equal(fg_vm_deopt_sites_of(&no_lookup, (uintptr_t)nmethod, CODE, CODE_LEN, &s), -1);
  assert_int_equal(s.orig_pc, -1);
}

static void other_blobs_give_none(void **state)
{
  (void)state;
  memset(nmethod, 0, sizeof nmethod);
  put_int(36, 200);                          /* a blob whose code starts elsewhere */
  put_int(176, 256 + 150);
  found = nmethod;
  struct fg_deopt_sites s;
  assert_int_equal(fg_vm_deopt_sites(&jdk25, CODE, CODE_LEN, &s), -1);
  assert_int_equal(s.handler, 0);
  assert_int_equal(s.orig_pc, -1);
  found = NULL;                              /* no blob at all */
  assert_int_equal(fg_vm_deopt_sites(&jdk25, CODE, CODE_LEN, &s), -1);
  struct fg_vm_deopt unknown = jdk25;
  unknown.known = 0;
  found = nmethod;
  put_int(36, 256);
  assert_int_equal(fg_vm_deopt_sites(&unknown, CODE, CODE_LEN, &s), -1);
  assert_int_equal(s.orig_pc, -1);
}

/* An OSR method's entry as C1 (JDK 17) printed it: stack bang, push rbp;
 * sub rsp, 0x50, the locals loaded from the buffer in rsi, then call
 * SharedRuntime::OSR_migration_end (rel32, here aimed at a fake target);
 * and C2's: the locals, mov rdi, rsi; movabs r10, target; call r10. */
static const uint8_t c1_entry[] = {0x89, 0x84, 0x24, 0x00, 0xc0, 0xfe, 0xff, 0x55, 0x48, 0x83, 0xec, 0x50,
                                   0x48, 0x8b, 0x5e, 0x20, 0x48, 0x8b, 0x46, 0x10, 0x48, 0x8b, 0x16, 0x48,
                                   0x8b, 0xfe, 0x48, 0x89, 0x5c, 0x24, 0x38, 0x48, 0x89, 0x44, 0x24, 0x30,
                                   0x48, 0x89, 0x54, 0x24, 0x28};   /* then e8 rel32 at 41 */
static const uint8_t c2_entry[] = {0x4c, 0x8b, 0x76, 0x20, 0x4c, 0x8b, 0x6e, 0x10, 0x48, 0x8b, 0x1e, 0x48,
                                   0x8b, 0xfe};                    /* then 49 ba imm64 41 ff d2 at 14 */

static void rel32_call(uint8_t *at, uintptr_t target)
{
  int32_t rel = (int32_t)(target - ((uintptr_t)at + 5));
  at[0] = 0xe8;
  memcpy(at + 1, &rel, sizeof rel);
}

/* The call is found by its exact target, through either encoding; another
 * call, a target off by one, or a call past the window is none. */
static void osr_call_found_by_its_target(void **state)
{
  (void)state;
  static uint8_t code[2048];
  uintptr_t target = (uintptr_t)code + 1500;   /* within rel32 of the code */
  memset(code, 0x90, sizeof code);
  memcpy(code + 100, c1_entry, sizeof c1_entry);
  rel32_call(code + 100 + sizeof c1_entry, target);
  assert_int_equal(fg_osr_call_return(code, sizeof code, (uintptr_t)code, 100, target), 100 + 41 + 5);
  assert_int_equal(fg_osr_call_return(code, sizeof code, (uintptr_t)code, 100, target + 1), 0);
  assert_int_equal(fg_osr_call_return(code, 100 + 44, (uintptr_t)code, 100, target), 0);   /* cut short */
  memset(code, 0x90, sizeof code);
  memcpy(code + 200, c2_entry, sizeof c2_entry);
  uint8_t *call = code + 200 + sizeof c2_entry;
  call[0] = 0x49;
  call[1] = 0xba;
  uint64_t far = 0x7f00deadbeefull;
  memcpy(call + 2, &far, sizeof far);
  call[10] = 0x41, call[11] = 0xff, call[12] = 0xd2;
  assert_int_equal(fg_osr_call_return(code, sizeof code, (uintptr_t)code, 200, far), 200 + 14 + 13);
  call[12] = 0xd3;                                               /* call r11: not the one */
  assert_int_equal(fg_osr_call_return(code, sizeof code, (uintptr_t)code, 200, far), 0);
  memset(code, 0x90, sizeof code);
  rel32_call(code + 10 + FG_OSR_CALL_WINDOW, target);           /* past the window */
  assert_int_equal(fg_osr_call_return(code, sizeof code, (uintptr_t)code, 10, target), 0);
}

/* An OSR method's entry, its call's return address and its entry bci are
 * read with its deoptimization sites; a method's own compilation
 * (InvocationEntryBci), an entry outside the code or a VM that does not
 * export the fields give none. */
static void osr_entry_read_with_the_sites(void **state)
{
  (void)state;
  memset(nmethod, 0, sizeof nmethod);
  found = nmethod;
  put_address(32, CODE);
  uintptr_t target = (uintptr_t)nmethod + 4;
  memset(CODE, 0x90, CODE_LEN);
  memcpy(CODE + 60, c1_entry, sizeof c1_entry);
  rel32_call(CODE + 60 + sizeof c1_entry, target);
  struct fg_vm_deopt osr = jdk17;
  osr.entry_bci = 220;
  osr.osr_entry = 232;
  osr.migration_end = target;
  put_int(220, 27);
  put_address(232, CODE + 60);
  struct fg_deopt_sites s;
  assert_int_equal(fg_vm_deopt_sites(&osr, CODE, CODE_LEN, &s), 0);
  assert_int_equal(s.osr_entry, 60);
  assert_int_equal(s.osr_return, 60 + 41 + 5);
  assert_int_equal(s.entry_bci, 27);
  put_int(220, -123);                         /* InvocationEntryBci: not an OSR method */
  assert_int_equal(fg_vm_deopt_sites(&osr, CODE, CODE_LEN, &s), 0);
  assert_int_equal(s.osr_return, 0);
  put_int(220, 27);
  put_address(232, CODE + CODE_LEN);          /* outside the code */
  assert_int_equal(fg_vm_deopt_sites(&osr, CODE, CODE_LEN, &s), 0);
  assert_int_equal(s.osr_return, 0);
  put_address(232, CODE + 60);
  osr.osr_entry = -1;                         /* not exported */
  assert_int_equal(fg_vm_deopt_sites(&osr, CODE, CODE_LEN, &s), 0);
  assert_int_equal(s.osr_return, 0);
  assert_int_equal(fg_vm_deopt_sites(&jdk17, CODE, CODE_LEN, &s), 0);   /* no OSR_migration_end known */
  assert_int_equal(s.osr_return, 0);
}

/* Outside a JVM nothing is exported: not known, and why says what. */
static void outside_a_jvm_says_why(void **state)
{
  (void)state;
  struct fg_vm_deopt d;
  assert_int_equal(fg_vm_deopt_read(&d, NULL), -1);
  assert_int_equal(d.known, 0);
  assert_non_null(strstr(d.why, "exports no"));
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(addresses_as_jdk17_keeps_them),
    cmocka_unit_test(offsets_as_jdk25_keeps_them),
    cmocka_unit_test(other_blobs_give_none),
    cmocka_unit_test(osr_call_found_by_its_target),
    cmocka_unit_test(osr_entry_read_with_the_sites),
    cmocka_unit_test(outside_a_jvm_says_why),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
