/* HotSpot's attach protocol on Linux, as the JDK's own tools speak it: if
 * the JVM has no attach socket yet, create .attach_pid<PID> in its working
 * directory (or its /tmp) and send it SIGQUIT, which makes it open
 * /tmp/.java_pid<PID>; then connect and send "1\0load\0LIB\0true\0OPTIONS\0".
 * The JVM answers with its status, then the agent's return code.
 *
 * fgprof may run as root beside other users: it talks only to a socket
 * that is the JVM's (owner uid and gid as the JDK's client checks them,
 * a socket, no link, no access for others, and the peer that listens on
 * it is the JVM itself), connected as the JVM's user from inside its root,
 * and it signals only a JVM that catches SIGQUIT, only with a trigger file
 * HotSpot will take, and a second time only where HotSpot prints no thread
 * dump for it. <PID> is the JVM's own pid and /tmp its own (a container's),
 * reached through the descriptors of attach_target.h. */
#include "attach_client.h"
#include "attach_reply.h"
#include "fg/attach_codes.h"
#include "fg/clock.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int fg_attach_fail(char *err, size_t len, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err, len, fmt, ap);
  va_end(ap);
  return -1;
}

int fg_attach_refuse(char *err, size_t len, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err, len, fmt, ap);
  va_end(ap);
  return FG_ATTACH_REFUSED;
}

/* Whether the process runs the JDK's jspawnhelper, which becomes the JVM a
 * ProcessBuilder started as soon as it execs it. */
static int spawning(int pid)
{
  char path[64], exe[4096];
  snprintf(path, sizeof path, "/proc/%d/exe", pid);
  ssize_t n = readlink(path, exe, sizeof exe - 1);
  if (n <= 0)
    return 0;
  exe[n] = '\0';
  const char *base = strrchr(exe, '/');
  return strcmp(base ? base + 1 : exe, "jspawnhelper") == 0;
}

/* /proc/PID/WHAT into buf (len bytes, NUL-terminated); the bytes read, 0
 * when it cannot be read. */
static size_t read_proc(int pid, const char *what, char *buf, size_t len)
{
  char path[64];
  snprintf(path, sizeof path, "/proc/%d/%s", pid, what);
  FILE *f = fopen(path, "re");
  size_t n = f ? fread(buf, 1, len - 1, f) : 0;
  if (f)
    fclose(f);
  buf[n] = '\0';
  return n;
}

/* Field field (3: the state, 9: the flags, ...) of /proc/PID/stat as a number; 0 when it cannot be read. */
static unsigned long long stat_field(int pid, int field)
{
  char buf[1024];
  read_proc(pid, "stat", buf, sizeof buf);
  const char *p = strrchr(buf, ')');   /* the command name may hold spaces and parentheses */
  unsigned long long v = 0;
  for (int at = 2; p && at < field; at++)
    p = strchr(p + 1, ' ');
  return p && sscanf(p + 1, "%llu", &v) == 1 ? v : 0;
}

#define KERNEL_THREAD_FLAG 0x00200000ull   /* PF_KTHREAD of the kernel's task flags */

/* /proc/uptime's first field ("SECONDS.CC") in ms, read as integers: as a
 * double, SECONDS.CC times 1000 falls 1 ms short for some values (16384.01
 * gives 16384009), which made a process started in the current tick -1 ms
 * old, "cannot be told". -1 when text holds no such field. */
static long uptime_ms(const char *text)
{
  unsigned long s, cs;
  return sscanf(text, "%lu.%2lu", &s, &cs) == 2 ? (long)(s * 1000 + cs * 10) : -1;
}

/* How long ago the process started, in ms (from its start time in
 * /proc/PID/stat, in clock ticks since boot, against /proc/uptime; 0 for
 * one started in the current tick); -1 when it cannot be told. */
