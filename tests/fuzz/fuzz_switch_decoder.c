/* libFuzzer target: the context-switch decoder on arbitrary bytes, whole and
 * split in two chunks at a point the input chooses. It must refuse or
 * decode, never read past the data, and what it decodes must be sane. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fg/switch_decoder.h"

static void check(void *ctx, const struct fg_execution *e)
{
  (void)ctx;
  if (e->kind == FG_EXEC_COMPLETE && e->start > e->end)
    abort();
  if ((unsigned)e->kind > FG_EXEC_HINTED_END)
    abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  char err[256];
  /* copies, so that ASan sees exactly the bytes handed over */
  uint8_t *whole = malloc(size ? size : 1);
  memcpy(whole, data, size);
  struct fg_switch_stream s;
  fg_switch_stream_init(&s, 0);
  if (fg_switch_decode(&s, whole, size, check, NULL, err, sizeof err) == 0)
    fg_switch_finish(&s, check, NULL);
  else if (!strstr(err, "byte offset"))
    abort();

  size_t cut = size ? (size_t)data[0] * 8 % (size + 1) : 0;
  fg_switch_stream_init(&s, 1);
  if (fg_switch_decode(&s, whole, cut, check, NULL, err, sizeof err) == 0 &&
      fg_switch_decode(&s, whole + cut, size - cut, check, NULL, err, sizeof err) == 0)
    fg_switch_finish(&s, check, NULL);
  free(whole);
  return 0;
}
