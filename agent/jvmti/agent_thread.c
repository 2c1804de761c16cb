/* An agent thread's java.lang.Thread object; see agent_thread.h. */
#include "jvmti/agent_thread.h"

#include "jvmti/thread_class.h"

#define NORM_PRIORITY 5

/* The field's ID, or NULL (its NoSuchFieldError cleared). */
static jfieldID field(JNIEnv *jni, jclass cls, const char *name, const char *sig)
{
  jfieldID f = (*jni)->GetFieldID(jni, cls, name, sig);
  if (!f)
    (*jni)->ExceptionClear(jni);
  return f;
}

/* JDK 11 to 18: Thread allocated, its fields set as the constructor would
 * with no SecurityManager; NULL when this JDK's Thread is not laid out so. */
static jobject allocated(JNIEnv *jni, jclass cls, jthread self, jstring name)
{
  if (field(jni, cls, "holder", "Ljava/lang/Thread$FieldHolder;"))
    return NULL;   /* JDK 19 and later */
  jfieldID f_name = field(jni, cls, "name", "Ljava/lang/String;");
  jfieldID f_priority = field(jni, cls, "priority", "I");
  jfieldID f_group = field(jni, cls, "group", "Ljava/lang/ThreadGroup;");
  jfieldID f_loader = field(jni, cls, "contextClassLoader", "Ljava/lang/ClassLoader;");
  jfieldID f_tid = field(jni, cls, "tid", "J");
  jfieldID f_lock = field(jni, cls, "blockerLock", "Ljava/lang/Object;");
  jmethodID next_id = (*jni)->GetStaticMethodID(jni, cls, "nextThreadID", "()J");   /* static: not overridable */
  if (!next_id)
    (*jni)->ExceptionClear(jni);
  jclass object_class = (*jni)->GetSuperclass(jni, cls);   /* java.lang.Object */
  if (!f_name || !f_priority || !f_group || !f_loader || !f_tid || !f_lock || !next_id || !object_class) {
    (*jni)->DeleteLocalRef(jni, object_class);   /* NULL is allowed */
    return NULL;
  }
  jobject lock = (*jni)->AllocObject(jni, object_class);   /* Object() does nothing */
  jobject thread = lock ? (*jni)->AllocObject(jni, cls) : NULL;
  jlong tid = thread ? (*jni)->CallStaticLongMethod(jni, cls, next_id) : 0;
  if (!thread || (*jni)->ExceptionCheck(jni)) {
    (*jni)->ExceptionClear(jni);
    (*jni)->DeleteLocalRef(jni, thread);
    (*jni)->DeleteLocalRef(jni, lock);
    (*jni)->DeleteLocalRef(jni, object_class);
    return NULL;
  }
  jobject group = (*jni)->GetObjectField(jni, self, f_group);
  jobject loader = (*jni)->GetObjectField(jni, self, f_loader);
  (*jni)->SetObjectField(jni, thread, f_name, name);
  (*jni)->SetIntField(jni, thread, f_priority, NORM_PRIORITY);
  (*jni)->SetObjectField(jni, thread, f_group, group);
  (*jni)->SetObjectField(jni, thread, f_loader, loader);
  (*jni)->SetLongField(jni, thread, f_tid, tid);
  (*jni)->SetObjectField(jni, thread, f_lock, lock);
  (*jni)->DeleteLocalRef(jni, group);
  (*jni)->DeleteLocalRef(jni, loader);
  (*jni)->DeleteLocalRef(jni, lock);
  (*jni)->DeleteLocalRef(jni, object_class);
  return thread;
}

jobject fg_agent_thread_object(jvmtiEnv *jvmti, JNIEnv *jni, const char *name)
{
  /* java.lang.Thread found without a class loader (thread_class.h) */
  jthread self = NULL;
  (*jvmti)->GetCurrentThread(jvmti, &self);
  jclass cls = self ? fg_thread_class(jni, self) : NULL;
  jstring text = cls ? (*jni)->NewStringUTF(jni, name) : NULL;
  if (!text) {
    (*jni)->ExceptionClear(jni);
    return NULL;
  }
  jobject thread = allocated(jni, cls, self, text);
  if (!thread) {
    /* JDK 19 and later: built without inheriting the caller's
     * InheritableThreadLocals, whose childValue() an application may override */
    jmethodID init = (*jni)->GetMethodID(jni, cls, "<init>",
                                         "(Ljava/lang/ThreadGroup;Ljava/lang/Runnable;Ljava/lang/String;JZ)V");
    thread = init ? (*jni)->NewObject(jni, cls, init, NULL, NULL, text, (jlong)0, JNI_FALSE) : NULL;
  }
  (*jni)->ExceptionClear(jni);
  (*jni)->DeleteLocalRef(jni, text);
  (*jni)->DeleteLocalRef(jni, cls);
  (*jni)->DeleteLocalRef(jni, self);
  return thread;
}