static long age_ms(int pid)
{
  unsigned long long start = stat_field(pid, 22);
  char text[128] = "";
  FILE *f = fopen("/proc/uptime", "re");
  if (f) {
    if (!fgets(text, sizeof text, f))
      text[0] = '\0';
    fclose(f);
  }
  long up = uptime_ms(text), hz = sysconf(_SC_CLK_TCK);
  if (!start || up < 0 || hz <= 0)
    return -1;
  long age = up - (long)(start * 1000 / (unsigned long long)hz);
  return age > 0 ? age : 0;
}

/* A process this young that is not a JVM yet may be a shell's fork about to
 * exec one (`java ... & fgprof profile $!`): it is looked at again until it
 * is this old. */
#define YOUNG_MS 1000

/* 2 when the process maps libjvm.so: a HotSpot JVM (SIGQUIT kills others);
 * 1 when only the java launcher's libjli.so, or it is still the JDK's
 * jspawnhelper: a JVM still starting; else 0. *mapped set when its maps
 * hold a line (a process that exits loses them all at once). */
static int is_hotspot(int pid, int *mapped)
{
  char path[64], line[1024];
  snprintf(path, sizeof path, "/proc/%d/maps", pid);
  FILE *f = fopen(path, "re");
  int found = 0;
  *mapped = 0;
  while (f && found < 2 && fgets(line, sizeof line, f)) {
    *mapped = 1;
    if (strstr(line, "/libjvm.so"))
      found = 2;
    else if (strstr(line, "/libjli.so"))
      found = 1;
  }
  if (f)
    fclose(f);
  return found ? found : spawning(pid);
}

/* The option's last word in the whitespace-separated list text (1 on, 0
 * off), or was when text does not name it. */
static int option_in(const char *text, int was)
{
  for (const char *p = text; (p = strstr(p, "DisableAttachMechanism")); p++) {
    int start = p - text >= 5 && strncmp(p - 5, "-XX:", 4) == 0 && (p[-1] == '+' || p[-1] == '-') &&
                (p - text == 5 || p[-6] == ' ' || p[-6] == '\t' || p[-6] == '\n');
    char end = p[22];
    if (start && (end == '\0' || end == ' ' || end == '\t' || end == '\n'))
      was = p[-1] == '+';
  }
  return was;
}

/* The value of the variable name in an environment block (n bytes), or "". */
static const char *env_value(const char *env, size_t n, const char *name)
{
  size_t len = strlen(name);
  for (size_t i = 0; i < n; i += strlen(env + i) + 1)
    if (strncmp(env + i, name, len) == 0 && env[i + len] == '=')
      return env + i + len + 1;
  return "";
}

/* Whether the JVM's options turn attach off, in the order HotSpot reads
 * them, the last word winning: JAVA_TOOL_OPTIONS, JDK_JAVA_OPTIONS (the
 * launcher's, before the command line), the command line, _JAVA_OPTIONS. */
static int attach_disabled(int pid)
{
  static char env[65536], cmd[65536];
  size_t n = read_proc(pid, "environ", env, sizeof env);
  int off = option_in(env_value(env, n, "JAVA_TOOL_OPTIONS"), 0);
  off = option_in(env_value(env, n, "JDK_JAVA_OPTIONS"), off);
  size_t m = read_proc(pid, "cmdline", cmd, sizeof cmd);
  for (size_t i = 0; i < m; i += strlen(cmd + i) + 1) {
    if (strcmp(cmd + i, "-XX:+DisableAttachMechanism") == 0)
      off = 1;
    else if (strcmp(cmd + i, "-XX:-DisableAttachMechanism") == 0)
      off = 0;
  }
  return option_in(env_value(env, n, "_JAVA_OPTIONS"), off);
}

static void sleep_ms(long ms)
{
  struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
  nanosleep(&t, NULL);
}

static long now_ms(void)
{
  return (long)(fg_clock_ns(CLOCK_MONOTONIC) / 1000000u);
}

/* The attach socket, name in the JVM's /tmp, judged before anything
 * connects to it (lstat, relative to the descriptor of that /tmp): 1
 * absent, 0 the JVM's, FG_ATTACH_REFUSED someone else's or no socket, -1
 * not readable (said in err). */
