/* libFuzzer target: arbitrary bytes as /proc/kallsyms ("ADDRESS TYPE NAME
 * [MODULE]" lines), then pcs looked up in what was read. Names come out
 * NUL-ended and within the table; memory stays within the input's size. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "native/kernel_symbols.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  char *text = malloc(size ? size : 1);   /* exactly the bytes: no NUL after them */
  memcpy(text, data, size);
  struct fg_kernel_symbols k;
  if (fg_ksyms_parse(&k, text, size) == 0) {
    if (k.n > size / 5)
      abort();   /* a symbol takes a line of at least 5 bytes */
    for (size_t i = 1; i < k.n; i++)
      if (k.addr[i - 1] > k.addr[i])
        abort();
    char name[128];
    uint64_t pcs[] = {0, UINT64_MAX, k.n ? k.addr[0] : 1, k.n ? k.addr[k.n - 1] + 1 : 2, k.n ? k.addr[k.n / 2] : 3};
    for (size_t i = 0; i < sizeof pcs / sizeof *pcs; i++) {
      fg_ksyms_name(&k, pcs[i], name, sizeof name);
      if (!memchr(name, '\0', sizeof name) || !name[0])
        abort();
    }
  }
  fg_ksyms_free(&k);
  free(text);
  return 0;
}
