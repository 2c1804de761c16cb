/* Parses the agent option string. Every bad option is rejected with one line
 * naming it, the value given and what is accepted: no silent defaults. */
#include "fg/options.h"
#include "fg/sample_record.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fg/error_line.h"
#include "fg/event_kinds.h"
#include "sampling/kernel_events/event_spec.h"
#include "fg/output.h"

/* The floor is what a machine like the test machines can serve. Each sample
 * costs the thread its timer's share (a per-thread perf cpu-clock timer: ~46 us
 * of CPU per ms on this VM) and the signal's delivery (~4 us) before any walk.
 * At 100 us that took a class-loading storm on Temurin 25 from 1.39 s to
 * 2.5-2.8 s (up to 2.3x in stress runs); at 200 us 2.1-2.2 s (1.5x), at 1 ms
 * 1.65 s (1.2x). Below 200 us the profiler would cost more than it shows. */
#define MIN_INTERVAL_NS 200000ull           /* 200 us */
#define MAX_KEVENT_PERIOD (1ull << 40)      /* interval=N of a kernel event: events between samples */
#define MAX_INTERVAL_NS 60000000000ull      /* 60 s */
#define MAX_DEPTH 65536
#define MIN_RING_BYTES 4096u
#define MAX_RING_BYTES (64u * 1024u * 1024u)
#define MIN_MEMLIMIT (256u * 1024u)   /* the trace table's first index (128 KiB) and a chunk fit */

/* Copies [s, s+n) into a NUL-terminated buffer. Returns -1 if it does not fit. */
static int copy_span(char *dst, size_t dstlen, const char *s, size_t n)
{
  if (n >= dstlen)
    return -1;
  memcpy(dst, s, n);
  dst[n] = '\0';
  return 0;
}

static int parse_u64(const char *s, uint64_t *out, const char **rest)
{
  if (*s < '0' || *s > '9')
    return -1;
  errno = 0;
  char *end;
  unsigned long long v = strtoull(s, &end, 10);
  if (errno != 0)
    return -1;
  *out = v;
  *rest = end;
  return 0;
}

/* A whole number with a unit ns, us, ms or s, up to 60 s. */
static int parse_time(const char *v, uint64_t *ns)
{
  static const struct { const char *unit; uint64_t scale; } units[] = {
    {"ns", 1}, {"us", 1000}, {"ms", 1000000}, {"s", 1000000000},
  };
  uint64_t n;
  const char *unit;
  if (parse_u64(v, &n, &unit) != 0)
    return -1;
  for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
    if (strcmp(unit, units[i].unit) == 0 && n <= MAX_INTERVAL_NS / units[i].scale)
      return *ns = n * units[i].scale, 0;
  return -1;
}

static int parse_interval(const char *v, uint64_t *ns)
{
  return parse_time(v, ns) == 0 && *ns >= MIN_INTERVAL_NS && *ns <= MAX_INTERVAL_NS ? 0 : -1;
}

/* loop=: a whole number of s, m or h, from 1 s to 24 h. */
static int parse_loop(const char *v, uint64_t *ns)
{
  static const struct { const char *unit; uint64_t scale; } units[] = {
    {"s", 1000000000ull}, {"m", 60000000000ull}, {"h", 3600000000000ull},
  };
  uint64_t n;
  const char *unit;
  if (parse_u64(v, &n, &unit) != 0)
    return -1;
  for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
    if (strcmp(unit, units[i].unit) == 0 && n >= 1 && n <= 86400000000000ull / units[i].scale) {
      *ns = n * units[i].scale;
      return *ns <= 86400000000000ull ? 0 : -1;
    }
  return -1;
}

/* lock=: 0, or a time up to 60 s. */
static int parse_duration(const char *v, uint64_t *ns)
{
  if (strcmp(v, "0") == 0)
    return *ns = 0, 0;
  return parse_time(v, ns);
}