static int check_socket(const struct fg_attach_target *t, const char *name, char *err, size_t len)
{
  struct stat st;
  if (fstatat(t->tmp_fd, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
    return errno == ENOENT ? 1 : fg_attach_fail(err, len, "cannot read /tmp/%s%s: %s", name, t->where,
                                                strerror(errno));
  if (!S_ISSOCK(st.st_mode))
    return fg_attach_refuse(err, len, "/tmp/%s%s is %s, not the JVM's attach socket; not used (remove it to attach)",
                          name, t->where, S_ISLNK(st.st_mode) ? "a symbolic link" : "not a socket");
  if (st.st_uid != t->uid || st.st_gid != t->gid)
    return fg_attach_refuse(err, len, "/tmp/%s%s belongs to uid %u gid %u, not to the JVM's user (uid %u gid %u): "
                          "someone else may be listening there; not used (remove it to attach)", name, t->where,
                          (unsigned)st.st_uid, (unsigned)st.st_gid, (unsigned)t->uid, (unsigned)t->gid);
  if (st.st_mode & (S_IRWXG | S_IRWXO))
    return fg_attach_refuse(err, len, "/tmp/%s%s is open to other users (mode %03o, the JVM makes it 600); not used",
                          name, t->where, (unsigned)(st.st_mode & 0777));
  return 0;
}

/* The trigger file HotSpot looks for at SIGQUIT (AttachListener::
 * is_init_trigger): .attach_pid<PID> in the JVM's working directory, and
 * only when there is none there (its stat fails), in its /tmp; it is taken
 * when its owner is the JVM's effective user or root, else the signal only
 * prints a thread dump. So the places are judged in that order: a file
 * absent is created (O_EXCL | O_NOFOLLOW, relative to the directory's
 * descriptor, given to the JVM's user), a file of the JVM's user or root
 * is another client's and will do, anything else (another user's file,
 * a link HotSpot would follow) is reported and nothing is signalled. *ours
 * is set when the file is ours (then removed by remove_trigger). 0, or
 * FG_ATTACH_REFUSED (a file HotSpot would not take, or follow), or -1. */
struct trigger {
  int dir_fd;         /* cwd_fd or tmp_fd */
  char where[4200];   /* "the working directory DIR" or "/tmp", for messages */
  int ours;
  char name[32];
};

static int judge_trigger(const struct fg_attach_target *t, struct trigger *tr, char *err, size_t len)
{
  struct stat st;
  if (fstatat(tr->dir_fd, tr->name, &st, AT_SYMLINK_NOFOLLOW) != 0)
    return errno == ENOENT ? 1 : fg_attach_fail(err, len, "cannot read %s in %s%s: %s", tr->name, tr->where,
                                                t->where, strerror(errno));
  if (S_ISLNK(st.st_mode))
    return fg_attach_refuse(err, len, "%s in %s of process %d%s is a symbolic link of uid %u, not made by fgprof: "
                          "HotSpot would follow it; the JVM is not signalled (remove it to attach)", tr->name,
                          tr->where, t->pid, t->where, (unsigned)st.st_uid);
  if (st.st_uid != t->uid && st.st_uid != 0)   /* HotSpot stats it: any file of the JVM's user or root is taken */
    return fg_attach_refuse(err, len, "%s in %s of process %d%s is an attach trigger of uid %u, not of the JVM's user "
                          "(uid %u) or root: HotSpot ignores it, and a signal would only print a thread dump; the "
                          "JVM is not signalled (remove it to attach)", tr->name, tr->where, t->pid, t->where,
                          (unsigned)st.st_uid, (unsigned)t->uid);
  return 0;   /* another client's (jcmd's): HotSpot takes it as ours */
}

static int make_trigger(struct fg_attach_target *t, long deadline, struct trigger *tr, char *err, size_t len)
{
  tr->ours = 0;
  /* the directory HotSpot will look in when it takes the signal: not its perf data directory, left in ms */
  char cwd[4200] = "the working directory ";
  long since = now_ms();
  while (fg_attach_target_cwd(t, cwd + 22, sizeof cwd - 22) == 1) {
    if (now_ms() >= deadline)
      return fg_attach_refuse(err, len, "process %d has worked in its perf data directory (hsperfdata) for %ld ms, "
                              "not where it looks for the attach trigger later; not signalled", t->pid,
                              now_ms() - since);
    sleep_ms(5);
  }
  if (!cwd[22])
    cwd[21] = '\0';   /* for the messages: "the working directory DIR" as opened, else "the working directory" */
  const int dirs[2] = {t->cwd_fd, t->tmp_fd};
  const char *const wheres[2] = {cwd, "/tmp"};
  int e = 0;
  for (int i = 0; i < 2; i++) {
    if (dirs[i] < 0)
      continue;   /* its working directory could not be opened from here: only /tmp is ours to judge */
    tr->dir_fd = dirs[i];
    snprintf(tr->where, sizeof tr->where, "%s", wheres[i]);
    tr->ours = 0;
    snprintf(tr->name, sizeof tr->name, ".attach_pid%d", t->ns_pid);
    int state = judge_trigger(t, tr, err, len);
    if (state <= 0)
      return state;
    struct stat dir;
    if (i == 0 && (fstat(tr->dir_fd, &dir) != 0 || dir.st_uid != t->uid))
      continue;   /* a working directory not the JVM's user's (/, /etc): no file of theirs left there; /tmp next */
    int fd = openat(tr->dir_fd, tr->name, O_CREAT | O_EXCL | O_WRONLY | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd >= 0) {
      /* the JVM's user's: host root is nobody to a JVM in a user namespace */
      if (geteuid() == 0 && fchown(fd, t->uid, t->gid) != 0)
        fprintf(stderr, "fgprof: warning: cannot hand the trigger file to the JVM's user: %s\n", strerror(errno));
      close(fd);
      tr->ours = 1;
      return 0;
    }
    if (errno == EEXIST) {   /* made meanwhile by someone else: judged as such */
      int again = judge_trigger(t, tr, err, len);
      return again != 1 ? again : fg_attach_fail(err, len, "%s in %s%s came and went while fgprof made its own; "
                                                 "not signalled (try again)", tr->name, tr->where, t->where);
    }
    e = errno;   /* not ours to write (a read-only or closed working directory): HotSpot looks in /tmp next */
  }
  return fg_attach_fail(err, len, "cannot create the attach trigger file /tmp/.attach_pid%d%s: %s", t->ns_pid,
                        t->where, strerror(e));
}

static void remove_trigger(const struct trigger *tr)
{
  if (tr->ours)
    unlinkat(tr->dir_fd, tr->name, 0);
}

/* Whether our trigger file is still there (a client may have removed it). */
static int trigger_there(const struct trigger *tr)
{
  struct stat st;
  return tr->ours && fstatat(tr->dir_fd, tr->name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode);
}

/* Whether the process is there and not a zombie. */
static int alive(int pid)
{
  char buf[512];
  size_t n = read_proc(pid, "stat", buf, sizeof buf);
  const char *paren = n ? strrchr(buf, ')') : NULL;   /* the name, in parentheses, may hold anything */
  return paren && paren[1] == ' ' && paren[2] != 'Z' && paren[2] != 'X';
}

/* Waits until the JVM catches SIGQUIT (a JVM still starting installs its
 * handlers late): 0; at the deadline FG_ATTACH_REFUSED, said in err; -1
 * when the process went meanwhile. */
static int await_quit_handler(struct fg_attach_target *t, long deadline, char *err, size_t len)
{
  while (!fg_attach_target_catches_quit(t)) {
    if (!alive(t->pid))
      return fg_attach_fail(err, len, "process %d exited before it caught SIGQUIT", t->pid);
    if (now_ms() >= deadline)
      return fg_attach_refuse(err, len, "process %d does not catch SIGQUIT (started with -Xrs, or not done "
                            "starting): not signalled, as the signal would end it; start it with "
                            "-XX:+StartAttachListener to attach without one", t->pid);
    sleep_ms(20);
  }
  return 0;
}

/* The child's half of connect_as_jvm: connects, sends the socket (or the
 * errno) over to, and ends. */
static void connect_in_child(const struct fg_attach_target *t, const char *name, int timeout_ms, int to)
{
  int s = -1, e = 0, root = geteuid() == 0;
  if (root && t->other_mounts && (fchdir(t->root_fd) != 0 || chroot(".") != 0))
    e = errno;
  else if (fchdir(t->tmp_fd) != 0)
    e = errno;
  else if (root && (setgroups(0, NULL) != 0 || setgid(t->gid) != 0 || setuid(t->uid) != 0))
    e = errno;
  else if ((s = socket(AF_UNIX, SOCK_STREAM, 0)) < 0)
    e = errno;
  if (s >= 0) {
    struct timeval tv = {timeout_ms / 1000, (timeout_ms % 1000) * 1000};
    setsockopt(s, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);   /* a full backlog does not hold fgprof */
    struct sockaddr_un addr = {.sun_family = AF_UNIX};
    snprintf(addr.sun_path, sizeof addr.sun_path, "%s", name);   /* relative: in the JVM's /tmp */
    if (connect(s, (struct sockaddr *)&addr, sizeof addr) != 0)
      e = errno;
  }
  union {
    struct cmsghdr h;
    char buf[CMSG_SPACE(sizeof(int))];
  } control;
  struct iovec iov = {&e, sizeof e};
  struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1};
  if (e == 0) {
    msg.msg_control = control.buf;
    msg.msg_controllen = sizeof control.buf;
    struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int));
    memcpy(CMSG_DATA(c), &s, sizeof s);
  }
  _exit(sendmsg(to, &msg, 0) == (ssize_t)sizeof e ? 0 : 1);
}

