/* The verify oracle's rules on a hand-made constant pool and method. */
#include "unit.h"

#include <string.h>

#include "verify/call_site.h"

/* 1 Utf8 java/lang/String, 2 Class #1, 3 Utf8 length, 4 Utf8 ()I, 5 NameAndType #3 #4,
 * 6 Methodref #2 #5, 7-8 Long, 9 Utf8 get, 10 NameAndType #9 #4, 11 InvokeDynamic #0 #10 */
static const uint8_t pool[] = {
  1, 0, 16, 'j', 'a', 'v', 'a', '/', 'l', 'a', 'n', 'g', '/', 'S', 't', 'r', 'i', 'n', 'g',
  7, 0, 1,
  1, 0, 6, 'l', 'e', 'n', 'g', 't', 'h',
  1, 0, 3, '(', ')', 'I',
  12, 0, 3, 0, 4,
  10, 0, 2, 0, 5,
  5, 0, 0, 0, 0, 0, 0, 0, 42,
  1, 0, 3, 'g', 'e', 't',
  12, 0, 9, 0, 4,
  18, 0, 0, 0, 10,
};
enum { POOL_COUNT = 12 };

/* aload_0; invokevirtual #6; invokedynamic #11; new #2; ireturn */
static const uint8_t code[] = {0x2a, 0xb6, 0, 6, 0xba, 0, 11, 0, 0, 0xbb, 0, 2, 0xac};

static enum fg_edge_verdict verdict(int bci, const char *callee, const char *cls)
{
  struct fg_cpool cp;
  assert_int_equal(fg_cpool_parse(&cp, pool, sizeof pool, POOL_COUNT), 0);
  struct fg_call_site site;
  assert_int_equal(fg_call_site_at(code, sizeof code, bci, &cp, &site), 0);
  fg_cpool_free(&cp);
  return fg_edge_verdict_of(&site, callee, cls);
}

static void invokes_name_their_target(void **state)
{
  (void)state;
  struct fg_cpool cp;
  assert_int_equal(fg_cpool_parse(&cp, pool, sizeof pool, POOL_COUNT), 0);
  struct fg_call_site site;
  assert_int_equal(fg_call_site_at(code, sizeof code, 1, &cp, &site), 0);
  assert_string_equal(site.target, "length");
  assert_string_equal(site.target_class, "java/lang/String");
  assert_int_equal(fg_call_site_at(code, sizeof code, 4, &cp, &site), 0);
  assert_string_equal(site.target, "get");
  assert_int_equal(fg_call_site_at(code, sizeof code, 13, &cp, &site), -1);   /* past the code */
  assert_int_equal(fg_call_site_at(code, sizeof code, -1, &cp, &site), -1);
  fg_cpool_free(&cp);
}

static void edges_are_judged_by_the_instruction(void **state)
{
  (void)state;
  /* the invoke's target, or an override of it: same name */
  assert_int_equal(verdict(1, "length", "java/lang/String"), FG_EDGE_CALL);
  assert_int_equal(verdict(1, "length", "my/CharSeq"), FG_EDGE_CALL);
  /* another method at an invoke: wrong, unless the VM calls it there */
  assert_int_equal(verdict(1, "hashCode", "java/lang/String"), FG_EDGE_WRONG);
  assert_int_equal(verdict(1, "<clinit>", "my/Holder"), FG_EDGE_VM);
  assert_int_equal(verdict(1, "loadClass", "my/Loader"), FG_EDGE_VM);
  /* generated code between a call and its target */
  assert_int_equal(verdict(1, "get", "my/Main$$Lambda/0x0000000800c01234"), FG_EDGE_DYNAMIC);
  assert_int_equal(verdict(4, "anything", "my/Thing"), FG_EDGE_DYNAMIC);
  /* no invoke: class initialisation, implicit exceptions, nothing else */
  assert_int_equal(verdict(9, "<clinit>", "java/lang/String"), FG_EDGE_VM);
  assert_int_equal(verdict(0, "<init>", "java/lang/NullPointerException"), FG_EDGE_VM);
  assert_int_equal(verdict(0, "fillInStackTrace", "java/lang/Throwable"), FG_EDGE_VM);
  assert_int_equal(verdict(0, "<init>", "java/lang/StackOverflowError"), FG_EDGE_VM);
  /* JFR instruments an event class as it is loaded, from a resolving instruction */
  assert_int_equal(verdict(0, "bytesForEagerInstrumentation", "jdk/jfr/internal/JVMUpcalls"), FG_EDGE_VM);
  assert_int_equal(verdict(9, "length", "java/lang/String"), FG_EDGE_WRONG);
  assert_int_equal(verdict(12, "<init>", "my/Thing"), FG_EDGE_WRONG);
}

static void malformed_pools_are_refused(void **state)
{
  (void)state;
  struct fg_cpool cp;
  uint8_t bad[sizeof pool];
  memcpy(bad, pool, sizeof pool);
  bad[19] = 2;   /* no constant has tag 2 */
  assert_int_equal(fg_cpool_parse(&cp, bad, sizeof bad, POOL_COUNT), -1);
  assert_int_equal(fg_cpool_parse(&cp, pool, sizeof pool - 1, POOL_COUNT), -1);   /* cut short */
  assert_int_equal(fg_cpool_parse(&cp, pool, sizeof pool, 0), -1);
  /* the slot after a long is no entry: an invoke naming it has no target */
  assert_int_equal(fg_cpool_parse(&cp, pool, sizeof pool, POOL_COUNT), 0);
  static const uint8_t to_slot[] = {0xb6, 0, 8};
  struct fg_call_site site;
  assert_int_equal(fg_call_site_at(to_slot, sizeof to_slot, 0, &cp, &site), -1);
  fg_cpool_free(&cp);
}

