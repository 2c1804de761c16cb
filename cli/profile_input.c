/* A profile read from a file or standard input: collapsed stacks, a JFR
 * recording (its "FLR" header tells), or OpenTelemetry profiles (a file
 * named .otlp: protobuf has no header to tell). */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fg/collapsed_reader.h"
#include "fg/jfr_reader.h"
#include "fg/otlp_reader.h"
#include "fg/huge_pages.h"
#include "fg/profile.h"

int fg_read_profile_input(const char *path, unsigned flags, struct fg_profile *p, char *err, size_t errlen)
{
  FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
  if (!f) {
    snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
    return -1;
  }
  char *data = NULL;
  size_t len = 0, cap = 0;
  struct stat st;
  if (fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 &&
      (uint64_t)st.st_size < SIZE_MAX / 2 && (data = malloc((size_t)st.st_size + 1))) {
    cap = (size_t)st.st_size + 1;   /* its size, and a byte to see that it ended there */
    fg_huge_pages_hint(data, cap);
  }
  for (;;) {
    if (len == cap) {
      cap = cap ? cap * 2 : 1 << 16;
      char *d = realloc(data, cap);
      if (!d) {
        free(data);
        if (f != stdin)
          fclose(f);
        snprintf(err, errlen, "%s: out of memory", path);
        return -1;
      }
      data = d;
    }
    size_t got = fread(data + len, 1, cap - len, f);
    len += got;
    if (got == 0)
      break;
  }
  int read_error = ferror(f);
  if (f != stdin)
    fclose(f);
  int rc;
  if (read_error) {
    snprintf(err, errlen, "%s: read error", path);
    rc = -1;
  } else if (len == 0) {
    snprintf(err, errlen, "%s: the file is empty; accepted: collapsed stacks, 'frame;frame count' "
             "per line, or a JFR recording", path);
    rc = -1;
  } else if (fg_is_jfr((const uint8_t *)data, len)) {
    rc = fg_parse_jfr((const uint8_t *)data, len, path, flags, p, err, errlen);
  } else if (strlen(path) > 5 && strcmp(path + strlen(path) - 5, ".otlp") == 0) {
    rc = fg_parse_otlp((const uint8_t *)data, len, path, p, err, errlen);
  } else {
    rc = fg_parse_collapsed(data, len, path, p, err, errlen);
    if (rc == 0 && p->nstacks == 0) {
      snprintf(err, errlen, "%s: no stack in the file; accepted: collapsed stacks, 'frame;frame "
               "count' per line", path);
      rc = -1;
    }
  }
  free(data);
  return rc;
}
