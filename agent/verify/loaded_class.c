/* Loaded classes by name; see loaded_class.h. */
#include "verify/loaded_class.h"

#include <string.h>

int fg_signature_names(const char *sig, const char *name)
{
  if (name[0] == '[')
    return strcmp(sig, name) == 0;
  size_t n = strlen(name);
  return sig[0] == 'L' && strncmp(sig + 1, name, n) == 0 && sig[n + 1] == ';' && sig[n + 2] == '\0';
}

/* Whether klass is the class named name. */
static int named(jvmtiEnv *j, jclass klass, const char *name)
{
  char *sig = NULL;
  if ((*j)->GetClassSignature(j, klass, &sig, NULL) != JVMTI_ERROR_NONE || !sig)
    return 0;
  int is = fg_signature_names(sig, name);
  (*j)->Deallocate(j, (unsigned char *)sig);
  return is;
}

jclass fg_loaded_class(jvmtiEnv *jvmti, JNIEnv *jni, const char *name)
{
  jint n = 0;
  jclass *all = NULL;
  if (!name[0] || (*jvmti)->GetLoadedClasses(jvmti, &n, &all) != JVMTI_ERROR_NONE)
    return NULL;
  jclass found = NULL;
  int several = 0;
  (*jni)->EnsureLocalCapacity(jni, n);   /* the n references are there already: -Xcheck:jni counts them */
  for (jint i = 0; i < n; i++) {
    if (!several && named(jvmti, all[i], name)) {
      if (!found) {
        found = all[i];
        continue;
      }
      several = 1;
    }
    (*jni)->DeleteLocalRef(jni, all[i]);
  }
  (*jvmti)->Deallocate(jvmti, (unsigned char *)all);
  jint status = 0;   /* an array class is ARRAY alone, its (no) methods listable */
  if (found && (several || (*jvmti)->GetClassStatus(jvmti, found, &status) != JVMTI_ERROR_NONE ||
                !(status & (JVMTI_CLASS_STATUS_PREPARED | JVMTI_CLASS_STATUS_ARRAY)))) {
    (*jni)->DeleteLocalRef(jni, found);
    found = NULL;
  }
  return found;
}
