/* libFuzzer target: arbitrary bytes into the collapsed-stacks reader, then
 * whatever it accepted through every writer. Any crash, leak or undefined
 * behaviour (built with ASan and UBSan) is a bug: input is never trusted. */
#include <stdint.h>
#include <stdio.h>

#include "fg/collapsed_reader.h"
#include "fg/output.h"
#include "fg/profile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  struct fg_profile p;
  char err[512];
  fg_profile_init(&p);
  int rc = fg_parse_collapsed((const char *)data, size, "fuzz", &p, err, sizeof err);
  if (rc == 0 && p.nstacks > 0) {
    FILE *out = fopen("/dev/null", "w");
    struct fg_output_settings cfg = {.per_thread = p.nthreads > 1, .min_width_pct = 0.5};
    fg_write_collapsed(out, &p, &cfg);
    fg_write_callgraph(out, &p, &cfg);
    fg_write_flamegraph_html(out, &p, &cfg);
    fg_write_pprof(out, &p, &cfg);
    fg_write_speedscope(out, &p, &cfg);
    fclose(out);
  }
  fg_profile_free(&p);
  return 0;
}
