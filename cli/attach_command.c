/* fgprof attach and fgprof profile: fgagent in a JVM that is already
 * running. Exit status: 0 done, 1 the agent refused the command (its
 * message is printed), 2 bad arguments or the JVM could not be reached,
 * 3 the JVM is exiting or exited: the command was refused or not run. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "attach_client.h"
#include "attach_files.h"
#include "commands.h"
#include "fg/attach_codes.h"
#include "fg/clock.h"
#include "fg/profile.h"
#include "sampling/kernel_events/event_spec.h"

static long attach_timeout_ms = 10000;   /* --timeout */

/* How long past --timeout fgprof waits for a stop or dump whose writing
 * the agent has begun (FG_ATTACH_WORKING): a large profile takes longer
 * than an answer, a JVM that stops meanwhile is not waited for. */
#define WORK_WAIT_MS (10L * 60 * 1000)

#define EXIT_JVM_EXITING 3

/* How long a JVM that could not be reached is given to show it is exiting. */
#define EXIT_WAIT_MS 2000L

static int bad(const char *what, const char *value)
{
  return fg_cli_bad(NULL, what, value);
}

static int parse_pid(const char *text, int *pid)
{
  char *end;
  errno = 0;
  long v = strtol(text, &end, 10);
  if (errno || end == text || *end || v <= 0 || v > INT_MAX)
    return -1;
  *pid = (int)v;
  return 0;
}

