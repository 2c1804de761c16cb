/* Compares two sets of profiling runs frame by frame (has any frame's own
 * share of the samples grown or shrunk beyond noise?) and call path by call
 * path (has the share of samples through a path from the root grown or
 * shrunk: a caller now spending more in a shared helper, whose own share
 * barely moves). Pure: profiles in, a verdict out; fgprof diff prints it. */
#ifndef FG_DIFF_H
#define FG_DIFF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct fg_profile;

struct fg_diff_options {
  double threshold_pct;    /* least relative change of a frame's self share that counts (10) */
  double min_points;       /* least absolute change, in percentage points (0.5) */
  double alpha;            /* significance level (0.01) */
};

enum fg_change {
  FG_CHANGE_NONE,          /* within noise or under the thresholds */
  FG_CHANGE_SLOWER,        /* its self share grew: a regression */
  FG_CHANGE_FASTER,        /* its self share shrank: an improvement */
  FG_CHANGE_NEW,           /* absent from every base run; counts as a regression */
  FG_CHANGE_GONE,          /* absent from every new run; counts as an improvement */
  FG_CHANGE_RENAMED,       /* new, with a gone frame of the same method or class and share */
};

struct fg_diff_row {
  char *name;
  double base_self, new_self;     /* mean share of samples with this frame on top */
  double base_total, new_total;   /* mean share of samples with this frame anywhere */
  double change_pct;              /* relative change of the self share; +inf for new */
  double p;                       /* two-sided p of the self share's change */
  enum fg_change change;
  char *counterpart;              /* RENAMED: the gone frame it replaces */
};

/* A call path whose total share changed, the deepest such along its chain:
 * none of its callees' paths carries half of its change the same way. */
struct fg_path_row {
  char **frames;                  /* root first; thread roots left out, lambda and hidden class addresses too */
  size_t nframes;
  char *self_in;                  /* the frame at or under the path's end whose self share moved most that way */
  double self_points;             /* that move, in points of the self share */
  double base_total, new_total;   /* mean share of samples through the path */
  double change_pct;              /* relative change of that share; +inf for new */
  double p;                       /* two-sided p of its change */
  enum fg_change change;          /* SLOWER, FASTER, NEW or GONE */
};

struct fg_diff {
  struct fg_diff_row *rows;       /* every frame, largest absolute self change first */
  size_t nrows;
  struct fg_path_row *paths;      /* the changed call paths, largest absolute change first */
  size_t npaths;
  size_t paths_slower, paths_faster;
  size_t base_runs, new_runs;
  double base_samples, new_samples; /* mean samples per run */
  bool welch;                     /* Welch's t-test; else the two-proportion z-test */
  size_t slower, faster;          /* regressions (incl. new), improvements (incl. gone) */
  struct fg_diff_options options;
};

/* 0, or -1 when out of memory. Runs of a side are weighted alike. A
 * regression: a frame or a call path slower (or new). */
int fg_diff_compute(const struct fg_profile *base, size_t nbase, const struct fg_profile *new_runs,
                    size_t nnew, const struct fg_diff_options *options, struct fg_diff *d);
void fg_diff_free(struct fg_diff *d);

const char *fg_change_name(enum fg_change c);

/* What fg_diff_compute uses for frames and call paths alike: the p of a
 * share's change between the first nbase runs and the next nnew (counts[r]
 * of samples[r]): Welch's t-test over the runs' shares with two or more runs
 * a side, else the two-proportion z-test on the pooled counts. */
double fg_diff_share_p(const double *counts, const double *samples, size_t nbase, size_t nnew);
/* The mean over runs from..from+n of counts[r] / samples[r]. */
double fg_diff_mean_share(const double *counts, const double *samples, size_t from, size_t n);
/* The change of a share from base to new (means), p its p. */
enum fg_change fg_diff_classify(double base, double next, double p, const struct fg_diff_options *o);

/* The call paths part of fg_diff_compute, run after the frames; 0 or -1. */
int fg_diff_call_paths(const struct fg_profile *base, size_t nbase, const struct fg_profile *new_runs, size_t nnew,
                       struct fg_diff *d);
void fg_diff_free_paths(struct fg_diff *d);

/* A short table for a CI log: the verdict, then the changed frames and the
 * largest movers. 0, or -1 when a write failed. */
int fg_diff_write_text(FILE *out, const struct fg_diff *d, size_t max_rows);
/* The verdict for machines. */
int fg_diff_write_json(FILE *out, const struct fg_diff *d);

#endif
