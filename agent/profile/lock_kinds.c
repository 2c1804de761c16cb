/* Which parked blockers are owned locks; see fg/lock_kinds.h. async-profiler
 * keeps the same three j.u.c classes (its lock tracer's isConcurrentLock). */
#include "fg/lock_kinds.h"

#include <string.h>

/* The classes whose nested Sync the JDK parks an acquiring thread on
 * (AbstractQueuedSynchronizer.acquire: LockSupport.park(this)). Their Syncs
 * are package-private or private: no application class can be one. */
static const char *const owners[] = {
  "java/util/concurrent/locks/ReentrantLock",
  "java/util/concurrent/locks/ReentrantReadWriteLock",
  "java/util/concurrent/Semaphore",
};

/* Whether name[0..len) is owner, '.' standing for '/'. */
static bool same_class(const char *name, size_t len, const char *owner)
{
  if (strlen(owner) != len)
    return false;
  for (size_t i = 0; i < len; i++)
    if (name[i] != owner[i] && !(name[i] == '.' && owner[i] == '/'))
      return false;
  return true;
}

bool fg_lock_owned_blocker(const char *class_name)
{
  if (!class_name)
    return false;
  const char *n = class_name;
  size_t len = strlen(n);
  if (len >= 2 && n[0] == 'L' && n[len - 1] == ';') {   /* a signature: its class's name inside */
    n++;
    len -= 2;
  }
  const char *dollar = memchr(n, '$', len);
  if (!dollar || dollar + 1 == n + len || memchr(n, ';', len))
    return false;   /* no nested class, or a nested class with no name */
  for (size_t i = 0; i < sizeof owners / sizeof owners[0]; i++)
    if (same_class(n, (size_t)(dollar - n), owners[i]))
      return true;
  return false;
}
