/* event=NAME for one of the kernel's events: what its name means to
 * perf_event_open.
 *
 *   software    page-faults (faults), minor-faults, major-faults,
 *               context-switches (cs), cpu-migrations (migrations)
 *   hardware    cycles (cpu-cycles), instructions, cache-references,
 *               cache-misses, branches, branch-misses, LLC-load-misses
 *   tracepoint  CATEGORY:NAME, e.g. sched:sched_switch, syscalls:sys_enter_write:
 *               its id read from tracefs (/sys/kernel/tracing, or
 *               /sys/kernel/debug/tracing), events/CATEGORY/NAME/id
 *   kprobe      kprobe:FUNC[+OFFSET], kretprobe:FUNC: the kprobe PMU's type
 *               (/sys/bus/event_source/devices/kprobe/type), FUNC by name
 *   uprobe      uprobe:/PATH:SYMBOL[+OFFSET], uprobe:/PATH:0xOFFSET,
 *               uretprobe:...: the uprobe PMU's type, SYMBOL's file offset
 *               read from PATH's ELF symbol tables (native/symbols.h)
 *
 * fg_kevent_parse checks a name's shape (at option time: no file is read);
 * fg_kevent_resolve reads what the kernel says (at a session's start).
 * Files read: only below a tracefs or debugfs mount (proved by fstatfs),
 * each directory opened on its own with O_NOFOLLOW, at most 31 bytes of an
 * id; a PMU's type only from sysfs (whose own links to devices/ are the
 * kernel's); the uprobe's ELF file opened with O_NOFOLLOW, owned by root
 * or the process's user, read bounded by its size. */
#ifndef FG_KEVENT_SPEC_H
#define FG_KEVENT_SPEC_H

#include <stddef.h>
#include <stdint.h>

#define FG_KEVENT_NAME_MAX 300   /* event=NAME's NAME, a uprobe's path included */
#define FG_KEVENT_FILE_NAME_MAX 200   /* ... with other kernel events, as %e in a file name (255 bytes) */

enum fg_kevent_class {
  FG_KEVENT_SOFTWARE,
  FG_KEVENT_HARDWARE,
  FG_KEVENT_TRACEPOINT,
  FG_KEVENT_KPROBE,
  FG_KEVENT_UPROBE,
};

struct fg_kevent_spec {
  char name[FG_KEVENT_NAME_MAX];   /* as asked (an alias's canonical name: "faults" is "page-faults") */
  enum fg_kevent_class cls;
  uint32_t type;                   /* perf_event_attr's, once resolved */
  uint64_t config, config1, config2;
  int retprobe;                    /* kretprobe, uretprobe */
  char target[FG_KEVENT_NAME_MAX]; /* kprobe: the function; uprobe: the file; tracepoint: category:name */
  char symbol[256];                /* uprobe: the symbol ("" for an offset) */
  uint64_t offset;                 /* kprobe, uprobe: the offset after +, or a uprobe's 0xOFFSET */
  uint64_t default_period;         /* events a sample stands for without interval= */
  int exclude_kernel;              /* fg_kevent_try: the kernel takes the counter of user work only
                                      (perf_event_paranoid 2 without a capability) */
};

/* The accepted names, for error lines. */
#define FG_KEVENT_ACCEPTED                                                                                           \
  "page-faults, minor-faults, major-faults, context-switches, cpu-migrations, cycles, instructions, "                \
  "cache-references, cache-misses, branches, branch-misses, LLC-load-misses, a tracepoint CATEGORY:NAME "            \
  "(e.g. sched:sched_switch), kprobe:FUNC[+OFFSET], kretprobe:FUNC, uprobe:/PATH:SYMBOL[+OFFSET] or "                \
  "uprobe:/PATH:0xOFFSET, uretprobe:/PATH:SYMBOL"

/* Whether name is a kernel event's shape; fills out's class, name and
 * target (type and config of software and hardware ones too). 0, or -1
 * with one line in err naming what is wrong and what is accepted. */
int fg_kevent_parse(const char *name, struct fg_kevent_spec *out, char *err, size_t errlen);

/* Resolves a parsed spec against the running kernel: the tracepoint's id,
 * a probe PMU's type, a uprobe's file offset. sysroot: "" for the real
 * files (mounts proved by their magic), else a directory standing for /
 * in tests (no magic checked). 0, or -1 with one line in err. */
int fg_kevent_resolve(struct fg_kevent_spec *s, const char *sysroot, char *err, size_t errlen);

/* The perf_event_attr for s, sampling every period events (0: its
 * default), disabled; kernel_callchain: each sample records the kernel's
 * callchain. attr points into s (a probe's function or file): s outlives
 * every open. */
struct perf_event_attr;
void fg_kevent_attr(const struct fg_kevent_spec *s, uint64_t period, int kernel_callchain,
                    struct perf_event_attr *attr);

/* Opens s's counter once on the calling thread, counting only, and closes
 * it: 0 when the kernel takes it (a software or hardware event of user
 * work only, s->exclude_kernel, when that is all it takes), else -1 with
 * one line in err naming why (no PMU for a hardware event,
 * perf_event_paranoid and the capabilities missing, a probe the kernel
 * refuses). */
int fg_kevent_try(struct fg_kevent_spec *s, char *err, size_t errlen);

#endif
