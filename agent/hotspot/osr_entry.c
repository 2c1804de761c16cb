/* OSR entries; see osr_entry.h. */
#include "hotspot/osr_entry.h"

#include <string.h>

uint32_t fg_osr_call_return(const uint8_t *code, size_t len, uintptr_t base, size_t from, uintptr_t target)
{
  if (!code || !target || from >= len)
    return 0;
  size_t end = len - from > FG_OSR_CALL_WINDOW ? from + FG_OSR_CALL_WINDOW : len;
  for (size_t at = from; at < end; at++) {
    if (code[at] == 0xe8 && at + 5 <= len) {   /* call rel32 */
      int32_t rel;
      memcpy(&rel, code + at + 1, sizeof rel);
      if (base + at + 5 + (uintptr_t)(intptr_t)rel == target && at + 5 <= UINT32_MAX)
        return (uint32_t)(at + 5);
    }
    if (code[at] == 0x49 && at + 13 <= len && code[at + 1] == 0xba) {   /* movabs r10, imm64; call r10 */
      uint64_t imm;
      memcpy(&imm, code + at + 2, sizeof imm);
      if (imm == target && code[at + 10] == 0x41 && code[at + 11] == 0xff && code[at + 12] == 0xd2 &&
          at + 13 <= UINT32_MAX)
        return (uint32_t)(at + 13);
    }
  }
  return 0;
}
