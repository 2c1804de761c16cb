/* fgprof heatmap IN OUT.heatmap.html: every timed sample of a recording as
 * a heatmap page (agent/output/heatmap.c), the JVM's GC pauses and
 * safepoints beside them when the recording holds them. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "fg/output.h"
#include "fg/profile.h"
#include "fg/collapsed_reader.h"
#include "fg/time_range.h"

#define HEATMAP_MARKS_MAX (1u << 22)   /* JVM events kept: 4M, 288 MB at most */

static int bad(const char *what, const char *value)
{
  fprintf(stderr, "fgprof heatmap: %s '%s'; accepted: fgprof heatmap IN OUT [--from T] [--to T] [--title TEXT], "
          "IN a JFR recording or an .otlp file, OUT ending in .html\n", what, value);
  return 2;
}

struct page {
  const struct fg_profile *p;
  const struct fg_output_settings *cfg;
};

static int write_page(FILE *out, void *ctx)
{
  const struct page *pg = ctx;
  return fg_write_heatmap_html(out, pg->p, pg->cfg);
}

int fg_profile_input_heatmap(const char *in_path, const char *out_path, const char *from, const char *to,
                             const char *title, const char *command)
{
  struct fg_profile in;
  char err[1024];
  fg_profile_init(&in);
  in.timeline.max = UINT32_MAX - 1;   /* every sample's time: the page shows each */
  in.marks.max = HEATMAP_MARKS_MAX;
  int rc = 0;
  bool cut = false;   /* a recording bad past what was read (cut short): the page of that, then FG_EXIT_CUT */
  if (fg_read_profile_input(in_path, false, &in, err, sizeof err) != 0) {
    cut = in.timeline.n > 0;
    fprintf(stderr, "fgprof: %s%s\n", err, cut ? "; OUT holds what was read before it" : "");
    rc = cut ? 0 : 2;
  }
  if (rc == 0 && (in.timeline.n == 0 || !in.stats.start_epoch_ns)) {
    fprintf(stderr, "fgprof %s: %s has no sample times; accepted: a JFR recording or an .otlp file, whose "
            "samples have their times\n", command, in_path);
    rc = 2;
  }
  struct fg_output_settings cfg = {.title = title};
  if (rc == 0 && (from || to))
    rc = fg_time_range_bounds(&in, from, to, in_path, command, &cfg.range_from, &cfg.range_to);
  uint64_t span = rc == 0 ? fg_heatmap_span_ns(&in, &cfg) : 0;
  if (rc == 0 && span > FG_HEATMAP_MAX_SPAN_NS) {
    fprintf(stderr, "fgprof %s: %s spans %.1f days from its first to its last sample; accepted: at most %.1f days "
            "on one page (--from and --to choose a part)\n", command, in_path, (double)span / 86400e9,
            (double)FG_HEATMAP_MAX_SPAN_NS / 86400e9);
    rc = 2;
  }
  struct fg_profile merged;   /* names that differ by a descriptor alone, as one (as every page names them) */
  fg_profile_init(&merged);
  struct page pg = {&in, &cfg};
  if (rc == 0 && in.nvariants) {
    if (fg_profile_merge_variants(&in, &merged) != 0) {
      fprintf(stderr, "fgprof %s: out of memory\n", command);
      rc = 2;
    }
    merged.marks = in.marks;   /* lent, not copied */
    pg.p = &merged;
  }
  if (rc == 0 && fg_write_file_atomically(out_path, write_page, &pg, err, sizeof err) != 0) {
    fprintf(stderr, "%s\n", err);
    rc = 2;
  }
  memset(&merged.marks, 0, sizeof merged.marks);
  fg_profile_free(&merged);
  fg_profile_free(&in);
  return rc == 0 && cut ? FG_EXIT_CUT : rc;
}

int fg_cmd_heatmap(int argc, char **argv)
{
  const char *pos[2] = {NULL, NULL}, *from = NULL, *to = NULL, *title = NULL;
  int npos = 0;
  for (int i = 2; i < argc; i++) {
    const char *arg = argv[i];
    if (strcmp(arg, "--from") == 0 || strcmp(arg, "--to") == 0 || strcmp(arg, "--title") == 0) {
      if (i + 1 >= argc)
        return bad("option needs a value:", arg);
      const char **v = arg[2] == 'f' ? &from : arg[2] == 't' && arg[3] == 'o' ? &to : &title;
      *v = argv[++i];
    } else if (arg[0] == '-' && arg[1] == '-') {
      return bad("unknown option", arg);
    } else if (npos == 2) {
      return bad("one argument too many:", arg);
    } else {
      pos[npos++] = arg;
    }
  }
  if (npos != 2)
    return bad("needs IN and OUT, got", npos ? pos[0] : "");
  size_t n = strlen(pos[1]);
  if (n < 5 || strcmp(pos[1] + n - 5, ".html") != 0)
    return bad("OUT must end in .html, not", pos[1]);
  return fg_profile_input_heatmap(pos[0], pos[1], from, to, title, "heatmap");
}
