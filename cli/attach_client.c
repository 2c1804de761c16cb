/* HotSpot's attach protocol on Linux, as the JDK's own tools speak it: if
 * the JVM has no attach socket yet, create .attach_pid<PID> in its working
 * directory (or its /tmp) and send it SIGQUIT, which makes it open
 * /tmp/.java_pid<PID>; then connect and send "1\0load\0LIB\0true\0OPTIONS\0".
 * The JVM answers with its status, then the agent's return code.
 *
 * fgprof may run as root beside other users: it talks only to a socket
 * that is the JVM's (owner uid and gid as the JDK's client checks them,
 * a socket, no link, no access for others, and the peer that listens on
 * it is the JVM itself), and it signals only a JVM that catches SIGQUIT.
 * <PID> is the JVM's own pid and /tmp its own (a container's). */
#include "attach_client.h"
#include "fg/attach_codes.h"
#include "fg/clock.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
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

/* How long ago the process started, in ms (from its start time in
 * /proc/PID/stat, in clock ticks since boot, against /proc/uptime); -1 when
 * it cannot be told. */
static long age_ms(int pid)
{
  char buf[1024];
  read_proc(pid, "stat", buf, sizeof buf);
  const char *p = strrchr(buf, ')');   /* the command name may hold spaces and parentheses */
  unsigned long long start = 0;
  for (int field = 2; p && field < 22; field++)
    p = strchr(p + 1, ' ');
  if (!p || sscanf(p + 1, "%llu", &start) != 1)
    return -1;
  double up = 0;
  FILE *f = fopen("/proc/uptime", "re");
  int ok = f && fscanf(f, "%lf", &up) == 1;
  if (f)
    fclose(f);
  long hz = sysconf(_SC_CLK_TCK);
  return ok && hz > 0 ? (long)(up * 1000) - (long)(start * 1000 / (unsigned long long)hz) : -1;
}

/* A process this young that is not a JVM yet may be a shell's fork about to
 * exec one (`java ... & fgprof profile $!`): it is looked at again until it
 * is this old. */
#define YOUNG_MS 1000

/* 2 when the process maps libjvm.so: a HotSpot JVM (SIGQUIT kills others);
 * 1 when only the java launcher's libjli.so, or it is still the JDK's
 * jspawnhelper: a JVM still starting; else 0. */
static int is_hotspot(int pid)
{
  char path[64], line[1024];
  snprintf(path, sizeof path, "/proc/%d/maps", pid);
  FILE *f = fopen(path, "re");
  int found = 0;
  while (f && found < 2 && fgets(line, sizeof line, f))
    if (strstr(line, "/libjvm.so"))
      found = 2;
    else if (strstr(line, "/libjli.so"))
      found = 1;
  if (f)
    fclose(f);
  return found ? found : spawning(pid);
}

