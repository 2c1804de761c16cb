/* fgprof diff's engine; see fg/diff.h. */
#include "fg/diff.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fg/profile.h"
#include "fg/significance.h"
#include "output/json_text.h"

/* Per frame name, per run: samples with it on top (self) and anywhere (total). */
struct counts {
  struct fg_profile names;    /* just a name table: every frame of every run */
  double *self, *total;       /* [name * runs + run] */
  double *run_samples;        /* [run] */
  size_t runs, cap_names;
};

static int grow_counts(struct counts *c)
{
  if (c->names.nnames <= c->cap_names)
    return 0;
  size_t cap = c->cap_names ? c->cap_names : 256;
  while (cap < c->names.nnames)
    cap *= 2;
  double *self = realloc(c->self, cap * c->runs * sizeof *self);
  if (!self)
    return -1;
  c->self = self;
  double *total = realloc(c->total, cap * c->runs * sizeof *total);
  if (!total)
    return -1;
  c->total = total;
  memset(c->self + c->cap_names * c->runs, 0, (cap - c->cap_names) * c->runs * sizeof *self);
  memset(c->total + c->cap_names * c->runs, 0, (cap - c->cap_names) * c->runs * sizeof *total);
  c->cap_names = cap;
  return 0;
}

static int count_run(struct counts *c, const struct fg_profile *p, size_t run)
{
  uint32_t *ids = malloc((p->nnames ? p->nnames : 1) * sizeof *ids);
  uint32_t *seen = calloc(p->nnames ? p->nnames : 1, sizeof *seen);   /* stack number + 1 */
  if (!ids || !seen) {
    free(ids);
    free(seen);
    return -1;
  }
  int rc = 0;
  for (uint32_t i = 0; rc == 0 && i < p->nnames; i++) {
    int64_t id = fg_profile_intern(&c->names, p->names[i], FG_KIND_JAVA);
    if (id < 0)
      rc = -1;
    else
      ids[i] = (uint32_t)id;
  }
  if (rc == 0)
    rc = grow_counts(c);
  for (uint32_t s = 0; rc == 0 && s < p->nstacks; s++) {
    const struct fg_stack *st = &p->stacks[s];
    const uint32_t *frames = fg_stack_frames(p, st);
    c->run_samples[run] += (double)st->count;
    for (uint32_t f = 0; f < st->nframes; f++) {
      if (seen[frames[f]] == s + 1)
        continue;                       /* a recursive frame counts once per stack */
      seen[frames[f]] = s + 1;
      c->total[ids[frames[f]] * c->runs + run] += (double)st->count;
    }
    if (st->nframes > 0)
      c->self[ids[frames[st->nframes - 1]] * c->runs + run] += (double)st->count;
  }
  free(ids);
  free(seen);
  return rc;
}

double fg_diff_mean_share(const double *counts, const double *samples, size_t from, size_t n)
{
  double m = 0;
  for (size_t r = from; r < from + n; r++)
    m += samples[r] > 0 ? counts[r] / samples[r] : 0;
  return m / (double)n;
}

double fg_diff_share_p(const double *counts, const double *samples, size_t nbase, size_t nnew)
{
  if (nbase >= 2 && nnew >= 2) {
    double x[nbase], y[nnew], t, df;
    for (size_t r = 0; r < nbase; r++)
      x[r] = samples[r] > 0 ? counts[r] / samples[r] : 0;
    for (size_t r = 0; r < nnew; r++)
      y[r] = samples[nbase + r] > 0 ? counts[nbase + r] / samples[nbase + r] : 0;
    return fg_welch_p(x, nbase, y, nnew, &t, &df);
  }
  double kb = 0, nb = 0, kn = 0, nn = 0, z;
  for (size_t r = 0; r < nbase; r++) {
    kb += counts[r];
    nb += samples[r];
  }
  for (size_t r = nbase; r < nbase + nnew; r++) {
    kn += counts[r];
    nn += samples[r];
  }
  return fg_two_proportion_p((uint64_t)kb, (uint64_t)nb, (uint64_t)kn, (uint64_t)nn, &z);
}

enum fg_change fg_diff_classify(double base, double next, double p, const struct fg_diff_options *o)
{
  double points = (next - base) * 100.0;
  if (fabs(points) < o->min_points || p >= o->alpha)
    return FG_CHANGE_NONE;
  if (base == 0)
    return FG_CHANGE_NEW;
  if (next == 0)
    return FG_CHANGE_GONE;
  if (fabs((next / base - 1) * 100) < o->threshold_pct)
    return FG_CHANGE_NONE;
  return points > 0 ? FG_CHANGE_SLOWER : FG_CHANGE_FASTER;
}