static int parse_bool(const char *v, bool *out)
{
  static const char *const yes[] = {"", "true", "yes", "on", "1"};
  static const char *const no[] = {"false", "no", "off", "0"};
  for (size_t i = 0; i < sizeof yes / sizeof yes[0]; i++)
    if (strcmp(v, yes[i]) == 0)
      return *out = true, 0;
  for (size_t i = 0; i < sizeof no / sizeof no[0]; i++)
    if (strcmp(v, no[i]) == 0)
      return *out = false, 0;
  return -1;
}

/* A byte count with an optional k, m or (with_g) g suffix: 0, or -1 for
 * anything else. */
static int parse_bytes(const char *v, int with_g, uint64_t *n, uint64_t *scale)
{
  const char *suffix;
  if (parse_u64(v, n, &suffix) != 0)
    return -1;
  if (*suffix == '\0')
    *scale = 1;
  else if (strcmp(suffix, "k") == 0 || strcmp(suffix, "K") == 0)
    *scale = 1024;
  else if (strcmp(suffix, "m") == 0 || strcmp(suffix, "M") == 0)
    *scale = 1024 * 1024;
  else if (with_g && (strcmp(suffix, "g") == 0 || strcmp(suffix, "G") == 0))
    *scale = 1024ull * 1024 * 1024;
  else
    return -1;
  return 0;
}

/* N, Nk, Nm or Ng bytes, at least MIN_MEMLIMIT, or 0 for none. */
static int parse_limit(const char *v, uint64_t *out)
{
  uint64_t n, scale;
  if (parse_bytes(v, 1, &n, &scale) != 0 || n > (1ull << 50) / scale || (n > 0 && n * scale < MIN_MEMLIMIT))
    return -1;
  *out = n * scale;
  return 0;
}

static int parse_size(const char *v, size_t *out)
{
  uint64_t n, scale;
  if (parse_bytes(v, 0, &n, &scale) != 0)
    return -1;
  if (n > MAX_RING_BYTES / scale)
    return -1;
  n *= scale;
  if (n < MIN_RING_BYTES || (n & (n - 1)) != 0)
    return -1;
  *out = (size_t)n;
  return 0;
}

int fg_options_max_frames(const struct fg_options *o)
{
  /* as fg_walk_capacity: depth + 1 asked of ASGCT, the recovered frames before them */
  return o->depth + 1 + FG_MAX_RECOVERED_FRAMES + (o->cstack == FG_CSTACK_NATIVE ? FG_MAX_NATIVE_DEPTH : 0) +
         (o->kernel && (o->event == FG_EVENT_CPU || o->kevent[0][0]) ? FG_MAX_KERNEL_FRAMES : 0);
}

uint32_t fg_options_timeline_max(const struct fg_options *o)
{
  for (int i = 0; i < o->nfiles; i++)
    if (fg_format_holds_every_event(fg_format_for_path(o->files[i])))
      return FG_JFR_TIMELINE_MAX;   /* JFR and OTLP keep every sample's time */
  return o->timeline || o->sched ? FG_TIMELINE_MAX : 0;
}

uint32_t fg_options_marks_max(const struct fg_options *o)
{
  return fg_options_timeline_max(o) ? FG_MARKS_MAX : 0;
}

int fg_options_nevents(const struct fg_options *o)
{
  return o->cpu + o->alloc + o->lock + o->nativemem + o->nativelock + fg_options_nkevents(o);
}

int fg_options_nkevents(const struct fg_options *o)
{
  int n = 0;
  while (n < FG_KERNEL_EVENTS_MAX && o->kevent[n][0])
    n++;
  return n;
}

int fg_options_first_frames(const struct fg_options *o)
{
  int max = fg_options_max_frames(o);
  return max - o->depth + (o->depth < FG_FIRST_WALK_DEPTH ? o->depth : FG_FIRST_WALK_DEPTH);
}

static bool is_flag(const char *key)
{
  return strcmp(key, "threads") == 0 || strcmp(key, "lines") == 0 || strcmp(key, "ann") == 0 ||
         strcmp(key, "sched") == 0 || strcmp(key, "recover") == 0 || strcmp(key, "timeline") == 0 ||
         strcmp(key, "verify") == 0 || strcmp(key, "kernel") == 0 || strcmp(key, "leak") == 0;
}