/* A socket connected to name in the JVM's /tmp as the JVM itself would
 * connect: from a child of fgprof that enters the JVM's root (chroot to
 * its descriptor, when fgprof runs as root and the root is another),
 * works in its /tmp and takes the JVM's uid and gid, then hands the socket
 * back (SCM_RIGHTS). So a name swapped for a link after check_socket
 * judged it resolves inside the JVM's root, and connect(), which follows
 * links and has no O_NOFOLLOW, reaches only what the JVM's user could;
 * whoever listens is checked by the caller. -1 with errno. */
static int connect_as_jvm(const struct fg_attach_target *t, const char *name, int timeout_ms)
{
  int pair[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) != 0)
    return -1;
  pid_t child = fork();
  if (child == 0) {
    close(pair[0]);
    connect_in_child(t, name, timeout_ms, pair[1]);
  }
  int e = errno;
  close(pair[1]);
  int s = -1, got_errno = 0;
  if (child > 0) {
    union {
      struct cmsghdr h;
      char buf[CMSG_SPACE(sizeof(int))];
    } control;
    struct iovec iov = {&got_errno, sizeof got_errno};
    struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = control.buf,
                         .msg_controllen = sizeof control.buf};
    ssize_t n;
    while ((n = recvmsg(pair[0], &msg, MSG_CMSG_CLOEXEC)) < 0 && errno == EINTR)
      ;
    struct cmsghdr *c = n == (ssize_t)sizeof got_errno ? CMSG_FIRSTHDR(&msg) : NULL;
    if (c && c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS && c->cmsg_len == CMSG_LEN(sizeof(int)))
      memcpy(&s, CMSG_DATA(c), sizeof s);
    e = s >= 0 ? 0 : n != (ssize_t)sizeof got_errno ? ECHILD : got_errno ? got_errno : EPROTO;
    while (waitpid(child, NULL, 0) < 0 && errno == EINTR)
      ;
  }
  close(pair[0]);
  errno = e;
  return s;
}

