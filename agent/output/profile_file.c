/* Writes a profile to a file in the format its extension names, through a
 * temporary file renamed into place, so a reader never sees half a file. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "fg/output.h"
#include "fg/profile.h"

int fg_write_profile_file(const char *path, const struct fg_profile *p,
                          const struct fg_output_settings *cfg, char *err, size_t errlen)
{
  enum fg_format format = fg_format_for_path(path);
  if (format == FG_FORMAT_NONE) {
    snprintf(err, errlen, "fgagent: cannot write '%s': unknown extension; accepted: %s", path,
             fg_format_extensions());
    return -1;
  }
  char tmp[4200];
  if (snprintf(tmp, sizeof tmp, "%s.tmp.%d", path, (int)getpid()) >= (int)sizeof tmp) {
    snprintf(err, errlen, "fgagent: cannot write '%s': path too long", path);
    return -1;
  }
  FILE *out = fopen(tmp, "w");
  if (!out) {
    snprintf(err, errlen, "fgagent: cannot write '%s': %s", path, strerror(errno));
    return -1;
  }
  int rc;
  switch (format) {
  case FG_FORMAT_COLLAPSED: rc = fg_write_collapsed(out, p, cfg); break;
  case FG_FORMAT_CALLGRAPH: rc = fg_write_callgraph(out, p, cfg); break;
  case FG_FORMAT_HTML: rc = fg_write_flamegraph_html(out, p, cfg); break;
  case FG_FORMAT_PPROF: rc = fg_write_pprof(out, p, cfg); break;
  default: rc = fg_write_speedscope(out, p, cfg); break;
  }
  int saved = errno;
  if (fclose(out) != 0 && rc == 0) {
    rc = -1;
    saved = errno;
  }
  if (rc == 0 && rename(tmp, path) != 0) {
    rc = -1;
    saved = errno;
  }
  if (rc != 0) {
    unlink(tmp);
    snprintf(err, errlen, "fgagent: cannot write '%s': %s", path, strerror(saved));
  }
  return rc;
}
