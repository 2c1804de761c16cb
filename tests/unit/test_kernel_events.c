/* event=NAME for kernel events: names parsed to what perf_event_open
 * takes, tracepoint ids and probe PMU types read from a made-up sysfs and
 * tracefs (never through a link), a uprobe's file offset read from this
 * very program's ELF file and checked against where the kernel mapped it. */
#include "unit.h"

#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sampling/kernel_events/event_spec.h"

static char err[1024];

static void software_and_hardware_names(void **state)
{
  (void)state;
  struct fg_kevent_spec s;
  assert_int_equal(fg_kevent_parse("page-faults", &s, err, sizeof err), 0);
  assert_int_equal(s.cls, FG_KEVENT_SOFTWARE);
  assert_int_equal(s.type, PERF_TYPE_SOFTWARE);
  assert_int_equal(s.config, PERF_COUNT_SW_PAGE_FAULTS);
  assert_int_equal(fg_kevent_parse("cs", &s, err, sizeof err), 0);
  assert_string_equal(s.name, "context-switches");   /* an alias named canonically */
  assert_int_equal(s.config, PERF_COUNT_SW_CONTEXT_SWITCHES);
  assert_int_equal(fg_kevent_parse("cpu-migrations", &s, err, sizeof err), 0);
  assert_int_equal(s.config, PERF_COUNT_SW_CPU_MIGRATIONS);
  assert_int_equal(fg_kevent_parse("cycles", &s, err, sizeof err), 0);
  assert_int_equal(s.cls, FG_KEVENT_HARDWARE);
  assert_int_equal(s.type, PERF_TYPE_HARDWARE);
  assert_int_equal(s.config, PERF_COUNT_HW_CPU_CYCLES);
  assert_int_equal(fg_kevent_parse("LLC-load-misses", &s, err, sizeof err), 0);
  assert_int_equal(s.type, PERF_TYPE_HW_CACHE);
  assert_int_equal(s.config, PERF_COUNT_HW_CACHE_LL | PERF_COUNT_HW_CACHE_OP_READ << 8 |
                                 PERF_COUNT_HW_CACHE_RESULT_MISS << 16);
  assert_int_equal(fg_kevent_parse("branch-misses", &s, err, sizeof err), 0);
  assert_int_equal(s.config, PERF_COUNT_HW_BRANCH_MISSES);
}

static void probe_and_tracepoint_names(void **state)
{
  (void)state;
  struct fg_kevent_spec s;
  assert_int_equal(fg_kevent_parse("sched:sched_switch", &s, err, sizeof err), 0);
  assert_int_equal(s.cls, FG_KEVENT_TRACEPOINT);
  assert_string_equal(s.target, "sched:sched_switch");
  assert_int_equal(fg_kevent_parse("kprobe:do_sys_openat2+4", &s, err, sizeof err), 0);
  assert_int_equal(s.cls, FG_KEVENT_KPROBE);
  assert_string_equal(s.target, "do_sys_openat2");
  assert_int_equal(s.offset, 4);
  assert_int_equal(fg_kevent_parse("kretprobe:vfs_read", &s, err, sizeof err), 0);
  assert_int_equal(s.retprobe, 1);
  assert_int_equal(fg_kevent_parse("uprobe:/usr/lib/libz.so.1:deflate+0x10", &s, err, sizeof err), 0);
  assert_int_equal(s.cls, FG_KEVENT_UPROBE);
  assert_string_equal(s.target, "/usr/lib/libz.so.1");
  assert_string_equal(s.symbol, "deflate");
  assert_int_equal(s.offset, 0x10);
  assert_int_equal(fg_kevent_parse("uprobe:/opt/a:b/lib.so:0x1f0", &s, err, sizeof err), 0);
  assert_string_equal(s.target, "/opt/a:b/lib.so");   /* the last ':' ends the path */
  assert_string_equal(s.symbol, "");
  assert_int_equal(s.offset, 0x1f0);
}

static void bad_names_say_what_is_accepted(void **state)
{
  (void)state;
  static const char *bad[] = {
      "pagefaults", "sched:", ":x", "sched/../x:y", "../../etc:passwd", "kprobe:", "kprobe:a/b",
      "kprobe:f+", "kprobe:f+x", "kretprobe:f+4", "uprobe:lib.so:f", "uprobe:/lib.so", "uprobe:/lib.so:",
      "uprobe:/a/../b.so:f", "uprobe:/lib.so:0xzz", "uprobe:/lib.so:f/g", "",
  };
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    struct fg_kevent_spec s;
    err[0] = '\0';
    assert_int_equal(fg_kevent_parse(bad[i], &s, err, sizeof err), -1);
    assert_non_null(strstr(err, "accepted:"));
    assert_non_null(strstr(err, "page-faults"));
    assert_null(strchr(err, '\n'));
  }
}

