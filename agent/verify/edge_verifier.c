/* Option `verify`, the JVMTI side; see edge_verifier.h. Runs on the drainer
 * thread only. What it learns of a method (name, class, bytecode, constant
 * pool) is kept by jmethodID for the rest of the run: a pool per caller
 * method, not per class, so that two classes of one name in two loaders are
 * never confused. */
#include "verify/edge_verifier.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "verify/call_site.h"
#include "verify/loaded_class.h"
#include "fg/sample_record.h"
#include "fg/stats.h"
#include "fg/u64_map.h"
#include "hotspot/code_map.h"
#include "walk/walker.h"

struct method_info {
  char name[128];
  char cls[128];          /* internal form: java/lang/String */
  int known;              /* name and class read */
  int code_read;          /* bytecode and pool asked for (once) */
  unsigned char *code;    /* NULL: native, abstract, or unloaded */
  jint code_len;
  unsigned char *pool_bytes;
  struct fg_cpool pool;
  int pool_ok;
};

/* A method (class and name, any descriptor) and how deep its calls were
 * followed looking for a copy. */
struct reach {
  char cls[128], name[128];
  int depth;
  int copies;             /* 1: a copy is reached within depth calls; 0: none; -1: the class is not found */
};

struct fg_edge_verifier {
  jvmtiEnv *jvmti;
  JavaVM *vm;
  struct fg_u64_map index;   /* jmethodID -> methods[] */
  struct method_info *methods;
  uint32_t n, cap;
  struct reach *reached;     /* what reaches_copy found, by method */
  uint32_t nreached, reached_cap;
};

void fg_edge_verifier_capabilities(jvmtiCapabilities *caps)
{
  caps->can_get_bytecodes = 1;
  caps->can_get_constant_pool = 1;
}

struct fg_edge_verifier *fg_edge_verifier_new(jvmtiEnv *jvmti, JavaVM *vm)
{
  struct fg_edge_verifier *v = calloc(1, sizeof *v);
  if (!v)
    return NULL;
  v->jvmti = jvmti;
  v->vm = vm;
  fg_u64_map_init(&v->index);
  return v;
}

/* "Ljava/lang/String;" -> "java/lang/String" */
static void internal_name(const char *sig, char *out, size_t len)
{
  size_t n = strlen(sig);
  if (n >= 2 && sig[0] == 'L' && sig[n - 1] == ';')
    snprintf(out, len, "%.*s", (int)(n - 2), sig + 1);
  else
    snprintf(out, len, "%s", sig);
}

/* id's entry, read once; NULL when unknown. The pointer holds until the next
 * lookup of a method not seen yet, which may move the table. */
static struct method_info *info_of(struct fg_edge_verifier *v, jmethodID id)
{
  uint32_t at;
  if (fg_u64_map_get(&v->index, (uint64_t)(uintptr_t)id, &at))
    return v->methods[at].known ? &v->methods[at] : NULL;
  if (v->n == v->cap) {
    uint32_t cap = v->cap ? v->cap * 2 : 256;
    struct method_info *grown = realloc(v->methods, cap * sizeof *grown);
    if (!grown)
      return NULL;
    v->methods = grown;
    v->cap = cap;
  }
  struct method_info *m = &v->methods[v->n];
  memset(m, 0, sizeof *m);
  if (fg_u64_map_put(&v->index, (uint64_t)(uintptr_t)id, v->n) != 0)
    return NULL;
  v->n++;
  jvmtiEnv *j = v->jvmti;
  jclass klass;
  char *name = NULL, *sig = NULL;
  if ((*j)->GetMethodDeclaringClass(j, id, &klass) == JVMTI_ERROR_NONE &&
      (*j)->GetClassSignature(j, klass, &sig, NULL) == JVMTI_ERROR_NONE &&
      (*j)->GetMethodName(j, id, &name, NULL, NULL) == JVMTI_ERROR_NONE) {
    snprintf(m->name, sizeof m->name, "%s", name);
    internal_name(sig, m->cls, sizeof m->cls);
    m->known = 1;
  }
  if (name)
    (*j)->Deallocate(j, (unsigned char *)name);
  if (sig)
    (*j)->Deallocate(j, (unsigned char *)sig);
  return m->known ? m : NULL;
}

