/* jmethodID preloading. AsyncGetCallTrace cannot create a jmethodID inside a
 * signal handler (that takes locks), so a frame whose method has none yet
 * comes back with a NULL method. GetClassMethods creates them all: at
 * ClassPrepare for every new class, and once at VMInit for the classes
 * loaded before the agent could see them.
 *
 * With walker=vm (or copy) the methods' Method*s go into the method map too,
 * and the class is tagged with the list of them: when its mirror is freed
 * (the class unloaded, JVMTI's ObjectFree) they leave the map, whose
 * memory then follows the classes alive, and whose Method*s a class loaded
 * later at the same place does not find taken. */
#include <stdlib.h>

#include "jvmti/agent.h"

/* A tagged class's Method*s in the map (the tag is its address). */
struct class_methods {
  uint32_t n;
  uintptr_t method[];
};

void fg_classes_preload(struct fg_agent *a, jclass klass)
{
  jint count = 0;
  jmethodID *methods = NULL;
  jvmtiEnv *j = a->jvmti;
  if ((*j)->GetClassMethods(j, klass, &count, &methods) != JVMTI_ERROR_NONE)
    return;
  if (atomic_load(&a->vm_methods)) {   /* walker=vm: its interpreted frames name methods by Method* */
    struct class_methods *c = a->class_unloads && count > 0 ? malloc(sizeof *c + (size_t)count * sizeof c->method[0])
                                                            : NULL;
    uint32_t n = 0;
    for (jint i = 0; i < count; i++) {
      uintptr_t m = fg_vm_add_method(&a->vm, &a->methods, methods[i]);
      if (c && m)
        c->method[n++] = m;
    }
    jlong old = 0;
    if (c && (c->n = n) > 0 && (*j)->GetTag(j, klass, &old) == JVMTI_ERROR_NONE &&
        (*j)->SetTag(j, klass, (jlong)(uintptr_t)c) == JVMTI_ERROR_NONE) {
      free((void *)(uintptr_t)old);   /* prepared again (a session after another): the newer list */
      c = NULL;
    }
    free(c);
  }
  (*j)->Deallocate(j, (unsigned char *)methods);
}

void fg_classes_unloaded(struct fg_agent *a, jlong tag)
{
  struct class_methods *c = (struct class_methods *)(uintptr_t)tag;
  for (uint32_t i = 0; c && i < c->n; i++)
    fg_method_map_remove(&a->methods, c->method[i]);
  free(c);
}

void fg_classes_preload_all(struct fg_agent *a, JNIEnv *jni)
{
  jint count = 0;
  jclass *classes = NULL;
  if ((*a->jvmti)->GetLoadedClasses(a->jvmti, &count, &classes) != JVMTI_ERROR_NONE)
    return;
  (*jni)->EnsureLocalCapacity(jni, count);   /* the references exist already: -Xcheck:jni counts them */
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