/* Whether its command line turns attach off. */
static int attach_disabled(int pid)
{
  char buf[65536];
  size_t n = read_proc(pid, "cmdline", buf, sizeof buf);
  int off = 0;
  for (size_t i = 0; i < n; i += strlen(buf + i) + 1) {
    if (strcmp(buf + i, "-XX:+DisableAttachMechanism") == 0)
      off = 1;
    else if (strcmp(buf + i, "-XX:-DisableAttachMechanism") == 0)
      off = 0;
  }
  return off;
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

/* The attach socket at path, judged before anything connects to it:
 * 1 absent, 0 the JVM's, -1 someone else's or no socket (said in err). */
static int check_socket(const struct fg_attach_target *t, const char *path, char *err, size_t len)
{
  struct stat st;
  if (lstat(path, &st) != 0)
    return errno == ENOENT ? 1 : fg_attach_fail(err, len, "cannot read %s: %s", path, strerror(errno));
  if (!S_ISSOCK(st.st_mode))
    return fg_attach_fail(err, len, "%s is %s, not the JVM's attach socket; not used (remove it to attach)", path,
                S_ISLNK(st.st_mode) ? "a symbolic link" : "not a socket");
  if (st.st_uid != t->uid || st.st_gid != t->gid)
    return fg_attach_fail(err, len, "%s belongs to uid %u gid %u, not to the JVM's user (uid %u gid %u): someone "
                          "else may be listening there; not used (remove it to attach)", path, (unsigned)st.st_uid,
                          (unsigned)st.st_gid,
                (unsigned)t->uid, (unsigned)t->gid);
  if (st.st_mode & (S_IRWXG | S_IRWXO))
    return fg_attach_fail(err, len, "%s is open to other users (mode %03o, the JVM makes it 600); not used", path,
                (unsigned)(st.st_mode & 0777));
  return 0;
}

/* The trigger file HotSpot looks for at SIGQUIT, in the JVM's working
 * directory, else in its /tmp: created new (never through a link), or one
 * already there left as it is. Its path in made (empty when not ours to
 * remove); 0, or -1. */
static int make_trigger(const struct fg_attach_target *t, char *made, size_t len, char *err, size_t errlen)
{
  char places[2][160];
  snprintf(places[0], sizeof places[0], "/proc/%d/cwd/.attach_pid%d", t->pid, t->ns_pid);
  snprintf(places[1], sizeof places[1], "%s/tmp/.attach_pid%d", t->root, t->ns_pid);
  int e = 0;
  made[0] = '\0';
  for (int i = 0; i < 2; i++) {
    int fd = open(places[i], O_CREAT | O_EXCL | O_WRONLY | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd >= 0) {
      close(fd);
      snprintf(made, len, "%s", places[i]);
      return 0;
    }
    struct stat st;
    if (errno == EEXIST && lstat(places[i], &st) == 0 && S_ISREG(st.st_mode))
      return 0;   /* one already there (another client's): HotSpot takes it as well */
    e = errno;
  }
  return fg_attach_fail(err, errlen, "cannot create the attach trigger file %s: %s", places[1], strerror(e));
}

/* Waits until the JVM catches SIGQUIT (a JVM still starting installs its
 * handlers late): 0, or -1 at the deadline, said in err. */
static int await_quit_handler(struct fg_attach_target *t, long deadline, char *err, size_t len)
{
  while (!fg_attach_target_catches_quit(t)) {
    if (now_ms() >= deadline)
      return fg_attach_fail(err, len, "process %d does not catch SIGQUIT (started with -Xrs, or not done "
                            "starting): not signalled, as the signal would end it; start it with "
                            "-XX:+StartAttachListener to attach without "
                  "one", t->pid);
    sleep_ms(20);
  }
  return 0;
}

/* Connected to the JVM's attach socket, starting its listener if need be; -1. */
static int connect_jvm(struct fg_attach_target *t, int timeout_ms, char *err, size_t len)
{
  long deadline = now_ms() + timeout_ms;
  struct sockaddr_un addr = {.sun_family = AF_UNIX};
  char name[64];
  snprintf(name, sizeof name, "/tmp/.java_pid%d", t->ns_pid);
  if (fg_attach_target_path(t, name, addr.sun_path, sizeof addr.sun_path) != 0)
    return fg_attach_fail(err, len, "the attach socket's path for process %d is too long", t->pid);
  int state = check_socket(t, addr.sun_path, err, len);
  if (state < 0)
    return -1;
  if (state == 1) {
    char trigger[320];
    if (await_quit_handler(t, deadline, err, len) != 0 || make_trigger(t, trigger, sizeof trigger, err, len) != 0)
      return -1;
    if (kill(t->pid, SIGQUIT) != 0) {
      int e = errno;
      if (trigger[0])
        unlink(trigger);
      return fg_attach_fail(err, len, "cannot signal process %d: %s", t->pid, strerror(e));
    }
    /* The signal can come to nothing on a JVM still starting: HotSpot's
     * Signal Dispatcher may open the listener before the main thread's
     * AttachListener::vm_start() unlinks a "stale" socket of that name, the
     * very one just made. Signalled again while the socket is absent, a JVM
     * whose listener is up but has no socket file restarts it
     * (AttachListener::check_socket_file, JDK 11+) and one whose listener is
     * not up starts it; neither prints a thread dump. So the signal is
     * repeated 0.5 s on, then at doubling intervals (1, 2, 4 s...), not
     * only past half the wait as the JDK's client does, which is too late
     * for a JVM that lives a few seconds. */
    long pause = 500, again = now_ms() + pause;
    while ((state = check_socket(t, addr.sun_path, err, len)) == 1 && now_ms() < deadline &&
           kill(t->pid, 0) == 0) {   /* a JVM that exited opens nothing */
      if (now_ms() >= again) {
        if (fg_attach_target_catches_quit(t))
          kill(t->pid, SIGQUIT);
        pause *= 2;
        again = now_ms() + pause;
      }
      sleep_ms(20);
    }
    if (trigger[0])
      unlink(trigger);
    if (state < 0)
      return -1;
    if (state == 1)
      return fg_attach_fail(err, len, "process %d did not open its attach socket within %d ms (attach disabled with "
                  "-XX:+DisableAttachMechanism, or the JVM is still starting or hung)", t->pid, timeout_ms);
  }
  int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (s < 0 || connect(s, (struct sockaddr *)&addr, sizeof addr) != 0) {
    int e = errno;
    if (s >= 0)
      close(s);
    return fg_attach_fail(err, len, "cannot connect to %s: %s", addr.sun_path, strerror(e));
  }
  /* the listener is the JVM itself: the kernel says who called listen() */
  struct ucred peer;
  socklen_t plen = sizeof peer;
  if (getsockopt(s, SOL_SOCKET, SO_PEERCRED, &peer, &plen) != 0 || peer.pid != t->pid || peer.uid != t->uid) {
    close(s);
    return fg_attach_fail(err, len, "%s is served by process %d (uid %u), not by the JVM %d; nothing sent",
                          addr.sun_path, (int)peer.pid, (unsigned)peer.uid, t->pid);
  }
  struct timeval tv = {timeout_ms / 1000, (timeout_ms % 1000) * 1000};
  setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  return s;
}

static int write_all(int fd, const char *buf, size_t n)
{
  while (n) {
    ssize_t w = write(fd, buf, n);
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
    return fg_attach_fail(err, errlen, "process %d belongs to another user (uid %u); attach as that user", t->pid,
                (unsigned)t->uid);
  long deadline = now_ms() + timeout_ms;
  int jvm;
  while (((jvm = is_hotspot(t->pid)) == 1 || (jvm == 0 && age_ms(t->pid) >= 0 && age_ms(t->pid) < YOUNG_MS)) &&
         now_ms() < deadline)
    sleep_ms(20);   /* the launcher has not loaded the JVM yet, or the fork has not exec'd it */
  if (jvm == 1)
    return fg_attach_fail(err, errlen, "process %d is a java launcher that loaded no JVM within %d ms", t->pid,
                          timeout_ms);
  if (!jvm)
    return fg_attach_fail(err, errlen, "process %d is not a HotSpot JVM (no libjvm.so mapped)", t->pid);
  if (attach_disabled(t->pid))
    return fg_attach_fail(err, errlen, "process %d was started with -XX:+DisableAttachMechanism: it accepts no agent",
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
    return -1;
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
  /* "STATUS\n" then the agent's return code: "N\n" or "return code: N\n" */
  char *end;
  long status = strtol(reply, &end, 10);
  if (end == reply)
    return fg_attach_fail(err, errlen, "process %d answered '%.100s', not an attach status", t->pid, reply);
  const char *last = NULL;
  for (const char *p = end; *p; p++)
    if ((*p == '-' || (*p >= '0' && *p <= '9')) && (p == reply || p[-1] == ' ' || p[-1] == '\n'))
      last = p;
  while (*end == '\n' || *end == ' ')
    end++;
  if (!last && *end) {   /* no agent's return code, a line of the JVM's own: it loaded nothing */
    if (strstr(end, "live phase")) {   /* JDK 25, still starting: "only permitted in the live phase" */
      *agent_rc = FG_ATTACH_RC_STARTING;
      return 0;
    }
    return fg_attach_fail(err, errlen, "process %d did not load the agent: %.200s", t->pid, end);
  }
  if (status != 0 && !last)
    return fg_attach_fail(err, errlen, "process %d refused the agent (status %ld): %.200s", t->pid, status, end);
  *agent_rc = last ? atoi(last) : (int)status;
  if (status != 0 && *agent_rc == 0)
    *agent_rc = (int)status;
  return 0;
}
