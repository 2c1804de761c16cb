/* A compiled method's deoptimization sites read from its nmethod, as JDK 17
 * lays it out (the handlers and the code's start as addresses) and as JDK
 * 25 does (offsets from the nmethod), on a fake nmethod; and what
 * is refused: a blob that does not hold the code asked about, no blob, a
 * handler outside the code (a native wrapper's). */
#include "unit.h"

#include <string.h>

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
    cmocka_unit_test(outside_a_jvm_says_why),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