static void arraycopy_stubs_sit_under_copies(void **state)
{
  (void)state;
  struct fg_call_site copy = {.opcode = 0xb8, .target = "arraycopy", .target_class = "java/lang/System"};
  struct fg_call_site grow = {.opcode = 0xb8, .target = "copyOfRange", .target_class = "java/util/Arrays"};
  struct fg_call_site other = {.opcode = 0xb6, .target = "shift", .target_class = "java/lang/AbstractStringBuilder"};
  assert_int_equal(fg_stub_edge_is_copy(&copy, "jbyte_disjoint_arraycopy"), 1);
  assert_int_equal(fg_stub_edge_is_copy(&grow, "arrayof_jint_disjoint_arraycopy"), 1);
  /* JDK 25's delete -> arraycopy with shift dropped: the caller's instruction is no copy */
  assert_int_equal(fg_stub_edge_is_copy(&other, "jbyte_disjoint_arraycopy"), 0);
  assert_int_equal(fg_stub_edge_is_copy(&other, "updateBytesCRC32"), -1);
}

/* Instruction lengths, the variable ones too: a tableswitch and a
 * lookupswitch padded to a multiple of 4 from the code's start, wide
 * iinc and wide iload; something cut short or no opcode gives 0. */
static void instructions_have_their_lengths(void **state)
{
  (void)state;
  static const uint8_t switches[] = {
    0x03,                                    /* 0 iconst_0 */
    0xaa, 0, 0,                              /* 1 tableswitch, padded to 4 */
    0, 0, 0, 20, 0, 0, 0, 1, 0, 0, 0, 2,     /* default 20, low 1, high 2 */
    0, 0, 0, 20, 0, 0, 0, 20,                /* two offsets */
    0xab,                                    /* 24 lookupswitch, padded to 28 */
    0, 0, 0, 0, 0, 0, 10, 0, 0, 0, 1,        /* default 10, one pair */
    0, 0, 0, 5, 0, 0, 0, 10,
    0xc4, 0x84, 0, 1, 0, 2,                  /* 44 wide iinc */
    0xc4, 0x15, 0, 1,                        /* 50 wide iload */
    0xb9, 0, 6, 1, 0,                        /* 54 invokeinterface */
    0xb1,                                    /* 59 return */
  };
  static const size_t at[] = {0, 1, 24, 44, 50, 54, 59}, len[] = {1, 23, 20, 6, 4, 5, 1};
  for (size_t i = 0; i < sizeof at / sizeof at[0]; i++)
    assert_int_equal(fg_bytecode_length(switches, sizeof switches, at[i]), len[i]);
  assert_int_equal(fg_bytecode_length(switches, 20, 1), 0);      /* the table cut short */
  assert_int_equal(fg_bytecode_length(switches, 56, 54), 0);     /* the invoke cut short */
  static const uint8_t not_op[] = {0xcb};
  assert_int_equal(fg_bytecode_length(not_op, 1, 0), 0);
}

static int collect(const struct fg_call_site *site, void *ctx)
{
  strcat(ctx, site->target);
  strcat(ctx, ";");
  return 0;
}

/* Every invoke of a method's code, in order; invokedynamic has no method of its own. */
static void every_invoke_is_visited(void **state)
{
  (void)state;
  struct fg_cpool cp;
  assert_int_equal(fg_cpool_parse(&cp, pool, sizeof pool, POOL_COUNT), 0);
  static const uint8_t twice[] = {0x2a, 0xb6, 0, 6, 0xba, 0, 11, 0, 0, 0xb8, 0, 6, 0xac};
  char seen[64] = "";
  assert_int_equal(fg_call_site_each(twice, sizeof twice, &cp, collect, seen), 0);
  assert_string_equal(seen, "length;length;");
  assert_int_equal(fg_call_site_each(twice, sizeof twice - 2, &cp, collect, seen), -1);   /* cut inside an invoke */
  fg_cpool_free(&cp);
  assert_true(fg_is_copy("arraycopy") && fg_is_copy("copyOfRange") && !fg_is_copy("copy"));
}

static void opcodes_have_names(void **state)
{
  (void)state;
  char buf[16];
  assert_string_equal(fg_opcode_name(0xb9, buf, sizeof buf), "invokeinterface");
  assert_string_equal(fg_opcode_name(0x60, buf, sizeof buf), "op 0x60");
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(invokes_name_their_target),
    cmocka_unit_test(edges_are_judged_by_the_instruction),
    cmocka_unit_test(malformed_pools_are_refused),
    cmocka_unit_test(arraycopy_stubs_sit_under_copies),
    cmocka_unit_test(opcodes_have_names),
    cmocka_unit_test(instructions_have_their_lengths),
    cmocka_unit_test(every_invoke_is_visited),
  };
  return cmocka_run_group_tests_name("call_site", tests, NULL, NULL);
}