/* A made-up root: sys/kernel/tracing/events/syscalls/sys_enter_write/id
 * holding 840, and a kprobe PMU of type 6. */
static char root[64];

static void put(const char *rel, const char *text)
{
  char path[512], cmd[600];
  snprintf(path, sizeof path, "%s/%s", root, rel);
  snprintf(cmd, sizeof cmd, "mkdir -p \"$(dirname '%s')\"", path);
  assert_int_equal(system(cmd), 0);
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  fputs(text, f);
  fclose(f);
}

static int make_root(void **state)
{
  (void)state;
  snprintf(root, sizeof root, "/tmp/fg-kevents-XXXXXX");
  assert_non_null(mkdtemp(root));
  put("sys/kernel/tracing/events/syscalls/sys_enter_write/id", "840\n");
  put("sys/kernel/tracing/events/sched/sched_switch/id", "not a number\n");
  put("sys/bus/event_source/devices/kprobe/type", "6\n");
  put("sys/bus/event_source/devices/uprobe/type", "7\n");
  put("elsewhere/x/id", "99\n");
  char link[512], to[512];
  snprintf(link, sizeof link, "%s/sys/kernel/tracing/events/linked", root);
  snprintf(to, sizeof to, "%s/elsewhere", root);
  assert_int_equal(symlink(to, link), 0);
  return 0;
}

static int remove_root(void **state)
{
  (void)state;
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
  return system(cmd);
}

static void tracepoint_ids_from_tracefs(void **state)
{
  (void)state;
  struct fg_kevent_spec s;
  assert_int_equal(fg_kevent_parse("syscalls:sys_enter_write", &s, err, sizeof err), 0);
  assert_int_equal(fg_kevent_resolve(&s, root, err, sizeof err), 0);
  assert_int_equal(s.type, PERF_TYPE_TRACEPOINT);
  assert_int_equal(s.config, 840);
  assert_int_equal(fg_kevent_parse("syscalls:sys_enter_nothing", &s, err, sizeof err), 0);
  assert_int_equal(fg_kevent_resolve(&s, root, err, sizeof err), -1);
  assert_non_null(strstr(err, "no such tracepoint"));
  assert_int_equal(fg_kevent_parse("sched:sched_switch", &s, err, sizeof err), 0);
  assert_int_equal(fg_kevent_resolve(&s, root, err, sizeof err), -1);   /* an id that is no number */
  assert_non_null(strstr(err, "not a number"));
  assert_int_equal(fg_kevent_parse("linked:x", &s, err, sizeof err), 0);
  assert_int_equal(fg_kevent_resolve(&s, root, err, sizeof err), -1);   /* never through a link */
  assert_int_equal(fg_kevent_parse("syscalls:sys_enter_write", &s, err, sizeof err), 0);
  char empty[128];
  snprintf(empty, sizeof empty, "%s/elsewhere", root);
  assert_int_equal(fg_kevent_resolve(&s, empty, err, sizeof err), -1);
  assert_non_null(strstr(err, "tracefs is not mounted"));
}

static void probe_types_from_sysfs(void **state)
{
  (void)state;
  struct fg_kevent_spec s;
  assert_int_equal(fg_kevent_parse("kretprobe:vfs_read", &s, err, sizeof err), 0);
  assert_int_equal(fg_kevent_resolve(&s, root, err, sizeof err), 0);
  assert_int_equal(s.type, 6);
  assert_int_equal(s.config, 1);   /* retprobe: config:0 */
  struct perf_event_attr attr;
  fg_kevent_attr(&s, 0, 0, &attr);
  assert_string_equal((const char *)(uintptr_t)attr.config1, "vfs_read");
  assert_int_equal(attr.sample_period, 1);
  char empty[128];
  snprintf(empty, sizeof empty, "%s/elsewhere", root);
  assert_int_equal(fg_kevent_resolve(&s, empty, err, sizeof err), -1);
  assert_non_null(strstr(err, "no kprobe PMU"));
}

