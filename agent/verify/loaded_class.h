/* A class the JVM has loaded, found by its name among all loaded classes
 * (JVMTI GetLoadedClasses and GetClassSignature) instead of JNI FindClass:
 * FindClass asks a class loader (from the drainer, with no Java frame, the
 * system class loader, which may be the application's own) and so runs its
 * loadClass, and may load and link a class; this runs no Java code and
 * loads nothing. For option verify, on the drainer thread. */
#ifndef FG_LOADED_CLASS_H
#define FG_LOADED_CLASS_H

#include <jni.h>
#include <jvmti.h>

/* Whether the class signature sig ("Ljava/lang/String;", "[I") is that of
 * the class whose internal name is name ("java/lang/String", or an array
 * class's descriptor "[I" as a constant pool names it). */
int fg_signature_names(const char *sig, const char *name);

/* A local reference to the one loaded and prepared class (or array class)
 * named name, or NULL: none is loaded, it is not prepared yet (its methods
 * cannot be listed), or several are (one per class loader: which one a caller means
 * is not known from a name). Each call scans every loaded class. */
jclass fg_loaded_class(jvmtiEnv *jvmti, JNIEnv *jni, const char *name);

#endif
