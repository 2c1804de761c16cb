/* The unwind rows' reader on call frame information another library wrote,
 * as a hostile or corrupt one may: an image built here (.eh_frame_hdr, a
 * CIE, FDEs) and cases its fuzzer (tests/fuzz/fuzz_eh_frame.c) found or
 * that a reading of the code shows. Nothing is read outside the segment,
 * and the rows and the work are bounded by its size. */
#include "unit.h"

#include <stdlib.h>
#include <string.h>

#include "native/unwind_rows.h"

#define CIE_AT 64

struct image {
  uint8_t *b;
  size_t size, used;
};

static void put(struct image *im, size_t at, const void *p, size_t n)
{
  assert_true(at + n <= im->size);
  memcpy(im->b + at, p, n);
}

static void put32(struct image *im, size_t at, uint32_t v)
{
  put(im, at, &v, 4);
}

/* hdr at 0 with count pairs (start, fde) from the arrays; the CIE at CIE_AT:
 * zR, code alignment 1, data alignment -8, pcrel sdata4 pointers, CFA rsp+8. */
static void header(struct image *im, uint32_t count, const uint32_t *starts, const uint32_t *fdes)
{
  const uint8_t h[4] = {1, 0x1b, 0x03, 0x3b};
  put(im, 0, h, 4);
  put32(im, 4, CIE_AT - 4);   /* eh_frame_ptr, pcrel from its own field */
  put32(im, 8, count);
  for (uint32_t i = 0; i < count; i++) {
    put32(im, 12 + 8 * (size_t)i, starts[i]);
    put32(im, 16 + 8 * (size_t)i, fdes[i]);
  }
  static const uint8_t cie[] = {0x14, 0, 0, 0,  0, 0, 0, 0,  1, 'z', 'R', 0,  1, 0x78, 0x10, 1, 0x1b,
                                0x0c, 0x07, 0x08, 0x90, 0x01, 0, 0};
  put(im, CIE_AT, cie, sizeof cie);
}

/* An FDE at at for [start, start + range) with instructions ins (n bytes): its size. */
static size_t fde(struct image *im, size_t at, uint32_t start, uint32_t range, const uint8_t *ins, size_t n)
{
  size_t len = 4 + 4 + 4 + 1 + n;
  len = (len + 3) & ~(size_t)3;
  uint8_t *f = calloc(1, len + 4);
  uint32_t l = (uint32_t)len, cie_ptr = (uint32_t)(at + 4 - CIE_AT);
  int32_t pc = (int32_t)(start - (at + 8));
  memcpy(f, &l, 4);
  memcpy(f + 4, &cie_ptr, 4);
  memcpy(f + 8, &pc, 4);
  memcpy(f + 12, &range, 4);
  f[16] = 0;   /* augmentation data: none */
  memcpy(f + 17, ins, n);
  put(im, at, f, len + 4);
  free(f);
  return len + 4;
}

static struct image image(size_t size)
{
  struct image im = {calloc(1, size), size, 0};
  assert_non_null(im.b);
  return im;
}

/* A well-formed one first: the image builder says what a linker writes. */
static void a_linkers_form_is_read(void **state)
{
  (void)state;
  struct image im = image(4096);
  uint32_t starts[] = {2048}, fdes[] = {256};
  header(&im, 1, starts, fdes);
  const uint8_t ins[] = {0x41, 0x0e, 0x10};   /* advance 1; def_cfa_offset 16 */
  fde(&im, 256, 2048, 32, ins, sizeof ins);
  struct fg_unwind_rows r = {0};
  assert_int_equal(fg_unwind_rows_read(&r, im.b, im.b, im.b + im.size, (uintptr_t)im.b), 0);
  fg_unwind_rows_finish(&r);
  assert_int_equal(r.fdes, 1);
  assert_int_equal(r.skipped, 0);
  const struct fg_unwind_row *row = fg_unwind_rows_find(&r, (uintptr_t)im.b + 2049);
  assert_non_null(row);
  assert_int_equal(row->cfa_off, 16);
  assert_null(fg_unwind_rows_find(&r, (uintptr_t)im.b + 2048 + 32));
  assert_int_equal(fg_unwind_function_start(im.b, im.b, im.b + im.size, (uintptr_t)im.b + 2060), (uintptr_t)im.b + 2048);
  fg_unwind_rows_free(&r);
  free(im.b);
}

/* A table whose FDE addresses point outside the segment, or a count larger
 * than the segment holds: nothing there is read (the reader used to follow
 * any pointer the table held). */
static void pointers_outside_the_segment_are_not_followed(void **state)
{
  (void)state;
  struct image im = image(4096);
  uint32_t starts[] = {2048, 2100, 2200}, fdes[] = {256, 0x7fff0000u, (uint32_t)-4096};
  header(&im, 3, starts, fdes);
  const uint8_t ins[] = {0x41, 0x0e, 0x10};
  fde(&im, 256, 2048, 32, ins, sizeof ins);
  struct fg_unwind_rows r = {0};
  assert_int_equal(fg_unwind_rows_read(&r, im.b, im.b, im.b + im.size, (uintptr_t)im.b), 0);
  assert_int_equal(r.fdes, 1);
  assert_int_equal(r.skipped, 2);
  assert_int_equal(fg_unwind_function_start(im.b, im.b, im.b + im.size, (uintptr_t)im.b + 2101), 0);
  /* the segment ends inside the FDE: it is left out */
  struct fg_unwind_rows cut = {0};
  assert_int_equal(fg_unwind_rows_read(&cut, im.b, im.b, im.b + 260, (uintptr_t)im.b), 0);
  assert_int_equal(cut.fdes, 0);
  /* a count the segment cannot hold: the header is of another form */
  put32(&im, 8, 0x10000000u);
  struct fg_unwind_rows many = {0};
  assert_int_equal(fg_unwind_rows_read(&many, im.b, im.b, im.b + im.size, (uintptr_t)im.b), -1);
  assert_int_equal(many.n, 0);
  assert_int_equal(fg_unwind_rows_finish(&many), 0);   /* no rows: the fuzzer's first find (qsort of NULL) */
  assert_null(fg_unwind_rows_find(&many, (uintptr_t)im.b + 2049));
  fg_unwind_rows_free(&r);
  fg_unwind_rows_free(&cut);
  fg_unwind_rows_free(&many);
  free(im.b);
}

