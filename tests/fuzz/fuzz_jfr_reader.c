/* libFuzzer target: arbitrary bytes into the JFR reader, without and with
 * lines and with --event wall's choice, then whatever it read through every writer (a recording read in
 * part keeps what it read: that goes through them too). Any crash, leak or
 * undefined behaviour (built with ASan and UBSan), or a run slower than
 * libFuzzer's timeout, is a bug: a recording is never trusted. */
#include <stdint.h>
#include <stdio.h>

#include "fg/jfr_reader.h"
#include "fg/output.h"
#include "fg/profile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  /* 0; FG_JFR_LINES; FG_JFR_WALL (the wall-clock samples chosen over the execution samples) */
  for (unsigned lines = 0; lines < 3; lines++) {
    struct fg_profile p;
    char err[512];
    fg_profile_init(&p);
    p.timeline.max = 1000;
    fg_parse_jfr(data, size, "fuzz", lines, &p, err, sizeof err);
    if (p.nstacks > 0) {
      FILE *out = fopen("/dev/null", "w");
      struct fg_output_settings cfg = {.per_thread = p.nthreads > 1, .min_width_pct = 0.5};
      fg_write_collapsed(out, &p, &cfg);
      if (!lines) {
        fg_write_callgraph(out, &p, &cfg);
        fg_write_flamegraph_html(out, &p, &cfg);
        fg_write_pprof(out, &p, &cfg);
        fg_write_speedscope(out, &p, &cfg);
        fg_write_jfr(out, &p, &cfg);
      }
      fclose(out);
    }
    fg_profile_free(&p);
  }
  return 0;
}
