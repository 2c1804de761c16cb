/* Resolves and caches frame names: "java/util/HashMap.get", or with lines
 * "java/util/HashMap.get:572", a name of its own for each bytecode index
 * (fg_profile_intern_at) so that JFR can say it. */
#include "profile/method_names.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fg/profile.h"

#define BCI_NATIVE (-3)   /* ASGCT's lineno for a native method */

void fg_method_names_init(struct fg_method_names *m, bool lines)
{
  memset(m, 0, sizeof *m);
  m->lines = lines;
}

void fg_method_names_free(struct fg_method_names *m, jvmtiEnv *jvmti)
{
  for (uint32_t i = 0; i < m->tables_capacity; i++)
    if (m->tables[i].method && m->tables[i].entries)
      (*jvmti)->Deallocate(jvmti, (unsigned char *)m->tables[i].entries);
  free(m->tables);
  free(m->slots);
  memset(m, 0, sizeof *m);
}

static uint32_t hash_key(jmethodID method, int32_t bci)
{
  uint64_t h = (uint64_t)(uintptr_t)method * 0x9e3779b97f4a7c15ull ^ (uint64_t)(uint32_t)bci;
  return (uint32_t)(h ^ (h >> 29));
}

static int grow_slots(struct fg_method_names *m)
{
  uint32_t cap = m->capacity ? m->capacity * 2 : 1024;
  struct fg_method_entry *slots = calloc(cap, sizeof *slots);
  if (!slots)
    return -1;
  for (uint32_t i = 0; i < m->capacity; i++) {
    struct fg_method_entry *e = &m->slots[i];
    if (!e->method)
      continue;
    uint32_t j = hash_key(e->method, e->bci) & (cap - 1);
    while (slots[j].method)
      j = (j + 1) & (cap - 1);
    slots[j] = *e;
  }
  free(m->slots);
  m->slots = slots;
  m->capacity = cap;
  return 0;
}

/* The line table of method, fetched once. */
static struct fg_line_table *line_table(struct fg_method_names *m, jvmtiEnv *jvmti, jmethodID method)
{
  if ((m->tables_used + 1) * 2 > m->tables_capacity) {
    uint32_t cap = m->tables_capacity ? m->tables_capacity * 2 : 256;
    struct fg_line_table *t = calloc(cap, sizeof *t);
    if (!t)
      return NULL;
    for (uint32_t i = 0; i < m->tables_capacity; i++) {
      if (!m->tables[i].method)
        continue;
      uint32_t j = hash_key(m->tables[i].method, 0) & (cap - 1);
      while (t[j].method)
        j = (j + 1) & (cap - 1);
      t[j] = m->tables[i];
    }
    free(m->tables);
    m->tables = t;
    m->tables_capacity = cap;
  }
  uint32_t j = hash_key(method, 0) & (m->tables_capacity - 1);
  for (; m->tables[j].method; j = (j + 1) & (m->tables_capacity - 1))
    if (m->tables[j].method == method)
      return &m->tables[j];
  struct fg_line_table *t = &m->tables[j];
  t->method = method;
  if ((*jvmti)->GetLineNumberTable(jvmti, method, &t->count, &t->entries) != JVMTI_ERROR_NONE) {
    t->count = -1;
    t->entries = NULL;
  }
  m->tables_used++;
  return t;
}

/* The source line of bci (>= 0) in method, -1 when it has no line table. */
static int32_t line_of(struct fg_method_names *m, jvmtiEnv *jvmti, jmethodID method, int32_t bci)
{
  struct fg_line_table *t = line_table(m, jvmti, method);
  if (!t || t->count <= 0)
    return -1;
  int32_t line = -1;
  jlocation best = -1;
  for (jint i = 0; i < t->count; i++)
    if (t->entries[i].start_location <= bci && t->entries[i].start_location > best) {
      best = t->entries[i].start_location;
      line = t->entries[i].line_number;
    }
  return line;
}

/* "pkg/Class.method" (":line" when line >= 0) into buf, its descriptor
 * ("(JJ)J") into desc. 0, or -1 when JVMTI no longer knows the method (its
 * class was unloaded). */
static int describe(jvmtiEnv *jvmti, JNIEnv *jni, jmethodID method, int32_t line, char *buf, size_t len, char *desc,
                    size_t desclen)
{
  jclass klass = NULL;
  char *sig = NULL, *name = NULL, *msig = NULL;
  int rc = -1;
  desc[0] = '\0';
  if ((*jvmti)->GetMethodDeclaringClass(jvmti, method, &klass) == JVMTI_ERROR_NONE &&
      (*jvmti)->GetClassSignature(jvmti, klass, &sig, NULL) == JVMTI_ERROR_NONE &&
      (*jvmti)->GetMethodName(jvmti, method, &name, &msig, NULL) == JVMTI_ERROR_NONE) {
    /* "Lpkg/Class;" -> "pkg/Class" */
    const char *cls = sig;
    size_t clen = strlen(sig);
    if (clen >= 2 && sig[0] == 'L' && sig[clen - 1] == ';') {
      cls = sig + 1;
      clen -= 2;
    }
    if (line >= 0)
      snprintf(buf, len, "%.*s.%s:%d", (int)clen, cls, name, line);
    else
      snprintf(buf, len, "%.*s.%s", (int)clen, cls, name);
    if (msig && strlen(msig) < desclen)
      memcpy(desc, msig, strlen(msig) + 1);
    rc = 0;
  }
  if (msig)
    (*jvmti)->Deallocate(jvmti, (unsigned char *)msig);
  if (sig)
    (*jvmti)->Deallocate(jvmti, (unsigned char *)sig);
  if (name)
    (*jvmti)->Deallocate(jvmti, (unsigned char *)name);
  /* klass is a JNI local reference; the drainer loops without returning to
   * Java, so its local references would pile up unless freed here. */
  if (klass)
    (*jni)->DeleteLocalRef(jni, klass);
  return rc;
}

int64_t fg_method_name(struct fg_method_names *m, jvmtiEnv *jvmti, JNIEnv *jni,
                       struct fg_profile *p, jmethodID method, int32_t bci)
{
  if (!method)
    return fg_profile_intern(p, "[unknown_method_id]", FG_KIND_MARKER);
  int32_t key = m->lines && bci >= 0 ? bci : -1;   /* a name a bci with lines, else one a method */
  if ((m->used + 1) * 2 > m->capacity && grow_slots(m) != 0)
    return -1;
  uint32_t i = hash_key(method, key) & (m->capacity - 1);
  for (; m->slots[i].method; i = (i + 1) & (m->capacity - 1))
    if (m->slots[i].method == method && m->slots[i].bci == key)
      return m->slots[i].name;

  int32_t line = key >= 0 ? line_of(m, jvmti, method, key) : -1;
  char buf[1024], desc[1024];
  int64_t id;
  if (describe(jvmti, jni, method, line, buf, sizeof buf, desc, sizeof desc) == 0) {
    id = fg_profile_intern_method(p, buf, bci == BCI_NATIVE ? FG_KIND_NATIVE : FG_KIND_JAVA, key, desc);
  } else {
    m->unresolved++;
    id = fg_profile_intern(p, "[unloaded_method]", FG_KIND_MARKER);
  }
  if (id < 0)
    return -1;
  m->slots[i] = (struct fg_method_entry){method, key, (uint32_t)id};
  m->used++;
  return id;
}