/* An expression's length past the FDE's end (here near 2^64, which made the
 * cursor wrap around the address space), a factored offset whose product
 * overflows, a CIE offset below address 0: rules end there, cleanly. */
static void lengths_and_offsets_that_overflow_end_the_rules(void **state)
{
  (void)state;
  struct image im = image(4096);
  uint32_t starts[] = {2048, 2304, 2560}, fdes[] = {256, 512, 768};
  header(&im, 3, starts, fdes);
  const uint8_t wrap[] = {0x41, 0x0e, 0x10, 0x41, 0x0f, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0xff, 0x01, 0x41};
  fde(&im, 256, 2048, 64, wrap, sizeof wrap);
  /* offset_extended_sf rbp by 2^62 * -8; def_cfa_sf rsp by the same */
  const uint8_t big[] = {0x41, 0x11, 0x06, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0xc0, 0x00,
                         0x41, 0x12, 0x07, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0xc0, 0x00};
  fde(&im, 512, 2304, 64, big, sizeof big);
  fde(&im, 768, 2560, 64, wrap, 1);
  put32(&im, 768 + 4, 0xfffffff0u);   /* its CIE 4 GB below */
  struct fg_unwind_rows r = {0};
  assert_int_equal(fg_unwind_rows_read(&r, im.b, im.b, im.b + im.size, (uintptr_t)im.b), 0);
  fg_unwind_rows_finish(&r);
  assert_int_equal(r.fdes, 2);
  assert_int_equal(r.skipped, 1);
  const struct fg_unwind_row *row = fg_unwind_rows_find(&r, (uintptr_t)im.b + 2049);
  assert_non_null(row);   /* the rule before the expression stays */
  assert_int_equal(row->cfa_off, 16);
  assert_null(fg_unwind_rows_find(&r, (uintptr_t)im.b + 2050));   /* none from the expression on */
  assert_non_null(fg_unwind_rows_find(&r, (uintptr_t)im.b + 2304));
  assert_null(fg_unwind_rows_find(&r, (uintptr_t)im.b + 2305));
  fg_unwind_rows_free(&r);
  free(im.b);
}

/* Every pair of a 64 KB table names one FDE of some 8000 instructions: a
 * linker never writes it, and the rows it would make (the FDE's again for
 * each pair: 8 000 * 4 000 * 12 bytes, 380 MB) are cut at the read's work,
 * a few instructions for each byte of the segment. */
static void work_and_rows_are_bounded_by_the_segment(void **state)
{
  (void)state;
  enum { SIZE = 64 * 1024, PAIRS = 4000, FDE_AT = 40000 };
  struct image im = image(SIZE);
  static uint32_t starts[PAIRS], fdes[PAIRS];
  for (uint32_t i = 0; i < PAIRS; i++) {
    starts[i] = 60000;
    fdes[i] = FDE_AT;
  }
  header(&im, PAIRS, starts, fdes);
  static uint8_t ins[24000];
  for (size_t i = 0; i + 3 <= sizeof ins; i += 3) {   /* advance 1; def_cfa_offset 16 or 24 */
    ins[i] = 0x41;
    ins[i + 1] = 0x0e;
    ins[i + 2] = (i / 3) % 2 ? 0x18 : 0x10;
  }
  fde(&im, FDE_AT, 60000, 8000, ins, sizeof ins);
  struct fg_unwind_rows r = {0};
  assert_int_equal(fg_unwind_rows_read(&r, im.b, im.b, im.b + im.size, (uintptr_t)im.b), 0);
  assert_true(r.n <= 8 * (uint64_t)SIZE + 4096);
  assert_true(r.skipped > 0);
  assert_true(r.fdes + r.skipped == PAIRS);
  assert_int_equal(fg_unwind_rows_finish(&r), 0);
  assert_true(r.n <= 8001);   /* one FDE's rows, however often read */
  fg_unwind_rows_free(&r);
  free(im.b);
}

/* Two rows 4 GB apart: the granule index would take 32 MB for a few bytes
 * of input; there is none, and lookups still find the rows. */
static void rows_far_apart_get_no_index(void **state)
{
  (void)state;
  struct fg_unwind_rows r = {0};
  const uint8_t cie[] = {0x0c, 0x07, 0x08};
  assert_int_equal(fg_unwind_rows_run(&r, cie, sizeof cie, NULL, 0, 0x1000, 0xfffff000u, 1, -8), 0);
  assert_int_equal(fg_unwind_rows_finish(&r), 0);
  assert_null(r.page_first);
  assert_non_null(fg_unwind_rows_find(&r, 0x80000000u));
  assert_null(fg_unwind_rows_find(&r, 0xfffff000u));
  fg_unwind_rows_free(&r);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(a_linkers_form_is_read),
    cmocka_unit_test(pointers_outside_the_segment_are_not_followed),
    cmocka_unit_test(lengths_and_offsets_that_overflow_end_the_rules),
    cmocka_unit_test(work_and_rows_are_bounded_by_the_segment),
    cmocka_unit_test(rows_far_apart_get_no_index),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
