/* fgprof's --from and --to: a time written as a user writes it, and the
 * samples of a recording taken between two of them (fg/time_range.h). */
#include "fg/time_range.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fg/profile.h"

#define NS_PER_S 1000000000ull

/* Digits at *s as a whole number and up to 9 digits of a fraction, in
 * units of 1e-9: "2.5" -> 2500000000. -1 when there is no digit or it is
 * past 2^63 ns. */
static int decimal(const char **s, uint64_t *nano)
{
  const char *p = *s;
  uint64_t whole = 0, frac = 0;
  int digits = 0;
  for (; *p >= '0' && *p <= '9'; p++, digits++) {
    if (whole > (UINT64_MAX / 10 - 10))
      return -1;
    whole = whole * 10 + (uint64_t)(*p - '0');
  }
  if (*p == '.') {
    p++;
    uint64_t scale = 100000000;
    for (; *p >= '0' && *p <= '9'; p++, digits++) {
      frac += (uint64_t)(*p - '0') * scale;
      scale /= 10;
    }
  }
  if (digits == 0 || whole > INT64_MAX / NS_PER_S)
    return -1;
  *nano = whole * NS_PER_S + frac;
  *s = p;
  return 0;
}

/* "1h2m3.5s", "500ms", "90s": a sum of numbers with units. */
static int duration(const char *s, uint64_t *ns)
{
  static const struct { const char *unit; uint64_t num, den; } units[] = {   /* ms before m */
    {"ms", 1, 1000}, {"us", 1, 1000000}, {"ns", 1, NS_PER_S}, {"h", 3600, 1}, {"m", 60, 1}, {"s", 1, 1},
  };
  uint64_t total = 0;
  if (!*s)
    return -1;
  while (*s) {
    uint64_t nano;
    if (decimal(&s, &nano) != 0)
      return -1;
    size_t u = 0;
    while (u < sizeof units / sizeof units[0] && strncmp(s, units[u].unit, strlen(units[u].unit)) != 0)
      u++;
    if (u == sizeof units / sizeof units[0])
      return -1;
    s += strlen(units[u].unit);
    if (nano > INT64_MAX / units[u].num)
      return -1;
    uint64_t add = nano * units[u].num / units[u].den;
    if (add > INT64_MAX - total)
      return -1;
    total += add;
  }
  *ns = total;
  return 0;
}

/* "HH:MM[:SS[.frac]]" at *s into seconds since midnight (in ns). */
static int clock_time(const char **s, uint64_t *ns)
{
  const char *p = *s;
  unsigned h, m;
  int n = 0;
  if (sscanf(p, "%2u:%2u%n", &h, &m, &n) != 2 || n < 4 || h > 23 || m > 59 || p[n - 3] != ':')
    return -1;
  p += n;
  uint64_t sec = 0;
  if (*p == ':') {
    p++;
    if (!(p[0] >= '0' && p[0] <= '9' && p[1] >= '0' && p[1] <= '9'))
      return -1;
    if (decimal(&p, &sec) != 0 || sec >= 61 * NS_PER_S)
      return -1;
  }
  *ns = ((uint64_t)h * 3600 + (uint64_t)m * 60) * NS_PER_S + sec;
  *s = p;
  return 0;
}

int fg_parse_time_spec(const char *text, struct fg_time_spec *out)
{
  if (!text || !*text)
    return -1;
  const char *s = text;
  unsigned y, mo, d;
  int n = 0;
  if (sscanf(s, "%4u-%2u-%2u%n", &y, &mo, &d, &n) == 3 && n == 10 && (s[10] == 'T' || s[10] == ' ')) {
    s += 11;
    uint64_t tod;
    if (y < 1970 || mo < 1 || mo > 12 || d < 1 || d > 31 || clock_time(&s, &tod) != 0)
      return -1;
    struct tm tm = {.tm_year = (int)y - 1900, .tm_mon = (int)mo - 1, .tm_mday = (int)d,
                    .tm_hour = (int)(tod / NS_PER_S / 3600), .tm_min = (int)(tod / NS_PER_S / 60 % 60),
                    .tm_sec = (int)(tod / NS_PER_S % 60), .tm_isdst = -1};
    time_t t;
    if (*s == '\0') {
      t = mktime(&tm);   /* local time */
    } else {
      int64_t offset = 0;
      if (*s == 'Z') {
        s++;
      } else if (*s == '+' || *s == '-') {
        unsigned oh, om = 0;
        int k = 0;
        if (sscanf(s + 1, "%2u%n", &oh, &k) != 1 || k != 2)
          return -1;
        const char *q = s + 3;
        if (*q == ':')
          q++;
        if (*q && (sscanf(q, "%2u%n", &om, &k) != 1 || k != 2 || q[2]))
          return -1;
        offset = (int64_t)(oh * 3600 + om * 60) * (*s == '-' ? -1 : 1);
        s = q + (*q ? 2 : 0);
      }
      if (*s)
        return -1;
      t = timegm(&tm) - offset;
    }
    if (t < 0 || (uint64_t)t > UINT64_MAX / NS_PER_S - 1)   /* past 2554: not a time in ns */
      return -1;
    *out = (struct fg_time_spec){FG_TIME_EPOCH, (uint64_t)t * NS_PER_S + tod % NS_PER_S};
    return 0;
  }
  if (strchr(s, ':')) {
    uint64_t tod;
    if (clock_time(&s, &tod) != 0 || *s)
      return -1;
    *out = (struct fg_time_spec){FG_TIME_OF_DAY, tod};
    return 0;
  }
  enum fg_time_kind kind = *s == '-' ? FG_TIME_FROM_END : FG_TIME_FROM_START;
  uint64_t ns;
  if (duration(s + (kind == FG_TIME_FROM_END), &ns) != 0)
    return -1;
  *out = (struct fg_time_spec){kind, ns};
  return 0;
}

