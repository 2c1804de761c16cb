/* Which format a file name asks for, and how %p / %t in a path expand. */
#include "fg/output.h"

#include <stdio.h>
#include <string.h>

static const struct {
  const char *ext;
  enum fg_format format;
} formats[] = {
  {".collapsed", FG_FORMAT_COLLAPSED},
  {".folded", FG_FORMAT_COLLAPSED},
  {".txt", FG_FORMAT_CALLGRAPH},
  {".heatmap.html", FG_FORMAT_HEATMAP},   /* before .html: the first suffix that matches wins */
  {".html", FG_FORMAT_HTML},
  {".pb.gz", FG_FORMAT_PPROF},
  {".pprof", FG_FORMAT_PPROF},
  {".speedscope.json", FG_FORMAT_SPEEDSCOPE},
  {".jfr", FG_FORMAT_JFR},
  {".otlp", FG_FORMAT_OTLP},
};

static int ends_with(const char *s, const char *suffix)
{
  size_t n = strlen(s), m = strlen(suffix);
  return n > m && strcmp(s + n - m, suffix) == 0;
}

enum fg_format fg_format_for_path(const char *path)
{
  for (size_t i = 0; i < sizeof formats / sizeof formats[0]; i++)
    if (ends_with(path, formats[i].ext))
      return formats[i].format;
  return FG_FORMAT_NONE;
}

const char *fg_format_extension(enum fg_format format)
{
  for (size_t i = 0; i < sizeof formats / sizeof formats[0]; i++)
    if (formats[i].format == format)
      return formats[i].ext;
  return ".txt";
}

bool fg_format_holds_every_event(enum fg_format format)
{
  return format == FG_FORMAT_JFR || format == FG_FORMAT_OTLP || format == FG_FORMAT_HEATMAP;
}

const char *fg_format_extensions(void)
{
  return ".collapsed, .folded (collapsed stacks), .txt (call graph), .html (flame graph), "
         ".pb.gz, .pprof (pprof), .speedscope.json (speedscope), .jfr (JDK Flight Recorder), "
         ".otlp (OpenTelemetry profiles), .heatmap.html (heatmap over time)";
}

int fg_expand_path(const char *pattern, pid_t pid, time_t when, unsigned seq, char *out, size_t outlen)
{
  return fg_expand_event_path(pattern, pid, when, seq, NULL, out, outlen);
}

int fg_expand_event_path(const char *pattern, pid_t pid, time_t when, unsigned seq, const char *event, char *out,
                         size_t outlen)
{
  size_t n = 0;
  for (const char *p = pattern; *p; p++) {
    char piece[32];
    const char *add = piece;
    if (*p != '%') {
      piece[0] = *p;
      piece[1] = '\0';
    } else if (p[1] == 'p') {
      snprintf(piece, sizeof piece, "%d", (int)pid);
      p++;
    } else if (p[1] == 't') {
      struct tm tm;
      if (!localtime_r(&when, &tm) || !strftime(piece, sizeof piece, "%Y%m%d-%H%M%S", &tm))
        return -1;
      p++;
    } else if (p[1] == 'n') {
      snprintf(piece, sizeof piece, "%u", seq);
      p++;
    } else if (p[1] == '%') {
      add = "%";
      p++;
    } else if (p[1] == 'e' && event) {
      add = event;
      p++;
    } else {
      return -1;
    }
    size_t len = strlen(add);
    if (n + len >= outlen)
      return -1;
    memcpy(out + n, add, len);
    n += len;
  }
  if (outlen == 0)
    return -1;
  out[n] = '\0';
  return 0;
}
