/* What fgprof and the agent read from /proc and from the JVM's attach
 * socket, on the inputs their fuzzers found or a hostile process writes:
 * each gives a clean answer or one clear error line. */
#include "unit.h"

#include <limits.h>
#include <string.h>

#include "../../cli/attach_reply.h"
#include "fg/attach_codes.h"
#include "native/proc_maps.h"
#include "sampling/wall/task_files.h"
#include "../../cli/proc_status.h"

static int reply(const char *text, int *rc, char *err, size_t errlen)
{
  return fg_attach_reply_parse(text, strlen(text), 42, rc, err, errlen);
}

static void attach_replies_of_both_jdks_are_read(void **state)
{
  (void)state;
  int rc = -1;
  char err[256];
  assert_int_equal(reply("0\n0\n", &rc, err, sizeof err), 0);
  assert_int_equal(rc, 0);
  assert_int_equal(reply("0\nreturn code: 1\n", &rc, err, sizeof err), 0);
  assert_int_equal(rc, 1);
  assert_int_equal(reply("101\nJVMTI.agent_load is only permitted in the live phase\n", &rc, err, sizeof err), 0);
  assert_int_equal(rc, FG_ATTACH_RC_STARTING);
  assert_int_equal(reply("100\nAgent_OnAttach failed\n", &rc, err, sizeof err), -1);
  assert_string_equal(err, "process 42 did not load the agent: Agent_OnAttach failed");
}

/* A hostile listener: numbers past int are clamped, not undefined (atoi
 * was), and its text is quoted without control bytes or terminal escapes. */
static void a_hostile_reply_gets_one_clean_line(void **state)
{
  (void)state;
  int rc = 0;
  char err[512];
  assert_int_equal(reply("0\nreturn code: 99999999999999999999\n", &rc, err, sizeof err), 0);
  assert_int_equal(rc, INT_MAX);
  assert_int_equal(reply("0\n-99999999999999999999\n", &rc, err, sizeof err), 0);
  assert_int_equal(rc, INT_MIN);
  assert_int_equal(reply("\x1b[2J\x1b]0;owned\x07\nline two\n", &rc, err, sizeof err), -1);
  assert_null(strchr(err, '\n'));
  assert_null(strchr(err, '\x1b'));
  assert_string_equal(err, "process 42 answered '?[2J?]0;owned? line two', not an attach status");
  assert_int_equal(reply("100\n/tmp/x/libfgagent.so was not loaded.\n/tmp/x/libfgagent.so: failed to map segment\n",
                         &rc, err, sizeof err), -1);
  assert_string_equal(err, "process 42 did not load the agent: /tmp/x/libfgagent.so was not loaded. "
                           "/tmp/x/libfgagent.so: failed to map segment");
  /* bytes after a NUL are not read as text */
  static const char with_nul[] = "0\n\0return code: 5\n";
  assert_int_equal(fg_attach_reply_parse(with_nul, sizeof with_nul - 1, 42, &rc, err, sizeof err), 0);
  assert_int_equal(rc, 0);
  assert_int_equal(fg_attach_reply_parse("", 0, 42, &rc, err, sizeof err), -1);
}

static void status_lines_give_the_jvms_ids(void **state)
{
  (void)state;
  struct fg_proc_status s = {0};
  fg_proc_status_line(&s, "Name:\tjava\n");
  fg_proc_status_line(&s, "NSpid:\t4242\t17\n");
  fg_proc_status_line(&s, "Uid:\t1000\t1001\t1001\t1001\n");
  fg_proc_status_line(&s, "Gid:\t100\t101\t101\t101\n");
  fg_proc_status_line(&s, "SigCgt:\t0000000181005ccf\n");
  assert_int_equal(s.seen, 7);
  assert_int_equal(s.uid, 1001);
  assert_int_equal(s.gid, 101);
  assert_int_equal(s.ns_pid, 17);
  assert_int_equal(s.catches_quit, 1);
  /* a pid that is no pid is not taken */
  fg_proc_status_line(&s, "NSpid:\t4242\t99999999999\n");
  assert_int_equal(s.ns_pid, 0);
  fg_proc_status_line(&s, "NSpid:\t-5\n");
  assert_int_equal(s.ns_pid, 0);
}

/* A path long enough to come in pieces cannot pass for the stack's line:
 * only the real one, which starts a line, is taken. */
static void a_long_path_is_no_mapping(void **state)
{
  (void)state;
  char forged[600];
  memset(forged, 'A', sizeof forged);
  memcpy(forged, "7f0000000000-7f0000001000 r--p 00000000 08:01 1234 /tmp/", 57);
  const char *fake = "7ffc00000000-7ffd00000000 rw-p 0 0 0 [stack]\n";
  memcpy(forged + 511, fake, strlen(fake) + 1);
  struct fg_maps_reader m = {0};
  uintptr_t lo = 0, hi = 0, sp = 0x7ffc00000010;
  assert_int_equal(fg_maps_piece(&m, forged, 511, sp, &lo, &hi), 0);   /* fgets's first piece */
  assert_int_equal(fg_maps_piece(&m, forged + 511, strlen(forged + 511), sp, &lo, &hi), 0);
  const char *real = "7ffc00000000-7ffc00021000 rw-p 00000000 00:00 0 [stack]\n";
  assert_int_equal(fg_maps_piece(&m, real, strlen(real), sp, &lo, &hi), 1);
  assert_int_equal(lo, 0x7ffc00000000);
  assert_int_equal(hi, 0x7ffc00021000);
  /* what sscanf's %lx took: a sign, 0x, spaces, a reversed range */
  static const char *const not_lines[] = {" 7ffc00000000-7ffd00000000 x\n", "0x7ffc00000000-7ffd00000000 x\n",
                                          "7ffd00000000-7ffc00000000 x\n", "-1-7ffd00000000 x\n",
                                          "17ffc00000000000-7ffd00000000 x\n"};
  for (size_t i = 0; i < sizeof not_lines / sizeof *not_lines; i++)
    assert_int_equal(fg_maps_piece(&m, not_lines[i], strlen(not_lines[i]), sp, &lo, &hi), 0);
}

/* A thread's name is the application's: ") R " inside it is not its state. */
static void a_threads_name_does_not_give_its_state(void **state)
{
  (void)state;
  assert_int_equal(fg_task_stat_state("4242 (worker) R (x)) S 1 2 3\n"), 'S');
  assert_int_equal(fg_task_stat_state("4242 (java) D 1 2\n"), 'D');
  assert_int_equal(fg_task_stat_state("4242 (cut)"), '?');
  assert_int_equal(fg_task_stat_state("4242 (cut) "), '?');
  assert_int_equal(fg_task_stat_state("no name"), '?');
  uint64_t v[3] = {0};
  assert_int_equal(fg_task_schedstat("4487877 44609010 2\n", v), 1);
  assert_int_equal(v[0], 4487877);
  assert_int_equal(v[1], 44609010);
  assert_int_equal(v[2], 2);
  assert_int_equal(fg_task_schedstat("1 2", v), 0);
  assert_int_equal(fg_task_schedstat("1 -2 3\n", v), 0);
  assert_int_equal(fg_task_schedstat("", v), 0);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(attach_replies_of_both_jdks_are_read),
    cmocka_unit_test(a_hostile_reply_gets_one_clean_line),
    cmocka_unit_test(status_lines_give_the_jvms_ids),
    cmocka_unit_test(a_long_path_is_no_mapping),
    cmocka_unit_test(a_threads_name_does_not_give_its_state),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