uint64_t fg_time_spec_epoch(const struct fg_time_spec *spec, uint64_t start, uint64_t end)
{
  switch (spec->kind) {
  case FG_TIME_FROM_START: return start + spec->ns;
  case FG_TIME_FROM_END: return spec->ns > end ? 0 : end - spec->ns;
  case FG_TIME_EPOCH: return spec->ns;
  case FG_TIME_OF_DAY: break;
  }
  time_t t0 = (time_t)(start / NS_PER_S);
  struct tm tm;
  localtime_r(&t0, &tm);
  uint64_t sec = spec->ns / NS_PER_S;
  tm.tm_hour = (int)(sec / 3600);
  tm.tm_min = (int)(sec / 60 % 60);
  tm.tm_sec = (int)(sec % 60);
  tm.tm_isdst = -1;
  time_t t = mktime(&tm);
  uint64_t at = t < 0 || (uint64_t)t > UINT64_MAX / NS_PER_S - 1 ? 0 : (uint64_t)t * NS_PER_S + spec->ns % NS_PER_S;
  if (at < start) {   /* past midnight in a recording that ran through it */
    tm.tm_mday++;
    tm.tm_isdst = -1;
    t = mktime(&tm);
    uint64_t next = t < 0 || (uint64_t)t > UINT64_MAX / NS_PER_S - 1 ? 0 : (uint64_t)t * NS_PER_S + spec->ns % NS_PER_S;
    if (next <= end)
      at = next;
  }
  return at;
}

int fg_profile_time_range(const struct fg_profile *src, uint64_t from, uint64_t to, struct fg_profile *dst,
                          uint64_t *untimed)
{
  if (fg_profile_copy_frame(dst, src) != 0)
    return -1;
  const struct fg_stats *st = &src->stats;
  uint64_t *timed = calloc(src->nstacks ? src->nstacks : 1, sizeof *timed);
  if (!timed)
    return -1;
  int rc = 0;
  for (uint32_t i = 0; rc == 0 && i < src->timeline.n; i++) {
    const struct fg_timeline_entry *e = &src->timeline.entries[i];
    if (e->stack >= src->nstacks)
      continue;
    const struct fg_stack *s = &src->stacks[e->stack];
    uint64_t w = e->weight ? e->weight : 1;
    if (w > s->count - timed[e->stack])
      w = s->count - timed[e->stack];
    timed[e->stack] += w;
    /* the timeline's clock is the profile's own: start_ns was start_epoch_ns */
    uint64_t at = e->time_ns >= st->start_ns ? st->start_epoch_ns + (e->time_ns - st->start_ns) : st->start_epoch_ns;
    if (w == 0 || at < from || at >= to)
      continue;
    int64_t k = fg_profile_event_stack(dst, (enum fg_stack_event)s->event, s->thread, fg_stack_frames(src, s),
                                       s->nframes);
    if (k < 0) {
      rc = -1;
      break;
    }
    fg_profile_count(dst, (uint32_t)k, w, e->time_ns, e->cpu);
    if (s->event != FG_STACK_CPU && s->count)   /* the objects or waits its share of the weight stands for */
      dst->stacks[k].events += (uint64_t)((double)s->events * (double)w / (double)s->count + 0.5);
  }
  uint64_t left = 0;
  for (uint32_t i = 0; i < src->nstacks; i++)
    left += src->stacks[i].count - timed[i];
  free(timed);
  *untimed = left;
  uint64_t end = st->start_epoch_ns + st->wall_ns;
  uint64_t a = from > st->start_epoch_ns ? from : st->start_epoch_ns, b = to < end ? to : end;
  dst->stats.start_ns = st->start_ns + (a - st->start_epoch_ns);
  dst->stats.start_epoch_ns = a;
  dst->stats.wall_ns = b > a ? b - a : 0;
  return rc;
}