/* The caller's bytecode and constant pool, read once. */
static int code_of(struct fg_edge_verifier *v, jmethodID id, struct method_info *m)
{
  if (!m->code_read) {
    m->code_read = 1;
    jvmtiEnv *j = v->jvmti;
    jclass klass;
    jint count = 0, len = 0;
    if ((*j)->GetBytecodes(j, id, &m->code_len, &m->code) != JVMTI_ERROR_NONE)
      m->code = NULL;
    if (m->code && (*j)->GetMethodDeclaringClass(j, id, &klass) == JVMTI_ERROR_NONE &&
        (*j)->GetConstantPool(j, klass, &count, &len, &m->pool_bytes) == JVMTI_ERROR_NONE)
      m->pool_ok = fg_cpool_parse(&m->pool, m->pool_bytes, (size_t)len, (uint32_t)count) == 0;
  }
  return m->code && m->pool_ok ? 0 : -1;
}

static void note_wrong(struct fg_stats *s, const struct method_info *caller, int32_t bci,
                       const struct fg_call_site *site, const struct method_info *callee)
{
  for (int i = 0; i < FG_VERIFY_EXAMPLES; i++) {
    char *slot = s->verify_examples[i];
    char line[sizeof s->verify_examples[0]], op[16];
    /* names are cut to fit the 320-byte slot */
    snprintf(line, sizeof line, "%.60s.%.40s@%d (%s%s%.40s) -> %.60s.%.40s", caller->cls, caller->name, (int)bci,
             fg_opcode_name(site->opcode, op, sizeof op), site->target[0] ? " " : "", site->target,
             callee->cls, callee->name);
    if (strcmp(slot, line) == 0)
      return;   /* this edge is listed already */
    if (!slot[0]) {
      memcpy(slot, line, sizeof line);
      return;
    }
  }
}

/* The caller at frame i of tr and its instruction at the frame's bci; NULL
 * when either cannot be read (no bci, no bytecode: native, unloaded). */
static struct method_info *call_site_of(struct fg_edge_verifier *v, const struct fg_trace *tr, uint32_t i,
                                        struct fg_call_site *site)
{
  jmethodID id = fg_trace_method(tr, i);
  int32_t bci = fg_trace_bcis(tr)[i];
  struct method_info *caller = id ? info_of(v, id) : NULL;
  if (!caller || bci < 0 || code_of(v, id, caller) != 0 ||
      fg_call_site_at(caller->code, (size_t)caller->code_len, bci, &caller->pool, site) != 0)
    return NULL;
  return caller;
}

/* How deep a call is followed looking for a copy: StringBuilder.delete ->
 * AbstractStringBuilder.delete -> shift -> System.arraycopy is three calls */
#define REACH_DEPTH 4

static int reaches_copy(struct fg_edge_verifier *v, JNIEnv *jni, const char *cls, const char *name, int depth);

struct reach_walk {
  struct fg_edge_verifier *v;
  JNIEnv *jni;
  int depth;
};

static int invoke_reaches(const struct fg_call_site *site, void *ctx)
{
  struct reach_walk *w = ctx;
  return reaches_copy(w->v, w->jni, site->target_class, site->target, w->depth) == 1;
}

/* The methods named name declared by klass or a superclass: 1 when one of
 * their bytecodes calls something that reaches a copy within depth calls. */
static int class_reaches(struct fg_edge_verifier *v, JNIEnv *jni, jclass klass, const char *name, int depth)
{
  jvmtiEnv *j = v->jvmti;
  for (jclass k = klass; k; k = (*jni)->GetSuperclass(jni, k)) {
    jint n = 0;
    jmethodID *ms = NULL;
    if ((*j)->GetClassMethods(j, k, &n, &ms) != JVMTI_ERROR_NONE)
      return 0;
    int found = 0;
    for (jint i = 0; i < n && !found; i++) {
      struct method_info *m = info_of(v, ms[i]);
      if (!m || strcmp(m->name, name) != 0 || code_of(v, ms[i], m) != 0)
        continue;
      /* by value: the search below learns of other methods, which may move the table m is in */
      struct fg_cpool pool = m->pool;
      const uint8_t *code = m->code;
      size_t len = (size_t)m->code_len;
      struct reach_walk w = {v, jni, depth};
      found = fg_call_site_each(code, len, &pool, invoke_reaches, &w) == 1;
    }
    (*j)->Deallocate(j, (unsigned char *)ms);
    if (found)
      return 1;
  }
  return 0;
}

/* Whether a call of cls.name (any descriptor, inherited ones too) reaches
 * System.arraycopy or Arrays.copyOf* within depth calls; -1 when the class
 * is not found from here (not loaded, or one of that name in each of
 * several class loaders: loaded_class.h). Each answer is kept: the drainer
 * asks again for every sample. */