/* Connected to the JVM's attach socket, starting its listener if need be;
 * FG_ATTACH_REFUSED or -1 (fg_attach_load's), said in err. */
static int connect_jvm(struct fg_attach_target *t, int timeout_ms, char *err, size_t len)
{
  long deadline = now_ms() + timeout_ms;
  char name[64];
  snprintf(name, sizeof name, ".java_pid%d", t->ns_pid);
  int state = check_socket(t, name, err, len);
  if (state < 0)
    return state;
  if (state == 1) {
    struct trigger tr;
    if ((state = await_quit_handler(t, deadline, err, len)) != 0 ||
        (state = make_trigger(t, deadline, &tr, err, len)) != 0)
      return state;
    if (kill(t->pid, SIGQUIT) != 0) {
      int e = errno;
      remove_trigger(&tr);
      return fg_attach_fail(err, len, "cannot signal process %d: %s", t->pid, strerror(e));
    }
    /* The signal can come to nothing on a JVM still starting: HotSpot's
     * Signal Dispatcher may open the listener before the main thread's
     * AttachListener::vm_start() unlinks a "stale" socket of that name, the
     * very one just made. A JVM whose listener is up (its "Attach Listener"
     * thread runs) but has no socket file restarts it at the next SIGQUIT
     * (AttachListener::check_socket_file, JDK 11+) without a thread dump;
     * in any other state a second signal prints a thread dump into the
     * application's output. So it is sent again only in that state, with
     * our own trigger file in place, 0.5 s on, then at doubling intervals. */
    long pause = 500, again = now_ms() + pause;
    int signals = 1;
    while ((state = check_socket(t, name, err, len)) == 1 && now_ms() < deadline &&
           kill(t->pid, 0) == 0) {   /* a JVM that exited opens nothing */
      if (now_ms() >= again) {
        if (trigger_there(&tr) && fg_attach_target_listening(t) && check_socket(t, name, err, len) == 1 &&
            fg_attach_target_catches_quit(t)) {
          kill(t->pid, SIGQUIT);
          signals++;
        }
        pause *= 2;
        again = now_ms() + pause;
      }
      sleep_ms(20);
    }
    remove_trigger(&tr);
    if (state < 0)
      return state;
    if (state == 1) {
      if (!alive(t->pid))
        return fg_attach_fail(err, len, "process %d exited before it opened its attach socket (%d SIGQUIT sent, the "
                              "trigger %s in %s%s)", t->pid, signals, tr.name, tr.where, t->where);
      if (fg_attach_target_listening(t))   /* the timeout waited: a verdict on a JVM that is there */
        return fg_attach_refuse(err, len, "process %d started its attach listener but opened no socket at /tmp/%s%s "
                              "within %d ms", t->pid, name, t->where, timeout_ms);
      return fg_attach_refuse(err, len, "process %d started no attach listener within %d ms (attach disabled, or the "
                            "JVM is hung; %d SIGQUIT sent, not repeated)", t->pid, timeout_ms, signals);
    }
  }
  int s = connect_as_jvm(t, name, timeout_ms);
  if (s < 0)
    return fg_attach_fail(err, len, "cannot connect to /tmp/%s%s: %s", name, t->where, strerror(errno));
  /* the listener is the JVM itself: the kernel says who called listen() */
  struct ucred peer;
  socklen_t plen = sizeof peer;
  if (getsockopt(s, SOL_SOCKET, SO_PEERCRED, &peer, &plen) != 0 || peer.pid != t->pid || peer.uid != t->uid) {
    close(s);
    return fg_attach_refuse(err, len, "/tmp/%s%s is served by process %d (uid %u), not by the JVM %d; nothing sent",
                          name, t->where, (int)peer.pid, (unsigned)peer.uid, t->pid);
  }
  struct timeval tv = {timeout_ms / 1000, (timeout_ms % 1000) * 1000};
  setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  return s;
}

