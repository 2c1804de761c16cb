/* What jfr.c (the chunk, its events and metadata) and jfr_pools.c (the
 * constant pools) share: the type ids the metadata declares and JFR's
 * encoding of integers, strings and events. */
#ifndef FG_JFR_CHUNK_H
#define FG_JFR_CHUNK_H

#include <stddef.h>
#include <stdint.h>

#include "output/byte_buffer.h"

struct fg_profile;

enum {   /* type ids: 0 and 1 are the metadata and checkpoint events */
  T_LONG = 20, T_INT, T_BOOLEAN, T_STRING,
  T_LABEL, T_TIMESTAMP, T_CATEGORY,
  T_THREAD, T_THREAD_STATE, T_SYMBOL, T_PACKAGE, T_CLASS, T_METHOD, T_FRAME_TYPE, T_STACK_FRAME,
  T_STACK_TRACE, T_EXECUTION_SAMPLE,
  T_TIMESPAN, T_ALLOC_SAMPLE, T_MONITOR_ENTER, T_THREAD_PARK, T_DATA_AMOUNT,
  T_CONTENT_TYPE, T_MEMORY_ADDRESS, T_UNSIGNED, T_ACTIVE_SETTING,
  T_MALLOC, T_NATIVE_LOCK,   /* async-profiler's profiler.Malloc and profiler.NativeLock */
  T_LIVE_OBJECT, T_CLASS_LOADER,
  T_KERNEL_EVENT,
  T_GC_PAUSE,   /* fgagent.GCPause: a pause JVMTI reported (the profile's marks) */
  T_FREE,                    /* async-profiler's profiler.Free */
};

/* A long: 7 bits a byte, low first, the 9th byte holding the last 8 bits. */
void jfr_put_long(struct fg_bytes *o, uint64_t v);
/* An int (read as a long whose low 32 bits are kept: -1 takes 5 bytes). */
void jfr_put_int(struct fg_bytes *o, int32_t v);
/* A string as UTF-8: encoding 3, length, bytes. */
void jfr_put_string(struct fg_bytes *o, const char *s, size_t n);
void jfr_put_cstring(struct fg_bytes *o, const char *s);
/* Appends body as an event (its size first, counting itself) and empties body. */
void jfr_put_event(struct fg_bytes *o, struct fg_bytes *body);

/* A jdk.ExecutionSample's body: at ticks, of stack (profile index) on its
 * thread; event=wall samples give the state their stack's leaf names. */
void jfr_sample(struct fg_bytes *body, const struct fg_profile *p, uint64_t ticks, uint32_t stack, int wall);

/* The constant pools of a profile, built before its events (which name
 * their classes by the pools' keys), written after them. */
struct jfr_pools;
struct jfr_pools *jfr_pools_new(const struct fg_profile *p);
void jfr_pools_free(struct jfr_pools *t);
/* A nativemem or nativelock stack's event body: profiler.Malloc (weight:
 * the bytes its sample stands for, as size; no address kept) or
 * profiler.NativeLock (weight: the nanoseconds waited, ending at ticks).
 * 1, or 0 when the stack is of neither. */
int jfr_native_event(struct fg_bytes *body, const struct fg_profile *p, uint32_t stack, uint64_t ticks,
                     uint64_t weight);
/* nativemem,leak's trail entry i: its profiler.Malloc with its address,
 * and when it was freed a profiler.Free of the address too (bodies put into o). */
void jfr_trail_events(struct fg_bytes *o, struct fg_bytes *body, const struct fg_profile *p, uint32_t i);
/* An alloc or lock stack's event body (its class is the stack's leaf
 * frame; its stack trace leaves that frame out): jdk.ObjectAllocationSample
 * (weight: bytes), jdk.JavaMonitorEnter or jdk.ThreadPark (weight: the
 * nanoseconds waited, ending at ticks). */
void jfr_event(struct fg_bytes *body, const struct jfr_pools *t, const struct fg_profile *p, uint32_t stack,
               uint64_t ticks, uint64_t weight);
/* A kernel event's sample (event=NAME), of count events, at ticks:
 * fgagent.KernelEvent, the event's name from the profile's stats. */
void jfr_kernel_event(struct fg_bytes *body, const struct fg_profile *p, uint32_t stack, uint64_t ticks,
                      uint64_t count);
/* The checkpoint event with every constant pool the events refer to. 0 or -1. */
int jfr_checkpoint(struct fg_bytes *o, const struct fg_profile *p, struct jfr_pools *t, uint64_t ticks);

#endif
