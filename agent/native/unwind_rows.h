/* A loaded library's DWARF call frame information (.eh_frame, found through
 * .eh_frame_hdr) turned into rows the signal handler can use without
 * parsing: for each address range, where the frame's CFA is (rsp or rbp
 * plus an offset) and where the caller's rbp was saved. The return address
 * is always at CFA - 8 on x86-64.
 *
 * Built outside the handler (it allocates); read by it. A rule the rows
 * cannot hold (a CFA given by a DWARF expression other than the PLT's, as
 * in signal trampolines; rbp kept in another register) ends the walk there. */
#ifndef FG_UNWIND_ROWS_H
#define FG_UNWIND_ROWS_H

#include <stddef.h>
#include <stdint.h>

enum fg_cfa_base {
  FG_CFA_NONE,   /* no rule here: the walk stops */
  FG_CFA_RSP,
  FG_CFA_RBP,
  FG_CFA_PLT,    /* a lazy-binding PLT entry: rsp + 8, or + 16 once it pushed its index at
                    (pc & 15) >= cfa_off (the DWARF expression linkers write for .plt) */
  FG_CFA_OUTERMOST,   /* the thread's first frame (its return address undefined, as clone3's
                         child says): there is no caller */
};

#define FG_FP_SAME 0   /* fp_off: the caller's rbp is still in rbp */
#define FG_FP_LOST 1   /* fp_off: rbp holds something else, its saved value is not known */

/* The rule from loc (an offset from the library's lowest address) to the
 * next row's loc. fp_off: where the caller's rbp is, as an offset from the
 * CFA (a multiple of 8, negative), or FG_FP_SAME / FG_FP_LOST. */
struct fg_unwind_row {
  uint32_t loc;
  int32_t cfa_off;
  int16_t fp_off;
  uint8_t cfa_base;   /* enum fg_cfa_base */
  uint8_t pad;
};

#define FG_UNWIND_PAGE_SHIFT 9   /* the page index's granule: 512 bytes of code, a few rows */

struct fg_unwind_rows {
  struct fg_unwind_row *rows;   /* sorted by loc */
  uint32_t n, capacity;
  uintptr_t base;               /* what loc is relative to */
  uint32_t fdes, skipped;       /* functions read, and left out (a form not understood) */
  /* made by fg_unwind_rows_finish: for each granule of code from base on,
   * the row in force at its start, so that a lookup searches the few rows
   * of one granule (a search over all of libjvm's 190 000 rows is 18 cache
   * misses in a handler that finds them cold) */
  uint32_t *page_first;
  uint32_t pages;
};

/* Reads the call frame information that the .eh_frame_hdr at hdr (mapped,
 * with the library's code at and above base) indexes, appending rows;
 * returns 0, or -1 for a header whose form is not the one linkers write or
 * when memory ran out (rows already made stay). Only the bytes in [lo, hi)
 * are read (the segment holding hdr: fg_unwind_segment_of): what a table
 * or an entry points at outside is left out, counted in skipped, as are the
 * entries after the read's work ran out (8 instructions for each byte of
 * [lo, hi), more than a linker's output needs). */
int fg_unwind_rows_read(struct fg_unwind_rows *r, const uint8_t *hdr, const uint8_t *lo, const uint8_t *hi,
                        uintptr_t base);

struct dl_phdr_info;

/* The loaded segment of the object info describes (dl_iterate_phdr's) that
 * holds hdr: [*lo, *hi). 0, or -1 when none does. */
int fg_unwind_segment_of(const struct dl_phdr_info *info, const uint8_t *hdr, const uint8_t **lo, const uint8_t **hi);

/* Sorts the rows, drops those a later row at the same loc replaces, and
 * indexes them by granule. 0, or -1 when out of memory (no index then:
 * lookups search every row; nor when the rows are so far apart that the
 * index would take more than four entries a row). */
int fg_unwind_rows_finish(struct fg_unwind_rows *r);

void fg_unwind_rows_free(struct fg_unwind_rows *r);

/* The row covering pc, or NULL. Async-signal-safe: a binary search. */
const struct fg_unwind_row *fg_unwind_rows_find(const struct fg_unwind_rows *r, uintptr_t pc);

/* The start of the function whose FDE covers pc, by the sorted table of the
 * .eh_frame_hdr at hdr (a stripped library's functions are named by it);
 * 0 when no FDE is known to cover pc (none starts at or below it, pc is
 * past the end of the one below: code without CFI, such as assembly; or that
 * FDE is of a form not read) or the table is of another form. Reads only
 * [lo, hi), as fg_unwind_rows_read. */
uintptr_t fg_unwind_function_start(const uint8_t *hdr, const uint8_t *lo, const uint8_t *hi, uintptr_t pc);

/* One CIE's or FDE's instructions run on a state, for the tests: the rows
 * the instructions make from pc start on, as fg_unwind_rows_read makes them
 * (the CIE's initial instructions first, then the FDE's). code_align and
 * data_align are the CIE's. Returns 0, or -1 for an instruction not
 * understood (rows up to it are kept, a FG_CFA_NONE row from it on). */
int fg_unwind_rows_run(struct fg_unwind_rows *r, const uint8_t *cie_ins, size_t cie_len, const uint8_t *fde_ins,
                       size_t fde_len, uintptr_t start, uintptr_t end, uint64_t code_align, int64_t data_align);

#endif
