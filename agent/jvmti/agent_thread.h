/* The java.lang.Thread object an agent thread (JVMTI RunAgentThread) runs
 * as, made without running the application's code.
 *
 * Thread's constructors ask the SecurityManager, when one is installed:
 * getThreadGroup() (no group given), checkAccess(ThreadGroup) through
 * ThreadGroup.checkAccess, and checkAccess(Thread) through setPriority;
 * each is a method an application's SecurityManager subclass overrides.
 * Up to JDK 18 the object is therefore allocated without a constructor
 * (JNI AllocObject) and given the fields its constructor would set, as
 * the constructor sets them with no SecurityManager: the name, normal
 * priority, the creating thread's group and context class loader, the next
 * thread id (Thread.nextThreadID, private static), and the lock
 * Thread.interrupt() takes (blockerLock; a new Object). The VM sets the rest
 * at RunAgentThread (eetop, daemon, priority, the thread status).
 *
 * From JDK 19 a Thread keeps most fields in a Thread.FieldHolder and takes
 * its id from Thread.ThreadIdentifiers; the constructor is used there. On
 * JDK 24 and later no SecurityManager can be installed (JEP 486), so it
 * runs none; on JDK 19 to 23 with one installed, the constructor calls it
 * (docs/limits.md). */
#ifndef FG_AGENT_THREAD_H
#define FG_AGENT_THREAD_H

#include <jvmti.h>

/* A new, unstarted java.lang.Thread named name (a local reference), for
 * RunAgentThread; NULL with no exception pending when it cannot be made. */
jobject fg_agent_thread_object(jvmtiEnv *jvmti, JNIEnv *jni, const char *name);

#endif