/* To the attach socket: MSG_NOSIGNAL, so a JVM that exits and closes it
 * makes this an EPIPE error instead of killing fgprof with SIGPIPE. */
static int write_all(int fd, const char *buf, size_t n)
{
  while (n) {
    ssize_t w = send(fd, buf, n, MSG_NOSIGNAL);
    if (w < 0 && errno == EINTR)
      continue;
    if (w <= 0)
      return -1;
    buf += w;
    n -= (size_t)w;
  }
  return 0;
}

int fg_attach_check(struct fg_attach_target *t, int timeout_ms, char *err, size_t errlen)
{
  if (t->uid != geteuid() && geteuid() != 0)
    return fg_attach_refuse(err, errlen, "process %d belongs to another user (uid %u); attach as that user", t->pid,
                (unsigned)t->uid);
  long deadline = now_ms() + timeout_ms;
  int jvm, mapped;
  while (((jvm = is_hotspot(t->pid, &mapped)) == 1 || (jvm == 0 && age_ms(t->pid) >= 0 && age_ms(t->pid) < YOUNG_MS)) &&
         now_ms() < deadline)
    sleep_ms(20);   /* the launcher has not loaded the JVM yet, or the fork has not exec'd it */
  if (jvm == 1)
    return fg_attach_refuse(err, errlen, "process %d is a java launcher that loaded no JVM within %d ms", t->pid,
                          timeout_ms);
  if (!jvm && !mapped && (stat_field(t->pid, 9) & KERNEL_THREAD_FLAG))
    return fg_attach_refuse(err, errlen, "process %d is a kernel thread, not a HotSpot JVM", t->pid);
  if (!jvm)   /* a process with no memory at all is exiting (the kernel freed it): perhaps a JVM */
    return (mapped ? fg_attach_refuse : fg_attach_fail)(err, errlen, "process %d is not a HotSpot JVM (no libjvm.so "
                                                        "mapped)", t->pid);
  if (attach_disabled(t->pid))
    return fg_attach_refuse(err, errlen, "process %d was started with -XX:+DisableAttachMechanism: it accepts no agent",
                          t->pid);
  return 0;
}

