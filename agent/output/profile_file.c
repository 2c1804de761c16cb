/* Writes a file through a temporary file renamed into place, so a reader never
 * sees half a file and a failed write leaves nothing behind; and a profile in
 * the format its file name's extension selects. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fg/output.h"
#include "fg/profile.h"

static int write_in_place(const char *path, int (*write)(FILE *out, void *ctx), void *ctx)
{
  int fd = fg_output_open_in_place(path);
  FILE *out = fd < 0 ? NULL : fdopen(fd, "a");
  if (!out) {
    if (fd >= 0)
      close(fd);
    return -1;
  }
  int rc = write(out, ctx);
  int saved = errno;
  if (fclose(out) != 0 && rc == 0)
    return -1;
  errno = saved;
  return rc;
}

int fg_write_file_atomically(const char *path, int (*write)(FILE *out, void *ctx), void *ctx,
                             char *err, size_t errlen)
{
  struct fg_output_target t;
  char why[1100];
  if (fg_output_target(path, &t, why, sizeof why) != 0) {
    snprintf(err, errlen, "fgagent: %s", why);
    return -1;
  }
  if (t.in_place) {
    if (write_in_place(t.path, write, ctx) == 0)
      return 0;
    snprintf(err, errlen, "fgagent: cannot write '%s': %s", path, strerror(errno));
    return -1;
  }
  char tmp[sizeof t.path + 32];
  if (fg_output_temp_name(t.path, getpid(), tmp, sizeof tmp) != 0) {
    snprintf(err, errlen, "fgagent: cannot write '%s': path too long", path);
    return -1;
  }
  /* a file replaced keeps its permissions (a fallback's 0600); a new one gets the umask's */
  struct stat old;
  int replaces = stat(t.path, &old) == 0 && S_ISREG(old.st_mode);
  int fd = fg_output_create_temp(tmp, 0666);
  if (fd >= 0 && replaces && fchmod(fd, old.st_mode & 07777) != 0) {
    close(fd);
    unlink(tmp);
    fd = -1;
  }
  FILE *out = fd >= 0 ? fdopen(fd, "w") : NULL;
  if (!out) {
    int e = errno;
    if (fd >= 0) {
      close(fd);
      unlink(tmp);
    }
    if (e == EEXIST)
      snprintf(err, errlen, "fgagent: cannot write '%s': its temporary file %s is there already and is not this "
               "process's to remove", path, tmp);
    else
      snprintf(err, errlen, "fgagent: cannot write '%s': %s", path, strerror(e));
    return -1;
  }
  int rc = write(out, ctx);
  int saved = errno;
  if (fclose(out) != 0 && rc == 0) {
    rc = -1;
    saved = errno;
  }
  if (rc == 0 && rename(tmp, t.path) != 0) {
    rc = -1;
    saved = errno;
  }
  if (rc != 0) {
    unlink(tmp);
    snprintf(err, errlen, "fgagent: cannot write '%s': %s", path, strerror(saved));
  }
  return rc;
}

struct profile_write {
  enum fg_format format;
  const struct fg_profile *p;
  const struct fg_output_settings *cfg;
};

static int write_format(FILE *out, void *ctx)
{
  const struct profile_write *w = ctx;
  switch (w->format) {
  case FG_FORMAT_COLLAPSED: return fg_write_collapsed(out, w->p, w->cfg);
  case FG_FORMAT_CALLGRAPH:
    return w->cfg->timeline ? fg_write_timeline(out, w->p, w->cfg) : fg_write_callgraph(out, w->p, w->cfg);
  case FG_FORMAT_HTML: return fg_write_flamegraph_html(out, w->p, w->cfg);
  case FG_FORMAT_PPROF: return fg_write_pprof(out, w->p, w->cfg);
  case FG_FORMAT_JFR: return fg_write_jfr(out, w->p, w->cfg);
  case FG_FORMAT_OTLP: return fg_write_otlp(out, w->p, w->cfg);
  case FG_FORMAT_HEATMAP: return fg_write_heatmap_html(out, w->p, w->cfg);
  default: return fg_write_speedscope(out, w->p, w->cfg);
  }
}

int fg_write_profile_file(const char *path, const struct fg_profile *p,
                          const struct fg_output_settings *cfg, char *err, size_t errlen)
{
  struct profile_write w = {fg_format_for_path(path), p, cfg};
  if (w.format == FG_FORMAT_NONE) {
    snprintf(err, errlen, "fgagent: cannot write '%s': unknown extension; accepted: %s", path,
             fg_format_extensions());
    return -1;
  }
  if (p->nvariants == 0 || w.format == FG_FORMAT_JFR)
    return fg_write_file_atomically(path, write_format, &w, err, errlen);
  /* only JFR frames carry a bytecode index and a method's descriptor: every
   * other format names a line's frames, and overloads, once */
  struct fg_profile merged;
  int rc = fg_profile_merge_variants(p, &merged);
  if (rc != 0)
    snprintf(err, errlen, "fgagent: cannot write '%s': out of memory", path);
  else {
    merged.marks = p->marks;   /* lent, not copied: the heatmap draws them */
    w.p = &merged;
    rc = fg_write_file_atomically(path, write_format, &w, err, errlen);
  }
  memset(&merged.marks, 0, sizeof merged.marks);
  fg_profile_free(&merged);
  return rc;
}