/* A frame's change is judged on its self share; new and gone by its total
 * (a self share from or to 0 of a frame on both sides is slower or faster). */
static enum fg_change classify(const struct fg_diff_row *r, const struct fg_diff_options *o)
{
  enum fg_change c = fg_diff_classify(r->base_self, r->new_self, r->p, o);
  if (c == FG_CHANGE_NONE)
    return c;
  if (r->base_total == 0)
    return FG_CHANGE_NEW;
  if (r->new_total == 0)
    return FG_CHANGE_GONE;
  return c == FG_CHANGE_NEW ? FG_CHANGE_SLOWER : c == FG_CHANGE_GONE ? FG_CHANGE_FASTER : c;
}

/* "pkg/Class.method" -> the part after the last '.', and the part before it. */
static int same_method_or_class(const char *a, const char *b)
{
  const char *da = strrchr(a, '.'), *db = strrchr(b, '.');
  if (!da || !db)
    return 0;
  return strcmp(da, db) == 0 || (da - a == db - b && strncmp(a, b, (size_t)(da - a)) == 0);
}

/* A new frame standing where a gone one stood: same method name or class, a
 * self share within a factor of 1.5. Both become RENAMED / not counted. */
static void pair_renames(struct fg_diff *d)
{
  for (size_t i = 0; i < d->nrows; i++) {
    struct fg_diff_row *n = &d->rows[i];
    if (n->change != FG_CHANGE_NEW)
      continue;
    for (size_t k = 0; k < d->nrows; k++) {
      struct fg_diff_row *g = &d->rows[k];
      double ratio = g->base_self > 0 ? n->new_self / g->base_self : 0;
      if (g->change != FG_CHANGE_GONE || ratio < 1 / 1.5 || ratio > 1.5 ||
          !same_method_or_class(n->name, g->name))
        continue;
      n->change = FG_CHANGE_RENAMED;
      n->counterpart = strdup(g->name);
      g->change = FG_CHANGE_NONE;
      break;
    }
  }
}

static int by_change(const void *a, const void *b)
{
  const struct fg_diff_row *x = a, *y = b;
  double dx = fabs(x->new_self - x->base_self), dy = fabs(y->new_self - y->base_self);
  if (dx != dy)
    return dx > dy ? -1 : 1;
  return strcmp(x->name, y->name);
}

int fg_diff_compute(const struct fg_profile *base, size_t nbase, const struct fg_profile *new_runs,
                    size_t nnew, const struct fg_diff_options *options, struct fg_diff *d)
{
  memset(d, 0, sizeof *d);
  d->options = *options;
  d->base_runs = nbase;
  d->new_runs = nnew;
  d->welch = nbase >= 2 && nnew >= 2;
  struct counts c = {0};
  fg_profile_init(&c.names);
  c.runs = nbase + nnew;
  c.run_samples = calloc(c.runs, sizeof *c.run_samples);
  int rc = c.run_samples ? 0 : -1;
  for (size_t r = 0; rc == 0 && r < c.runs; r++)
    rc = count_run(&c, r < nbase ? &base[r] : &new_runs[r - nbase], r);
  if (rc == 0 && !(d->rows = calloc(c.names.nnames ? c.names.nnames : 1, sizeof *d->rows)))
    rc = -1;
  for (uint32_t name = 0; rc == 0 && name < c.names.nnames; name++) {
    struct fg_diff_row *row = &d->rows[d->nrows++];
    const double *self = c.self + (size_t)name * c.runs, *total = c.total + (size_t)name * c.runs;
    row->name = strdup(c.names.names[name]);
    row->base_self = fg_diff_mean_share(self, c.run_samples, 0, nbase);
    row->new_self = fg_diff_mean_share(self, c.run_samples, nbase, nnew);
    row->base_total = fg_diff_mean_share(total, c.run_samples, 0, nbase);
    row->new_total = fg_diff_mean_share(total, c.run_samples, nbase, nnew);
    row->change_pct = row->base_self > 0 ? (row->new_self / row->base_self - 1) * 100
                      : (row->new_self > 0 ? INFINITY : 0);
    row->p = fg_diff_share_p(self, c.run_samples, nbase, nnew);
    row->change = classify(row, options);
    if (!row->name)
      rc = -1;
  }
  if (rc == 0) {
    for (size_t r = 0; r < nbase; r++)
      d->base_samples += c.run_samples[r] / (double)nbase;
    for (size_t r = nbase; r < c.runs; r++)
      d->new_samples += c.run_samples[r] / (double)nnew;
    pair_renames(d);
    qsort(d->rows, d->nrows, sizeof *d->rows, by_change);
    for (size_t i = 0; i < d->nrows; i++) {
      enum fg_change ch = d->rows[i].change;
      d->slower += ch == FG_CHANGE_SLOWER || ch == FG_CHANGE_NEW;
      d->faster += ch == FG_CHANGE_FASTER || ch == FG_CHANGE_GONE;
    }
    rc = fg_diff_call_paths(base, nbase, new_runs, nnew, d);
  }
  fg_profile_free(&c.names);
  free(c.self);
  free(c.total);
  free(c.run_samples);
  return rc;
}

