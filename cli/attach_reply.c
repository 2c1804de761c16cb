/* The JVM's answer to "load"; see attach_reply.h. */
#include "attach_reply.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "fg/attach_codes.h"

#define QUOTED 200   /* bytes of the reply quoted in an error */

/* A decimal integer at p[0..n) after optional white space, as strtol reads it: its value clamped to
 * int, the bytes taken in *used (0 when there is no digit). */
static int integer(const char *p, size_t n, size_t *used)
{
  size_t i = 0;
  while (i < n && (p[i] == ' ' || (p[i] >= '\t' && p[i] <= '\r')))
    i++;
  int neg = i < n && p[i] == '-';
  i += (size_t)(i < n && (p[i] == '-' || p[i] == '+'));
  size_t digits = i;
  long long v = 0;
  for (; i < n && p[i] >= '0' && p[i] <= '9'; i++)
    if (v <= (long long)INT_MAX + 1)
      v = v * 10 + (p[i] - '0');
  *used = i > digits ? i : 0;
  if (neg)
    v = -v;
  return v > INT_MAX ? INT_MAX : v < INT_MIN ? INT_MIN : (int)v;
}

/* At most QUOTED bytes of p[0..n), its trailing line ends and spaces left
 * out, for an error line: a line end inside as a space (the JVM's message
 * of a failed load is two lines), other control characters and bytes past
 * ASCII (a terminal's escapes) as '?'. */
static void printable(const char *p, size_t n, char *out)
{
  while (n > 0 && (p[n - 1] == '\n' || p[n - 1] == '\r' || p[n - 1] == ' '))
    n--;
  size_t i = 0;
  for (; i < n && i < QUOTED; i++)
    out[i] = p[i] == '\n' ? ' ' : p[i] >= 0x20 && p[i] < 0x7f ? p[i] : '?';
  out[i] = '\0';
}

int fg_attach_reply_parse(const char *reply, size_t len, int pid, int *agent_rc, char *err, size_t errlen)
{
  const char *nul = memchr(reply, '\0', len);
  size_t n = nul ? (size_t)(nul - reply) : len;
  char quoted[QUOTED + 1];
  size_t used;
  int status = integer(reply, n, &used);
  if (!used) {
    printable(reply, n, quoted);
    snprintf(err, errlen, "process %d answered '%s', not an attach status", pid, quoted);
    return -1;
  }
  /* the agent's return code: the last number that starts a line or follows a space */
  size_t end = used, last = 0;
  int have_last = 0;
  for (size_t i = end; i < n; i++)
    if ((reply[i] == '-' || (reply[i] >= '0' && reply[i] <= '9')) && (reply[i - 1] == ' ' || reply[i - 1] == '\n')) {
      last = i;
      have_last = 1;
    }
  while (end < n && (reply[end] == '\n' || reply[end] == ' '))
    end++;
  printable(reply + end, n - end, quoted);
  if (!have_last && end < n) {   /* no agent's return code, a line of the JVM's own: it loaded nothing */
    if (memmem(reply + end, n - end, "live phase", 10)) {   /* JDK 25, still starting: "only permitted in the live phase" */
      *agent_rc = FG_ATTACH_RC_STARTING;
      return 0;
    }
    snprintf(err, errlen, "process %d did not load the agent: %s", pid, quoted);
    return -1;
  }
  if (status != 0 && !have_last) {
    snprintf(err, errlen, "process %d refused the agent (status %d): %s", pid, status, quoted);
    return -1;
  }
  *agent_rc = have_last ? integer(reply + last, n - last, &used) : status;
  if (status != 0 && *agent_rc == 0)
    *agent_rc = status;
  return 0;
}
