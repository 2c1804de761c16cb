/* fgprof: converts collapsed stacks (ours or any tool's) into the formats
 * fgagent writes, compares runs, and profiles a running JVM. Exit status:
 * 0 done, 2 bad arguments or input (diff: 1 a regression; attach and
 * profile: 1 the agent refused the command, 3 the JVM is exiting; convert:
 * 4 IN bad past what was read, OUT written from that). */
#include <errno.h>
#include <inttypes.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "commands.h"
#include "jfr_events.h"
#include "fg/collapsed_reader.h"
#include "fg/event_kinds.h"
#include "fg/jfr_reader.h"
#include "fg/options.h"
#include "fg/output.h"
#include "fg/profile.h"
#include "fg/profile_filter.h"
#include "fg/time_range.h"

struct args {
  const char *in, *out, *title;
  const char *include, *exclude;
  const char *event;        /* --event: which of a recording's events; NULL: the first it has */
  const char *from, *to;    /* --from, --to: the samples of a time range (fg/time_range.h) */
  bool reverse, threads, lines, leak;
  double minwidth;
  uint64_t interval_ns;
};

int fg_cli_bad(const char *command, const char *what, const char *value)
{
  fprintf(stderr, "fgprof%s%s: %s", command ? " " : "", command ? command : "", what);
  if (value)
    fprintf(stderr, " '%s'", value);
  fprintf(stderr, "\nRun 'fgprof%s%s --help' for usage.\n", command ? " " : "", command ? command : "");
  return 2;
}

static int bad(const char *fmt, const char *what)
{
  fprintf(stderr, "fgprof: ");
  fprintf(stderr, fmt, what);
  fprintf(stderr, "\nRun 'fgprof convert --help' for usage.\n");
  return 2;
}

static int parse_interval(const char *text, uint64_t *ns)
{
  static const struct { const char *unit; uint64_t scale; } units[] = {
    {"ns", 1}, {"us", 1000}, {"ms", 1000000}, {"s", 1000000000},
  };
  char *end;
  errno = 0;
  unsigned long long v = strtoull(text, &end, 10);
  if (errno || end == text || text[0] == '-')
    return -1;
  for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
    if (strcmp(end, units[i].unit) == 0 && v > 0 && v <= INT64_MAX / units[i].scale) {
      *ns = v * units[i].scale;
      return 0;
    }
  return -1;
}

static int parse_args(int argc, char **argv, struct args *a)
{
  memset(a, 0, sizeof *a);
  const char *positional[2] = {NULL, NULL};
  int npos = 0;
  for (int i = 2; i < argc; i++) {
    const char *arg = argv[i];
    /* "" past the last argument: a valued option there is refused below */
    const char *value = i + 1 < argc ? argv[i + 1] : "";
    int takes_value = strcmp(arg, "--title") == 0 || strcmp(arg, "--include") == 0 ||
                      strcmp(arg, "--exclude") == 0 || strcmp(arg, "--minwidth") == 0 ||
                      strcmp(arg, "--interval") == 0 || strcmp(arg, "--event") == 0 ||
                      strcmp(arg, "--from") == 0 || strcmp(arg, "--to") == 0;
    if (takes_value && i + 1 >= argc)
      return bad("option %s needs a value", arg);
    if (strcmp(arg, "--title") == 0) {
      a->title = value;
    } else if (strcmp(arg, "--include") == 0) {
      a->include = value;
    } else if (strcmp(arg, "--exclude") == 0) {
      a->exclude = value;
    } else if (strcmp(arg, "--minwidth") == 0) {
      char *end;
      a->minwidth = strtod(value, &end);
      if (*end || end == value || a->minwidth < 0 || a->minwidth >= 100)
        return bad("--minwidth '%s' is not valid; accepted: a percentage from 0 to below 100", value);
    } else if (strcmp(arg, "--interval") == 0) {
      if (parse_interval(value, &a->interval_ns) != 0)
        return bad("--interval '%s' is not valid; accepted: a whole number with ns, us, ms or s, "
                 "at most 2^63 ns",
                   value);
    } else if (strcmp(arg, "--event") == 0) {
      if (!fg_event_name_known(value) && strcmp(value, "wall") != 0) {
        char names[240], why[480];
        fg_event_names_list(names, sizeof names);
        snprintf(why, sizeof why, "--event '%%s' is not valid; accepted: %s, or wall (a recording's wall-clock "
                 "samples as its cpu event)", names);
        return bad(why, value);
      }
      a->event = value;
    } else if (strcmp(arg, "--from") == 0) {
      a->from = value;
    } else if (strcmp(arg, "--to") == 0) {
      a->to = value;
    } else if (strcmp(arg, "--reverse") == 0) {
      a->reverse = true;
      continue;
    } else if (strcmp(arg, "--leak") == 0) {
      a->leak = true;
      continue;
    } else if (strcmp(arg, "--threads") == 0) {
      a->threads = true;
      continue;
    } else if (strcmp(arg, "--lines") == 0) {
      a->lines = true;
      continue;
    } else if (arg[0] == '-' && arg[1] == '-') {
      return bad("unknown option '%s'; accepted: --title, --include, --exclude, --reverse, "
                 "--minwidth, --interval, --event, --leak, --threads, --lines, --from, --to, --help", arg);
    } else {
      if (npos == 2)
        return bad("one argument too many: '%s'; accepted: IN OUT", arg);
      positional[npos++] = arg;
      continue;
    }
    i++;
  }
  if (npos != 2)
    return bad("%s", "convert needs IN and OUT");
  a->in = positional[0];
  a->out = positional[1];
  if (fg_format_for_path(a->out) == FG_FORMAT_NONE) {
    fprintf(stderr, "fgprof: %s: unknown output extension; accepted: %s\n", a->out,
            fg_format_extensions());
    return 2;
  }
  return 0;
}

