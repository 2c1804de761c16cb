/* DWARF call frame instructions to unwind rows, on the instruction bytes gcc
 * writes for x86-64 (CIE: code alignment 1, data alignment -8, CFA = rsp + 8,
 * return address at CFA - 8). */
#include "unit.h"

#include <string.h>

#include "native/unwind_rows.h"

#define BASE 0x400000u

/* The CIE's initial instructions: def_cfa rsp+8; offset r16 (RA) at cfa-8. */
static const uint8_t cie[] = {0x0c, 0x07, 0x08, 0x90, 0x01};

static const struct fg_unwind_row *at(const struct fg_unwind_rows *r, uintptr_t pc)
{
  return fg_unwind_rows_find(r, pc);
}

/* push rbp; mov rbp, rsp; ... leave; ret: the frame-pointer prologue. */
static void frame_pointer_function(void **state)
{
  (void)state;
  const uint8_t fde[] = {
      0x41,               /* advance 1 (after push rbp) */
      0x0e, 0x10,         /* def_cfa_offset 16 */
      0x86, 0x02,         /* rbp at cfa-16 */
      0x43,               /* advance 3 (after mov rbp, rsp) */
      0x0d, 0x06,         /* def_cfa_register rbp */
      0x4a,               /* advance 10 (after leave) */
      0x0c, 0x07, 0x08,   /* def_cfa rsp+8 */
  };
  struct fg_unwind_rows r = {.base = BASE};
  assert_int_equal(fg_unwind_rows_run(&r, cie, sizeof cie, fde, sizeof fde, BASE + 0x100, BASE + 0x110, 1, -8), 0);
  fg_unwind_rows_finish(&r);
  const struct fg_unwind_row *w = at(&r, BASE + 0x100);   /* entry */
  assert_non_null(w);
  assert_int_equal(w->cfa_base, FG_CFA_RSP);
  assert_int_equal(w->cfa_off, 8);
  assert_int_equal(w->fp_off, FG_FP_SAME);
  w = at(&r, BASE + 0x101);   /* after push rbp */
  assert_int_equal(w->cfa_base, FG_CFA_RSP);
  assert_int_equal(w->cfa_off, 16);
  assert_int_equal(w->fp_off, -16);
  w = at(&r, BASE + 0x108);   /* the body */
  assert_int_equal(w->cfa_base, FG_CFA_RBP);
  assert_int_equal(w->cfa_off, 16);
  assert_int_equal(w->fp_off, -16);
  w = at(&r, BASE + 0x10e);   /* after leave: ret */
  assert_int_equal(w->cfa_base, FG_CFA_RSP);
  assert_int_equal(w->cfa_off, 8);
  assert_null(at(&r, BASE + 0x110));   /* past the function */
  assert_null(at(&r, BASE + 0xff));
  fg_unwind_rows_free(&r);
}

/* A frameless function with remember/restore_state around an early return. */
static void remembered_state(void **state)
{
  (void)state;
  const uint8_t fde[] = {
      0x44, 0x0e, 0x30,   /* advance 4: sub rsp, 0x28: cfa rsp+48 */
      0x45, 0x0a,         /* advance 5: remember */
      0x0e, 0x08,         /* add rsp: cfa rsp+8 */
      0x41, 0x0b,         /* advance 1 (ret): restore: rsp+48 again */
  };
  struct fg_unwind_rows r = {.base = BASE};
  assert_int_equal(fg_unwind_rows_run(&r, cie, sizeof cie, fde, sizeof fde, BASE + 0x200, BASE + 0x220, 1, -8), 0);
  fg_unwind_rows_finish(&r);
  assert_int_equal(at(&r, BASE + 0x203)->cfa_off, 8);
  assert_int_equal(at(&r, BASE + 0x204)->cfa_off, 48);
  assert_int_equal(at(&r, BASE + 0x209)->cfa_off, 8);
  assert_int_equal(at(&r, BASE + 0x20a)->cfa_off, 48);
  assert_int_equal(at(&r, BASE + 0x21f)->cfa_off, 48);
  fg_unwind_rows_free(&r);
}

/* A CFA given by a DWARF expression other than the PLT's: no row there, the
 * walk stops; the PLT's (ld's .plt, as readelf shows it in libjvm.so) is
 * kept with its threshold; an instruction not understood ends the
 * function's rows. */
