/* Collapsed-stacks reader; see fg/collapsed_reader.h. Every line goes
 * through one check (check_line) before anything is added to the profile. */
#include "fg/collapsed_reader.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fg/profile.h"

#define MAX_FRAMES 65536

static int fail(char *err, size_t errlen, const char *source, long line, const char *fmt, ...)
{
  char what[256];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  snprintf(err, errlen, "%s:%ld: %s", source, line, what);
  return -1;
}

/* Frame kind from async-profiler's annotation suffix; strips it from *len. */
static int suffix_kind(const char *name, size_t *len, enum fg_frame_kind *kind)
{
  static const struct { const char *suffix; enum fg_frame_kind kind; } suffixes[] = {
    {"_[j]", FG_KIND_COMPILED}, {"_[1]", FG_KIND_COMPILED}, {"_[i]", FG_KIND_INLINED},
    {"_[0]", FG_KIND_INTERPRETED}, {"_[k]", FG_KIND_KERNEL},
  };
  for (size_t i = 0; i < sizeof suffixes / sizeof suffixes[0]; i++) {
    if (*len > 4 && memcmp(name + *len - 4, suffixes[i].suffix, 4) == 0) {
      *len -= 4;
      *kind = suffixes[i].kind;
      return 1;
    }
  }
  return 0;
}

static int contains(const char *s, size_t len, const char *what)
{
  size_t n = strlen(what);
  for (size_t i = 0; i + n <= len; i++)
    if (memcmp(s + i, what, n) == 0)
      return 1;
  return 0;
}

/* What a frame name with no suffix most likely is. */
static enum fg_frame_kind guess_kind(const char *name, size_t len)
{
  if (len >= 2 && name[0] == '[' && name[len - 1] == ']')
    return FG_KIND_MARKER;
  if (contains(name, len, "::") || contains(name, len, ".so"))
    return FG_KIND_NATIVE;
  if (contains(name, len, "/") || contains(name, len, "."))
    return FG_KIND_JAVA;
  return FG_KIND_NATIVE;
}

/* "[name tid=123]": a thread root. Fills name and tid. */
static int thread_root(const char *frame, size_t len, char *name, size_t namelen, int *tid)
{
  if (len < 8 || frame[0] != '[' || frame[len - 1] != ']')
    return 0;
  const char *mark = NULL;
  for (size_t i = 1; i + 5 < len; i++)
    if (memcmp(frame + i, " tid=", 5) == 0)
      mark = frame + i;
  if (!mark)
    return 0;
  char *end;
  long v = strtol(mark + 5, &end, 10);
  if (end != frame + len - 1 || v < 0 || v > INT32_MAX)
    return 0;
  snprintf(name, namelen, "%.*s", (int)(mark - frame - 1), frame + 1);
  *tid = (int)v;
  return 1;
}

/* The one gate: a line is "stack count", the count a whole number, the stack
 * non-empty frames. Sets *stack_len and *count. */
static int check_line(const char *line, size_t len, size_t *stack_len, uint64_t *count,
                      const char **problem)
{
  size_t sp = len;
  while (sp > 0 && line[sp - 1] != ' ')
    sp--;
  if (sp == 0) {
    *problem = "no sample count: the line has no space before a number";
    return -1;
  }
  if (sp == len) {
    *problem = "no sample count after the last space";
    return -1;
  }
  uint64_t v = 0;
  for (size_t i = sp; i < len; i++) {
    if (line[i] < '0' || line[i] > '9') {
      *problem = "the sample count is not a whole number";
      return -1;
    }
    if (v > (UINT64_MAX - 9) / 10) {
      *problem = "the sample count is too large";
      return -1;
    }
    v = v * 10 + (uint64_t)(line[i] - '0');
  }
  size_t stack = sp - 1;
  while (stack > 0 && line[stack - 1] == ' ')
    stack--;
  if (stack == 0) {
    *problem = "the stack is empty";
    return -1;
  }
  if (line[0] == ';' || line[stack - 1] == ';' || contains(line, stack, ";;")) {
    *problem = "a frame name is empty (';' at an end, or ';;')";
    return -1;
  }
  *stack_len = stack;
  *count = v;
  return 0;
}

static int64_t thread_index(struct fg_profile *p, const char *name, int tid)
{
  for (uint32_t i = 0; i < p->nthreads; i++)
    if (p->threads[i].tid == tid && strcmp(p->threads[i].name, name) == 0)
      return i;
  return fg_profile_add_thread(p, tid, name);
}