static int compile(regex_t *re, const char *pattern, const char *option)
{
  int rc = regcomp(re, pattern, REG_EXTENDED | REG_NOSUB);
  if (rc == 0)
    return 0;
  char why[128];
  regerror(rc, re, why, sizeof why);
  fprintf(stderr, "fgprof: %s '%s' is not a valid POSIX extended regular expression: %s\n",
          option, pattern, why);
  return 2;
}

/* When path was last written, in ns since 1970: now for standard input. */
static uint64_t modified_ns(const char *path)
{
  struct stat st;
  struct timespec ts;
  if (strcmp(path, "-") != 0 && stat(path, &st) == 0)
    ts = st.st_mtim;
  else
    clock_gettime(CLOCK_REALTIME, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

bool fg_event_name_known(const char *name)
{
  for (int e = 0; e < FG_STACK_KERNEL; e++)
    if (strcmp(fg_stack_event_name((enum fg_stack_event)e), name) == 0)
      return true;
  /* "kernel", or a kernel event's own name (page-faults, sched:sched_switch, uprobe:/PATH:SYMBOL): the file
     read says whether it holds it */
  size_t n = strlen(name);
  if (n == 0 || n >= 320)
    return false;
  for (size_t i = 0; i < n; i++)
    if (name[i] <= ' ' || name[i] > '~')
      return false;
  return true;
}

void fg_event_names_list(char *out, size_t len)
{
  size_t at = 0;
  out[0] = '\0';
  for (int e = 0; e <= FG_STACK_KERNEL && at < len; e++)
    at += (size_t)snprintf(out + at, len - at, "%s%s", e ? ", " : "", fg_stack_event_name((enum fg_stack_event)e));
  if (at < len)
    snprintf(out + at, len - at, ", a kernel event's own name (e.g. page-faults)");
}

int fg_pick_event(struct fg_profile *p, const char *asked, const char *source)
{
  unsigned present = fg_profile_events(p);
  int e = 0;
  if (asked)
    e = fg_event_by_name(&p->stats, present, asked);
  else
    while (e < FG_STACK_EVENTS - 1 && !(present & 1u << e))
      e++;
  if (e < 0 || !(present & 1u << e)) {
    char have[1400] = "";
    for (int k = 0; k < FG_STACK_EVENTS; k++)
      if (present & 1u << k) {
        char name[320];
        fg_event_file_name(&p->stats, (enum fg_stack_event)k, name, sizeof name);
        snprintf(have + strlen(have), sizeof have - strlen(have), "%s%s", have[0] ? ", " : "", name);
      }
    fprintf(stderr, "fgprof: %s has no %s events; accepted: --event %s\n", source,
            asked ? asked : fg_stack_event_name((enum fg_stack_event)e), have);
    return -1;
  }
  if (present == 1u << e) {
    p->event = (enum fg_stack_event)e;
    return 0;
  }
  struct fg_profile one;
  if (fg_profile_select(p, (enum fg_stack_event)e, &one) != 0) {
    fg_profile_free(&one);
    fprintf(stderr, "fgprof: out of memory\n");
    return -1;
  }
  fg_profile_free(p);
  *p = one;
  return 0;
}

int fg_cli_event_path(const char *out, const char *event, char *path, size_t len)
{
  size_t n = 0;
  for (const char *p = out; *p; p++) {
    const char *add = p[0] == '%' && p[1] == 'e' ? event : p;
    size_t k = add == p ? 1 : strlen(add);
    if (n + k >= len)
      return -1;
    memcpy(path + n, add, k);
    n += k;
    p += add != p;
  }
  path[n] = '\0';
  return 0;
}

/* Whether the .jfr path, written from p (read from in), holds no more events
 * than its input's size allows (jfr_events.h): 0, or 2 with the reason said. */
static int jfr_fits(const char *in, const struct fg_profile *p, const char *path)
{
  struct stat st;
  int got = strcmp(in, "-") == 0 ? fstat(STDIN_FILENO, &st) : stat(in, &st);
  uint64_t bytes = got == 0 && S_ISREG(st.st_mode) ? (uint64_t)st.st_size : 0;   /* a pipe: the floor */
  uint64_t events = fg_jfr_events(p), bound = fg_jfr_events_bound(bytes);
  if (events <= bound)
    return 0;
  fprintf(stderr, "fgprof: %s: %" PRIu64 " events (a JFR execution sample is one event per sample its count "
          "stands for), past the %" PRIu64 " a .jfr from %" PRIu64 " bytes of input may hold; accepted: up to "
          "%llu + %d per input byte (another output format keeps the counts as they are)\n",
          path, events, bound, bytes, FG_JFR_EVENTS_FLOOR, FG_JFR_EVENTS_PER_BYTE);
  return 2;
}

/* One event of in (--event's, or the first it has) filtered and written to
 * path; in may be replaced by its selection. 0, or 2 with the reason said. */
static int convert_one(const struct args *a, struct fg_profile *in, bool jfr, const struct fg_filter *f,
                       const char *path)
{
  char err[1024];
  /* an OTLP file holds a profile for each event, unless --event picks one */
  bool every = fg_format_holds_every_event(fg_format_for_path(path)) && fg_format_for_path(path) != FG_FORMAT_JFR &&
               !a->event && fg_profile_events(in) != 0;
  if (!every && fg_pick_event(in, a->event, a->in) != 0)
    return 2;
  uint64_t total = 0;
  for (uint32_t i = 0; i < in->nstacks; i++)
    total += in->stacks[i].count;   /* at most 2^53: the reader refuses more */
  if (a->interval_ns && total > (uint64_t)INT64_MAX / a->interval_ns) {
    fprintf(stderr, "fgprof: %s: %" PRIu64 " samples x --interval %" PRIu64 " ns is past 2^63 ns, "
            "which pprof's and speedscope's 64-bit values cannot hold; accepted: samples x interval "
            "up to 2^63 ns (about 292 years)\n", a->in, total, a->interval_ns);
    return 2;
  }
  in->stats.interval_ns = a->interval_ns;
  if (!jfr)
    in->stats.start_epoch_ns = modified_ns(a->in);   /* the only time collapsed stacks have */
  struct fg_profile out;
  fg_profile_init(&out);
  int rc = 0;
  if (fg_profile_filter(in, f, &out) != 0) {
    fprintf(stderr, "fgprof: out of memory\n");
    rc = 2;
  } else if (out.nstacks == 0) {
    fprintf(stderr, "fgprof: %s: no stack is left after --include/--exclude\n", a->in);
    rc = 2;
  }
  if (rc == 0 && fg_format_for_path(path) == FG_FORMAT_JFR)
    rc = jfr_fits(a->in, &out, path);
  if (rc == 0) {
    /* collapsed stacks split by thread keep their split; a recording is split when asked */
    bool threads = jfr ? a->threads : out.nthreads > 1 || (out.nthreads == 1 && strcmp(out.threads[0].name, "all") != 0);
    struct fg_output_settings cfg = {.per_thread = threads, .title = a->title, .min_width_pct = a->minwidth};
    if (fg_write_profile_file(path, &out, &cfg, err, sizeof err) != 0) {
      fprintf(stderr, "fgprof: %s\n", err + (strncmp(err, "fgagent: ", 9) == 0 ? 9 : 0));
      rc = 2;
    }
  }
  fg_profile_free(&out);
  return rc;
}

/* OUT with %e: a file for each event of in (or --event's), %e its name, as
 * the agent's file= writes them. */
static int convert_each(const struct args *a, struct fg_profile *in, bool jfr, const struct fg_filter *f)
{
  unsigned present = fg_profile_events(in);
  int rc = 0, written = 0;
  int asked = a->event ? fg_event_by_name(&in->stats, present, a->event) : -1;
  for (int e = 0; rc == 0 && e < FG_STACK_EVENTS; e++) {
    char name[320];
    fg_event_file_name(&in->stats, (enum fg_stack_event)e, name, sizeof name);
    if (!(present & 1u << e) || (a->event && e != asked))
      continue;
    char path[4096];
    struct fg_profile one;
    fg_profile_init(&one);
    if (fg_cli_event_path(a->out, name, path, sizeof path) != 0) {
      fprintf(stderr, "fgprof: output name '%s' is too long once %%e is expanded\n", a->out);
      rc = 2;
    } else if (fg_profile_select(in, (enum fg_stack_event)e, &one) != 0) {
      fprintf(stderr, "fgprof: out of memory\n");
      rc = 2;
    } else {
      rc = convert_one(a, &one, jfr, f, path);
      written++;
    }
    fg_profile_free(&one);
  }
  if (rc == 0 && written == 0)
    rc = fg_pick_event(in, a->event, a->in) != 0 ? 2 : 0;   /* says which events there are */
  return rc;
}

int fg_cmd_convert(int argc, char **argv)
{
  struct args a;
  int rc = parse_args(argc, argv, &a);
  if (rc != 0)
    return rc;
  regex_t include, exclude;
  if (a.include && compile(&include, a.include, "--include") != 0)
    return 2;
  if (a.exclude && compile(&exclude, a.exclude, "--exclude") != 0) {
    if (a.include)
      regfree(&include);
    return 2;
  }

  if (fg_format_for_path(a.out) == FG_FORMAT_HEATMAP && !a.include && !a.exclude && !a.event)
    return fg_profile_input_heatmap(a.in, a.out, a.from, a.to, a.title, "convert");
  struct fg_profile in;
  char err[1024];
  fg_profile_init(&in);
  in.stats.nativemem.leak = a.leak;   /* the JFR reader keeps only the allocations no free follows */
  if (fg_format_holds_every_event(fg_format_for_path(a.out)) || a.from || a.to)
    in.timeline.max = FG_JFR_TIMELINE_MAX;   /* a recording's events keep their times */
  rc = 0;
  bool cut = false;   /* a recording bad past what was read (cut short): OUT from that, then FG_EXIT_CUT */
  /* --event wall: async-profiler's wall-clock samples as the cpu event, where a recording holds both */
  unsigned flags = (a.lines ? FG_JFR_LINES : 0) | (a.event && strcmp(a.event, "wall") == 0 ? FG_JFR_WALL : 0);
  if (flags & FG_JFR_WALL)
    a.event = "cpu";
  int read = fg_read_profile_input(a.in, flags, &in, err, sizeof err);
  bool jfr = strcmp(in.stats.event, "jfr") == 0 || strcmp(in.stats.event, "otlp") == 0;   /* threads only when asked */
  if (read != 0) {
    cut = jfr && in.nstacks > 0;   /* a collapsed file's bad line stays an error: it was written by hand or a tool */
    fprintf(stderr, "fgprof: %s%s\n", err, cut ? "; OUT holds what was read before it" : "");
    rc = cut ? 0 : 2;
  }
  /* which of a recording's sources of one thing the reader took, when it left one out (jfr_reader.c) */
  size_t said = strlen("read from a JFR recording: ") + strlen(a.in);
  if (read == 0 && strcmp(in.stats.event, "jfr") == 0 && strlen(in.stats.event_detail) > said + 2 &&
      in.stats.event_detail[said] == ';')
    fprintf(stderr, "fgprof: %s: %s\n", a.in, in.stats.event_detail + said + 2);
  if (rc == 0 && (a.from || a.to))
    rc = fg_apply_time_range(&in, a.from, a.to, a.in, "convert");
  struct fg_filter f = {a.include ? &include : NULL, a.exclude ? &exclude : NULL, a.reverse};
  if (rc == 0)
    rc = strstr(a.out, "%e") ? convert_each(&a, &in, jfr, &f) : convert_one(&a, &in, jfr, &f, a.out);
  fg_profile_free(&in);
  if (a.include)
    regfree(&include);
  if (a.exclude)
    regfree(&exclude);
  return rc == 0 && cut ? FG_EXIT_CUT : rc;
}

int main(int argc, char **argv)
{
  if (argc >= 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
                    strcmp(argv[1], "help") == 0)) {
    fg_cli_help(NULL, stdout);
    return 0;
  }
  if (argc >= 2 && fg_cli_wants_help(argc, argv) && fg_cli_help(argv[1], stdout) == 0)
    return 0;
  if (argc >= 2 && strcmp(argv[1], "convert") == 0)
    return fg_cmd_convert(argc, argv);
  if (argc >= 2 && strcmp(argv[1], "attach") == 0)
    return fg_cmd_attach(argc, argv);
  if (argc >= 2 && strcmp(argv[1], "profile") == 0)
    return fg_cmd_profile(argc, argv);
  if (argc >= 2 && strcmp(argv[1], "diff") == 0)
    return fg_cmd_diff(argc, argv);
  if (argc >= 2 && strcmp(argv[1], "heatmap") == 0)
    return fg_cmd_heatmap(argc, argv);
  fprintf(stderr, "fgprof: %s; accepted commands: convert, diff, heatmap, profile, attach, --help\n",
          argc < 2 ? "no command given" : "unknown command");
  fg_cli_help(NULL, stderr);
  return 2;
}
