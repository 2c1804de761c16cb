/* libFuzzer target: arbitrary bytes as the reply a JVM (or whatever listens
 * on its attach socket) writes back to "load". The parser must return a
 * code or one printable error line, never read past the bytes given. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "attach_reply.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  if (size > 4095)
    return 0;   /* fgprof reads at most 4095 bytes of it */
  char *reply = malloc(size + 1);   /* NUL-ended, as fgprof hands it over */
  memcpy(reply, data, size);
  reply[size] = '\0';
  char err[512] = "";
  int rc = 7, rc2 = 8;
  int got = fg_attach_reply_parse(reply, size, 4242, &rc, err, sizeof err);
  if (got != 0 && got != -1)
    abort();
  if (got == 0 && (fg_attach_reply_parse(reply, size, 4242, &rc2, err, sizeof err) != 0 || rc != rc2))
    abort();   /* success without a return code, or one that depends on something else */
  if (got == -1) {
    if (!err[0])
      abort();
    for (const char *p = err; *p; p++)
      if (*p < 0x20 || *p == 0x7f)
        abort();   /* one line, no terminal escapes */
  }
  free(reply);
  return 0;
}
