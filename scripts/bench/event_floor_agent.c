/* The floor of fgagent's alloc and lock inside a JVM: a JVMTI agent that turns
 * on the same JVM mechanisms (heap sampling at the same interval, monitor
 * contention events) with callbacks that only count. fgagent's runs minus
 * this agent's are what fgagent itself costs (the stack, the class name, the
 * log) above what the JVM costs to report the events at all. The park hook
 * has no floor here: without fgagent's binding the JVM reports no park.
 * With code, the events fgagent's code map takes, CompiledMethodLoad (for
 * which HotSpot builds each compiled method's inline records, and with which
 * it records debug information at every pc, as DebugNonSafepoints does):
 * what the CPU sampler's JVM side costs a JIT-heavy program's start.
 *   java -agentpath:build/event_floor_agent.so=alloc[=BYTES]|lock|code ...
 * At VM death it prints to stderr: FLOOR_EVENTS n. */
#include <jvmti.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static atomic_long events;

static void JNICALL sampled(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread, jobject object, jclass klass, jlong size)
{
  (void)jvmti, (void)jni, (void)thread, (void)object, (void)klass, (void)size;
  atomic_fetch_add_explicit(&events, 1, memory_order_relaxed);
}

static void JNICALL contended(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread, jobject object)
{
  (void)jvmti, (void)jni, (void)thread, (void)object;
  atomic_fetch_add_explicit(&events, 1, memory_order_relaxed);
}

static void JNICALL compiled(jvmtiEnv *jvmti, jmethodID method, jint code_size, const void *code_addr,
                             jint map_length, const jvmtiAddrLocationMap *map, const void *compile_info)
{
  (void)jvmti, (void)method, (void)code_size, (void)code_addr, (void)map_length, (void)map, (void)compile_info;
  atomic_fetch_add_explicit(&events, 1, memory_order_relaxed);
}

static void JNICALL death(jvmtiEnv *jvmti, JNIEnv *jni)
{
  (void)jvmti, (void)jni;
  fprintf(stderr, "FLOOR_EVENTS %ld\n", atomic_load(&events));
}

JNIEXPORT jint JNICALL Agent_OnLoad(JavaVM *vm, char *options, void *reserved)
{
  (void)reserved;
  jvmtiEnv *jvmti;
  if ((*vm)->GetEnv(vm, (void **)&jvmti, JVMTI_VERSION_11) != JNI_OK)
    return JNI_ERR;
  int alloc = options && strncmp(options, "alloc", 5) == 0, lock = options && strcmp(options, "lock") == 0;
  int code = options && strcmp(options, "code") == 0;
  if (!alloc && !lock && !code) {
    fprintf(stderr, "event_floor_agent: options alloc[=BYTES], lock or code, not '%s'\n", options ? options : "");
    return JNI_ERR;
  }
  jvmtiCapabilities caps = {0};
  caps.can_generate_sampled_object_alloc_events = (unsigned)alloc;
  caps.can_generate_monitor_events = (unsigned)lock;
  caps.can_generate_compiled_method_load_events = (unsigned)code;
  jvmtiEventCallbacks cb = {0};
  cb.SampledObjectAlloc = sampled;
  cb.CompiledMethodLoad = compiled;
  cb.MonitorContendedEnter = contended;
  cb.MonitorContendedEntered = contended;
  cb.VMDeath = death;
  if ((*jvmti)->AddCapabilities(jvmti, &caps) != JVMTI_ERROR_NONE ||
      (*jvmti)->SetEventCallbacks(jvmti, &cb, sizeof cb) != JVMTI_ERROR_NONE)
    return JNI_ERR;
  (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, JVMTI_EVENT_VM_DEATH, NULL);
  if (alloc) {
    (*jvmti)->SetHeapSamplingInterval(jvmti, options[5] == '=' ? atoi(options + 6) : 512 * 1024);
    (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, JVMTI_EVENT_SAMPLED_OBJECT_ALLOC, NULL);
  } else if (code) {
    (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, JVMTI_EVENT_COMPILED_METHOD_LOAD, NULL);
  } else {
    (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, JVMTI_EVENT_MONITOR_CONTENDED_ENTER, NULL);
    (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, JVMTI_EVENT_MONITOR_CONTENDED_ENTERED, NULL);
  }
  return JNI_OK;
}
