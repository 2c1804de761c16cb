/* JVMTI event callbacks. Each one hands the work to the module it belongs to. */
#include <stdio.h>
#include <string.h>

#include "jvmti/agent.h"
#include "java_events/java_events.h"

static struct fg_agent *agent_of(jvmtiEnv *jvmti)
{
  void *a = NULL;
  (*jvmti)->GetEnvironmentLocalStorage(jvmti, &a);
  return a;
}

static void JNICALL on_vm_init(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread)
{
  fg_session_vm_init(agent_of(jvmti), jni, thread);
}

static void JNICALL on_vm_death(jvmtiEnv *jvmti, JNIEnv *jni)
{
  fg_session_exit(agent_of(jvmti), jni, "VMDeath");
}

static void JNICALL on_thread_start(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread)
{
  struct fg_agent *a = agent_of(jvmti);
  if (atomic_load(&a->live))
    fg_session_attach_thread(a, jni, thread);
}

static void JNICALL on_thread_end(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread)
{
  fg_session_detach_thread(agent_of(jvmti), jni, thread);
}

/* Enabled only because AsyncGetCallTrace returns ticks_no_class_load (-1)
 * for every sample unless ClassLoad events are on. */
static void JNICALL on_class_load(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread, jclass klass)
{
  (void)jvmti;
  (void)jni;
  (void)thread;
  (void)klass;
}

static void JNICALL on_class_prepare(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread, jclass klass)
{
  struct fg_agent *a = agent_of(jvmti);
  fg_classes_preload(a, klass);
  /* Threads started before VMInit never get ThreadStart: register them the
   * first time they show up in an event of their own. */
  if (atomic_load(&a->live) && !fg_current_thread)
    fg_session_attach_thread(a, jni, thread);
}

/* On in the sessions that cannot read the code heap, and in those that
 * verify its reading (code_source.c). */
static void JNICALL on_compiled_method_load(jvmtiEnv *jvmti, jmethodID method, jint code_size,
                                            const void *code_addr, jint map_length,
                                            const jvmtiAddrLocationMap *map, const void *compile_info)
{
  (void)map_length;
  (void)map;
  struct fg_agent *a = agent_of(jvmti);
  if (atomic_load(&a->code_checking)) {   /* verify, the map read from the code heap: held to this */
    fg_code_records_check(&a->code_records, &a->heap, fg_code_discovery_method_id, &a->discovery, code_addr,
                          code_size, compile_info);
    return;
  }
  struct fg_deopt_sites deopt;
  fg_vm_deopt_sites(&a->deopt, code_addr, code_size > 0 ? (size_t)code_size : 0, &deopt);
  fg_code_map_add_method(&a->code, method, code_addr, code_size, compile_info, &deopt, NULL);
}

/* A tagged object freed: only class mirrors are tagged (classes.c), so a
 * class was unloaded. On HotSpot's service thread; no JVMTI call but
 * these few is allowed here, and none is made. */
static void JNICALL on_object_free(jvmtiEnv *jvmti, jlong tag)
{
  fg_classes_unloaded(agent_of(jvmti), tag);
}

static void JNICALL on_compiled_method_unload(jvmtiEnv *jvmti, jmethodID method, const void *code_addr)
{
  fg_code_map_remove_method(&agent_of(jvmti)->code, method, code_addr);
}

/* Stubs, adapters and the interpreter: where the walker recovers from. */
static void JNICALL on_dynamic_code_generated(jvmtiEnv *jvmti, const char *name, const void *address,
                                              jint length)
{
  fg_code_map_add_stub(&agent_of(jvmti)->code, name, address, length);
}

int fg_events_enable(struct fg_agent *a, char *err, size_t errlen)
{
  jvmtiEnv *jvmti = a->jvmti;
  jvmtiCapabilities caps;
  memset(&caps, 0, sizeof caps);
  caps.can_generate_compiled_method_load_events = 1;
  caps.can_get_line_numbers = 1;
  caps.can_get_source_file_name = 1;
  if (a->opts.verify)
    fg_edge_verifier_capabilities(&caps);
  jvmtiError e = (*jvmti)->AddCapabilities(jvmti, &caps);
  if (e != JVMTI_ERROR_NONE) {
    snprintf(err, errlen, "fgagent: JVMTI AddCapabilities failed with error %d", (int)e);
    return -1;
  }
  /* class unloading, for the method map: without it the map keeps every class's methods */
  jvmtiCapabilities unloads;
  memset(&unloads, 0, sizeof unloads);
  unloads.can_tag_objects = 1;
  unloads.can_generate_object_free_events = 1;
  a->class_unloads = (*jvmti)->AddCapabilities(jvmti, &unloads) == JVMTI_ERROR_NONE;
  fg_gc_events_capability(a);
  jvmtiEventCallbacks cb;
  memset(&cb, 0, sizeof cb);
  cb.VMInit = on_vm_init;
  cb.VMDeath = on_vm_death;
  cb.ThreadStart = on_thread_start;
  cb.ThreadEnd = on_thread_end;
  cb.ClassLoad = on_class_load;
  cb.ClassPrepare = on_class_prepare;
  cb.CompiledMethodLoad = on_compiled_method_load;
  cb.CompiledMethodUnload = on_compiled_method_unload;
  cb.DynamicCodeGenerated = on_dynamic_code_generated;
  cb.ObjectFree = on_object_free;
  fg_java_events_callbacks(&cb);   /* enabled by the sessions that ask for alloc or lock */
  fg_gc_events_callbacks(&cb);     /* enabled by the sessions that keep marks */
  if ((e = (*jvmti)->SetEventCallbacks(jvmti, &cb, sizeof cb)) != JVMTI_ERROR_NONE) {
    snprintf(err, errlen, "fgagent: JVMTI SetEventCallbacks failed with error %d", (int)e);
    return -1;
  }
  static const jvmtiEvent events[] = {
    JVMTI_EVENT_VM_INIT, JVMTI_EVENT_VM_DEATH, JVMTI_EVENT_THREAD_START, JVMTI_EVENT_THREAD_END,
    JVMTI_EVENT_CLASS_LOAD, JVMTI_EVENT_CLASS_PREPARE, JVMTI_EVENT_COMPILED_METHOD_UNLOAD,
    JVMTI_EVENT_DYNAMIC_CODE_GENERATED,
  };
  for (size_t i = 0; i < sizeof events / sizeof events[0]; i++) {
    e = (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, events[i], NULL);
    if (e != JVMTI_ERROR_NONE) {
      snprintf(err, errlen, "fgagent: cannot enable JVMTI event %d: error %d", (int)events[i], (int)e);
      return -1;
    }
  }
  if (a->class_unloads)
    a->class_unloads = (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, JVMTI_EVENT_OBJECT_FREE, NULL) ==
                       JVMTI_ERROR_NONE;
  return 0;
}
