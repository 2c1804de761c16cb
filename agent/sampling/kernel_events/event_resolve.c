/* What a kernel event's name means to the running kernel: tracefs, sysfs,
 * an ELF file; see event_spec.h. */
#include "sampling/kernel_events/event_spec.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "fg/error_line.h"
#include "native/symbols.h"

#define ID_BYTES 31   /* a tracepoint's id or a PMU's type: a decimal number and a newline */

/* A decimal number in the first ID_BYTES bytes of fd: 0 and *v, or -1. */
static int read_number(int fd, uint64_t *v)
{
  char buf[ID_BYTES + 1];
  ssize_t n = read(fd, buf, ID_BYTES);
  if (n <= 0)
    return -1;
  buf[n] = '\0';
  char *end;
  errno = 0;
  unsigned long long x = strtoull(buf, &end, 10);
  if (errno || end == buf || (*end && *end != '\n') || buf[0] == '-')
    return -1;
  *v = x;
  return 0;
}

/* dir (a directory fd) / name, without following a link. */
static int open_below(int dir, const char *name, int flags)
{
  return openat(dir, name, flags | O_NOFOLLOW | O_CLOEXEC);
}

/* A tracefs mount's root: <sysroot>/sys/kernel/tracing, else the one
 * debugfs mounts at <sysroot>/sys/kernel/debug/tracing. Its fd, or -1. */
static int tracefs_root(const char *sysroot, int *denied)
{
  static const char *at[] = {"/sys/kernel/tracing", "/sys/kernel/debug/tracing"};
  *denied = 0;
  for (size_t i = 0; i < sizeof at / sizeof *at; i++) {
    char path[512];
    snprintf(path, sizeof path, "%s%s", sysroot, at[i]);
    int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) {
      *denied |= errno == EACCES;
      continue;
    }
    struct statfs fs;
    if (sysroot[0] || (fstatfs(fd, &fs) == 0 && (fs.f_type == TRACEFS_MAGIC || fs.f_type == DEBUGFS_MAGIC))) {
      int events = open_below(fd, "events", O_RDONLY | O_DIRECTORY);
      close(fd);
      if (events >= 0)
        return events;
      continue;
    }
    close(fd);   /* an empty mount point: tracefs not mounted there */
  }
  return -1;
}

static int resolve_tracepoint(struct fg_kevent_spec *s, const char *sysroot, char *err, size_t len)
{
  char cat[128], ev[128];
  const char *colon = strchr(s->target, ':');
  snprintf(cat, sizeof cat, "%.*s", (int)(colon - s->target), s->target);
  snprintf(ev, sizeof ev, "%s", colon + 1);
  int denied;
  int events = tracefs_root(sysroot, &denied);
  if (events < 0 && denied)
    return fg_error_line(err, len, "fgagent: event=%s: tracefs (/sys/kernel/tracing) cannot be read by the JVM's "
                         "user (Permission denied): tracepoints need root or CAP_PERFMON; not recording it", s->name);
  if (events < 0)
    return fg_error_line(err, len, "fgagent: event=%s: tracefs is not mounted (neither /sys/kernel/tracing nor "
                         "/sys/kernel/debug/tracing holds events/; as root: mount -t tracefs nodev "
                         "/sys/kernel/tracing); not recording it", s->name);
  int c = open_below(events, cat, O_RDONLY | O_DIRECTORY);
  int e = c >= 0 ? open_below(c, ev, O_RDONLY | O_DIRECTORY) : -1;
  int id = e >= 0 ? open_below(e, "id", O_RDONLY) : -1;
  int saved = errno;
  uint64_t v = 0;
  int ok = id >= 0 && read_number(id, &v) == 0 && v <= UINT32_MAX;
  if (id >= 0)
    close(id);
  if (e >= 0)
    close(e);
  if (c >= 0)
    close(c);
  close(events);
  if (!ok)
    return fg_error_line(err, len, "fgagent: event=%s: no such tracepoint (tracefs's events/%s/%s/id: %s; the "
                         "kernel's are listed in its available_events); not recording it", s->name, cat, ev,
                         id >= 0 ? "not a number" : strerror(saved));
  s->config = v;
  return 0;
}

