/* libFuzzer target: arbitrary bytes as /proc/PID/status, read as fgprof
 * reads it (fgets into 512 bytes, lines longer than that in parts). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proc_status.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  if (size == 0)
    return 0;
  char *copy = malloc(size);
  memcpy(copy, data, size);
  FILE *f = fmemopen(copy, size, "r");
  if (!f) {
    free(copy);
    return 0;
  }
  char line[512];
  struct fg_proc_status s = {0};
  while (fgets(line, sizeof line, f))
    fg_proc_status_line(&s, line);
  fclose(f);
  if (s.ns_pid < 0 || (s.seen & ~7) || (s.catches_quit & ~1))
    abort();
  free(copy);
  return 0;
}
