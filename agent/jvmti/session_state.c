/* Who may start, write and end a session, and when: VMInit, the attach
 * commands and the JVM's exit, serialized by one lock.
 *
 * States (a->state), changed only with a->session_lock held:
 *   IDLE    no session: -agentpath before VMInit, attached before a first
 *           start, or after a stop (its outputs written)
 *   LIVE    a session samples; its outputs are not written yet
 *   EXITED  the JVM's exit came (VMDeath, or Agent_OnUnload without one):
 *           a LIVE session's outputs and summary were written; terminal
 * Transitions:
 *   IDLE  --VMInit, attach start-->  LIVE   (a start that fails stays IDLE)
 *   LIVE  --dump-->                  LIVE   (outputs written, sampling on)
 *   LIVE  --stop-->                  IDLE   (outputs and summary written)
 *   LIVE  --loop= interval-->        LIVE   (the drainer's rotate, under the
 *                                            drainer's lock: no change here)
 *   IDLE, LIVE --VMDeath, Agent_OnUnload-->  EXITED
 * A command runs whole with the lock held: no other command, and not the
 * exit, sees a start half set up or a stop half written (a start used to
 * take a session marked finished while its outputs were still being
 * written, and free the profile under the writer). The exit first raises
 * a->exiting, so a command that comes after it is refused at once with one
 * line (FG_ATTACH_RC_EXITING); then it waits for the lock, so a stop or
 * dump under way finishes writing before the JVM goes on to exit (at most
 * FG_EXIT_WAIT_S: a JVM's exit never hangs on us), and it writes what that
 * command left LIVE. HotSpot posts VMDeath once, on the thread that exits
 * (DestroyJavaVM or System.exit; a second exiting thread waits in
 * before_exit), with JVMTI and JNI still usable; the attach listener keeps
 * running meanwhile, which is how a command meets the exit. */
#include <errno.h>
#include <stdio.h>
#include <time.h>

#include "jvmti/agent.h"

/* How long the JVM's exit waits for a command writing a large profile. */
#define FG_EXIT_WAIT_S 300

int fg_session_enter(struct fg_agent *a)
{
  if (atomic_load(&a->exiting))
    return -1;
  pthread_mutex_lock(&a->session_lock);
  if (atomic_load(&a->state) == FG_SESSION_EXITED) {   /* the exit came while this one waited */
    pthread_mutex_unlock(&a->session_lock);
    return -1;
  }
  return 0;
}

void fg_session_leave(struct fg_agent *a)
{
  pthread_mutex_unlock(&a->session_lock);
}

void fg_session_vm_init(struct fg_agent *a, JNIEnv *jni, jthread thread)
{
  if (fg_session_enter(a) != 0)
    return;
  fg_session_start(a, jni, thread);
  fg_session_leave(a);
}

void fg_session_exit(struct fg_agent *a, JNIEnv *jni, const char *by)
{
  atomic_store(&a->exiting, 1);   /* before the lock: a command from now on is refused, not queued */
  struct timespec until;
  clock_gettime(CLOCK_REALTIME, &until);
  until.tv_sec += FG_EXIT_WAIT_S;
  int e = pthread_mutex_timedlock(&a->session_lock, &until);
  if (e != 0) {
    fprintf(stderr, "fgagent: the JVM exits (%s) while an attach command has held the session for %d s (%s); "
                    "its outputs may be cut short\n", by, FG_EXIT_WAIT_S, e == ETIMEDOUT ? "still writing" : "lock");
    return;
  }
  if (atomic_load(&a->state) == FG_SESSION_LIVE) {
    if (jni)
      fg_session_finish(a, jni);
    else   /* Agent_OnUnload with no VMDeath before it: JVMTI is gone, names cannot be read */
      fprintf(stderr, "fgagent: the JVM unloads fgagent without a VMDeath event; the session's outputs "
                      "cannot be written any more\n");
  }
  atomic_store(&a->state, FG_SESSION_EXITED);
  pthread_mutex_unlock(&a->session_lock);
}
