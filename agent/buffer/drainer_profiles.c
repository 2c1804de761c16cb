/* The drainer's profiles over time: held for a dump while sampling goes on,
 * turned over every loop= interval, emptied for a new session (attach: start
 * after stop). See drainer.h. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "buffer/drainer.h"
#include "buffer/drainer_internal.h"

void fg_drainer_hold(struct fg_drainer *d, JNIEnv *jni)
{
  pthread_mutex_lock(&d->lock);
  if (!d->closed)
    fg_drainer_drain_all(d, jni);
}

void fg_drainer_release(struct fg_drainer *d)
{
  pthread_mutex_unlock(&d->lock);
}

/* What served the profile just written: a new one starts from nothing.
 * Under the lock (or with no drainer thread running). */
static int forget_profile(struct fg_drainer *d)
{
  fg_trace_stacks_free(&d->stacks);
  fg_u64_map_free(&d->native_names);
  fg_u64_map_init(&d->native_names);
  free(d->unregistered_names);
  d->unregistered_names = NULL;
  d->unregistered_capacity = d->unregistered_used = 0;
  d->jvm_no_slot = 0;
  d->no_slot_before = atomic_load(&d->sampler->unregistered->no_slot);
  if (d->wall) {
    d->wall_signals_before = atomic_load(&d->wall->signals);
    d->wall_repeats_before = atomic_load(&d->wall->repeats_taken);
    d->wall_repeats_lost_counted = atomic_load(&d->wall->repeats_lost);
  }
  /* every record's samples go to a thread of the new profile */
  pthread_mutex_lock(&d->registry->lock);
  for (uint32_t i = 0; i < d->registry->n; i++)
    d->registry->all[i]->profile_serial = 0;
  pthread_mutex_unlock(&d->registry->lock);
  struct fg_jvm_thread_records *jvm_records = d->sampler->jvm_records;
  for (uint32_t i = 0; jvm_records && i < jvm_records->n; i++)
    jvm_records->records[i]->profile_serial = 0;
  struct fg_stack_namer namer = {fg_drainer_frame_name, fg_wall_state_frame, d, fg_drainer_frame_expand,
                                 &d->java_depth};
  return fg_trace_stacks_init(&d->stacks, (uint32_t)d->max_frames, namer);
}

int fg_drainer_reset(struct fg_drainer *d, JNIEnv *jni)
{
  while (atomic_load(&d->running)) {   /* its thread leaves within a pass */
    struct timespec ms = {0, 1000000};
    nanosleep(&ms, NULL);
  }
  if (d->thread)
    (*jni)->DeleteGlobalRef(jni, d->thread);
  d->thread = NULL;
  d->closing = d->closed = d->signal_lost = 0;
  atomic_store(&d->stop, 0);
  d->wall = NULL;   /* a new wall sampler, if any, counts from 0 */
  d->wall_signals_before = d->wall_repeats_before = d->wall_joined_counted = d->wall_repeats_lost_counted = 0;
  return forget_profile(d);
}

/* Signals counted in this interval whose weight a thread's next sample will
 * carry: those the back-off skipped (*skipped), and event=wall's ticks
 * joined to a signal not taken yet (*joined). Only while the sampler is
 * paused (the handlers own the back-off counts); under the registry lock,
 * which the wall sampler holds while it adds ticks, the joined ticks are
 * counted as taken up to this very moment. */
static void pending_carry(struct fg_drainer *d, uint64_t *skipped, uint64_t *joined)
{
  *skipped = *joined = 0;
  pthread_mutex_lock(&d->registry->lock);
  for (uint32_t i = 0; i < d->registry->n; i++) {
    struct fg_thread *t = d->registry->all[i];
    if (atomic_load(&t->state) != FG_THREAD_FREE) {
      *skipped += t->backoff.carry;
      *joined += atomic_load(&t->wall_owed);
    }
  }
  if (d->wall)
    fg_drainer_count_joined(d);
  pthread_mutex_unlock(&d->registry->lock);
  struct fg_jvm_thread_records *jvm_records = d->sampler->jvm_records;
  for (uint32_t i = 0; jvm_records && i < jvm_records->n; i++)
    if (atomic_load(&jvm_records->records[i]->state) != FG_THREAD_FREE)
      *skipped += jvm_records->records[i]->backoff.carry;
}

/* loop=: the interval is over: the rings drained into its profile, which
 * rotate writes and replaces with an empty one. */
void fg_drainer_end_interval(struct fg_drainer *d, JNIEnv *jni)
{
  pthread_mutex_lock(&d->lock);
  if (!d->closed) {
    /* held still while the rings are emptied, so that the interval's books
     * close: no signal counted in it has its sample still on the way */
    fg_sampler_pause(d->sampler);
    fg_drainer_drain_all(d, jni);
    uint64_t skipped, joined;
    pending_carry(d, &skipped, &joined);
    fg_sampler_resume(d->sampler);
    /* signals whose weight a later sample carries belong to the next interval */
    struct fg_stats *st = &d->profile->stats;
    st->taken -= skipped + joined;
    st->skipped -= skipped;
    st->wall_joined -= joined;
    d->rotate(d->rotate_ctx);
    if (forget_profile(d) != 0)
      fprintf(stderr, "fgagent: out of memory starting a new loop interval\n");
    st->taken += skipped + joined;
    st->skipped += skipped;
    st->wall_joined += joined;
  }
  pthread_mutex_unlock(&d->lock);
}