/* The function a uprobe is put on here. */
__attribute__((noinline, used)) int fg_test_probe_target(int x)
{
  return x * 3 + 1;
}

/* Where this program's file lies mapped at addr: its file offset, from /proc/self/maps. */
static uint64_t mapped_offset(uintptr_t addr)
{
  FILE *f = fopen("/proc/self/maps", "r");
  char line[1024];
  uint64_t found = UINT64_MAX;
  while (f && fgets(line, sizeof line, f)) {
    unsigned long lo, hi, off;
    if (sscanf(line, "%lx-%lx %*s %lx", &lo, &hi, &off) == 3 && addr >= lo && addr < hi) {
      found = off + (addr - lo);
      break;
    }
  }
  if (f)
    fclose(f);
  return found;
}

static void uprobe_offset_from_the_elf_file(void **state)
{
  (void)state;
  char exe[4096], name[4200];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  assert_true(n > 0);
  exe[n] = '\0';
  snprintf(name, sizeof name, "uprobe:%s:fg_test_probe_target", exe);
  struct fg_kevent_spec s;
  assert_int_equal(fg_kevent_parse(name, &s, err, sizeof err), 0);
  assert_int_equal(fg_kevent_resolve(&s, root, err, sizeof err), 0);
  assert_int_equal(s.type, 7);
  assert_int_equal(s.config2, mapped_offset((uintptr_t)&fg_test_probe_target));
  snprintf(name, sizeof name, "uprobe:%s:fg_test_probe_target+8", exe);
  assert_int_equal(fg_kevent_parse(name, &s, err, sizeof err), 0);
  assert_int_equal(fg_kevent_resolve(&s, root, err, sizeof err), 0);
  assert_int_equal(s.config2, mapped_offset((uintptr_t)&fg_test_probe_target) + 8);
  snprintf(name, sizeof name, "uprobe:%s:no_such_function_here", exe);
  assert_int_equal(fg_kevent_parse(name, &s, err, sizeof err), 0);
  assert_int_equal(fg_kevent_resolve(&s, root, err, sizeof err), -1);
  assert_non_null(strstr(err, "no function no_such_function_here"));
  /* a link to the file is refused: the file it names is given instead */
  char link[512];
  snprintf(link, sizeof link, "%s/exe-link", root);
  assert_int_equal(symlink(exe, link), 0);
  snprintf(name, sizeof name, "uprobe:%s:fg_test_probe_target", link);
  assert_int_equal(fg_kevent_parse(name, &s, err, sizeof err), 0);
  assert_int_equal(fg_kevent_resolve(&s, root, err, sizeof err), -1);
  assert_non_null(strstr(err, "symbolic link"));
}

/* Hardware counters: where the kernel lists no cpu PMU (a virtual machine
 * without one), cycles fails with one line saying so; where it lists one,
 * a cycles counter opens, or the line names the paranoid level. */
static void hardware_counters_need_a_pmu(void **state)
{
  (void)state;
  struct fg_kevent_spec s;
  assert_int_equal(fg_kevent_parse("cycles", &s, err, sizeof err), 0);
  assert_int_equal(fg_kevent_resolve(&s, "", err, sizeof err), 0);
  struct stat st;
  int pmu = stat("/sys/bus/event_source/devices/cpu", &st) == 0;
  int rc = fg_kevent_try(&s, err, sizeof err);
  if (!pmu) {
    assert_int_equal(rc, -1);
    assert_non_null(strstr(err, "no hardware PMU"));
    assert_non_null(strstr(err, "event=cycles"));
    assert_null(strchr(err, '\n'));
  } else if (rc != 0) {
    assert_true(strstr(err, "perf_event_paranoid") || strstr(err, "no hardware PMU"));
  }
  assert_int_equal(fg_kevent_parse("page-faults", &s, err, sizeof err), 0);
  if (geteuid() == 0)   /* root: software counters open whatever the paranoid level */
    assert_int_equal(fg_kevent_try(&s, err, sizeof err), 0);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(software_and_hardware_names),
      cmocka_unit_test(probe_and_tracepoint_names),
      cmocka_unit_test(bad_names_say_what_is_accepted),
      cmocka_unit_test(tracepoint_ids_from_tracefs),
      cmocka_unit_test(probe_types_from_sysfs),
      cmocka_unit_test(uprobe_offset_from_the_elf_file),
      cmocka_unit_test(hardware_counters_need_a_pmu),
  };
  return cmocka_run_group_tests(tests, make_root, remove_root);
}
