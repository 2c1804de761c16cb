/* jmethodID preloading. AsyncGetCallTrace cannot create a jmethodID inside a
 * signal handler (that takes locks), so a frame whose method has none yet
 * comes back with a NULL method. GetClassMethods creates them all: at
 * ClassPrepare for every new class, and once at VMInit for the classes
 * loaded before the agent could see them. */
#include "agent.h"

void fg_classes_preload(struct fg_agent *a, jclass klass)
{
  jint count = 0;
  jmethodID *methods = NULL;
  if ((*a->jvmti)->GetClassMethods(a->jvmti, klass, &count, &methods) != JVMTI_ERROR_NONE)
    return;
  if (atomic_load(&a->vm_methods))   /* walker=vm: its interpreted frames name methods by Method* */
    for (jint i = 0; i < count; i++)
      fg_vm_add_method(&a->vm, &a->methods, methods[i]);
  (*a->jvmti)->Deallocate(a->jvmti, (unsigned char *)methods);
}

void fg_classes_preload_all(struct fg_agent *a, JNIEnv *jni)
{
  jint count = 0;
  jclass *classes = NULL;
  if ((*a->jvmti)->GetLoadedClasses(a->jvmti, &count, &classes) != JVMTI_ERROR_NONE)
    return;
  for (jint i = 0; i < count; i++) {
    jint status = 0;
    /* GetClassMethods wants a prepared class; the others get ClassPrepare later */
    if ((*a->jvmti)->GetClassStatus(a->jvmti, classes[i], &status) == JVMTI_ERROR_NONE &&
        (status & JVMTI_CLASS_STATUS_PREPARED))
      fg_classes_preload(a, classes[i]);
    (*jni)->DeleteLocalRef(jni, classes[i]);
  }
  (*a->jvmti)->Deallocate(a->jvmti, (unsigned char *)classes);
}
