/* Option `verify`: the drainer checks every Java caller -> callee edge of
 * every sample against the caller's bytecode at the sampled bci (JVMTI
 * GetBytecodes and GetConstantPool, outside the signal handler; the rules
 * are in call_site.c). The counts and the first wrong edges go to the
 * summary. */
#ifndef FG_EDGE_VERIFIER_H
#define FG_EDGE_VERIFIER_H

#include <jvmti.h>
#include <stdint.h>

#include "fg/trace_table.h"

struct fg_stats;
struct fg_edge_verifier;

/* The capabilities verify needs, to add before the live phase. */
void fg_edge_verifier_capabilities(jvmtiCapabilities *caps);

/* NULL when out of memory. It lives as long as the agent: what it read of
 * each method (JVMTI memory) stays cached to the JVM's exit. vm gives the
 * calling thread's JNIEnv, to find a called method's class. */
struct fg_edge_verifier *fg_edge_verifier_new(jvmtiEnv *jvmti, JavaVM *vm);

/* Checks the edges of one sample's trace (leaf first) and counts them in s. */
void fg_edge_verifier_check(struct fg_edge_verifier *v, const struct fg_trace *tr, struct fg_stats *s);

#endif
