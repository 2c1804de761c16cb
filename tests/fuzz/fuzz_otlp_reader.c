/* libFuzzer target: arbitrary bytes into the OpenTelemetry profiles reader,
 * then whatever it accepted through the OTLP writer and read back again,
 * and through the collapsed and pprof writers. Any crash, leak or undefined
 * behaviour (built with ASan and UBSan) is a bug: input is never trusted. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "fg/otlp_reader.h"
#include "fg/output.h"
#include "fg/profile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  struct fg_profile p;
  char err[512];
  fg_profile_init(&p);
  p.timeline.max = 4096;
  if (fg_parse_otlp(data, size, "fuzz", &p, err, sizeof err) == 0) {
    char *buf = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&buf, &len);
    struct fg_output_settings cfg = {.per_thread = p.nthreads > 1};
    fg_write_otlp(out, &p, &cfg);
    fclose(out);
    struct fg_profile q;
    fg_profile_init(&q);
    fg_parse_otlp((const uint8_t *)buf, len, "again", &q, err, sizeof err);
    fg_profile_free(&q);
    free(buf);
    out = fopen("/dev/null", "w");
    fg_write_collapsed(out, &p, &cfg);
    fg_write_pprof(out, &p, &cfg);
    fclose(out);
  }
  fg_profile_free(&p);
  return 0;
}
