/* Output formats: each is a pure function of an aggregated profile. */
#ifndef FG_OUTPUT_H
#define FG_OUTPUT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>
#include <time.h>

struct fg_profile;
struct fg_stats;
struct fg_event_stats;

enum fg_format {
  FG_FORMAT_NONE, FG_FORMAT_COLLAPSED, FG_FORMAT_CALLGRAPH, FG_FORMAT_HTML, FG_FORMAT_PPROF,
  FG_FORMAT_SPEEDSCOPE, FG_FORMAT_JFR, FG_FORMAT_OTLP, FG_FORMAT_HEATMAP,
};

/* The format a file name's extension selects, or FG_FORMAT_NONE. */
enum fg_format fg_format_for_path(const char *path);
/* Whether a file of format holds every event a profile has (JFR, OTLP: one
 * file), rather than one event a file. */
bool fg_format_holds_every_event(enum fg_format format);
/* The extensions fg_format_for_path accepts, for error messages. */
const char *fg_format_extensions(void);
/* The usual extension of a format: ".collapsed", ".txt", ".html", ".pb.gz", ... */
const char *fg_format_extension(enum fg_format format);

/* Expands %p (pid), %t (YYYYMMDD-HHMMSS local time), %n (seq: loop='s
 * interval number, from 1) and %% in pattern. Returns -1 if out is too
 * small or a % is followed by anything else. */
int fg_expand_path(const char *pattern, pid_t pid, time_t when, unsigned seq, char *out, size_t outlen);
/* The same, and %e expanded to event ("cpu", "alloc", ...); with event NULL a
 * %e is refused like any other unknown letter. */
int fg_expand_event_path(const char *pattern, pid_t pid, time_t when, unsigned seq, const char *event, char *out,
                         size_t outlen);

struct fg_output_settings {
  bool per_thread;          /* a [thread] root frame on every stack */
  const char *title;        /* HTML title; NULL: "fgagent flame graph" */
  double min_width_pct;     /* HTML: leave out frames under this share of all samples */
  bool timeline;            /* .txt: the timeline (samples in time order per CPU), not trees */
  uint64_t range_from, range_to;   /* heatmap: only [from, to), ns since 1970; to 0: the whole recording */
};

/* Each returns 0, or -1 when a write failed (errno set). */
int fg_write_collapsed(FILE *out, const struct fg_profile *p, const struct fg_output_settings *cfg);
int fg_write_callgraph(FILE *out, const struct fg_profile *p, const struct fg_output_settings *cfg);
/* The call graph's timeline mode: p->timeline's samples per CPU in time order. */
int fg_write_timeline(FILE *out, const struct fg_profile *p, const struct fg_output_settings *cfg);
int fg_write_summary(FILE *out, const struct fg_stats *s);
/* Its nativemem and nativelock sections (agent/output/summary_native.c). */
int fg_write_native_summary(FILE *out, const struct fg_stats *s);
/* The summary as text (the caller frees it), or NULL when out of memory. */
char *fg_summary_text(const struct fg_stats *s);
/* Its live section (agent/output/summary_live.c). */
int fg_write_summary_live(FILE *out, const struct fg_event_stats *e);
int fg_write_flamegraph_html(FILE *out, const struct fg_profile *p, const struct fg_output_settings *cfg);
/* The differential flame graph: p's shape, each frame coloured by how its
 * share grew (red) or shrank (blue) against the same call path in base.
 * A frame name must have the same id in both (fg_profile_append into a
 * profile that starts with p's names gives that). */
int fg_write_diff_flamegraph_html(FILE *out, const struct fg_profile *base, const struct fg_profile *p,
                                  const struct fg_output_settings *cfg);
int fg_write_pprof(FILE *out, const struct fg_profile *p, const struct fg_output_settings *cfg);
int fg_write_speedscope(FILE *out, const struct fg_profile *p, const struct fg_output_settings *cfg);
/* The heatmap page (agent/output/heatmap.c): every event's timed samples
 * (the timeline) with their stacks, the profile's marks, and a flame graph
 * of any range or of one range against another. */
int fg_write_heatmap_html(FILE *out, const struct fg_profile *p, const struct fg_output_settings *cfg);
/* The longest span a heatmap page holds: 2^25 cells of 20 ms, 7.7 days;
 * fg_write_heatmap_html refuses a longer one (EFBIG). */
#define FG_HEATMAP_MAX_SPAN_NS (33554432ull * 20000000ull)
/* The span p's page would cover (its recording, or cfg's range of it), ns. */
uint64_t fg_heatmap_span_ns(const struct fg_profile *p, const struct fg_output_settings *cfg);
/* A JDK Flight Recorder file (one chunk): a jdk.ExecutionSample event per
 * sample in p's timeline (at its time, once per sample its weight stands
 * for), each stack's samples the timeline does not hold at the end of the
 * profile; threads, stacks, methods, classes and packages in the constant
 * pools. `jfr print`, `jfr summary`, JMC read it. */
int fg_write_jfr(FILE *out, const struct fg_profile *p, const struct fg_output_settings *cfg);
/* OpenTelemetry's profiles signal: a ProfilesData message, one Profile per
 * event p holds, each sample with its thread and, when p's timeline has
 * them, its times (agent/output/otlp.c). */
int fg_write_otlp(FILE *out, const struct fg_profile *p, const struct fg_output_settings *cfg);

/* Where an output file really goes (agent/output/output_target.c): path after its
 * symbolic links, and whether it is written in place (a FIFO, a character device,
 * a path through /proc) rather than through a temporary renamed into place. */
struct fg_output_target {
  char path[4096];
  bool in_place;
};
/* 0, or -1 with "cannot write 'PATH': why" in err (a directory, a block device,
 * a socket, a link loop). */
int fg_output_target(const char *path, struct fg_output_target *t, char *err, size_t errlen);
/* Proves at load that path can be written at exit: creates (and removes) the
 * temporary file the write will use, or opens an in-place target. */
int fg_output_probe(const char *path, char *err, size_t errlen);
/* "PATH.tmp.PID"; -1 when out is too small. */
int fg_output_temp_name(const char *path, pid_t pid, char *out, size_t outlen);
/* Creates the temporary file tmp new, never through a link (one this
 * process left behind is replaced): its descriptor, or -1 with errno
 * (EEXIST: someone else's is there). */
int fg_output_create_temp(const char *tmp, mode_t mode);
/* Opens an in-place target for appending; a FIFO nobody reads fails (ENXIO)
 * instead of blocking. A file descriptor, or -1 with errno set. */
int fg_output_open_in_place(const char *path);

/* Writes path through a temporary file renamed into place: write(out, ctx)
 * does the writing and returns 0 or -1. A link is followed (the link stays);
 * a FIFO, a character device or a path through /proc is written in place.
 * On failure nothing is left behind and err holds "fgagent: cannot write 'PATH': why". */
int fg_write_file_atomically(const char *path, int (*write)(FILE *out, void *ctx), void *ctx,
                             char *err, size_t errlen);

/* Writes p to path in the format its extension selects, through
 * fg_write_file_atomically. Returns -1 with a message in err on failure. */
int fg_write_profile_file(const char *path, const struct fg_profile *p,
                          const struct fg_output_settings *cfg, char *err, size_t errlen);

#endif
