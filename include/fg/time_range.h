/* A time range of a recording (fgprof's --from and --to): the samples taken
 * in it, as a profile of their own. */
#ifndef FG_TIME_RANGE_H
#define FG_TIME_RANGE_H

#include <stdint.h>

struct fg_profile;

enum fg_time_kind {
  FG_TIME_FROM_START,   /* "2.5s", "90s", "1m30s", "500ms": after the recording's start */
  FG_TIME_FROM_END,     /* "-10s": before its end */
  FG_TIME_OF_DAY,       /* "14:03", "14:03:10.250": local time on the recording's day */
  FG_TIME_EPOCH,        /* "2026-12-06T14:03:10" (local time), "...Z", "...+01:00" */
};

struct fg_time_spec {
  enum fg_time_kind kind;
  uint64_t ns;          /* the offset, the time of day, or ns since 1970 */
};

/* 0, or -1 when text is none of the forms above. */
int fg_parse_time_spec(const char *text, struct fg_time_spec *out);

/* The ns since 1970 spec stands for in a recording from start to end (ns
 * since 1970). A time of day is on the start's local day, or the next day's
 * when that falls before the start and the recording runs past midnight. */
uint64_t fg_time_spec_epoch(const struct fg_time_spec *spec, uint64_t start, uint64_t end);

/* dst (uninitialised) becomes src's samples taken in [from, to) (ns since
 * 1970), their stacks, names and threads; its start and length the range's
 * within the recording. *untimed: the samples src holds without a time
 * (past its timeline's room), left out. 0, or -1 when out of memory. */
int fg_profile_time_range(const struct fg_profile *src, uint64_t from, uint64_t to, struct fg_profile *dst,
                          uint64_t *untimed);

/* The range from_text to to_text (either NULL: the recording's start or
 * end) of p's recording, in ns since 1970 (*to_ns UINT64_MAX: to its last
 * sample), for fgprof command. 0, or 2 with one line on stderr saying what
 * was wrong and what is accepted. */
int fg_time_range_bounds(const struct fg_profile *p, const char *from_text, const char *to_text, const char *source,
                         const char *command, uint64_t *from_ns, uint64_t *to_ns);

/* p replaced by its samples from from_text to to_text (either NULL: the
 * recording's start or end), for fgprof command (its messages). 0, or 2
 * with one line on stderr saying what was wrong and what is accepted. */
int fg_apply_time_range(struct fg_profile *p, const char *from_text, const char *to_text, const char *source,
                        const char *command);

#endif