static void expressions_and_unknown_instructions_give_no_rule(void **state)
{
  (void)state;
  const uint8_t other[] = {0x46, 0x0f, 0x03, 0x77, 0x08, 0x9f};   /* advance 6; def_cfa_expression(3 bytes) */
  struct fg_unwind_rows r = {.base = BASE};
  assert_int_equal(fg_unwind_rows_run(&r, cie, sizeof cie, other, sizeof other, BASE, BASE + 0x20, 1, -8), 0);
  fg_unwind_rows_finish(&r);
  assert_non_null(at(&r, BASE + 5));
  assert_null(at(&r, BASE + 6));
  fg_unwind_rows_free(&r);

  const uint8_t plt[] = {0x0e, 0x10, 0x46, 0x0e, 0x18, 0x4a, 0x0f, 0x0b, 0x77, 0x08, 0x80,
                         0x00, 0x3f, 0x1a, 0x3b, 0x2a, 0x33, 0x24, 0x22};
  struct fg_unwind_rows p = {.base = BASE};
  assert_int_equal(fg_unwind_rows_run(&p, cie, sizeof cie, plt, sizeof plt, BASE, BASE + 0x40, 1, -8), 0);
  fg_unwind_rows_finish(&p);
  assert_int_equal(at(&p, BASE + 0x5)->cfa_off, 16);   /* PLT0 */
  assert_int_equal(at(&p, BASE + 0x10)->cfa_base, FG_CFA_PLT);
  assert_int_equal(at(&p, BASE + 0x3f)->cfa_off, 11);
  fg_unwind_rows_free(&p);

  const uint8_t odd[] = {0x42, 0x0e, 0x10, 0x42, 0x3f, 0x41, 0x0e, 0x20};   /* 0x3f: no such instruction */
  struct fg_unwind_rows q = {.base = BASE};
  assert_int_equal(fg_unwind_rows_run(&q, cie, sizeof cie, odd, sizeof odd, BASE, BASE + 0x20, 1, -8), -1);
  fg_unwind_rows_finish(&q);
  assert_int_equal(at(&q, BASE + 3)->cfa_off, 16);
  assert_null(at(&q, BASE + 4));
  assert_null(at(&q, BASE + 8));
  fg_unwind_rows_free(&q);
}

/* clone3's child, a thread's first frame: its return address undefined
 * (`.cfi_undefined rip`), whatever the CFA says after; a function that
 * saves it again has a caller. */
static void an_undefined_return_address_is_the_outermost_frame(void **state)
{
  (void)state;
  const uint8_t fde[] = {
      0x42, 0x07, 0x10,   /* advance 2; undefined r16 (RA) */
      0x43, 0x0e, 0x10,   /* advance 3; def_cfa_offset 16 */
      0x44, 0x90, 0x01,   /* advance 4; RA at cfa-8 again */
  };
  struct fg_unwind_rows r = {.base = BASE};
  assert_int_equal(fg_unwind_rows_run(&r, cie, sizeof cie, fde, sizeof fde, BASE + 0x300, BASE + 0x320, 1, -8), 0);
  fg_unwind_rows_finish(&r);
  assert_int_equal(at(&r, BASE + 0x301)->cfa_base, FG_CFA_RSP);
  assert_int_equal(at(&r, BASE + 0x302)->cfa_base, FG_CFA_OUTERMOST);
  assert_int_equal(at(&r, BASE + 0x305)->cfa_base, FG_CFA_OUTERMOST);
  assert_int_equal(at(&r, BASE + 0x309)->cfa_base, FG_CFA_RSP);
  assert_int_equal(at(&r, BASE + 0x309)->cfa_off, 16);
  fg_unwind_rows_free(&r);
}

/* Two functions back to back: the second's first rule starts where the
 * first ends, whichever order they were read in. */
static void adjacent_functions(void **state)
{
  (void)state;
  const uint8_t one[] = {0x41, 0x0e, 0x10};
  struct fg_unwind_rows r = {.base = BASE};
  assert_int_equal(fg_unwind_rows_run(&r, cie, sizeof cie, one, sizeof one, BASE + 0x40, BASE + 0x50, 1, -8), 0);
  assert_int_equal(fg_unwind_rows_run(&r, cie, sizeof cie, one, sizeof one, BASE + 0x10, BASE + 0x40, 1, -8), 0);
  fg_unwind_rows_finish(&r);
  assert_int_equal(at(&r, BASE + 0x3f)->cfa_off, 16);
  assert_int_equal(at(&r, BASE + 0x40)->cfa_off, 8);
  assert_int_equal(at(&r, BASE + 0x41)->cfa_off, 16);
  assert_null(at(&r, BASE + 0x50));
  assert_null(at(&r, BASE + 0x0f));
  fg_unwind_rows_free(&r);
}

/* The granule index finds the row a search of every row finds, at every
 * byte of functions spread over many granules with gaps between them. */
static void granule_index_agrees_with_a_full_search(void **state)
{
  (void)state;
  const uint8_t body[] = {0x41, 0x0e, 0x10, 0x45, 0x0e, 0x30, 0x47, 0x0e, 0x08};
  struct fg_unwind_rows r = {.base = BASE};
  uintptr_t at = BASE + 0x30;
  for (int i = 0; i < 300; i++) {
    uintptr_t size = 20 + (uintptr_t)(i * 37 % 900);
    assert_int_equal(fg_unwind_rows_run(&r, cie, sizeof cie, body, sizeof body, at, at + size, 1, -8), 0);
    at += size + (uintptr_t)(i % 3) * 24;   /* a gap after some */
  }
  assert_int_equal(fg_unwind_rows_finish(&r), 0);
  assert_true(r.pages > 100);
  for (uintptr_t pc = BASE; pc < at + 64; pc++) {
    const struct fg_unwind_row *want = NULL;
    for (uint32_t i = 0; i < r.n && r.rows[i].loc <= pc - BASE; i++)
      want = &r.rows[i];
    if (want && want->cfa_base == FG_CFA_NONE)
      want = NULL;
    assert_ptr_equal(fg_unwind_rows_find(&r, pc), want);
  }
  fg_unwind_rows_free(&r);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(frame_pointer_function),
      cmocka_unit_test(remembered_state),
      cmocka_unit_test(expressions_and_unknown_instructions_give_no_rule),
      cmocka_unit_test(an_undefined_return_address_is_the_outermost_frame),
      cmocka_unit_test(adjacent_functions),
      cmocka_unit_test(granule_index_agrees_with_a_full_search),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
