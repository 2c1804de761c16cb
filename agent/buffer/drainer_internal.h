/* What drainer.c and drainer_profiles.c share; not for other modules. */
#ifndef FG_DRAINER_INTERNAL_H
#define FG_DRAINER_INTERNAL_H

#include "buffer/drainer.h"

/* One pass over every ring and count, into the profile. Under the lock. */
void fg_drainer_drain_all(struct fg_drainer *d, JNIEnv *jni);
/* The profile name id of a trace's frame i (the stack cache's namer), and
 * an FG_FRAME_UNREAD frame's names (its expand; frame_names.c). */
int64_t fg_drainer_frame_name(void *ctx, const struct fg_trace *tr, uint32_t i);
uint32_t fg_drainer_frame_expand(void *ctx, const struct fg_trace *tr, uint32_t i, uint32_t *out, uint32_t room);
/* event=wall: the ticks joined to pending signals so far, counted as taken. */
void fg_drainer_count_joined(struct fg_drainer *d);
/* The profile thread a record's samples go to (new per registration). */
uint32_t fg_drainer_profile_thread(struct fg_drainer *d, struct fg_thread *t);
/* The profile thread of a thread with no record (its name from the kernel);
 * 0 when memory ran out. */
uint32_t fg_drainer_unregistered_thread(struct fg_drainer *d, int tid);
/* alloc and lock: the event log's records into the profile (drainer_events.c). Under the registry's lock. */
void fg_drainer_drain_events(struct fg_drainer *d);
void fg_drainer_drain_gc(struct fg_drainer *d);
/* loop=: the interval's profile written (rotate) and replaced by an empty one. */
void fg_drainer_end_interval(struct fg_drainer *d, JNIEnv *jni);

#endif