static int reaches_copy(struct fg_edge_verifier *v, JNIEnv *jni, const char *cls, const char *name, int depth)
{
  if (fg_is_copy(name))
    return 1;
  if (depth == 0)
    return 0;
  for (uint32_t i = 0; i < v->nreached; i++) {
    struct reach *r = &v->reached[i];
    if (strcmp(r->name, name) == 0 && strcmp(r->cls, cls) == 0 && (r->copies != 0 || r->depth >= depth))
      return r->copies;
  }
  if (v->nreached == v->reached_cap) {
    uint32_t cap = v->reached_cap ? v->reached_cap * 2 : 64;
    struct reach *grown = realloc(v->reached, cap * sizeof *grown);
    if (!grown)
      return -1;
    v->reached = grown;
    v->reached_cap = cap;
  }
  if ((*jni)->PushLocalFrame(jni, 16) != 0) {
    (*jni)->ExceptionClear(jni);
    return -1;
  }
  int copies = -1;
  jclass klass = fg_loaded_class(v->jvmti, jni, cls);   /* not FindClass: that runs a class loader's Java code */
  if (klass)
    copies = class_reaches(v, jni, klass, name, depth - 1);
  (*jni)->ExceptionClear(jni);
  (*jni)->PopLocalFrame(jni, NULL);
  struct reach *r = &v->reached[v->nreached++];   /* after the search, whose own answers moved the table */
  snprintf(r->cls, sizeof r->cls, "%s", cls);
  snprintf(r->name, sizeof r->name, "%s", name);
  r->depth = depth;
  r->copies = copies;
  return copies;
}

/* A stub (frame i) under a Java caller: an arraycopy stub must sit at a call
 * that reaches a copy (System.arraycopy itself, or a method that calls one:
 * which call C2 gives the stub's debug record is its own choice). */
static void check_stub_edge(struct fg_edge_verifier *v, const struct fg_trace *tr, uint32_t i, struct fg_stats *s)
{
  const struct fg_code_blob *stub = (const struct fg_code_blob *)(uintptr_t)fg_trace_methods(tr)[i];
  struct fg_call_site site;
  if (fg_trace_bcis(tr)[i + 1] < 0 && strstr(stub->name, "arraycopy")) {
    s->verify_copy_alone++;   /* named without a record: nothing to judge, nothing guessed */
    return;
  }
  if (!call_site_of(v, tr, i + 1, &site))
    return;
  int copy = fg_stub_edge_is_copy(&site, stub->name);
  if (copy < 0)
    return;
  JNIEnv *jni = NULL;
  if (copy == 0 && site.target[0] && (*v->vm)->GetEnv(v->vm, (void **)&jni, JNI_VERSION_1_6) == JNI_OK)
    copy = reaches_copy(v, jni, site.target_class, site.target, REACH_DEPTH);
  if (copy < 0)
    return;   /* not to be judged from here */
  s->verify_copy_stubs++;
  s->verify_copy_fused += copy == 0;
}

void fg_edge_verifier_check(struct fg_edge_verifier *v, const struct fg_trace *tr, struct fg_stats *s)
{
  uint32_t n = tr->n;
  if (tr->flags & FG_SAMPLE_FAILED)
    return;
  for (uint32_t i = 0; i + 1 < n; i++) {   /* frame i is called by frame i + 1 */
    if (fg_trace_types(tr)[i] == FG_FRAME_STUB && fg_frame_is_java(fg_trace_types(tr)[i + 1])) {
      check_stub_edge(v, tr, i, s);
      continue;
    }
    if (!fg_frame_is_java(fg_trace_types(tr)[i]) || !fg_frame_is_java(fg_trace_types(tr)[i + 1]))
      continue;
    jmethodID callee_id = fg_trace_method(tr, i);
    struct method_info *callee = callee_id ? info_of(v, callee_id) : NULL;
    struct fg_call_site site;
    struct method_info *caller = callee ? call_site_of(v, tr, i + 1, &site) : NULL;
    if (caller)   /* the caller's lookup may have moved the table: the callee's entry again */
      callee = info_of(v, callee_id);
    s->verify_edges++;
    if (!caller) {
      s->verify_unchecked++;
      continue;
    }
    switch (fg_edge_verdict_of(&site, callee->name, callee->cls)) {
    case FG_EDGE_CALL: s->verify_call++; break;
    case FG_EDGE_DYNAMIC: s->verify_dynamic++; break;
    case FG_EDGE_VM: s->verify_vm++; break;
    case FG_EDGE_WRONG:
      s->verify_wrong++;
      if (tr->flags & FG_SAMPLE_RECOVERED)
        s->verify_wrong_recovered++;
      note_wrong(s, caller, fg_trace_bcis(tr)[i + 1], &site, callee);
      break;
    }
  }
}