void fg_diff_free(struct fg_diff *d)
{
  for (size_t i = 0; i < d->nrows; i++) {
    free(d->rows[i].name);
    free(d->rows[i].counterpart);
  }
  free(d->rows);
  fg_diff_free_paths(d);
  memset(d, 0, sizeof *d);
}

const char *fg_change_name(enum fg_change c)
{
  static const char *const names[] = {"same", "slower", "faster", "new", "gone", "renamed"};
  return (unsigned)c <= FG_CHANGE_RENAMED ? names[c] : "same";
}

static const char *verdict(const struct fg_diff *d)
{
  return d->slower || d->paths_slower ? "regression" : d->faster || d->paths_faster ? "improvement" : "no_change";
}

/* A relative change as the tables show it: "+13.4%", or "new". */
static const char *change_text(char *buf, size_t len, double change_pct)
{
  if (isinf(change_pct))
    snprintf(buf, len, "new");
  else
    snprintf(buf, len, "%+.1f%%", change_pct);
  return buf;
}

/* "  slower   +51.0%  10.10% -> 15.20%  2e-05  A > B > C; self time in C (+5.0 points)" */
static int put_path(FILE *out, const struct fg_path_row *r)
{
  char change[16];
  if (fprintf(out, "  %-8s %7s  %6.2f%% -> %6.2f%%  %-8.2g ", fg_change_name(r->change),
              change_text(change, sizeof change, r->change_pct), r->base_total * 100, r->new_total * 100, r->p) < 0)
    return -1;
  for (size_t i = 0; i < r->nframes; i++)
    if (fprintf(out, "%s%s", i ? " > " : "", r->frames[i]) < 0)
      return -1;
  return fprintf(out, "; self time in %s (%+.2f points)\n", r->self_in, r->self_points) < 0 ? -1 : 0;
}

static int put_row(FILE *out, const struct fg_diff_row *r)
{
  char change[16];
  if (fprintf(out, "  %-8s %7s  %6.2f%% -> %6.2f%%  %6.2f%% -> %6.2f%%  %-8.2g %s", fg_change_name(r->change),
              change_text(change, sizeof change, r->change_pct), r->base_self * 100, r->new_self * 100, r->base_total * 100, r->new_total * 100,
              r->p, r->name) < 0)
    return -1;
  if (r->counterpart && fprintf(out, " (was %s)", r->counterpart) < 0)
    return -1;
  return fputc('\n', out) == EOF ? -1 : 0;
}

int fg_diff_write_text(FILE *out, const struct fg_diff *d, size_t max_rows)
{
  const struct fg_diff_options *o = &d->options;
  if (fprintf(out, "fgprof diff: %zu base run%s (%.0f samples each), %zu new run%s (%.0f samples each)\n"
                   "test: %s on each frame's self share; a change counts at %.3g%% relative, "
                   "%.2g points absolute, p < %.3g\n",
              d->base_runs, d->base_runs == 1 ? "" : "s", d->base_samples, d->new_runs,
              d->new_runs == 1 ? "" : "s", d->new_samples,
              d->welch ? "Welch's t-test over the runs' shares"
                       : "two-proportion z-test (one run a side: run-to-run noise not measured)",
              o->threshold_pct, o->min_points, o->alpha) < 0)
    return -1;
  const char *v = verdict(d);
  if (fprintf(out, "verdict: %s (%zu frame%s slower, %zu faster; %zu call path%s slower, %zu faster)\n\n"
                   "  status    change    self base -> new     total base -> new   p        frame\n",
              strcmp(v, "regression") == 0 ? "REGRESSION" : strcmp(v, "improvement") == 0 ? "IMPROVEMENT" : "NO CHANGE",
              d->slower, d->slower == 1 ? "" : "s", d->faster, d->paths_slower, d->paths_slower == 1 ? "" : "s",
              d->paths_faster) < 0)
    return -1;
  /* every changed frame, then the largest movers up to max_rows */
  size_t shown = 0;
  for (size_t i = 0; i < d->nrows; i++)
    if (d->rows[i].change != FG_CHANGE_NONE && put_row(out, &d->rows[i]) == 0)
      shown++;
  for (size_t i = 0; i < d->nrows && shown < max_rows; i++)
    if (d->rows[i].change == FG_CHANGE_NONE && put_row(out, &d->rows[i]) == 0)
      shown++;
  if (d->npaths == 0)
    return 0;
  if (fputs("\ncall paths whose share of the samples changed (the deepest along each change):\n"
            "  status    change   total base -> new   p        path from the root\n", out) < 0)
    return -1;
  for (size_t i = 0; i < d->npaths; i++)
    if (put_path(out, &d->paths[i]) != 0)
      return -1;
  return 0;
}

