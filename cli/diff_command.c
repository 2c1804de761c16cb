/* fgprof diff: two sets of runs, a verdict a CI job can act on.
 * Exit status: 0 no significant regression, 1 a regression, 2 an error. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "fg/collapsed_reader.h"
#include "fg/diff.h"
#include "fg/output.h"
#include "fg/options.h"
#include "fg/profile.h"
#include "fg/time_range.h"

#define MAX_RUNS 256

struct diff_args {
  const char *base[MAX_RUNS], *new_runs[MAX_RUNS];
  size_t nbase, nnew;
  struct fg_diff_options options;
  int json;
  const char *html, *title;
  const char *event;   /* --event: which of a recording's events; NULL: the first it has */
  const char *from, *to, *base_from, *base_to;   /* time ranges of NEW's and BASE's runs */
};

static int bad(const char *what, const char *value)
{
  return fg_cli_bad("diff", what, value);
}

static int number(const char *text, double lo, double hi, double *out)
{
  char *end;
  errno = 0;
  double v = strtod(text, &end);
  if (errno || end == text || *end || v < lo || v > hi)
    return -1;
  *out = v;
  return 0;
}

static int parse(int argc, char **argv, struct diff_args *a)
{
  memset(a, 0, sizeof *a);
  a->options = (struct fg_diff_options){10.0, 0.5, 0.01};
  const char **side = NULL;
  size_t *count = NULL;
  const char *positional[2] = {NULL, NULL};
  size_t npos = 0;
  for (int i = 2; i < argc; i++) {
    /* "" past the last argument: a valued option there is refused below, and
     * nothing reads a NULL on the way */
    const char *arg = argv[i], *value = i + 1 < argc ? argv[i + 1] : "";
    if (strcmp(arg, "--base") == 0 || strcmp(arg, "--new") == 0) {
      side = arg[2] == 'b' ? a->base : a->new_runs;
      count = arg[2] == 'b' ? &a->nbase : &a->nnew;
      continue;
    }
    if (strcmp(arg, "--json") == 0) {
      a->json = 1;
      continue;
    }
    int valued = strcmp(arg, "--threshold") == 0 || strcmp(arg, "--alpha") == 0 ||
                 strcmp(arg, "--min-change") == 0 || strcmp(arg, "--html") == 0 ||
                 strcmp(arg, "--title") == 0 || strcmp(arg, "--event") == 0 || strcmp(arg, "--from") == 0 ||
                 strcmp(arg, "--to") == 0 || strcmp(arg, "--base-from") == 0 || strcmp(arg, "--base-to") == 0;
    if (valued && i + 1 >= argc)
      return bad("this option needs a value:", arg);
    if (strcmp(arg, "--threshold") == 0) {
      if (number(value, 0, 1000, &a->options.threshold_pct) != 0)
        return bad("--threshold takes a percentage from 0 to 1000, not", value);
    } else if (strcmp(arg, "--alpha") == 0) {
      if (number(value, 1e-12, 0.5, &a->options.alpha) != 0 || a->options.alpha <= 0)
        return bad("--alpha takes a significance level above 0 and at most 0.5, not", value);
    } else if (strcmp(arg, "--min-change") == 0) {
      if (number(value, 0, 100, &a->options.min_points) != 0)
        return bad("--min-change takes percentage points from 0 to 100, not", value);
    } else if (strcmp(arg, "--html") == 0) {
      if (fg_format_for_path(value) != FG_FORMAT_HTML)
        return bad("--html needs a file name ending in .html, not", value);
      a->html = value;
    } else if (strcmp(arg, "--title") == 0) {
      a->title = value;
    } else if (strcmp(arg, "--event") == 0) {
      if (!fg_event_name_known(value))
        return bad("--event takes a kind fgprof convert --event takes (cpu, alloc, lock, live, ...), not", value);
      a->event = value;
    } else if (strcmp(arg, "--from") == 0 || strcmp(arg, "--to") == 0 || strcmp(arg, "--base-from") == 0 ||
               strcmp(arg, "--base-to") == 0) {
      if (strcmp(arg, "--from") == 0)
        a->from = value;
      else if (strcmp(arg, "--to") == 0)
        a->to = value;
      else if (strcmp(arg, "--base-from") == 0)
        a->base_from = value;
      else
        a->base_to = value;
    } else if (arg[0] == '-' && arg[1] == '-') {
      return bad("unknown option; accepted: --base, --new, --threshold, --alpha, --min-change, "
                 "--json, --html, --title, --event, --from, --to, --base-from, --base-to, --help:", arg);
    } else if (side) {
      if (*count == MAX_RUNS)
        return bad("too many runs on one side; at most 256:", arg);
      side[(*count)++] = arg;
      continue;
    } else {
      if (npos == 2)
        return bad("one argument too many; accepted: BASE NEW, or --base FILES --new FILES:", arg);
      positional[npos++] = arg;
      continue;
    }
    i++;
  }
  if (npos > 0 && (a->nbase || a->nnew))
    return bad("give either BASE NEW or --base FILES --new FILES, not both", NULL);
  if (npos == 2) {
    a->base[a->nbase++] = positional[0];
    a->new_runs[a->nnew++] = positional[1];
  }
  if (a->nbase == 0 || a->nnew == 0)
    return bad("needs base and new profiles: BASE NEW, or --base FILES --new FILES", NULL);
  return 0;
}