int fg_attach_load(struct fg_attach_target *t, const char *library, const char *options, int timeout_ms,
                   int *agent_rc, char *err, size_t errlen)
{
  return fg_attach_load_patient(t, library, options, timeout_ms, NULL, NULL, agent_rc, err, errlen);
}

int fg_attach_load_patient(struct fg_attach_target *t, const char *library, const char *options, int timeout_ms,
                           int (*keep_waiting)(void *ctx), void *ctx, int *agent_rc, char *err, size_t errlen)
{
  int s = connect_jvm(t, timeout_ms, err, errlen);
  if (s < 0)
    return s;
  char request[8192];
  int n = snprintf(request, sizeof request, "1%cload%c%s%ctrue%c%s%c", 0, 0, library, 0, 0, options, 0);
  if (n < 0 || (size_t)n >= sizeof request || write_all(s, request, (size_t)n) != 0) {
    close(s);
    return fg_attach_fail(err, errlen, "cannot send the request to process %d", t->pid);
  }
  char reply[4096];
  size_t got = 0;
  for (ssize_t r; got + 1 < sizeof reply && (r = read(s, reply + got, sizeof reply - 1 - got)) != 0;) {
    if (r < 0 && (errno == EINTR || ((errno == EAGAIN || errno == EWOULDBLOCK) && keep_waiting &&
                                     keep_waiting(ctx))))
      continue;
    if (r < 0) {
      int e = errno;
      close(s);
      if (e == EAGAIN || e == EWOULDBLOCK)
        return fg_attach_fail(err, errlen, "process %d did not answer within %d ms (stopped or hung; a large "
                              "application's first start may need a longer --timeout)", t->pid, timeout_ms);
      return fg_attach_fail(err, errlen, "no answer from process %d: %s", t->pid, strerror(e));
    }
    got += (size_t)r;
  }
  close(s);
  reply[got] = '\0';
  if (got == 0)   /* closed with no word: a JVM that exits closes its socket */
    return fg_attach_fail(err, errlen, "process %d closed the connection without an answer", t->pid);
  /* the JVM answered: what it said is final, loaded or not */
  return fg_attach_reply_parse(reply, got, t->pid, agent_rc, err, errlen) == 0 ? 0 : FG_ATTACH_REFUSED;
}
