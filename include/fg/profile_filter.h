/* Profile transformations behind fgprof's --include, --exclude, --reverse. */
#ifndef FG_PROFILE_FILTER_H
#define FG_PROFILE_FILTER_H

#include <regex.h>
#include <stdbool.h>

struct fg_profile;

struct fg_filter {
  const regex_t *include;   /* keep only stacks with a frame that matches; NULL: all */
  const regex_t *exclude;   /* then drop stacks with a frame that matches; NULL: none */
  bool reverse;             /* leaf first: the callers of each leaf, merged */
};

/* dst (uninitialised) becomes src filtered; names, threads and stats carry
 * over (stats.taken counts the samples kept). 0, or -1 when out of memory. */
int fg_profile_filter(const struct fg_profile *src, const struct fg_filter *f, struct fg_profile *dst);

#endif