#define ACCEPTED_KEYS "interval, event, clock, alloc, lock, depth, cstack, kernel, walker, ann, recover, verify, sched, " \
                      "timeline, live, " \
                      "wallthreads, " \
                      "threads, lines, ringsize, memlimit, loop, file, log, nativemem, leak, nativelock"

static int set_option(struct fg_options *o, const char *key, const char *value,
                      char *err, size_t errlen)
{
  if (strcmp(key, "interval") == 0) {
    uint64_t count;
    const char *unit;
    if (parse_u64(value, &count, &unit) == 0 && !*unit && count >= 1 && count <= MAX_KEVENT_PERIOD) {
      o->kevent_period = count;   /* no unit: a kernel event's count */
      return 0;
    }
    if (parse_interval(value, &o->interval_ns) != 0)
      return fg_error_line(err, errlen, "fgagent: option interval='%s' is not valid; accepted: a whole "
                  "number with a unit ns, us, ms or s, from 200us to 60s (e.g. interval=1ms); below 200us "
                  "the per-thread timer and the signals alone would take over 25%% of each thread's CPU; or, "
                  "for a kernel event, a whole number of events from 1 to 2^40 without a unit", value);
  } else if (strcmp(key, "alloc") == 0) {
    uint64_t n = FG_DEFAULT_ALLOC_BYTES, scale = 1;
    if (*value && (parse_bytes(value, 1, &n, &scale) != 0 || n > (1ull << 30) / scale))
      return fg_error_line(err, errlen, "fgagent: option alloc='%s' is not valid; accepted: alloc alone (a sample about "
                  "every 512k bytes a thread allocates), or alloc=SIZE in bytes with an optional k, m or g suffix, "
                  "up to 1g (alloc=0: every allocation)", value);
    o->alloc = true;
    o->alloc_bytes = n * scale;
  } else if (strcmp(key, "live") == 0) {
    if (*value)
      return fg_error_line(err, errlen, "fgagent: option live='%s' is not valid; accepted: live alone (with alloc or "
                  "alloc=SIZE for its sampling interval)", value);
    o->live = true;
  } else if (strcmp(key, "lock") == 0) {
    o->lock_ns = FG_DEFAULT_LOCK_NS;
    if (*value && parse_duration(value, &o->lock_ns) != 0)
      return fg_error_line(err, errlen, "fgagent: option lock='%s' is not valid; accepted: lock alone (waits of 10us and "
                  "longer), lock=0 (every contended wait), or lock=DURATION, a whole number with a unit ns, us, ms "
                  "or s, up to 60s (e.g. lock=1ms)", value);
    o->lock = true;
  } else if (strcmp(key, "nativemem") == 0) {
    uint64_t n = FG_DEFAULT_NATIVEMEM_BYTES, scale = 1;
    if (*value && (parse_bytes(value, 1, &n, &scale) != 0 || n > (1ull << 30) / scale))
      return fg_error_line(err, errlen, "fgagent: option nativemem='%s' is not valid; accepted: nativemem alone (a "
                  "sample about every 512k bytes a thread mallocs), or nativemem=SIZE in bytes with an optional k, m "
                  "or g suffix, up to 1g (nativemem=0: every call)", value);
    o->nativemem = true;
    o->nativemem_bytes = n * scale;
  } else if (strcmp(key, "nativelock") == 0) {
    o->nativelock_ns = FG_DEFAULT_NATIVELOCK_NS;
    if (*value && parse_duration(value, &o->nativelock_ns) != 0)
      return fg_error_line(err, errlen, "fgagent: option nativelock='%s' is not valid; accepted: nativelock alone "
                  "(waits of 10us and longer), nativelock=0 (every contended wait), or nativelock=DURATION, a whole "
                  "number with a unit ns, us, ms or s, up to 60s (e.g. nativelock=1ms)", value);
    o->nativelock = true;
  } else if (strcmp(key, "event") == 0) {
    if (strcmp(value, "cpu") == 0 || strcmp(value, "itimer") == 0 || strcmp(value, "wall") == 0) {
      o->event_asked = true;
      o->event = value[0] == 'c' ? FG_EVENT_CPU : value[0] == 'i' ? FG_EVENT_ITIMER : FG_EVENT_WALL;
      return 0;
    }
    struct fg_kevent_spec spec;
    if (fg_kevent_parse(value, &spec, err, errlen) != 0)
      return -1;
    int n = fg_options_nkevents(o);
    for (int i = 0; i < n; i++)
      if (strcmp(o->kevent[i], spec.name) == 0)
        return 0;   /* the same event again (an alias's canonical name the same): one profile */
    if (n == FG_KERNEL_EVENTS_MAX)
      return fg_error_line(err, errlen, "fgagent: option event='%s' is a kernel event past the %d a session records "
                  "(event=%s, %s, %s and %s given); accepted: up to %d kernel events a session, beside cpu, itimer "
                  "or wall", value, FG_KERNEL_EVENTS_MAX, o->kevent[0], o->kevent[1], o->kevent[2], o->kevent[3],
                  FG_KERNEL_EVENTS_MAX);
    char file[FG_KEVENT_NAME_MAX], other[FG_KEVENT_NAME_MAX];
    fg_kevent_file_name(spec.name, file, sizeof file);
    for (int i = 0; i < n; i++) {
      fg_kevent_file_name(o->kevent[i], other, sizeof other);
      if (strcmp(file, other) == 0)   /* %e would give both one file */
        return fg_error_line(err, errlen, "fgagent: option event='%s' and event=%s name one file (%%e is %s for "
                    "both); accepted: kernel events whose names differ in more than the characters a file name "
                    "makes '_' (anything but letters, digits, '-' and '_')", value, o->kevent[i], file);
    }
    /* with several, %e is each one's name: a file name (255 bytes at most) holds it beside the rest */
    const char *longer = strlen(file) > FG_KEVENT_FILE_NAME_MAX ? value : n == 1 && strlen(o->kevent[0]) >
                         FG_KEVENT_FILE_NAME_MAX ? o->kevent[0] : NULL;
    if (n >= 1 && longer)
      return fg_error_line(err, errlen, "fgagent: option event='%s' is too long a name beside another kernel event "
                  "(%%e is each one's name in a file name); accepted: up to %d characters each when a session "
                  "records several", longer, FG_KEVENT_FILE_NAME_MAX);
    snprintf(o->kevent[n], sizeof o->kevent[n], "%s", spec.name);
  } else if (strcmp(key, "cstack") == 0) {
    if (strcmp(value, "native") == 0)
      o->cstack = FG_CSTACK_NATIVE;
    else if (strcmp(value, "no") == 0)
      o->cstack = FG_CSTACK_NO;
    else
      return fg_error_line(err, errlen, "fgagent: option cstack='%s' is not valid; accepted: native, no", value);
  } else if (strcmp(key, "walker") == 0) {
    o->walker_asked = true;
    if (strcmp(value, "vm") == 0)
      o->walker = FG_WALKER_VM;
    else if (strcmp(value, "asgct") == 0)
      o->walker = FG_WALKER_ASGCT;
    else if (strcmp(value, "copy") == 0)
      o->walker = FG_WALKER_COPY;
    else
      return fg_error_line(err, errlen, "fgagent: option walker='%s' is not valid; accepted: vm (fgagent's own "
                  "walker, AsyncGetCallTrace where it cannot walk), asgct (AsyncGetCallTrace only), copy "
                  "(fgagent's walker on a copy of the stack, off the thread; event=cpu)", value);
  } else if (strcmp(key, "clock") == 0) {
    o->clock_asked = true;
    if (strcmp(value, "auto") == 0)
      o->clock = FG_CLOCK_AUTO;
    else if (strcmp(value, "perf") == 0)
      o->clock = FG_CLOCK_PERF;
    else if (strcmp(value, "posix") == 0)
      o->clock = FG_CLOCK_POSIX;
    else
      return fg_error_line(err, errlen, "fgagent: option clock='%s' is not valid; accepted: auto (a POSIX CPU timer a "
                  "thread, a perf_events counter for threads that run 1 ms or more between context switches), "
                  "perf (a counter every thread), posix (a timer every thread)", value);
  } else if (strcmp(key, "wallthreads") == 0) {
    uint64_t d;
    const char *rest;
    if (parse_u64(value, &d, &rest) != 0 || *rest != '\0' || d < 1 || d > 100000)
      return fg_error_line(err, errlen, "fgagent: option wallthreads='%s' is not valid; accepted: a whole "
                  "number from 1 to 100000", value);
    o->wall_threads = (int)d;
  } else if (strcmp(key, "depth") == 0) {
    uint64_t d;
    const char *rest;
    if (parse_u64(value, &d, &rest) != 0 || *rest != '\0' || d < 1 || d > MAX_DEPTH)
      return fg_error_line(err, errlen, "fgagent: option depth='%s' is not valid; accepted: a whole "
                  "number from 1 to %d", value, MAX_DEPTH);
    o->depth = (int)d;
  } else if (is_flag(key)) {
    bool *flag = strcmp(key, "threads") == 0 ? &o->threads
                 : strcmp(key, "lines") == 0 ? &o->lines
                 : strcmp(key, "ann") == 0   ? &o->ann
                 : strcmp(key, "sched") == 0 ? &o->sched
                 : strcmp(key, "timeline") == 0 ? &o->timeline
                 : strcmp(key, "verify") == 0 ? &o->verify
                 : strcmp(key, "kernel") == 0 ? &o->kernel
                 : strcmp(key, "leak") == 0 ? &o->leak
                                             : &o->recover;
    if (parse_bool(value, flag) != 0)
      return fg_error_line(err, errlen, "fgagent: option %s='%s' is not valid; accepted: %s alone, or "
                  "true/false, yes/no, on/off, 1/0", key, value, key);
  } else if (strcmp(key, "ringsize") == 0) {
    if (parse_size(value, &o->ring_bytes) != 0)
      return fg_error_line(err, errlen, "fgagent: option ringsize='%s' is not valid; accepted: a power "
                  "of two from 4k to 64m bytes, with an optional k or m suffix", value);
  } else if (strcmp(key, "memlimit") == 0) {
    if (parse_limit(value, &o->memlimit) != 0)
      return fg_error_line(err, errlen, "fgagent: option memlimit='%s' is not valid; accepted: 0 (none) or a "
                  "size of at least 256k bytes, with an optional k, m or g suffix", value);
  } else if (strcmp(key, "file") == 0) {
    if (o->nfiles == FG_MAX_FILES)
      return fg_error_line(err, errlen, "fgagent: option file='%s' is one too many; accepted: at most "
                  "%d file options", value, FG_MAX_FILES);
    if (fg_format_for_path(value) == FG_FORMAT_NONE)
      return fg_error_line(err, errlen, "fgagent: option file='%s' has no known extension; accepted: %s",
                  value, fg_format_extensions());
    char probe[4096];
    if (fg_expand_event_path(value, 1, 0, 1, "cpu", probe, sizeof probe) != 0 ||
        copy_span(o->files[o->nfiles], sizeof o->files[0], value, strlen(value)) != 0)
      return fg_error_line(err, errlen, "fgagent: option file='%s' is not valid; accepted: a path of at "
                  "most %zu characters in which %% is followed only by p (pid), t (time), n (loop's sequence), "
                  "e (the event) or %%",
                  value, sizeof o->files[0] - 1);
    o->nfiles++;
  } else if (strcmp(key, "loop") == 0) {
    if (parse_loop(value, &o->loop_ns) != 0)
      return fg_error_line(err, errlen, "fgagent: option loop='%s' is not valid; accepted: a whole number with a unit "
                  "s, m or h, from 1s to 24h (e.g. loop=60s)", value);
  } else if (strcmp(key, "log") == 0) {
    if (*value == '\0' || copy_span(o->log, sizeof o->log, value, strlen(value)) != 0)
      return fg_error_line(err, errlen, "fgagent: option log='%s' is not valid; accepted: a file path of "
                  "1 to %zu characters", value, sizeof o->log - 1);
  } else {
    return fg_error_line(err, errlen, "fgagent: unknown option '%s'; accepted: " ACCEPTED_KEYS, key);
  }
  return 0;
}

