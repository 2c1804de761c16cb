/* libFuzzer target: arbitrary bytes as /proc/self/task/TID/stat and
 * schedstat, NUL-ended as the wall sampler reads them (at most 511 and 127
 * bytes). The stat's name is the application's to choose. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sampling/wall/task_files.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  size_t n = size > 511 ? 511 : size;
  char *text = malloc(n + 1);
  memcpy(text, data, n);
  text[n] = '\0';
  char state = fg_task_stat_state(text);
  if (state != '?' && !memchr(text, state, n))
    abort();
  uint64_t v[3];
  if (n <= 127)
    fg_task_schedstat(text, v);
  free(text);
  return 0;
}