/* An allocation or lock profile counts bytes or nanoseconds; the tests count
 * samples. Each stack's count becomes its share of the run's events (the
 * samples the recording holds) so that the shares stay the weights' and the
 * z-test's sample size is the samples taken, not the bytes. */
static void weigh_as_samples(struct fg_profile *p)
{
  uint64_t weight = 0, events = 0;
  for (uint32_t i = 0; i < p->nstacks; i++) {
    weight += p->stacks[i].count;
    events += p->stacks[i].events;
  }
  if (p->event == FG_STACK_CPU || weight == 0 || events == 0)
    return;
  for (uint32_t i = 0; i < p->nstacks; i++)
    p->stacks[i].count = (uint64_t)((double)p->stacks[i].count * (double)events / (double)weight + 0.5);
}

/* Each run's profile: collapsed stacks, or a recording's event (--event,
 * else its first), its samples from from to to when either is given. */
static int read_runs(const char *const *paths, size_t n, struct fg_profile *runs, const char *event, const char *from,
                     const char *to)
{
  for (size_t i = 0; i < n; i++) {
    char err[1024];
    fg_profile_init(&runs[i]);
    if (from || to)
      runs[i].timeline.max = FG_JFR_TIMELINE_MAX;
    if (fg_read_profile_input(paths[i], false, &runs[i], err, sizeof err) != 0) {
      fprintf(stderr, "fgprof diff: %s\n", err);
      return -1;
    }
    if ((from || to) && fg_apply_time_range(&runs[i], from, to, paths[i], "diff") != 0)
      return -1;
    if (fg_pick_event(&runs[i], event, paths[i]) != 0)
      return -1;
    weigh_as_samples(&runs[i]);
  }
  return 0;
}

struct diff_page {
  const struct fg_profile *base, *next;
  const char *title;
};

static int write_diff_page(FILE *out, void *ctx)
{
  const struct diff_page *d = ctx;
  struct fg_output_settings cfg = {.title = d->title};
  return fg_write_diff_flamegraph_html(out, d->base, d->next, &cfg);
}

/* The new runs merged, and the base runs merged over the same name ids. */
static int write_html(const struct diff_args *a, const struct fg_profile *base, const struct fg_profile *next)
{
  struct fg_profile b, n;
  fg_profile_init(&b);
  fg_profile_init(&n);
  int rc = fg_profile_add_thread(&n, 0, "all") < 0 || fg_profile_add_thread(&b, 0, "all") < 0 ? -1 : 0;
  for (size_t i = 0; rc == 0 && i < a->nnew; i++)
    rc = fg_profile_append(&n, &next[i]);
  for (uint32_t i = 0; rc == 0 && i < n.nnames; i++)
    if (fg_profile_intern(&b, n.names[i], (enum fg_frame_kind)n.kinds[i]) != (int64_t)i)
      rc = -1;
  for (size_t i = 0; rc == 0 && i < a->nbase; i++)
    rc = fg_profile_append(&b, &base[i]);
  char err[4400] = "fgagent: out of memory";
  struct diff_page page = {&b, &n, a->title};
  if (rc == 0)
    rc = fg_write_file_atomically(a->html, write_diff_page, &page, err, sizeof err);
  if (rc != 0)
    fprintf(stderr, "fgprof diff: %s\n", err + (strncmp(err, "fgagent: ", 9) == 0 ? 9 : 0));
  fg_profile_free(&b);
  fg_profile_free(&n);
  return rc;
}

int fg_cmd_diff(int argc, char **argv)
{
  struct diff_args a;
  int rc = parse(argc, argv, &a);
  if (rc != 0)
    return rc;
  struct fg_profile *base = calloc(a.nbase, sizeof *base), *next = calloc(a.nnew, sizeof *next);
  struct fg_diff d = {0};
  rc = base && next ? 0 : 2;
  if (rc == 0 && (read_runs(a.base, a.nbase, base, a.event, a.base_from, a.base_to) != 0 ||
                  read_runs(a.new_runs, a.nnew, next, a.event, a.from, a.to) != 0))
    rc = 2;
  if (rc == 0 && fg_diff_compute(base, a.nbase, next, a.nnew, &a.options, &d) != 0) {
    fprintf(stderr, "fgprof diff: out of memory\n");
    rc = 2;
  }
  if (rc == 0) {
    int written = a.json ? fg_diff_write_json(stdout, &d) : fg_diff_write_text(stdout, &d, 12);
    if (written != 0 || fflush(stdout) != 0)
      rc = 2;
  }
  if (rc == 0 && a.html && write_html(&a, base, next) != 0)
    rc = 2;
  if (rc == 0)
    rc = d.slower || d.paths_slower ? 1 : 0;
  fg_diff_free(&d);
  for (size_t i = 0; base && i < a.nbase; i++)
    fg_profile_free(&base[i]);
  for (size_t i = 0; next && i < a.nnew; i++)
    fg_profile_free(&next[i]);
  free(base);
  free(next);
  return rc;
}