/* A PMU's type from sysfs: <sysroot>/sys/bus/event_source/devices/<pmu>/type. 0, or -1. */
static int pmu_type(const char *sysroot, const char *pmu, uint32_t *type)
{
  char path[512];
  snprintf(path, sizeof path, "%s/sys/bus/event_source/devices/%s/type", sysroot, pmu);
  int fd = open(path, O_RDONLY | O_CLOEXEC);   /* devices/<pmu> is sysfs's own link */
  if (fd < 0)
    return -1;
  struct statfs fs;
  uint64_t v = 0;
  int ok = (sysroot[0] || (fstatfs(fd, &fs) == 0 && fs.f_type == SYSFS_MAGIC)) && read_number(fd, &v) == 0 &&
           v <= UINT32_MAX;
  close(fd);
  *type = (uint32_t)v;
  return ok ? 0 : -1;
}

/* The uprobe's file offset from its ELF file: a regular file, no link,
 * owned by root or by the process's user. */
static int resolve_symbol(struct fg_kevent_spec *s, char *err, size_t len)
{
  int fd = open(s->target, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  struct stat st;
  const char *why = NULL;
  if (fd < 0)
    why = errno == ELOOP ? "it is a symbolic link (give the file it names)" : strerror(errno);
  else if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
    why = "not a regular file";
  else if (st.st_uid != 0 && st.st_uid != geteuid())
    why = "owned by neither root nor the JVM's user";
  else if (st.st_size < 64)
    why = "not an ELF file";
  if (why) {
    if (fd >= 0)
      close(fd);
    return fg_error_line(err, len, "fgagent: event=%s: cannot read %s: %s; not recording it", s->name, s->target, why);
  }
  size_t size = (size_t)st.st_size;
  const uint8_t *file = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
  close(fd);
  if (file == MAP_FAILED)
    return fg_error_line(err, len, "fgagent: event=%s: cannot map %s: %s; not recording it", s->name, s->target,
                         strerror(errno));
  uint64_t off = 0;
  int found = fg_symbols_image_offset(file, size, s->symbol, &off);
  munmap((void *)file, size);
  if (!found)
    return fg_error_line(err, len, "fgagent: event=%s: %s has no function %s in its symbol tables (.symtab, "
                         ".dynsym); not recording it", s->name, s->target, s->symbol);
  s->offset += off;
  return 0;
}

int fg_kevent_resolve(struct fg_kevent_spec *s, const char *sysroot, char *err, size_t len)
{
  switch (s->cls) {
  case FG_KEVENT_SOFTWARE:
  case FG_KEVENT_HARDWARE:
    return 0;
  case FG_KEVENT_TRACEPOINT:
    return resolve_tracepoint(s, sysroot, err, len);
  case FG_KEVENT_KPROBE:
    if (pmu_type(sysroot, "kprobe", &s->type) != 0)
      return fg_error_line(err, len, "fgagent: event=%s: this kernel has no kprobe PMU "
                           "(/sys/bus/event_source/devices/kprobe: built without CONFIG_KPROBE_EVENTS); not "
                           "recording it", s->name);
    s->config = s->retprobe ? 1 : 0;   /* format/retprobe: config:0 */
    s->config2 = s->offset;                        /* probe_offset */
    return 0;
  case FG_KEVENT_UPROBE:
    if (pmu_type(sysroot, "uprobe", &s->type) != 0)
      return fg_error_line(err, len, "fgagent: event=%s: this kernel has no uprobe PMU "
                           "(/sys/bus/event_source/devices/uprobe: built without CONFIG_UPROBE_EVENTS); not "
                           "recording it", s->name);
    if (s->symbol[0] && resolve_symbol(s, err, len) != 0)
      return -1;
    s->config = s->retprobe ? 1 : 0;
    s->config2 = s->offset;                        /* probe_offset: in the file */
    return 0;
  }
  return -1;
}

void fg_kevent_attr(const struct fg_kevent_spec *s, uint64_t period, int kernel_callchain, struct perf_event_attr *attr)
{
  memset(attr, 0, sizeof *attr);
  attr->size = sizeof *attr;
  attr->type = s->type;
  attr->config = s->config;
  /* a probe's function or file, by address: s outlives every open */
  attr->config1 = s->cls == FG_KEVENT_KPROBE || s->cls == FG_KEVENT_UPROBE ? (uint64_t)(uintptr_t)s->target : s->config1;
  attr->config2 = s->config2;
  attr->sample_period = period ? period : s->default_period;
  attr->disabled = 1;
  attr->wakeup_events = 1;
  attr->exclude_hv = 1;
  /* a tracepoint's or kprobe's sample is taken in the kernel (perf_tp_event_match drops it under
   * exclude_kernel); a software or hardware event counts the thread's user and kernel work alike */
  if (kernel_callchain) {
    attr->sample_type = PERF_SAMPLE_CALLCHAIN;
    attr->exclude_callchain_user = 1;
    attr->sample_max_stack = 64;
  }
}

/* Whether the process has CAP_PERFMON (38) or CAP_SYS_ADMIN (21) in
 * effect, from /proc/self/status's CapEff (one line read, bounded). */
static int has_perf_capability(void)
{
  FILE *f = fopen("/proc/self/status", "re");
  char line[256];
  unsigned long long eff = 0;
  int found = 0;
  while (f && !found && fgets(line, sizeof line, f))
    found = sscanf(line, "CapEff: %llx", &eff) == 1;
  if (f)
    fclose(f);
  return found && (eff >> 38 & 1 || eff >> 21 & 1);
}

/* Why the kernel refused s's counter (errno e), for a line. */
static const char *refusal(const struct fg_kevent_spec *s, int e, char *buf, size_t len)
{
  if (e == EACCES || e == EPERM) {
    int level = 99;
    FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "re");
    if (f) {
      if (fscanf(f, "%d", &level) != 1)
        level = 99;
      fclose(f);
    }
    if (has_perf_capability())
      snprintf(buf, len, "perf_event_open refused it (%s) although the JVM has CAP_PERFMON or CAP_SYS_ADMIN "
               "(perf_event_paranoid %d): a seccomp filter or a security module?", strerror(e), level);
    else
      snprintf(buf, len, "refused: /proc/sys/kernel/perf_event_paranoid is %d and the JVM has neither CAP_PERFMON "
               "nor CAP_SYS_ADMIN (%s needs a lower level or a capability)", level,
               s->cls == FG_KEVENT_SOFTWARE || s->cls == FG_KEVENT_HARDWARE ? "its kernel work" : "this event");
    return buf;
  }
  if (s->cls == FG_KEVENT_HARDWARE && (e == ENOENT || e == EOPNOTSUPP || e == ENODEV || e == EINVAL)) {
    struct stat st;
    snprintf(buf, len, "no hardware PMU: %s (a virtual machine without a virtual PMU?)",
             stat("/sys/bus/event_source/devices/cpu", &st) == 0
                 ? "the kernel's cpu PMU has no such counter"
                 : "the kernel lists no cpu PMU in /sys/bus/event_source/devices");
    return buf;
  }
  snprintf(buf, len, "perf_event_open refused it: %s", strerror(e));
  return buf;
}

int fg_kevent_try(struct fg_kevent_spec *s, char *err, size_t len)
{
  struct perf_event_attr attr;
  fg_kevent_attr(s, 0, 0, &attr);
  attr.sample_period = 0;   /* counting only */
  attr.wakeup_events = 0;
  s->exclude_kernel = 0;
  int fd = (int)syscall(SYS_perf_event_open, &attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
  int e = errno;
  if (fd < 0 && (e == EACCES || e == EPERM) && (s->cls == FG_KEVENT_SOFTWARE || s->cls == FG_KEVENT_HARDWARE)) {
    attr.exclude_kernel = 1;   /* perf_event_paranoid 2: the thread's user work only */
    fd = (int)syscall(SYS_perf_event_open, &attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
    s->exclude_kernel = fd >= 0;
  }
  if (fd >= 0) {
    close(fd);
    return 0;
  }
  char why[256];
  return fg_error_line(err, len, "fgagent: event=%s cannot be recorded: %s; not recording it", s->name,
                       refusal(s, e, why, sizeof why));
}