static int put_json_number(FILE *out, double v)
{
  if (!isfinite(v))
    return fputs("null", out) < 0 ? -1 : 0;
  return fprintf(out, "%.6g", v) < 0 ? -1 : 0;
}

int fg_diff_write_json(FILE *out, const struct fg_diff *d)
{
  const struct fg_diff_options *o = &d->options;
  if (fprintf(out, "{\"verdict\":\"%s\",\"slower\":%zu,\"faster\":%zu,\"test\":\"%s\","
                   "\"threshold_pct\":%g,\"min_points\":%g,\"alpha\":%g,\"base_runs\":%zu,\"new_runs\":%zu,"
                   "\"frames\":[",
              verdict(d), d->slower, d->faster, d->welch ? "welch_t" : "two_proportion_z",
              o->threshold_pct, o->min_points, o->alpha, d->base_runs, d->new_runs) < 0)
    return -1;
  for (size_t i = 0; i < d->nrows; i++) {
    const struct fg_diff_row *r = &d->rows[i];
    if (fputs(i ? ",{\"name\":" : "{\"name\":", out) < 0 || fg_put_json_string(out, r->name) != 0 ||
        fprintf(out, ",\"status\":\"%s\",\"base_self\":", fg_change_name(r->change)) < 0 ||
        put_json_number(out, r->base_self) || fputs(",\"new_self\":", out) < 0 ||
        put_json_number(out, r->new_self) || fputs(",\"base_total\":", out) < 0 ||
        put_json_number(out, r->base_total) || fputs(",\"new_total\":", out) < 0 ||
        put_json_number(out, r->new_total) || fputs(",\"change_pct\":", out) < 0 ||
        put_json_number(out, r->change_pct) || fputs(",\"p\":", out) < 0 || put_json_number(out, r->p))
      return -1;
    if (r->counterpart && (fputs(",\"renamed_from\":", out) < 0 || fg_put_json_string(out, r->counterpart)))
      return -1;
    if (fputc('}', out) == EOF)
      return -1;
  }
  if (fprintf(out, "],\"paths_slower\":%zu,\"paths_faster\":%zu,\"paths\":[", d->paths_slower, d->paths_faster) < 0)
    return -1;
  for (size_t i = 0; i < d->npaths; i++) {
    const struct fg_path_row *r = &d->paths[i];
    if (fputs(i ? ",{\"path\":[" : "{\"path\":[", out) < 0)
      return -1;
    for (size_t f = 0; f < r->nframes; f++)
      if ((f && fputc(',', out) == EOF) || fg_put_json_string(out, r->frames[f]) != 0)
        return -1;
    if (fprintf(out, "],\"status\":\"%s\",\"base_total\":", fg_change_name(r->change)) < 0 ||
        put_json_number(out, r->base_total) || fputs(",\"new_total\":", out) < 0 ||
        put_json_number(out, r->new_total) || fputs(",\"change_pct\":", out) < 0 ||
        put_json_number(out, r->change_pct) || fputs(",\"p\":", out) < 0 || put_json_number(out, r->p) ||
        fputs(",\"self_in\":", out) < 0 || fg_put_json_string(out, r->self_in) != 0 ||
        fputs(",\"self_points\":", out) < 0 || put_json_number(out, r->self_points) || fputc('}', out) == EOF)
      return -1;
  }
  return fputs("]}\n", out) < 0 ? -1 : 0;
}
