/* libFuzzer target: arbitrary bytes as /proc/self/maps, read as the
 * drainer reads it (fgets into 512 bytes, a long line in pieces), for the
 * mapping holding an address. What is found must be a range the input's
 * lines start with, and must hold the address. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "native/proc_maps.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  if (size < 8)
    return 0;
  uintptr_t addr;
  memcpy(&addr, data, sizeof addr);   /* the address looked for: the first 8 bytes */
  char *copy = malloc(size - 8 ? size - 8 : 1);
  memcpy(copy, data + 8, size - 8);
  FILE *f = size > 8 ? fmemopen(copy, size - 8, "r") : NULL;
  char line[512];
  struct fg_maps_reader m = {0};
  uintptr_t lo = 0, hi = 0;
  int found = 0;
  while (f && !found && fgets(line, sizeof line, f))
    found = fg_maps_piece(&m, line, strlen(line), addr, &lo, &hi);
  if (f)
    fclose(f);
  if (found && (lo > addr || addr >= hi))
    abort();
  free(copy);
  return 0;
}
