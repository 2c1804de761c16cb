/* jmethodID -> frame name, resolved through JVMTI by the drainer, off the
 * signal path, and cached as profile name ids. Samples are resolved within a
 * drain period of being taken, so a later class unload cannot leave the
 * final dump holding jmethodIDs that no longer resolve. */
#ifndef FG_METHOD_NAMES_H
#define FG_METHOD_NAMES_H

#include <jvmti.h>
#include <stdbool.h>
#include <stdint.h>

struct fg_profile;

struct fg_method_entry {
  jmethodID method;          /* NULL = empty slot */
  int32_t bci;               /* the frame's bytecode index with lines, else -1 */
  uint32_t name;             /* profile name id */
};

struct fg_line_table {
  jmethodID method;
  jint count;                /* -1: no table */
  jvmtiLineNumberEntry *entries;
};

struct fg_method_names {
  bool lines;
  struct fg_method_entry *slots;
  uint32_t capacity, used;
  struct fg_line_table *tables;
  uint32_t tables_capacity, tables_used;
  uint64_t unresolved;       /* methods JVMTI no longer knew */
};

void fg_method_names_init(struct fg_method_names *m, bool lines);
void fg_method_names_free(struct fg_method_names *m, jvmtiEnv *jvmti);

/* The profile name id of the frame (method, bci); -1 only when out of memory.
 * jni is the calling thread's: local references made here are freed here. */
int64_t fg_method_name(struct fg_method_names *m, jvmtiEnv *jvmti, JNIEnv *jni,
                       struct fg_profile *p, jmethodID method, int32_t bci);

#endif