/* libfgagent.so: --agent, else $FGAGENT_LIB, else beside fgprof or in ../lib. */
static int agent_path(const char *given, char out[PATH_MAX])
{
  if (!given)
    given = getenv("FGAGENT_LIB");
  if (given)
    return realpath(given, out) ? 0 : -1;
  char self[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  if (n <= 0)
    return -1;
  self[n] = '\0';
  *strrchr(self, '/') = '\0';
  const char *const places[] = {"%s/libfgagent.so", "%s/../lib/libfgagent.so"};
  for (size_t i = 0; i < sizeof places / sizeof places[0]; i++) {
    char candidate[PATH_MAX + 32];
    snprintf(candidate, sizeof candidate, places[i], self);
    if (access(candidate, R_OK) == 0 && realpath(candidate, out))
      return 0;
  }
  return -1;
}

/* options with file= and log= made absolute: the JVM's working directory is not ours. */
static int absolute_options(const char *in, char *out, size_t len)
{
  char cwd[PATH_MAX];
  if (!getcwd(cwd, sizeof cwd))
    return -1;
  size_t o = 0;
  for (const char *tok = in; *tok;) {
    size_t n = strcspn(tok, ",");
    int path = (n > 5 && strncmp(tok, "file=", 5) == 0 && tok[5] != '/') ||
               (n > 4 && strncmp(tok, "log=", 4) == 0 && tok[4] != '/');
    size_t key = path ? (size_t)(strchr(tok, '=') - tok) + 1 : 0;
    const char *sep = o ? "," : "";
    int w = path ? snprintf(out + o, len - o, "%s%.*s%s/%.*s", sep, (int)key, tok, cwd, (int)(n - key), tok + key)
                 : snprintf(out + o, len - o, "%s%.*s", sep, (int)n, tok);
    if (w < 0 || (size_t)w >= len - o)
      return -1;
    o += (size_t)w;
    tok += n + (tok[n] == ',');
  }
  return 0;
}

static long now_ms(void)
{
  return (long)(fg_clock_ns(CLOCK_MONOTONIC) / 1000000u);
}

/* /proc/PID/stat's state letter: 'R', 'S', 'T' (stopped), 'Z'...; 0 when the process is gone. */
static char process_state(int pid)
{
  char path[64], buf[512];
  snprintf(path, sizeof path, "/proc/%d/stat", pid);
  FILE *f = fopen(path, "r");
  size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
  if (f)
    fclose(f);
  buf[n] = '\0';
  const char *paren = strrchr(buf, ')');   /* the name, in parentheses, may hold anything */
  return paren && paren[1] == ' ' ? paren[2] : 0;
}

/* Whether pid is gone, or goes within 2 s: a JVM exiting closes its socket
 * and unmaps libjvm.so a moment before it is gone. Asked only when the JVM
 * could not be reached (never after a refusal: FG_ATTACH_REFUSED), and
 * answered as soon as the process ends: a pidfd is readable from the
 * moment it has exited. A stopped process ('T', 't') exits at no moment. */
static int exited_soon(int pid)
{
  char state = process_state(pid);
  if (!state || state == 'Z' || state == 'X')
    return 1;
  if (state == 'T' || state == 't')
    return 0;
  int fd = (int)syscall(SYS_pidfd_open, pid, 0);
  if (fd >= 0) {
    struct pollfd p = {.fd = fd, .events = POLLIN};
    int n;
    long until = now_ms() + EXIT_WAIT_MS;
    while ((n = poll(&p, 1, (int)(until - now_ms() > 0 ? until - now_ms() : 0))) < 0 && errno == EINTR)
      ;
    close(fd);
    return n > 0;
  }
  for (long i = 0; i < EXIT_WAIT_MS / 20 && state && state != 'Z' && state != 'X'; i++) {   /* before Linux 5.3 */
    struct timespec pause = {0, 20000000L};
    nanosleep(&pause, NULL);
    state = process_state(pid);
  }
  return !state || state == 'Z' || state == 'X';
}

/* The JVM pid, read and checked, and library as it can load it (loaded,
 * of PATH_MAX): 0; 2 with the reason on stderr. */
static int target_of(int pid, const char *library, struct fg_attach_target *t, char *loaded)
{
  char err[4800];
  if (fg_attach_target_read(pid, t, err, sizeof err) != 0) {
    fprintf(stderr, "fgprof: %s\n", err);
    return 2;
  }
  int failed = fg_attach_check(t, (int)attach_timeout_ms, err, sizeof err);
  if (failed == 0) {
    /* read again now that the process is the JVM: a fork given as the pid (`java ... & fgprof profile $!`
     * through setpriv, chroot or a shell's cd) may have changed its user, root or directory before it
     * exec'd, and HotSpot makes its socket as the JVM's user, in the JVM's /tmp */
    fg_attach_target_close(t);
    failed = fg_attach_target_read(pid, t, err, sizeof err);
  }
  if (failed == 0)
    failed = fg_attach_library(t, library, loaded, PATH_MAX, err, sizeof err);
  if (failed != 0) {
    if (failed != FG_ATTACH_REFUSED && exited_soon(pid)) {   /* a JVM exiting has unmapped libjvm.so: not "not a JVM" */
      fprintf(stderr, "fgprof: process %d has exited; nothing was sent\n", pid);
      return EXIT_JVM_EXITING;
    }
    fprintf(stderr, "fgprof: %s\n", err);
    fg_attach_target_close(t);
    return 2;
  }
  return 0;
}

struct patience {
  const struct fg_attach_target *t;
  const char *reply;   /* the reply file's name in t's tmp directory */
  int pid;
  long since;
  int said;
};

/* The reply file name in t's tmp directory, opened for reading when it is
 * the JVM's user's own regular file; NULL otherwise. O_NONBLOCK: should the
 * name hold a FIFO now, fgprof is not held. */
static FILE *open_reply(const struct fg_attach_target *t, const char *name)
{
  int fd = openat(t->tmp_fd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  FILE *f = fd >= 0 && fg_attach_own_file(fd, t->uid) ? fdopen(fd, "r") : NULL;
  if (!f && fd >= 0)
    close(fd);
  return f;
}

/* Whether the reply file holds a line beginning with prefix. */
static int reply_has(const struct fg_attach_target *t, const char *name, const char *prefix)
{
  FILE *f = open_reply(t, name);
  int found = 0;
  char line[4096];
  while (f && !found && fgets(line, sizeof line, f))
    found = strncmp(line, prefix, strlen(prefix)) == 0;
  if (f)
    fclose(f);
  return found;
}

/* --timeout passed with no answer: wait on while the agent said it writes,
 * the JVM runs (not stopped, not gone) and WORK_WAIT_MS have not passed. */
static int keep_waiting(void *ctx)
{
  struct patience *p = ctx;
  char state = process_state(p->pid);
  if (now_ms() - p->since > WORK_WAIT_MS || !state || state == 'T' || state == 't' || state == 'Z' ||
      !reply_has(p->t, p->reply, FG_ATTACH_WORKING))
    return 0;
  if (!p->said)
    fprintf(stderr, "fgprof: process %d's agent is still writing the profile (%ld s so far); waiting for it, up to "
                    "%ld min\n", p->pid, (now_ms() - p->since) / 1000, WORK_WAIT_MS / 60000);
  p->said = 1;
  return 1;
}

/* The reply file's lines printed to out, but fgprof's own (FG_ATTACH_*):
 * the agent's return code from FG_ATTACH_RC into *rc (left as it is when
 * there is none). */
static void print_reply(const struct fg_attach_target *t, const char *name, FILE *out, int *rc)
{
  FILE *f = open_reply(t, name);
  char line[4096];
  while (f && fgets(line, sizeof line, f)) {
    if (strncmp(line, FG_ATTACH_RC, strlen(FG_ATTACH_RC)) == 0) {
      /* the file is the JVM's user's to rewrite: a number in range, or none */
      char *end;
      errno = 0;
      long v = strtol(line + strlen(FG_ATTACH_RC), &end, 10);
      if (!errno && end != line + strlen(FG_ATTACH_RC) && (*end == '\n' || *end == '\0') && v >= 0 && v <= 255)
        *rc = (int)v;
    } else if (strncmp(line, FG_ATTACH_WORKING, strlen(FG_ATTACH_WORKING)) != 0) {
      for (char *c = line; *c; c++)   /* no terminal escapes from it: control characters as '?' */
        if (((unsigned char)*c < 0x20 && *c != '\n' && *c != '\t') || *c == 0x7f)
          *c = '?';
      fputs(line, out);
    }
  }
  if (f)
    fclose(f);
}

/* One command to the agent in t (library as the JVM names it); its
 * messages printed to out. A JVM still starting (no JVMTI yet) is asked
 * again until --timeout; a stop or dump the agent is writing is waited for
 * longer (keep_waiting). 0 done, 1 the agent refused it, 2 the JVM could
 * not be reached, 3 it is exiting or exited (said on stderr or by the agent). */
static int send_command(struct fg_attach_target *t, const char *library, const char *command, FILE *out)
{
  char name[64], there[80], err[4800];
  if (fg_attach_reply_file(t, name, sizeof name, there, sizeof there, err, sizeof err) != 0) {
    fprintf(stderr, "fgprof: %s\n", err);
    return 2;
  }
  char options[8192];
  int rc = 2, agent_rc = 0, answered = 0, refused = 0;
  long deadline = now_ms() + attach_timeout_ms;
  struct patience patience = {t, name, t->pid, now_ms(), 0};
  err[0] = '\0';
  if (snprintf(options, sizeof options, "%s%sreply=%s", command, strchr(command, ',') || *command ? "," : "", there) >=
      (int)sizeof options) {
    fprintf(stderr, "fgprof: the options are too long\n");
  } else {
    for (;;) {
      long left = deadline - now_ms();
      patience.since = now_ms();
      int failed = fg_attach_load_patient(t, library, options, (int)(left > 0 ? left : 1), keep_waiting, &patience,
                                          &agent_rc, err, sizeof err);
      if (failed != 0) {
        refused = failed == FG_ATTACH_REFUSED;
        break;
      }
      if (agent_rc != FG_ATTACH_RC_STARTING || now_ms() + 100 >= deadline) {
        answered = 1;
        break;
      }
      struct timespec pause = {0, 100000000L};   /* the JVM is still starting: ask again */
      nanosleep(&pause, NULL);
    }
  }
  /* the agent's own answer stands when the JVM's exit closed the socket before the listener sent it */
  int reply_rc = INT_MIN;
  print_reply(t, name, out, &reply_rc);
  unlinkat(t->tmp_fd, name, 0);
  if (!answered && reply_rc != INT_MIN) {
    agent_rc = reply_rc;
    answered = 1;
  }
  if (answered)
    return agent_rc == 0 ? 0 : agent_rc == FG_ATTACH_RC_EXITING ? EXIT_JVM_EXITING : 1;
  /* the agent never answered: the command did not run, or it died with the JVM */
  if (!refused && exited_soon(t->pid)) {
    /* what the attach met before the exit, when it met something: a JVM that ended as it ran out of work
     * and one whose attach went wrong first look alike otherwise */
    fprintf(stderr, "fgprof: process %d exited before its agent answered; the command did not complete%s%s%s\n",
            t->pid, err[0] ? " (the attach had met: " : "", err, err[0] ? ")" : "");
    return EXIT_JVM_EXITING;
  }
  if (err[0])
    fprintf(stderr, "fgprof: %s\n", err);
  return rc;
}

/* "30s", "500ms", "2m", "1.5" (seconds) -> ms; -1 when not a duration. */
static long duration_ms(const char *text)
{
  char *end;
  errno = 0;
  double v = strtod(text, &end);
  if (errno || end == text || v <= 0)
    return -1;
  double unit = strcmp(end, "") == 0 || strcmp(end, "s") == 0 ? 1000 : strcmp(end, "ms") == 0 ? 1
              : strcmp(end, "m") == 0 ? 60000 : strcmp(end, "h") == 0 ? 3600000 : -1;
  return unit < 0 || v * unit > 1e12 ? -1 : (long)(v * unit);
}

/* fgprof attach [--agent LIB] [--timeout 10s] PID COMMAND[,OPTIONS] */
int fg_cmd_attach(int argc, char **argv)
{
  const char *agent = NULL, *pid_text = NULL, *command = NULL;
  for (int i = 2; i < argc; i++) {
    if ((strcmp(argv[i], "--agent") == 0 || strcmp(argv[i], "--timeout") == 0) && i + 1 >= argc)
      return bad("this option needs a value:", argv[i]);
    if (strcmp(argv[i], "--agent") == 0)
      agent = argv[++i];
    else if (strcmp(argv[i], "--timeout") == 0) {
      if ((attach_timeout_ms = duration_ms(argv[++i])) < 0 || attach_timeout_ms > 3600000)
        return bad("--timeout takes a time such as 10s or 500ms, not", argv[i]);
    } else if (argv[i][0] == '-' && argv[i][1] == '-')
      return bad("unknown option; accepted: --agent, --timeout, --help:", argv[i]);
    else if (!pid_text)
      pid_text = argv[i];
    else if (!command)
      command = argv[i];
    else
      return bad("one argument too many; accepted: [--agent LIB] PID COMMAND[,OPTIONS]:", argv[i]);
  }
  int pid;
  if (!pid_text || !command)
    return bad("attach needs PID COMMAND[,OPTIONS]; commands: start, stop, dump, status", NULL);
  if (parse_pid(pid_text, &pid) != 0)
    return bad("not a process id:", pid_text);
  char library[PATH_MAX], options[8192];
  if (agent_path(agent, library) != 0)
    return bad("cannot find libfgagent.so (beside fgprof, in ../lib, $FGAGENT_LIB or --agent):", agent);
  if (absolute_options(command, options, sizeof options) != 0)
    return bad("the options are too long:", command);
  struct fg_attach_target t;
  char loaded[PATH_MAX];
  int rc = target_of(pid, library, &t, loaded);
  if (rc == 0)
    rc = send_command(&t, loaded, options, stdout);
  fg_attach_target_close(&t);
  return rc;
}

static volatile sig_atomic_t interrupted;

static void on_interrupt(int sig)
{
  (void)sig;
  interrupted = 1;
}

/* Whether the n bytes at p are word, or word=VALUE when valued. */
static int option_item(const char *p, size_t n, const char *word, int valued)
{
  size_t w = strlen(word);
  return n >= w && strncmp(p, word, w) == 0 && (n == w || (valued && p[w] == '='));
}

/* The agent's options for --event LIST: "cpu", "wall", "itimer" and a
 * kernel event's name become event=; "alloc[=SIZE]", "live",
 * "lock[=DURATION]", "nativemem[=SIZE]", "leak" and "nativelock[=DURATION]"
 * stay as they are (the agent checks their values). -1 when an item is
 * none of these. */
static int event_options(const char *list, char *out, size_t len)
{
  size_t at = 0;
  out[0] = '\0';
  for (const char *p = list; *p;) {
    size_t n = strcspn(p, ",");
    char item[FG_KEVENT_NAME_MAX], why[512];
    struct fg_kevent_spec spec;
    snprintf(item, sizeof item, "%.*s", (int)(n < sizeof item ? n : sizeof item - 1), p);
    int sampled = option_item(p, n, "cpu", 0) || option_item(p, n, "wall", 0) || option_item(p, n, "itimer", 0) ||
                  (n < sizeof item && fg_kevent_parse(item, &spec, why, sizeof why) == 0);
    int traced = option_item(p, n, "alloc", 1) || option_item(p, n, "lock", 1) || option_item(p, n, "live", 0) ||
                 option_item(p, n, "nativemem", 1) || option_item(p, n, "leak", 0) ||
                 option_item(p, n, "nativelock", 1);
    if (!sampled && !traced)
      return -1;
    int w = snprintf(out + at, len - at, ",%s%.*s", sampled ? "event=" : "", (int)n, p);
    if (w < 0 || (size_t)w >= len - at)
      return -1;
    at += (size_t)w;
    p += n + (p[n] == ',');
  }
  return at ? 0 : -1;
}

/* The files of a %e name the agent wrote into fgprof's directory in the
 * JVM's /tmp (prefix EVENT ext, one an event), each copied out to out with
 * %e its event, and removed there. 0, or 1 when one could not be copied. */
static int copy_out_events(struct fg_attach_target *t, int dir, const char *prefix, const char *ext, const char *out)
{
  int fd = dup(dir), rc = 0, copied = 0;
  DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
  if (!d) {
    if (fd >= 0)
      close(fd);
    fprintf(stderr, "fgprof: cannot read fgprof's directory in the JVM's file system: %s\n", strerror(errno));
    return 1;
  }
  size_t lp = strlen(prefix), le = strlen(ext);
  for (struct dirent *e; (e = readdir(d));) {
    size_t n = strlen(e->d_name);
    if (n <= lp + le || strncmp(e->d_name, prefix, lp) != 0 || strcmp(e->d_name + n - le, ext) != 0)
      continue;
    char event[FG_KEVENT_NAME_MAX], to[PATH_MAX], err[4800];
    int whole = n - lp - le < sizeof event;   /* a longer one is no event's name: never cut to another's */
    snprintf(event, sizeof event, "%.*s", (int)(n - lp - le), e->d_name + lp);
    /* the directory is in the JVM's file system: only an event's name
     * (letters, digits, '_', ':', '-') becomes part of a name on this side */
    if (!whole || strspn(event, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_:-") != strlen(event) ||
        copied >= FG_STACK_EVENTS + 1) {
      fprintf(stderr, "fgprof: %s in fgprof's directory in the JVM's file system is no event's profile; not copied\n",
              e->d_name);
      rc = 1;
    } else if (fg_cli_event_path(out, event, to, sizeof to) != 0) {
      fprintf(stderr, "fgprof: the file name %s with event %s is too long; not copied\n", out, event);
      rc = 1;
    } else if (fg_attach_copy_out(t, dir, e->d_name, to, err, sizeof err) != 0) {
      fprintf(stderr, "fgprof: %s\n", err);
      rc = 1;
    } else {
      fprintf(stderr, "fgprof: copied the %s profile out of the JVM's file system to %s\n", event, to);
      copied++;
    }
    unlinkat(dir, e->d_name, 0);
  }
  closedir(d);
  if (!copied && !rc) {
    fprintf(stderr, "fgprof: the JVM wrote no profile to copy out for %s\n", out);
    rc = 1;
  }
  return rc;
}

/* Profiles t (library as the JVM names it) with settings (interval= and
 * the events) for ms or until Ctrl-C, the profile written to out (ours):
 * a JVM in another root writes it into fgprof's directory in its /tmp,
 * and fgprof copies it out. 0, 1, or 2 as fg_cmd_profile. */
static int profile_for(struct fg_attach_target *t, const char *library, const char *out, const char *settings,
                       long ms)
{
  char err[4800], written[96] = "", agent_file[PATH_MAX + 64], start[8192], options[8192], prefix[32] = "",
       suffix[48] = "";
  int dir = -1, rc, per_event = 0;
  snprintf(agent_file, sizeof agent_file, "%s", out);
  if (t->other_mounts) {
    char dir_there[64];
    const char *ext = strrchr(out, '/');
    ext = strchr(ext ? ext : out, '.');
    if ((dir = fg_attach_private_dir(t, dir_there, sizeof dir_there, err, sizeof err)) < 0) {
      fprintf(stderr, "fgprof: %s\n", err);
      return 2;
    }
    /* %e (a file an event) stays for the agent to expand: each copied out below */
    per_event = strstr(out, "%e") != NULL;
    snprintf(written, sizeof written, "profile-%d%s%.40s", (int)getpid(), per_event ? "-%e" : "", ext ? ext : "");
    snprintf(agent_file, sizeof agent_file, "%s/%s", dir_there, written);
    snprintf(prefix, sizeof prefix, "profile-%d-", (int)getpid());
    snprintf(suffix, sizeof suffix, "%.40s", ext ? ext : "");
  }
  if (snprintf(start, sizeof start, "start,file=%s,%s", agent_file, settings) >= (int)sizeof start ||
      absolute_options(start, options, sizeof options) != 0)
    rc = bad("the options are too long:", out);
  else if ((rc = send_command(t, library, options, stderr)) == 0) {
    /* else refused (another client's session runs, say): that session is left alone */
    struct sigaction sa = {.sa_handler = on_interrupt};
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    for (long left = ms; left > 0 && !interrupted; left -= 100) {
      struct timespec pause = {0, (left < 100 ? left : 100) * 1000000L};
      nanosleep(&pause, NULL);
    }
    rc = send_command(t, library, "stop", stderr);
  }
  if (rc == 0 && dir >= 0 && per_event) {
    rc = copy_out_events(t, dir, prefix, suffix, out);
  } else if (rc == 0 && dir >= 0) {
    if (fg_attach_copy_out(t, dir, written, out, err, sizeof err) != 0) {
      fprintf(stderr, "fgprof: %s\n", err);
      rc = 1;
    } else {
      fprintf(stderr, "fgprof: copied the profile out of the JVM's file system to %s\n", out);
    }
  }
  if (dir >= 0) {
    if (written[0] && !per_event)
      unlinkat(dir, written, 0);
    close(dir);
  }
  return rc;
}

/* fgprof profile [--duration 30s] [--interval 1ms] [--event cpu|wall|itimer,alloc,live,lock] [--threads]
 *                [--agent LIB] [--timeout 10s] --file OUT PID */
int fg_cmd_profile(int argc, char **argv)
{
  const char *agent = NULL, *file = NULL, *pid_text = NULL, *interval = "1ms", *event = "cpu";
  long ms = 30000;
  int threads = 0;
  for (int i = 2; i < argc; i++) {
    const char *arg = argv[i], *value = i + 1 < argc ? argv[i + 1] : NULL;
    int valued = strcmp(arg, "--duration") == 0 || strcmp(arg, "--interval") == 0 || strcmp(arg, "--event") == 0 ||
                 strcmp(arg, "--file") == 0 || strcmp(arg, "--agent") == 0 || strcmp(arg, "--timeout") == 0;
    if (valued && !value)
      return bad("this option needs a value:", arg);
    if (strcmp(arg, "--duration") == 0) {
      if ((ms = duration_ms(value)) < 0)
        return bad("--duration takes a time such as 30s, 500ms or 2m, not", value);
    } else if (strcmp(arg, "--interval") == 0) {
      interval = value;
    } else if (strcmp(arg, "--event") == 0) {
      event = value;
    } else if (strcmp(arg, "--file") == 0) {
      file = value;
    } else if (strcmp(arg, "--agent") == 0) {
      agent = value;
    } else if (strcmp(arg, "--timeout") == 0) {
      if ((attach_timeout_ms = duration_ms(value)) < 0 || attach_timeout_ms > 3600000)
        return bad("--timeout takes a time such as 10s or 500ms, not", value);
    } else if (strcmp(arg, "--threads") == 0) {
      threads = 1;
      continue;
    } else if (arg[0] == '-') {
      return bad("unknown option; accepted: --duration, --interval, --event, --threads, --file, --agent, --timeout, --help:",
                 arg);
    } else if (!pid_text) {
      pid_text = arg;
      continue;
    } else {
      return bad("one argument too many:", arg);
    }
    i++;
  }
  int pid;
  if (!pid_text || !file)
    return bad("profile needs --file OUT and a PID", NULL);
  if (parse_pid(pid_text, &pid) != 0)
    return bad("not a process id:", pid_text);
  char events[2048];
  if (event_options(event, events, sizeof events) != 0)
    return bad("--event takes cpu, wall or itimer, alloc[=SIZE], live, lock[=DURATION], nativemem[=SIZE], leak, "
               "nativelock[=DURATION] and kernel events (page-faults, sched:sched_switch, ...), separated by commas "
               "(e.g. --event cpu,alloc), not", event);
  char library[PATH_MAX];
  if (agent_path(agent, library) != 0)
    return bad("cannot find libfgagent.so (beside fgprof, in ../lib, $FGAGENT_LIB or --agent):", agent);
  char out[PATH_MAX + 8], cwd[PATH_MAX];
  if (file[0] != '/' && !getcwd(cwd, sizeof cwd))
    return bad("cannot read the working directory for", file);
  if (snprintf(out, sizeof out, "%s%s%s", file[0] == '/' ? "" : cwd, file[0] == '/' ? "" : "/", file) >=
      (int)sizeof out)
    return bad("the file name is too long:", file);
  struct fg_attach_target t;
  char loaded[PATH_MAX];
  int rc = target_of(pid, library, &t, loaded);
  if (rc != 0)
    return rc;
  char settings[1024];
  if (snprintf(settings, sizeof settings, "interval=%s%s%s", interval, events, threads ? ",threads" : "") >=
      (int)sizeof settings)
    rc = bad("the options are too long:", interval);
  else
    rc = profile_for(&t, loaded, out, settings, ms);
  fg_attach_target_close(&t);
  return rc;
}
