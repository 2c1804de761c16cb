/* HotSpot's attach protocol on Linux, as the JDK's own tools speak it: if
 * the JVM has no attach socket yet, create .attach_pid<PID> in its working
 * directory (or /tmp) and send it SIGQUIT, which makes it open
 * /tmp/.java_pid<PID>; then connect and send "1\0load\0LIB\0true\0OPTIONS\0".
 * The JVM answers with its status, then the agent's return code. */
#include "attach_client.h"

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

static int fail(char *err, size_t len, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err, len, fmt, ap);
  va_end(ap);
  return -1;
}

/* Whether the process maps libjvm.so: a HotSpot JVM (SIGQUIT kills others). */
static int is_hotspot(int pid)
{
  char path[64], line[1024];
  snprintf(path, sizeof path, "/proc/%d/maps", pid);
  FILE *f = fopen(path, "r");
  int found = 0;
  while (f && !found && fgets(line, sizeof line, f))
    found = strstr(line, "/libjvm.so") != NULL;
  if (f)
    fclose(f);
  return found;
}

/* Whether its command line turns attach off. */
static int attach_disabled(int pid)
{
  char path[64], buf[65536];
  snprintf(path, sizeof path, "/proc/%d/cmdline", pid);
  FILE *f = fopen(path, "r");
  size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
  if (f)
    fclose(f);
  int off = 0;
  for (size_t i = 0; i < n; i += strlen(buf + i) + 1) {
    buf[n] = '\0';
    if (strcmp(buf + i, "-XX:+DisableAttachMechanism") == 0)
      off = 1;
    else if (strcmp(buf + i, "-XX:-DisableAttachMechanism") == 0)
      off = 0;
  }
  return off;
}

static int owner_uid(int pid, uid_t *uid)
{
  char path[64];
  struct stat st;
  snprintf(path, sizeof path, "/proc/%d", pid);
  if (stat(path, &st) != 0)
    return -1;
  *uid = st.st_uid;
  return 0;
}

static void sleep_ms(long ms)
{
  struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
  nanosleep(&t, NULL);
}

/* Connected to the JVM's attach socket, starting its listener if need be; -1. */
static int connect_jvm(int pid, int timeout_ms, char *err, size_t len)
{
  struct sockaddr_un addr = {.sun_family = AF_UNIX};
  snprintf(addr.sun_path, sizeof addr.sun_path, "/tmp/.java_pid%d", pid);
  struct stat st;
  if (stat(addr.sun_path, &st) != 0) {
    char trigger[128];
    snprintf(trigger, sizeof trigger, "/proc/%d/cwd/.attach_pid%d", pid, pid);
    int fd = open(trigger, O_CREAT | O_WRONLY | O_CLOEXEC, 0600);
    if (fd < 0) {
      snprintf(trigger, sizeof trigger, "/tmp/.attach_pid%d", pid);
      fd = open(trigger, O_CREAT | O_WRONLY | O_CLOEXEC, 0600);
    }
    if (fd < 0)
      return fail(err, len, "cannot create the attach trigger file %s: %s", trigger, strerror(errno));
    close(fd);
    if (kill(pid, SIGQUIT) != 0) {
      unlink(trigger);
      return fail(err, len, "cannot signal process %d: %s", pid, strerror(errno));
    }
    int waited = 0;
    while (stat(addr.sun_path, &st) != 0 && waited < timeout_ms) {
      sleep_ms(20);
      waited += 20;
    }
    unlink(trigger);
    if (waited >= timeout_ms)
      return fail(err, len, "process %d did not open its attach socket within %d ms (attach disabled with "
                  "-XX:+DisableAttachMechanism, or the JVM is still starting or hung)", pid, timeout_ms);
  }
  int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (s < 0 || connect(s, (struct sockaddr *)&addr, sizeof addr) != 0) {
    int e = errno;
    if (s >= 0)
      close(s);
    return fail(err, len, "cannot connect to %s: %s", addr.sun_path, strerror(e));
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

int fg_attach_load(int pid, const char *library, const char *options, int timeout_ms, int *agent_rc, char *err,
                   size_t errlen)
{
  if (kill(pid, 0) != 0 && errno == ESRCH)
    return fail(err, errlen, "no such process: %d", pid);
  uid_t uid;
  if (owner_uid(pid, &uid) != 0)
    return fail(err, errlen, "no such process: %d", pid);
  if (uid != geteuid() && geteuid() != 0)
    return fail(err, errlen, "process %d belongs to another user (uid %u); attach as that user", pid, (unsigned)uid);
  if (!is_hotspot(pid))
    return fail(err, errlen, "process %d is not a HotSpot JVM (no libjvm.so mapped)", pid);
  if (attach_disabled(pid))
    return fail(err, errlen, "process %d was started with -XX:+DisableAttachMechanism: it accepts no agent", pid);
  int s = connect_jvm(pid, timeout_ms, err, errlen);
  if (s < 0)
    return -1;
  char request[8192];
  int n = snprintf(request, sizeof request, "1%cload%c%s%ctrue%c%s%c", 0, 0, library, 0, 0, options, 0);
  if (n < 0 || (size_t)n >= sizeof request || write_all(s, request, (size_t)n) != 0) {
    close(s);
    return fail(err, errlen, "cannot send the request to process %d", pid);
  }
  char reply[4096];
  size_t got = 0;
  for (ssize_t r; got + 1 < sizeof reply && (r = read(s, reply + got, sizeof reply - 1 - got)) != 0;) {
    if (r < 0 && errno == EINTR)
      continue;
    if (r < 0) {
      int e = errno;
      close(s);
      if (e == EAGAIN || e == EWOULDBLOCK)
        return fail(err, errlen, "process %d did not answer within %d ms (stopped or hung; a large application's "
                    "first start may need a longer --timeout)", pid, timeout_ms);
      return fail(err, errlen, "no answer from process %d: %s", pid, strerror(e));
    }
    got += (size_t)r;
  }
  close(s);
  reply[got] = '\0';
  /* "STATUS\n" then the agent's return code: "N\n" or "return code: N\n" */
  char *end;
  long status = strtol(reply, &end, 10);
  if (end == reply)
    return fail(err, errlen, "process %d answered '%.100s', not an attach status", pid, reply);
  const char *last = NULL;
  for (const char *p = end; *p; p++)
    if ((*p == '-' || (*p >= '0' && *p <= '9')) && (p == reply || p[-1] == ' ' || p[-1] == '\n'))
      last = p;
  if (status != 0 && !last)
    return fail(err, errlen, "process %d refused the agent (status %ld): %.200s", pid, status, end);
  *agent_rc = last ? atoi(last) : (int)status;
  if (status != 0 && *agent_rc == 0)
    *agent_rc = (int)status;
  return 0;
}