/* "2026-12-06 14:03:10.250" in local time, for messages. */
static void local_text(uint64_t ns, char *out, size_t len)
{
  time_t t = (time_t)(ns / NS_PER_S);
  struct tm tm;
  char day[32] = "?";
  if (localtime_r(&t, &tm))
    strftime(day, sizeof day, "%Y-%m-%d %H:%M:%S", &tm);
  snprintf(out, len, "%s.%03u", day, (unsigned)(ns % NS_PER_S / 1000000));
}

int fg_time_range_bounds(const struct fg_profile *p, const char *from_text, const char *to_text, const char *source,
                         const char *command, uint64_t *from_ns, uint64_t *to_ns)
{
  static const char accepted[] = "accepted: a time after the recording's start (2.5s, 90s, 1m30s, 500ms), "
                                 "before its end (-10s), a local time of day (14:03, 14:03:10.5) or a date and "
                                 "time (2026-12-06T14:03:10, with Z or +01:00 for another zone)";
  struct fg_time_spec from = {FG_TIME_FROM_START, 0}, to = {FG_TIME_FROM_END, 0};
  if (from_text && fg_parse_time_spec(from_text, &from) != 0) {
    fprintf(stderr, "fgprof %s: --from '%s' is not a time; %s\n", command, from_text, accepted);
    return 2;
  }
  if (to_text && fg_parse_time_spec(to_text, &to) != 0) {
    fprintf(stderr, "fgprof %s: --to '%s' is not a time; %s\n", command, to_text, accepted);
    return 2;
  }
  const struct fg_stats *st = &p->stats;
  if (!st->start_epoch_ns || p->timeline.n == 0) {
    fprintf(stderr, "fgprof %s: %s has no sample times; accepted: --from and --to with a JFR recording or an "
            ".otlp file, whose samples have their times\n", command, source);
    return 2;
  }
  uint64_t start = st->start_epoch_ns, end = start + st->wall_ns;
  /* no --to: to the last sample, those at the recording's very end included */
  uint64_t a = fg_time_spec_epoch(&from, start, end), b = to_text ? fg_time_spec_epoch(&to, start, end) : UINT64_MAX;
  char ta[64], tb[64], ts[64], te[64];
  local_text(a, ta, sizeof ta);
  local_text(b == UINT64_MAX ? end : b, tb, sizeof tb);
  local_text(start, ts, sizeof ts);
  local_text(end, te, sizeof te);
  if (a >= b) {
    fprintf(stderr, "fgprof %s: --from (%s) is not before --to (%s); accepted: a range within the recording, "
            "%s to %s\n", command, ta, tb, ts, te);
    return 2;
  }
  *from_ns = a;
  *to_ns = b;
  return 0;
}

int fg_apply_time_range(struct fg_profile *p, const char *from_text, const char *to_text, const char *source,
                        const char *command)
{
  uint64_t a, b;
  int rc = fg_time_range_bounds(p, from_text, to_text, source, command, &a, &b);
  if (rc != 0)
    return rc;
  const struct fg_stats *st = &p->stats;
  uint64_t start = st->start_epoch_ns, end = start + st->wall_ns;
  char ta[64], tb[64], ts[64], te[64];
  local_text(a, ta, sizeof ta);
  local_text(b == UINT64_MAX ? end : b, tb, sizeof tb);
  local_text(start, ts, sizeof ts);
  local_text(end, te, sizeof te);
  struct fg_profile range;
  uint64_t untimed = 0;
  if (fg_profile_time_range(p, a, b, &range, &untimed) != 0) {
    fg_profile_free(&range);
    fprintf(stderr, "fgprof %s: out of memory\n", command);
    return 2;
  }
  if (range.nstacks == 0) {
    fprintf(stderr, "fgprof %s: %s has no sample from %s to %s; accepted: a range within the recording, %s to "
            "%s\n", command, source, ta, tb, ts, te);
    fg_profile_free(&range);
    return 2;
  }
  if (untimed)
    fprintf(stderr, "fgprof %s: %s: %" PRIu64 " samples without a time (past the first %u the reader keeps in "
            "time order) are left out of the range\n", command, source, untimed, p->timeline.max);
  fg_profile_free(p);
  *p = range;
  return 0;
}
