/* Kernel event names, their shape only; see event_spec.h. */
#include "sampling/kernel_events/event_spec.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fg/error_line.h"

struct named {
  const char *name, *alias;
  uint32_t type;
  uint64_t config, period;
};

/* Software events count often: a sample every period of them. */
static const struct named software[] = {
  {"page-faults", "faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, 100},
  {"minor-faults", NULL, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MIN, 100},
  {"major-faults", NULL, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MAJ, 1},
  {"context-switches", "cs", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES, 10},
  {"cpu-migrations", "migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS, 1},
};

#define LLC_READ_MISS                                                                                                  \
  (PERF_COUNT_HW_CACHE_LL | PERF_COUNT_HW_CACHE_OP_READ << 8 | PERF_COUNT_HW_CACHE_RESULT_MISS << 16)

static const struct named hardware[] = {
  {"cycles", "cpu-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, 10000000},
  {"instructions", NULL, PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, 10000000},
  {"cache-references", NULL, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES, 1000000},
  {"cache-misses", NULL, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES, 10000},
  {"branches", "branch-instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS, 1000000},
  {"branch-misses", NULL, PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES, 10000},
  {"LLC-load-misses", NULL, PERF_TYPE_HW_CACHE, LLC_READ_MISS, 10000},
};

static int fail(char *err, size_t len, const char *name, const char *why)
{
  return fg_error_line(err, len, "fgagent: option event='%s' is not valid; accepted: cpu, itimer, wall, or one "
                       "kernel event: " FG_KEVENT_ACCEPTED " (here: %s)", name, why);
}

static const struct named *find(const struct named *t, size_t n, const char *name)
{
  for (size_t i = 0; i < n; i++)
    if (strcmp(t[i].name, name) == 0 || (t[i].alias && strcmp(t[i].alias, name) == 0))
      return &t[i];
  return NULL;
}

/* A tracepoint's category or name, a kernel function's name: letters,
 * digits, '_' and '.' (no '/': never a path), 1 to 127 of them. */
static int is_ident(const char *s, size_t n)
{
  if (n == 0 || n > 127 || s[0] == '.')
    return 0;
  for (size_t i = 0; i < n; i++)
    if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') || (s[i] >= '0' && s[i] <= '9') ||
          s[i] == '_' || s[i] == '.'))
      return 0;
  return 1;
}

/* "+OFFSET" (decimal or 0x hex) at s, or nothing: 0, or -1. */
static int parse_offset(const char *s, uint64_t *off)
{
  *off = 0;
  if (!*s)
    return 0;
  if (*s != '+' || !s[1])
    return -1;
  char *end;
  errno = 0;
  unsigned long long v = strtoull(s + 1, &end, 0);
  if (errno || *end || s[1] == '-')
    return -1;
  *off = v;
  return 0;
}

static int parse_kprobe(const char *name, const char *rest, struct fg_kevent_spec *out, char *err, size_t len)
{
  const char *plus = strchr(rest, '+');
  size_t n = plus ? (size_t)(plus - rest) : strlen(rest);
  if (!is_ident(rest, n) || parse_offset(rest + n, &out->offset) != 0 || (out->retprobe && out->offset))
    return fail(err, len, name, "a kprobe names a kernel function (letters, digits, '_', '.'), kprobe:FUNC or "
                "kprobe:FUNC+OFFSET; a kretprobe no offset");
  memcpy(out->target, rest, n);
  out->target[n] = '\0';
  out->cls = FG_KEVENT_KPROBE;
  out->default_period = 1;
  return 0;
}

static int parse_uprobe(const char *name, const char *rest, struct fg_kevent_spec *out, char *err, size_t len)
{
  const char *colon = strrchr(rest, ':');
  if (rest[0] != '/' || !colon || colon == rest + 1 || !colon[1] || strstr(rest, "/../") ||
      (size_t)(colon - rest) >= sizeof out->target)
    return fail(err, len, name, "a uprobe names an absolute file and a symbol in it, uprobe:/PATH:SYMBOL, "
                "uprobe:/PATH:SYMBOL+OFFSET or uprobe:/PATH:0xOFFSET");
  memcpy(out->target, rest, (size_t)(colon - rest));
  out->target[colon - rest] = '\0';
  const char *sym = colon + 1;
  if (sym[0] == '0' && (sym[1] == 'x' || sym[1] == 'X')) {
    char *end;
    errno = 0;
    out->offset = strtoull(sym, &end, 16);
    if (errno || *end || end == sym + 2)
      return fail(err, len, name, "a uprobe's 0xOFFSET is a hexadecimal file offset");
  } else {
    const char *plus = strchr(sym, '+');
    size_t n = plus ? (size_t)(plus - sym) : strlen(sym);
    if (n == 0 || n >= sizeof out->symbol || memchr(sym, '/', n) || parse_offset(sym + n, &out->offset) != 0)
      return fail(err, len, name, "a uprobe's SYMBOL is a function of the file's symbol table, with an optional "
                  "+OFFSET");
    memcpy(out->symbol, sym, n);
    out->symbol[n] = '\0';
  }
  if (out->retprobe && out->offset && out->symbol[0])
    return fail(err, len, name, "a uretprobe takes no offset");
  out->cls = FG_KEVENT_UPROBE;
  out->default_period = 1;
  return 0;
}

int fg_kevent_parse(const char *name, struct fg_kevent_spec *out, char *err, size_t len)
{
  memset(out, 0, sizeof *out);
  if (!name || !*name || strlen(name) >= sizeof out->name)
    return fail(err, len, name ? name : "", "empty, or longer than 299 bytes");
  snprintf(out->name, sizeof out->name, "%s", name);
  const struct named *n = find(software, sizeof software / sizeof *software, name);
  out->cls = FG_KEVENT_SOFTWARE;
  if (!n) {
    n = find(hardware, sizeof hardware / sizeof *hardware, name);
    out->cls = FG_KEVENT_HARDWARE;
  }
  if (n) {
    snprintf(out->name, sizeof out->name, "%s", n->name);
    out->type = n->type;
    out->config = n->config;
    out->default_period = n->period;
    return 0;
  }
  static const struct {
    const char *prefix;
    int uprobe, ret;
  } probes[] = {{"kprobe:", 0, 0}, {"kretprobe:", 0, 1}, {"uprobe:", 1, 0}, {"uretprobe:", 1, 1}};
  for (size_t i = 0; i < sizeof probes / sizeof *probes; i++) {
    size_t pl = strlen(probes[i].prefix);
    if (strncmp(name, probes[i].prefix, pl) != 0)
      continue;
    out->retprobe = probes[i].ret;
    return probes[i].uprobe ? parse_uprobe(name, name + pl, out, err, len) : parse_kprobe(name, name + pl, out, err, len);
  }
  const char *colon = strchr(name, ':');
  if (!colon)
    return fail(err, len, name, "no such event");
  if (!is_ident(name, (size_t)(colon - name)) || !is_ident(colon + 1, strlen(colon + 1)))
    return fail(err, len, name, "a tracepoint is CATEGORY:NAME, each of letters, digits and '_'");
  snprintf(out->target, sizeof out->target, "%s", name);
  out->cls = FG_KEVENT_TRACEPOINT;
  out->type = PERF_TYPE_TRACEPOINT;
  out->default_period = 1;
  return 0;
}

