/* java.lang.Thread's class without a class loader; see thread_class.h. */
#include "jvmti/thread_class.h"

jclass fg_thread_class(JNIEnv *jni, jthread thread)
{
  /* Up thread's superclasses to the one just under java.lang.Object (the
   * root, the one class without a superclass): java.lang.Thread, which every
   * thread's class extends (a VirtualThread through BaseVirtualThread). */
  jclass k = thread ? (*jni)->GetObjectClass(jni, thread) : NULL;
  for (int depth = 0; k && depth < 4096; depth++) {
    jclass up = (*jni)->GetSuperclass(jni, k);
    jclass top = up ? (*jni)->GetSuperclass(jni, up) : NULL;
    if (!up) {   /* thread was no Thread */
      (*jni)->DeleteLocalRef(jni, k);
      return NULL;
    }
    if (!top) {
      (*jni)->DeleteLocalRef(jni, up);
      return k;
    }
    (*jni)->DeleteLocalRef(jni, top);
    (*jni)->DeleteLocalRef(jni, k);
    k = up;
  }
  if (k)
    (*jni)->DeleteLocalRef(jni, k);
  return NULL;
}
