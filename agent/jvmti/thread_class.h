/* java.lang.Thread's class, found from a thread's own class. JNI's FindClass
 * asks the class loader of the Java frame that calls it, or the system class
 * loader when none does: an application's own loader (the caller of a
 * ClassPrepare, or -Djava.system.class.loader), whose loadClass is the
 * application's code, which fgagent never runs. */
#ifndef FG_THREAD_CLASS_H
#define FG_THREAD_CLASS_H

#include <jvmti.h>

/* java.lang.Thread (a local reference), thread's class or a superclass of
 * it; NULL when thread is no Thread. */
jclass fg_thread_class(JNIEnv *jni, jthread thread);

#endif