/* The ring that holds FG_RING_HOLD_NS of samples at interval_ns (options.h). */
static uint64_t ring_for_interval(uint64_t interval_ns)
{
  uint64_t samples = interval_ns ? FG_RING_HOLD_NS / interval_ns : 0;
  uint64_t bytes = FG_MIN_RING_BYTES;
  while (bytes < samples * FG_SAMPLE_WORDS * sizeof(uint64_t) && bytes < FG_MAX_AUTO_RING_BYTES)
    bytes *= 2;
  return bytes;
}

int fg_options_parse(const char *text, struct fg_options *o, char *err, size_t errlen)
{
  memset(o, 0, sizeof *o);
  o->interval_ns = FG_DEFAULT_INTERVAL_NS;
  o->event = FG_EVENT_CPU;
  o->depth = FG_DEFAULT_DEPTH;
  o->ring_bytes = 0;   /* from the interval, unless ringsize is given */
  o->cstack = FG_CSTACK_NATIVE;
  o->recover = true;
  o->kernel = true;
  o->walker = FG_WALKER_VM;
  o->wall_threads = FG_DEFAULT_WALL_THREADS;
  if (err && errlen)
    err[0] = '\0';

  const char *p = text ? text : "";
  while (*p) {
    const char *end = strchr(p, ',');
    size_t len = end ? (size_t)(end - p) : strlen(p);
    char item[1024], key[64];
    if (copy_span(item, sizeof item, p, len) != 0)
      return fg_error_line(err, errlen, "fgagent: option '%.40s...' is too long; accepted: at most %zu "
                  "characters per option", p, sizeof item - 1);
    if (len == 0)
      return fg_error_line(err, errlen, "fgagent: empty option in '%s'; accepted: key=value pairs "
                  "separated by single commas", text);
    char *eq = strchr(item, '=');
    const char *value = eq ? eq + 1 : "";
    size_t keylen = eq ? (size_t)(eq - item) : len;
    if (copy_span(key, sizeof key, item, keylen) != 0)
      return fg_error_line(err, errlen, "fgagent: unknown option '%.40s'; accepted: " ACCEPTED_KEYS, item);
    if (!eq && !is_flag(key) && (strcmp(key, "interval") == 0 || strcmp(key, "event") == 0 ||
                                 strcmp(key, "depth") == 0 || strcmp(key, "ringsize") == 0 ||
                                 strcmp(key, "memlimit") == 0 || strcmp(key, "loop") == 0 ||
                                 strcmp(key, "file") == 0 || strcmp(key, "log") == 0 ||
                                 strcmp(key, "cstack") == 0 || strcmp(key, "wallthreads") == 0 ||
                                 strcmp(key, "walker") == 0 || strcmp(key, "clock") == 0))
      return fg_error_line(err, errlen, "fgagent: option %s has no value; accepted: %s=VALUE", key, key);
    if (set_option(o, key, value, err, errlen) != 0)
      return -1;
    p = end ? end + 1 : p + len;
    if (end && *p == '\0')
      return fg_error_line(err, errlen, "fgagent: empty option at the end of '%s'; accepted: key=value "
                  "pairs separated by single commas", text);
  }

  if (o->ring_bytes == 0)   /* a kernel event's rate is the application's: the largest ring made alone */
    o->ring_bytes = o->kevent[0][0] ? FG_MAX_AUTO_RING_BYTES : ring_for_interval(o->interval_ns);
  if (o->nfiles == 0) {
    strcpy(o->files[0], FG_DEFAULT_FILE);
    o->nfiles = 1;
  }
  if (o->leak && !o->nativemem) {   /* leak alone: nativemem's leaks at its default rate */
    o->nativemem = true;
    o->nativemem_bytes = FG_DEFAULT_NATIVEMEM_BYTES;
  }
  if (o->live && !o->alloc) {   /* live samples as alloc does: at its default interval */
    o->alloc = true;
    o->alloc_bytes = FG_DEFAULT_ALLOC_BYTES;
  }
  o->cpu = o->event_asked || (!o->alloc && !o->lock && !o->nativemem && !o->nativelock && !o->kevent[0][0]);
  if (o->kevent_period && !o->kevent[0][0])
    return fg_error_line(err, errlen, "fgagent: option interval='%llu' has no unit, which counts a kernel event's "
                "events, and no kernel event was given; accepted: interval=DURATION with a unit ns, us, ms or s "
                "(e.g. interval=1ms), or a count with event=NAME of a kernel event (e.g. event=page-faults)",
                (unsigned long long)o->kevent_period);
  if (fg_options_nevents(o) > 1) {
    char names[1400];
    int at = snprintf(names, sizeof names, "%s%s%s%s", o->alloc ? (o->live ? ", live" : ", alloc") : "",
                      o->lock ? ", lock" : "", o->nativemem ? ", nativemem" : "", o->nativelock ? ", nativelock" : "");
    for (int k = 0; k < fg_options_nkevents(o); k++)
      at += snprintf(names + at, sizeof names - (size_t)at, ", event=%s", o->kevent[k]);
    for (int i = 0; i < o->nfiles; i++)
      if (!fg_format_holds_every_event(fg_format_for_path(o->files[i])) && !strstr(o->files[i], "%e"))
        return fg_error_line(err, errlen, "fgagent: option file='%s' does not say which event it holds; accepted: with "
                    "several events (%s%s%s), a file name with %%e (the event's name: e.g. file=profile-%%e.html), "
                    "or a .jfr, .otlp or .heatmap.html file, which holds them all", o->files[i], o->cpu ? "event=" : "",
                    o->cpu ? (o->event == FG_EVENT_WALL ? "wall" : o->event == FG_EVENT_ITIMER ? "itimer" : "cpu") : "",
                    o->cpu ? names : names + 2);
  }
  if (o->loop_ns && o->leak)
    return fg_error_line(err, errlen, "fgagent: options loop and leak cannot be combined (a leak is what is not freed "
                "by the session's end); accepted: one of them");
  if (o->loop_ns && o->sched)
    return fg_error_line(err, errlen, "fgagent: options loop and sched cannot be combined; accepted: one of them");
  if (!o->walker_asked)   /* walker=copy loses to the signal's walker with many threads, virtual threads and
                             retransformed classes (results/scale.md): asked for only */
    o->walker = FG_WALKER_VM;
  if (o->clock_asked && o->event != FG_EVENT_CPU)
    return fg_error_line(err, errlen, "fgagent: option clock= chooses event=cpu's clock; accepted: clock= with event=cpu "
                "(the default event), or no clock= with event=%s", o->event == FG_EVENT_WALL ? "wall" : "itimer");
  if (o->clock_asked && o->clock != FG_CLOCK_PERF && o->walker == FG_WALKER_COPY)
    return fg_error_line(err, errlen, "fgagent: option walker=copy takes its samples from perf_events counters only; "
                "accepted: walker=copy alone or with clock=perf, or clock=%s with walker=vm",
                o->clock == FG_CLOCK_AUTO ? "auto" : "posix");
  if (o->walker == FG_WALKER_COPY && o->event != FG_EVENT_CPU)
    return fg_error_line(err, errlen, "fgagent: option walker=copy needs event=cpu (its perf_events counters copy the "
                "stacks); accepted: walker=copy with event=cpu, or walker=vm");
  return 0;
}
