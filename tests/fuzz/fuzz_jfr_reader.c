/* libFuzzer target: arbitrary bytes into the JFR reader, without and with
 * lines, with --event wall's choice and with nativemem's leak replay (fgprof convert --leak), then
 * whatever it read through every writer, the heatmap's with the JVM's events read (a recording read in
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
  /* 0; FG_JFR_LINES; FG_JFR_WALL (the wall-clock samples chosen over the execution samples); leak replay */
  for (int mode = 0; mode < 4; mode++) {
    unsigned flags = mode == 1 ? FG_JFR_LINES : mode == 2 ? FG_JFR_WALL : 0;
    int lines = mode == 1;
    struct fg_profile p;
    char err[512];
    fg_profile_init(&p);
    p.timeline.max = 1000;
    p.marks.max = 1000;
    p.stats.nativemem.leak = mode == 3;
    fg_parse_jfr(data, size, "fuzz", flags, &p, err, sizeof err);
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
        fg_write_heatmap_html(out, &p, &cfg);
      }
      fclose(out);
    }
    fg_profile_free(&p);
  }
  return 0;
}