static int add_line(struct fg_profile *p, const char *stack, size_t len, uint64_t count,
                    uint32_t *ids, int *thread_rooted)
{
  uint32_t n = 0;
  int64_t thread = -1;
  size_t start = 0;
  for (size_t i = 0; i <= len; i++) {
    if (i < len && stack[i] != ';')
      continue;
    const char *frame = stack + start;
    size_t flen = i - start;
    start = i + 1;
    char tname[256];
    int tid;
    if (n == 0 && thread < 0 && thread_root(frame, flen, tname, sizeof tname, &tid)) {
      thread = thread_index(p, tname, tid);
      if (thread < 0)
        return -1;
      *thread_rooted = 1;
      continue;
    }
    if (n == MAX_FRAMES)
      return -2;
    enum fg_frame_kind kind;
    if (!suffix_kind(frame, &flen, &kind))
      kind = guess_kind(frame, flen);
    int64_t id = fg_profile_intern_n(p, frame, flen, kind);
    if (id < 0)
      return -1;
    ids[n++] = (uint32_t)id;
  }
  if (n == 0)
    return -3;   /* a thread root and nothing under it */
  if (thread < 0) {
    thread = thread_index(p, "all", 0);
    if (thread < 0)
      return -1;
  }
  /* A stack of one bracketed frame that is no known marker is a thread with
   * no JNIEnv, as fgagent writes them: "[C2 CompilerThre] 12". */
  if (n == 1 && fg_profile_kind(p, ids[0]) == FG_KIND_MARKER && !fg_is_known_marker(fg_profile_name(p, ids[0]))) {
    int64_t id = fg_profile_intern(p, fg_profile_name(p, ids[0]), FG_KIND_THREAD);
    if (id < 0)
      return -1;
    ids[0] = (uint32_t)id;
  }
  fg_profile_account(p, ids, n, count);
  return fg_profile_add(p, (uint32_t)thread, ids, n, count);
}

int fg_parse_collapsed(const char *data, size_t len, const char *source, struct fg_profile *p,
                       char *err, size_t errlen)
{
  uint32_t *ids = malloc(MAX_FRAMES * sizeof *ids);
  if (!ids)
    return fail(err, errlen, source, 0, "out of memory");
  long lineno = 0;
  int thread_rooted = 0, rc = 0;
  uint64_t total = 0;   /* every count in p, so that no reader of what is written loses one */
  for (uint32_t i = 0; i < p->nstacks; i++)
    total += p->stacks[i].count;
  for (size_t pos = 0; pos < len && rc == 0;) {
    const char *line = data + pos;
    const char *nl = memchr(line, '\n', len - pos);
    size_t llen = nl ? (size_t)(nl - line) : len - pos;
    pos += llen + (nl ? 1 : 0);
    lineno++;
    if (llen > 0 && line[llen - 1] == '\r')
      llen--;
    if (llen == 0 || line[0] == '#')
      continue;
    if (memchr(line, '\0', llen)) {
      rc = fail(err, errlen, source, lineno, "a NUL byte; accepted: text lines 'frame;frame count'");
      break;
    }
    size_t stack_len;
    uint64_t count;
    const char *problem;
    if (check_line(line, llen, &stack_len, &count, &problem) != 0) {
      rc = fail(err, errlen, source, lineno, "%s; accepted: 'frame;frame;... count' with a whole "
                "number count", problem);
      break;
    }
    if (count > FG_MAX_TOTAL_SAMPLES - total) {
      rc = fail(err, errlen, source, lineno, "the sample counts add up past 2^53 (%" PRIu64 "); "
                "accepted: totals up to 2^53, the largest whole number JSON readers (speedscope, "
                "the flame graph) hold exactly", FG_MAX_TOTAL_SAMPLES);
      break;
    }
    total += count;
    int added = add_line(p, line, stack_len, count, ids, &thread_rooted);
    if (added == -2)
      rc = fail(err, errlen, source, lineno, "more than %d frames in one stack", MAX_FRAMES);
    else if (added == -3)
      rc = fail(err, errlen, source, lineno, "a thread root with no frame under it; accepted: "
                "'[name tid=N];frame;... count'");
    else if (added != 0)
      rc = fail(err, errlen, source, lineno, "out of memory");
  }
  free(ids);
  return rc;
}

