/* How a session's code map learns the JVM's compiled methods.
 *
 * From the code heap (hotspot/code_discovery.h) when the JVM exports its
 * layout and the session fills the Method* map (walker=vm or copy): only
 * the methods samples land in are read, off the application's threads.
 * Otherwise (walker=asgct, or a JVM that does not export it) from
 * CompiledMethodLoad, which makes HotSpot decode every method's scopes on
 * its Service thread: turned on for that session, with the methods
 * compiled meanwhile generated again, and off for the next session that
 * reads the heap. CompiledMethodUnload stays on for the entries the loads
 * made. With verify, the events stay on beside the heap's reading, which
 * they check (verify/code_records.h).
 *
 * Either way HotSpot must record debug scopes between safepoints, which
 * enabling CompiledMethodLoad implies (DebugInformationRecorder::
 * compute_recording_non_safepoints) and which fg_code_source_init asks of
 * the flag itself otherwise, at Agent_OnLoad or the first attach. */
#include <stdio.h>
#include <stdlib.h>

#include "jvmti/agent.h"
#include "hotspot/vm_structs.h"

void fg_code_source_init(struct fg_agent *a)
{
  char *version = NULL;
  int major = 0;
  if ((*a->jvmti)->GetSystemProperty(a->jvmti, "java.vm.specification.version", &version) == JVMTI_ERROR_NONE &&
      version) {
    major = atoi(version);
    (*a->jvmti)->Deallocate(a->jvmti, (unsigned char *)version);
  }
  /* the scopes stream's bytes are one higher since JDK 20 (JDK-8292758) */
  fg_code_heap_init(&a->heap, major >= 20);
  pthread_mutex_init(&a->discovery.lock, NULL);
  fg_code_records_init(&a->code_records);
  /* what a session that reads the heap hands the reading: the same each time */
  struct fg_code_discovery *d = &a->discovery;
  d->code = &a->code;
  d->heap = &a->heap;
  d->methods = &a->methods;
  d->deopt = &a->deopt;
  a->code.wants.wake_fd = a->sampler.wake_fd;
  a->code.wants.wake_pending = &a->sampler.wake_pending;
  a->code.wants.nm_compile_id = a->heap.nm_compile_id;
  a->code.wants.nm_block_used = a->heap.block_used - a->heap.block_bytes;
  /* the user's -XX:-DebugNonSafepoints stands (CompiledMethodLoad would
   * not override it either); unset, it is turned on as the load events
   * would have done */
  if (a->heap.known && fg_agent_debug_non_safepoints() == 0 && fg_vm_set_bool_flag("DebugNonSafepoints", 1) != 0) {
    a->heap.known = 0;   /* the load events turn it on */
    snprintf(a->heap.why, sizeof a->heap.why, "the JVM exports no flag DebugNonSafepoints");
  }
}

void fg_code_source_start(struct fg_agent *a)
{
  int heap = a->heap.known && atomic_load(&a->vm_methods);
  int loads = !heap || a->opts.verify;   /* to fill the map, or to hold the heap's reading to them */
  jvmtiEnv *j = a->jvmti;
  atomic_store(&a->code_checking, heap && a->opts.verify);
  fg_code_records_reset(&a->code_records);
  if (loads != a->loads_on &&
      (*j)->SetEventNotificationMode(j, loads ? JVMTI_ENABLE : JVMTI_DISABLE, JVMTI_EVENT_COMPILED_METHOD_LOAD,
                                     NULL) == JVMTI_ERROR_NONE)
    a->loads_on = loads;
  struct fg_code_discovery *d = heap ? &a->discovery : NULL;
  if (d) {   /* this session's counts, and JDK 17's names learnt again */
    d->found = d->unnamed = d->gone = 0;
    d->names_learned = 0;
  }
  atomic_store(&a->code.methods.wants, d ? &a->code.wants : NULL);
  a->drainer.discovery = d;
  a->copy_engine.discovery = d;
  a->sampler.walker.heap = heap ? &a->heap : NULL;
  if (!heap && !a->method_loads && a->loads_on)
    (*j)->GenerateEvents(j, JVMTI_EVENT_COMPILED_METHOD_LOAD);   /* those compiled while the map read the heap */
  a->method_loads = !heap;
}
