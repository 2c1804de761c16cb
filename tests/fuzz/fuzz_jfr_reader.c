/* libFuzzer target: arbitrary bytes into the JFR reader, without and with
 * lines and with nativemem's leak replay (fgprof convert --leak), then whatever it read through every writer (a recording read in
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
  for (int mode = 0; mode < 3; mode++) {
    int lines = mode == 1;
    struct fg_profile p;
    char err[512];
    fg_profile_init(&p);
    p.timeline.max = 1000;
    p.stats.nativemem.leak = mode == 2;
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
