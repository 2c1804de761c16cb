/* libFuzzer target: arbitrary bytes as a library's ELF file whose
 * PT_GNU_EH_FRAME segment leads to its .eh_frame_hdr, read by the unwind
 * rows' reader as a loaded library's is (the file standing for its mapped
 * segment, offsets as addresses), then pcs looked up in the rows and in the
 * header's table. Nothing may be read outside the bytes; the work and the
 * rows are bounded by their size. */
#include <elf.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "native/unwind_rows.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  Elf64_Ehdr eh;
  if (size < sizeof eh)
    return 0;
  memcpy(&eh, data, sizeof eh);
  const uint8_t *hdr = NULL;
  for (uint32_t i = 0; i < eh.e_phnum; i++) {
    Elf64_Phdr ph;
    uint64_t at = eh.e_phoff + (uint64_t)i * sizeof ph;
    if (eh.e_phoff > size || at > size - sizeof ph || size < sizeof ph)
      break;
    memcpy(&ph, data + at, sizeof ph);
    if (ph.p_type == PT_GNU_EH_FRAME && ph.p_offset < size)
      hdr = data + ph.p_offset;
  }
  if (!hdr)
    return 0;
  struct fg_unwind_rows r = {0};
  uintptr_t base = (uintptr_t)data;
  fg_unwind_rows_read(&r, hdr, data, data + size, base);
  if (r.n > 16 * (uint64_t)size + 8192)
    abort();   /* rows beyond what the bytes can say */
  fg_unwind_rows_finish(&r);
  if (r.pages > 4 * (uint64_t)r.n + 1024)
    abort();
  for (uint32_t i = 1; i < r.n; i++)
    if (r.rows[i - 1].loc >= r.rows[i].loc)
      abort();
  for (uintptr_t pc = base; pc < base + size && pc < base + 0x4000; pc += 29) {
    const struct fg_unwind_row *row = fg_unwind_rows_find(&r, pc);
    if (row && (row < r.rows || row >= r.rows + r.n || row->cfa_base == FG_CFA_NONE))
      abort();
    uintptr_t start = fg_unwind_function_start(hdr, data, data + size, pc);
    (void)start;
  }
  fg_unwind_rows_free(&r);
  return 0;
}
