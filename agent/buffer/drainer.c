/* The drainer thread and one drain pass; see drainer.h. */
#include "buffer/drainer.h"
#include "buffer/drainer_internal.h"
#include "native_mem/native_mem.h"

#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "fg/clock.h"
#include "fg/sample_record.h"
#include "fg/trace_stacks.h"
#include "fg/utf8.h"
#include "jvmti/agent_thread.h"
#include "native/proc_maps.h"
#include "walk/walker.h"

/* A pass every 50 ms: half a ring's samples at 1 ms, and a ring half full
 * wakes the drainer sooner. Each wake-up costs ~50 us of CPU on a virtual
 * machine: at 10 ms passes an idle agent used 0.55% of a CPU. */
#define PASS_NS 50000000ull
#define FAST_PASS_NS 10000000ull       /* event=wall's repeats and sched's rings fill faster */
#define SCAN_NS 100000000ull           /* look for new threads every 100 ms */
#define RECLAIM_NS 1000000000ull       /* free dead threads' slots every second */


int fg_drainer_init(struct fg_drainer *d)
{
  d->symbols = fg_symbols_new();
  fg_u64_map_init(&d->native_names);
  struct fg_stack_namer namer = {fg_drainer_frame_name, fg_wall_state_frame, d, fg_drainer_frame_expand,
                                 &d->java_depth};
  if (fg_trace_stacks_init(&d->stacks, (uint32_t)d->max_frames, namer) != 0 || !d->symbols ||
      pthread_mutex_init(&d->lock, NULL) != 0)
    return -1;
  return 0;
}

uint32_t fg_drainer_profile_thread(struct fg_drainer *d, struct fg_thread *t)
{
  if (t->profile_serial != t->serial) {
    int64_t idx = fg_profile_add_thread(d->profile, t->tid, t->name);
    if (idx >= 0)
      d->profile->threads[idx].java_id = t->java_id;
    t->profile_thread = idx < 0 ? 0 : (uint32_t)idx;
    t->profile_serial = t->serial;
  }
  return t->profile_thread;
}

/* samples of a kernel event (event=NAME; which one, tr's flags say) of
 * trace tr on thread: each stands for its counter's period of events, the
 * stack's count; its accounting is its stats.kernel[k]'s (taken == stored +
 * no_thread + no_memory), never the clock's. */
static void add_kernel_event(struct fg_drainer *d, uint32_t thread, int64_t thread_frame, const struct fg_trace *tr,
                             uint64_t samples, uint64_t time_ns, uint32_t cpu)
{
  uint32_t kev = (tr->flags & FG_SAMPLE_KERNEL_MASK) >> FG_SAMPLE_KERNEL_SHIFT;
  struct fg_event_stats *k = &d->profile->stats.kernel[kev];
  uint64_t period = d->kevents && d->kevents[kev].period ? d->kevents[kev].period : 1;
  int64_t idx = fg_trace_stack(&d->stacks, d->profile, thread, thread_frame, tr, 0);
  k->taken += samples;
  if (idx < 0) {
    k->no_memory += samples;
    k->lost_weight += samples * period;
    return;
  }
  fg_profile_count(d->profile, (uint32_t)idx, samples * period, time_ns, cpu);
  d->profile->stacks[idx].events += samples;
  k->stored += samples;
  k->weight += samples * period;
  k->events += samples;
  k->no_stack += (tr->flags & FG_SAMPLE_FAILED) ? samples : 0;
}

/* weight samples of trace tr on thread in state, into the stats and the
 * profile; timed ones (time_ns != 0) into the timeline too. */
static void add_trace(struct fg_drainer *d, uint32_t thread, int64_t thread_frame, const struct fg_trace *tr,
                      uint32_t state, uint64_t weight, uint64_t time_ns, uint32_t cpu)
{
  if (tr->flags & FG_SAMPLE_KERNEL_EVENT) {
    add_kernel_event(d, thread, thread_frame, tr, weight, time_ns, cpu);
    return;
  }
  fg_trace_account(&d->profile->stats, tr, thread_frame, weight);
  int64_t idx = fg_trace_stack(&d->stacks, d->profile, thread, thread_frame, tr, state);
  if (idx >= 0)
    fg_profile_count(d->profile, (uint32_t)idx, weight, time_ns, cpu);
}

void fg_drainer_count_joined(struct fg_drainer *d)
{
  struct fg_stats *st = &d->profile->stats;
  uint64_t joined = atomic_load(&d->wall->joined);   /* in the weight of the samples they joined */
  st->taken += joined - d->wall_joined_counted;
  st->wall_joined += joined - d->wall_joined_counted;
  d->wall_joined_counted = joined;
}

/* event=wall: an idle thread counted again with the stack of its last sample. */
static void add_repeats(struct fg_drainer *d)
{
  const uint64_t *rec;
  while ((rec = fg_ring_peek(&d->wall->repeats)) != NULL) {
    struct fg_thread *t = (struct fg_thread *)(uintptr_t)rec[1];
    d->profile->stats.taken++;
    if (t->serial == rec[2] && t->profile_serial == t->serial)
      add_trace(d, t->profile_thread, -1, (const struct fg_trace *)(uintptr_t)rec[4], (uint32_t)rec[3], 1, 0, 0);
    else
      d->profile->stats.overruns++;   /* no stack to repeat: counted as lost */
    fg_ring_release(&d->wall->repeats, rec);
  }
  struct fg_stats *st = &d->profile->stats;
  fg_drainer_count_joined(d);
  st->wall_signals = atomic_load(&d->wall->signals) - d->wall_signals_before;
  st->wall_repeats = atomic_load(&d->wall->repeats_taken) - d->wall_repeats_before;
  uint64_t lost = atomic_load(&d->wall->repeats_lost);   /* ticks the ring had no room for */
  st->taken += lost - d->wall_repeats_lost_counted;
  st->repeats_lost += lost - d->wall_repeats_lost_counted;
  d->wall_repeats_lost_counted = lost;
  st->wall_per_tick = (uint64_t)d->wall->per_tick;
}

/* One sample record of t's. thread_frame: the "[name]" root of a thread
 * with no JNIEnv, or -1. */
static void add_sample(struct fg_drainer *d, struct fg_thread *t, uint32_t thread, int64_t thread_frame,
                       const uint64_t *rec)
{
  const struct fg_trace *tr = fg_sample_trace(rec);
  uint64_t weight = fg_sample_weight(rec);   /* 1 + the signals skipped just before it */
  if (d->verifier && thread_frame < 0)
    fg_edge_verifier_check(d->verifier, tr, &d->profile->stats);
  add_trace(d, thread, thread_frame, tr, fg_sample_state(rec), weight, fg_sample_time(rec), fg_sample_cpu(rec));
  if (tr->flags & FG_SAMPLE_KERNEL_EVENT)
    return;   /* the back-off's carry and a timer's tail are CPU samples: never a kernel event's stack */
  t->last_trace = tr;
  t->last_state = fg_sample_state(rec);
  t->last_serial = t->serial;
}

/* What a full ring's overflow slots counted since the last pass; with
 * thread_frame -2 (a JVM thread record with no name), counted as lost. */
static void add_overflow(struct fg_drainer *d, struct fg_thread *t, uint32_t thread, int64_t thread_frame)
{
  for (int i = 0; i < FG_OVERFLOW_SLOTS; i++) {
    uint64_t key = atomic_load(&t->overflow[i].key);
    uint64_t weight = key ? atomic_exchange(&t->overflow[i].weight, 0) : 0;
    if (!weight)
      continue;
    if (thread_frame == -2) {
      d->jvm_no_slot += weight;
      continue;
    }
    const struct fg_trace *tr = (const struct fg_trace *)(uintptr_t)(key & ~(uint64_t)15);
    if (!(tr->flags & FG_SAMPLE_KERNEL_EVENT))   /* the clock's accounting: a kernel event's has its own */
      d->profile->stats.overflowed += weight;
    add_trace(d, thread, thread_frame, (const struct fg_trace *)(uintptr_t)(key & ~(uint64_t)15),
              (uint32_t)(key & 15), weight, 0, 0);
  }
}

/* A thread whose walks were cut by its scratch's room and found no spare
 * gets a full-size one (what depth needs: pages a walk never reaches cost
 * nothing), taken by its handler at the next signal; the one it gave back is
 * freed. At the start of every pass: the handler also wakes the drainer for it. */
static void grow_scratch(struct fg_drainer *d, struct fg_thread *t)
{
  int state = atomic_load(&t->state);
  if (state == FG_THREAD_FREE || state == FG_THREAD_CLAIMING)
    return;   /* no handler of its own (yet) */
  fg_scratch_free(atomic_exchange(&t->retired, NULL));
  if (!atomic_exchange(&t->scratch_short, 0) || atomic_load(&t->bigger))
    return;
  int now = atomic_load(&t->scratch)->capacity;
  if (now >= d->max_frames)
    return;
  struct fg_scratch *s = fg_scratch_new(d->max_frames), *none = NULL;
  if (s && !atomic_compare_exchange_strong(&t->bigger, &none, s))
    fg_scratch_free(s);   /* its handler took a spare meanwhile */
}

/* The sampler's spare rooms, full-size (a spare from before a restart with
 * a smaller depth is replaced). Only the drainer stores one, into a slot it
 * emptied; handlers only take them. */
static void stock_spare_rooms(struct fg_drainer *d)
{
  for (int i = 0; i < FG_SPARE_ROOMS; i++) {
    struct fg_scratch *r = atomic_exchange(&d->sampler->spare_rooms[i], NULL);
    if (!r || r->capacity < d->max_frames) {
      fg_scratch_free(r);
      r = fg_scratch_new(d->max_frames);
    }
    atomic_store(&d->sampler->spare_rooms[i], r);
  }
}

/* Adds what a counter grew by since the last pass. */
static void add_growth(uint64_t *total, _Atomic uint64_t *counter, uint64_t *counted)
{
  uint64_t now = atomic_load(counter);
  *total += now - *counted;
  *counted = now;
}

/* The signals the back-off skipped that no later sample of t's will carry
 * (it ended, or sampling stopped): credited to its last sample, the nearest
 * to them in time as its next would have been, without a time of their own
 * (a full ring's overflow slots are counted that way too). Lost when t stored
 * none, or when its samples have no place in the profile (thread_frame -2). */
static void settle_carry(struct fg_drainer *d, struct fg_thread *t, uint32_t thread, int64_t thread_frame)
{
  uint32_t carry = t->backoff.carry;
  t->backoff.carry = 0;
  if (carry == 0)
    return;
  if (t->last_trace && t->last_serial == t->serial && thread_frame != -2) {
    add_trace(d, thread, thread_frame, t->last_trace, t->last_state, carry, 0, 0);
    d->profile->stats.skipped_to_last += carry;
  } else {
    d->profile->stats.skipped_lost += carry;
  }
}

/* The intervals of CPU a thread on a POSIX timer ran after its last signal
 * (its timer fires at the kernel's tick only): taken, and stored with its
 * last sample as the back-off's carry is; lost when it stored none. */
static void settle_tail(struct fg_drainer *d, struct fg_thread *t, uint32_t thread, int64_t thread_frame)
{
  uint64_t tail = atomic_exchange(&t->tail, 0);
  if (tail == 0)
    return;
  struct fg_stats *st = &d->profile->stats;
  st->taken += tail;
  st->folded += tail;
  if (t->last_trace && t->last_serial == t->serial && thread_frame != -2) {
    add_trace(d, thread, thread_frame, t->last_trace, t->last_state, (uint32_t)tail, 0, 0);
    st->tail_to_last += tail;
  } else {
    st->tail_lost += tail;
  }
}

/* What t's handler counted since the last pass: signals, overruns, time,
 * the back-off's skips. ended: the handler is done with t, so its carry is
 * settled; thread and thread_frame: where its samples go (add_trace). */
static void count_signals(struct fg_drainer *d, struct fg_thread *t, int ended, uint32_t thread,
                          int64_t thread_frame)
{
  struct fg_stats *st = &d->profile->stats;
  uint64_t taken_before = st->taken, skipped_before = st->skipped, folded_before = st->folded;
  add_growth(&st->taken, &t->taken, &t->counted_taken);
  add_growth(&st->skipped, &t->skipped, &t->counted_skipped);
  st->walks += (st->taken - taken_before) - (st->skipped - skipped_before);   /* the signals walked */
  add_growth(&st->folded, &t->folded, &t->counted_folded);
  st->taken += st->folded - folded_before;   /* in the weight of the samples they came with */
  add_growth(&st->overruns, &t->overruns, &t->counted_overruns);
  add_growth(&st->refused, &t->refused, &t->counted_refused);
  add_growth(&st->handler_ns, &t->handler_ns, &t->counted_handler_ns);
  add_growth(&st->unproven, &t->unproven, &t->counted_unproven);
  add_growth(&st->counter_handler_ns, &t->counter_ns, &t->counted_counter_ns);
  add_growth(&st->counter_walks, &t->counter_walks, &t->counted_counter_walks);
  add_growth(&st->depth_cuts, &t->depth_cuts, &t->counted_depth_cuts);
  if (ended || d->closing) {
    settle_carry(d, t, thread, thread_frame);
    settle_tail(d, t, thread, thread_frame);
    st->overruns += atomic_exchange(&t->wall_owed, 0);   /* ticks joined to a signal never taken */
  }
}

/* The mapping holding sp, from /proc/self/maps: a thread's stack. */
static int mapping_of(uintptr_t sp, uintptr_t *lo, uintptr_t *hi)
{
  FILE *f = fopen("/proc/self/maps", "r");
  char line[512];
  int found = 0;
  struct fg_maps_reader m = {0};   /* (a long path comes in pieces, never taken for a line) */
  while (f && !found && fgets(line, sizeof line, f))
    found = fg_maps_piece(&m, line, strlen(line), sp, lo, hi);
  if (f)
    fclose(f);
  return found;
}

static void drain_thread(struct fg_drainer *d, struct fg_thread *t)
{
  /* Read the state first: a thread seen ENDED has written its last sample. */
  int state = atomic_load(&t->state);
  if (state == FG_THREAD_FREE)
    return;
  uint32_t thread = fg_drainer_profile_thread(d, t);
  const uint64_t *rec = fg_ring_peek(&t->ring);
  uintptr_t lo, hi;
  if (rec && !t->stack_hi && t->claim_sp && mapping_of(t->claim_sp, &lo, &hi)) {
    t->stack_lo = lo;   /* a thread running before attach: its stack, once its handler noted an sp */
    __atomic_store_n(&t->stack_hi, hi, __ATOMIC_RELEASE);
  }
  while ((rec = fg_ring_peek(&t->ring)) != NULL) {
    if (fg_ring_header_tag(*rec) == FG_RECORD_SAMPLE)
      add_sample(d, t, thread, -1, rec);
    fg_ring_release(&t->ring, rec);
  }
  add_overflow(d, t, thread, -1);
  count_signals(d, t, state == FG_THREAD_ENDED, thread, -1);
  if (state == FG_THREAD_ENDED) {
    fg_profile_rename_thread(d->profile, thread, t->name);
    atomic_store(&t->state, FG_THREAD_FREE);
  }
}

/* /proc/self/task/<tid>/comm, or "tid <tid>" once the thread is gone. */
static void thread_comm(int tid, char *buf, size_t len)
{
  char path[64];
  snprintf(path, sizeof path, "/proc/self/task/%d/comm", tid);
  FILE *f = fopen(path, "r");
  if (!f || !fgets(buf, (int)len, f)) {
    snprintf(buf, len, "tid %d", tid);
  } else {
    buf[strcspn(buf, "\n")] = '\0';
    fg_utf8_trim_partial(buf);   /* the kernel cut the name at 15 bytes, characters or not */
  }
  if (f)
    fclose(f);
}

static struct fg_unregistered_name *unregistered_name(struct fg_drainer *d, int tid)
{
  if ((d->unregistered_used + 1) * 2 > d->unregistered_capacity) {
    uint32_t cap = d->unregistered_capacity ? d->unregistered_capacity * 2 : 256;
    struct fg_unregistered_name *names = calloc(cap, sizeof *names);
    if (!names)
      return NULL;
    for (uint32_t i = 0; i < d->unregistered_capacity; i++) {
      if (!d->unregistered_names[i].tid)
        continue;
      uint32_t j = (uint32_t)d->unregistered_names[i].tid & (cap - 1);
      while (names[j].tid)
        j = (j + 1) & (cap - 1);
      names[j] = d->unregistered_names[i];
    }
    free(d->unregistered_names);
    d->unregistered_names = names;
    d->unregistered_capacity = cap;
  }
  uint32_t j = (uint32_t)tid & (d->unregistered_capacity - 1);
  for (; d->unregistered_names[j].tid; j = (j + 1) & (d->unregistered_capacity - 1))
    if (d->unregistered_names[j].tid == tid)
      return &d->unregistered_names[j];
  char comm[64], frame[80];
  thread_comm(tid, comm, sizeof comm);
  snprintf(frame, sizeof frame, "[%s]", comm);
  int64_t thread = fg_profile_add_thread(d->profile, tid, comm);
  int64_t id = fg_profile_intern(d->profile, frame, FG_KIND_THREAD);
  if (thread < 0 || id < 0)
    return NULL;
  d->unregistered_names[j] = (struct fg_unregistered_name){tid, (uint32_t)thread, (uint32_t)id};
  d->unregistered_used++;
  return &d->unregistered_names[j];
}

uint32_t fg_drainer_unregistered_thread(struct fg_drainer *d, int tid)
{
  struct fg_unregistered_name *f = unregistered_name(d, tid);
  return f ? f->profile_thread : 0;
}

static void add_unregistered(void *ctx, int tid, uint64_t samples)
{
  struct fg_drainer *d = ctx;
  struct fg_unregistered_name *f = unregistered_name(d, tid);
  d->profile->stats.no_jnienv += samples;
  if (f)
    fg_profile_add(d->profile, f->profile_thread, &f->frame, 1, samples);
}

static int tid_alive(int tid)
{
  char path[64];
  snprintf(path, sizeof path, "/proc/self/task/%d", tid);
  return access(path, F_OK) == 0;
}

/* Frees the slots of gone threads; their names are looked up afresh if a
 * new thread reuses the id. */
static void reclaim_unregistered(struct fg_drainer *d)
{
  fg_unregistered_reclaim(d->sampler->unregistered, tid_alive);
  memset(d->unregistered_names, 0, d->unregistered_capacity * sizeof *d->unregistered_names);
  d->unregistered_used = 0;
}

/* A JVM thread record: a thread with no JNIEnv that keeps its native stacks. Its
 * tid and serial were written before its first sample was committed, so
 * they are read only once the ring has something. */
static void drain_jvm_record(struct fg_drainer *d, struct fg_thread *t)
{
  int state = atomic_load(&t->state);
  if (state == FG_THREAD_FREE || state == FG_THREAD_CLAIMING)
    return;
  const uint64_t *rec = fg_ring_peek(&t->ring);
  if (rec && t->profile_serial != t->serial) {
    struct fg_unregistered_name *f = unregistered_name(d, t->tid);
    t->profile_thread = f ? f->profile_thread : 0;
    t->jvm_frame = f ? (int64_t)f->frame : -1;
    t->profile_serial = t->serial;
    uintptr_t lo, hi;
    if (mapping_of(t->claim_sp, &lo, &hi)) {   /* from now on its walks may follow rbp */
      t->stack_lo = lo;
      __atomic_store_n(&t->stack_hi, hi, __ATOMIC_RELEASE);
    }
  }
  for (; rec; rec = fg_ring_peek(&t->ring)) {
    if (fg_ring_header_tag(*rec) == FG_RECORD_SAMPLE && t->jvm_frame >= 0)
      add_sample(d, t, t->profile_thread, t->jvm_frame, rec);
    else
      d->jvm_no_slot += fg_sample_weight(rec);   /* no name for it: counted as lost */
    fg_ring_release(&t->ring, rec);
  }
  /* where its overflow and back-off carry go: under its name, or nowhere (-2: lost) */
  int named = t->profile_serial == t->serial && t->jvm_frame >= 0;
  uint32_t thread = named ? t->profile_thread : 0;
  int64_t thread_frame = named ? t->jvm_frame : -2;
  add_overflow(d, t, thread, thread_frame);
  count_signals(d, t, state == FG_THREAD_ENDED, thread, thread_frame);
  if (state == FG_THREAD_ENDED) {
    t->profile_serial = 0;
    atomic_store(&t->state, FG_THREAD_FREE);
  }
}

/* Pool records of threads that are gone become ENDED, to be freed once drained. */
static void reclaim_jvm_records(struct fg_drainer *d)
{
  struct fg_jvm_thread_records *p = d->sampler->jvm_records;
  for (uint32_t i = 0; p && i < p->n; i++) {
    struct fg_thread *t = p->records[i];
    if (atomic_load(&t->state) == FG_THREAD_LIVE && fg_ring_peek(&t->ring) == NULL &&
        !tid_alive(t->tid))
      atomic_store(&t->state, FG_THREAD_ENDED);
  }
}

void fg_drainer_drain_all(struct fg_drainer *d, JNIEnv *jni)
{
  d->jni = jni;   /* the pass's: frame names are read with it */
  struct fg_jvm_thread_records *jvm_records = d->sampler->jvm_records;
  /* rooms first: the pass itself may take long (its first names the
   * symbol tables), and a deep thread's walks are cut until it has one */
  stock_spare_rooms(d);
  for (uint32_t i = 0; jvm_records && i < jvm_records->n; i++)
    grow_scratch(d, jvm_records->records[i]);
  pthread_mutex_lock(&d->registry->lock);
  for (uint32_t i = 0; i < d->registry->n; i++)
    grow_scratch(d, d->registry->all[i]);
  pthread_mutex_unlock(&d->registry->lock);
  for (uint32_t i = 0; jvm_records && i < jvm_records->n; i++)
    drain_jvm_record(d, jvm_records->records[i]);
  pthread_mutex_lock(&d->registry->lock);
  fg_drainer_drain_events(d);   /* first: a record ending in this pass is still its thread's */
  fg_drainer_drain_gc(d);
  fg_native_mem_drain(d);
  for (uint32_t i = 0; i < d->registry->n; i++)
    drain_thread(d, d->registry->all[i]);
  if (d->wall)   /* after the rings: a repeat needs its thread's last stack */
    add_repeats(d);
  pthread_mutex_unlock(&d->registry->lock);

  fg_unregistered_drain(d->sampler->unregistered, add_unregistered, d);
  struct fg_stats *st = &d->profile->stats;
  uint64_t unregistered = atomic_load(&d->sampler->unregistered_taken);
  st->taken += unregistered - d->unregistered_counted;
  d->unregistered_counted = unregistered;
  uint64_t unowned = atomic_load(&d->sampler->lost_unowned);   /* walker=copy's, of no known thread */
  st->taken += unowned - d->unowned_counted;
  st->overruns += unowned - d->unowned_counted;
  d->unowned_counted = unowned;
  for (int k = 0; k < FG_KERNEL_EVENTS_MAX; k++) {
    uint64_t klost = atomic_load(&d->sampler->kevent_lost[k]), knone = atomic_load(&d->sampler->kevent_no_thread[k]);
    st->kernel[k].taken += klost - d->kevent_lost_counted[k] + knone - d->kevent_no_thread_counted[k];
    st->kernel[k].no_memory += klost - d->kevent_lost_counted[k];   /* ring and overflow slots full, or over memlimit */
    st->kernel[k].no_thread += knone - d->kevent_no_thread_counted[k];
    d->kevent_lost_counted[k] = klost;
    d->kevent_no_thread_counted[k] = knone;
  }
  uint64_t paused = atomic_load(&d->sampler->paused);   /* lost while loop= switched intervals */
  st->taken += paused - d->paused_counted;
  st->paused_lost += paused - d->paused_counted;
  d->paused_counted = paused;
  st->no_slot = atomic_load(&d->sampler->unregistered->no_slot) - d->no_slot_before + d->jvm_no_slot;
  struct fg_trace_table *traces = d->sampler->traces;
  fg_trace_table_prepare(traces);
  st->traces = fg_trace_table_count(traces);
  st->trace_bytes = atomic_load(&traces->mapped);
  st->memlimit = traces->limit;
}

/* t's wished-for clock, noted into tids and wishes (n of them so far, room
 * for FG_CLOCK_WISHES); a wish past that waits for the next pass. */
#define FG_CLOCK_WISHES 64
static void note_clock_wish(struct fg_thread *t, int *tids, int *wishes, int *n)
{
  if (*n >= FG_CLOCK_WISHES || atomic_load(&t->state) != FG_THREAD_LIVE ||
      atomic_load_explicit(&t->clock_wish, memory_order_relaxed) == FG_CLOCK_STAY)
    return;
  wishes[*n] = atomic_exchange_explicit(&t->clock_wish, FG_CLOCK_STAY, memory_order_relaxed);
  tids[(*n)++] = t->tid;
}

/* clock=auto: the clocks the threads' handlers wished for, carried out
 * outside the registry's lock (a counter's open takes tens of microseconds,
 * and a starting thread waits for that lock). */
static void carry_out_clock_wishes(struct fg_drainer *d)
{
  if (!d->sampler->clock_auto)
    return;
  int tids[FG_CLOCK_WISHES], wishes[FG_CLOCK_WISHES], n = 0;
  struct fg_jvm_thread_records *jvm_records = d->sampler->jvm_records;
  for (uint32_t i = 0; jvm_records && i < jvm_records->n; i++)
    note_clock_wish(jvm_records->records[i], tids, wishes, &n);
  pthread_mutex_lock(&d->registry->lock);
  for (uint32_t i = 0; i < d->registry->n; i++)
    note_clock_wish(d->registry->all[i], tids, wishes, &n);
  pthread_mutex_unlock(&d->registry->lock);
  for (int i = 0; i < n; i++)
    fg_timer_set_clock(d->timer, tids[i], wishes[i]);
}

/* One pass over every ring, with jni the calling thread's. Takes the lock. */
static void drainer_pass(struct fg_drainer *d, JNIEnv *jni)
{
  pthread_mutex_lock(&d->lock);
  if (!d->closed) {
    fg_drainer_drain_all(d, jni);
    if (d->sched)
      fg_sched_drain(d->sched);
  }
  pthread_mutex_unlock(&d->lock);
}

void fg_drainer_finish(struct fg_drainer *d, JNIEnv *jni)
{
  atomic_store(&d->stop, 1);
  if (d->sampler->wake_fd >= 0) {   /* its thread leaves now rather than at its next pass */
    uint64_t one = 1;
    ssize_t rc = write(d->sampler->wake_fd, &one, sizeof one);
    (void)rc;
  }
  pthread_mutex_lock(&d->lock);
  d->closing = 1;   /* sampling has stopped: no handler touches a record any more */
  if (!d->closed)
    fg_drainer_drain_all(d, jni);
  d->closed = 1;
  pthread_mutex_unlock(&d->lock);
}

/* Until the next pass, ns from now, or sooner when a handler finds its ring
 * half full (or finish asks it to leave) and writes to the eventfd. */
static void wait_for_pass(struct fg_drainer *d, uint64_t ns)
{
  int fd = d->sampler->wake_fd;
  if (fd < 0) {
    struct timespec period = {(time_t)(ns / 1000000000u), (long)(ns % 1000000000u)};
    nanosleep(&period, NULL);
    return;
  }
  struct pollfd p = {fd, POLLIN, 0};
  if (poll(&p, 1, (int)((ns + 999999) / 1000000)) > 0) {
    uint64_t count;
    ssize_t rc = read(fd, &count, sizeof count);
    (void)rc;
    atomic_fetch_add(&d->wakeups, 1);
  }
  atomic_store(&d->sampler->wake_pending, 0);
}

/* The wait before the next pass: the pass period, or less when loop='s
 * interval ends sooner, so that intervals end on their grid. */
static uint64_t until_next_pass(const struct fg_drainer *d, uint64_t now)
{
  uint64_t wait = d->wall || d->sched ? FAST_PASS_NS : PASS_NS;
  if (d->loop_ns) {
    uint64_t end = d->interval_start_ns + d->loop_ns;
    uint64_t left = end > now ? end - now : 0;
    if (left < wait)
      wait = left;
  }
  return wait;
}

static void JNICALL drainer_main(jvmtiEnv *jvmti, JNIEnv *jni, void *arg)
{
  (void)jvmti;
  struct fg_drainer *d = arg;
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGPROF);
  sigaddset(&set, FG_KEVENT_SIGNAL);
  pthread_sigmask(SIG_BLOCK, &set, NULL);
  d->timer->skip_tid = (int)syscall(SYS_gettid);
  fg_timer_thread_end(d->timer, d->timer->skip_tid);
  for (int k = 0; k < FG_KERNEL_EVENTS_MAX; k++)
    fg_kevents_never(&d->kevents[k], d->timer->skip_tid);

  uint64_t scanned = 0, reclaimed = fg_clock_ns(CLOCK_MONOTONIC);
  while (!atomic_load(&d->stop)) {
    uint64_t now = fg_clock_ns(CLOCK_MONOTONIC);
    if (now - scanned >= SCAN_NS) {
      scanned = now;
      fg_timer_scan(d->timer);
      for (int k = 0; k < FG_KERNEL_EVENTS_MAX; k++)
        fg_kevents_scan(&d->kevents[k]);
      /* enabled is read after the handler: shutdown clears it before it
       * sets SIGPROF to ignored, which is no other profiler's doing; a
       * session of kernel events alone never put its handler on SIGPROF */
      if (!d->signal_lost && d->sampler->sigprof_installed && !fg_sampler_owns_signal() &&
          atomic_load(&d->sampler->enabled)) {
        d->signal_lost = 1;   /* said once: from here on the other handler gets the signals */
        fprintf(stderr, "fgagent: warning: another SIGPROF handler replaced fgagent's (JFR's "
                        "jdk.CPUTimeSample, or another profiler): fgagent takes no samples from now on; "
                        "the two cannot share SIGPROF, use one of them\n");
      }
    }
    if (d->discovery)   /* first: a want woke it, and samples meet that code meanwhile */
      fg_code_discovery_pass(d->discovery);
    drainer_pass(d, jni);
    carry_out_clock_wishes(d);
    fg_timer_keep_fd_room(d->timer);
    now = fg_clock_ns(CLOCK_MONOTONIC);
    if (d->loop_ns && now - d->interval_start_ns >= d->loop_ns) {
      fg_drainer_end_interval(d, jni);
      d->interval_start_ns += d->loop_ns;   /* on the interval's grid, not drifting by a pass each time */
    }
    if (now - reclaimed >= RECLAIM_NS) {
      reclaimed = now;
      pthread_mutex_lock(&d->lock);
      if (!d->closed) {
        reclaim_jvm_records(d);
        reclaim_unregistered(d);
      }
      pthread_mutex_unlock(&d->lock);
    }
    atomic_store(&d->cpu_ns, fg_clock_ns(CLOCK_THREAD_CPUTIME_ID));
    wait_for_pass(d, until_next_pass(d, now));
  }
  atomic_store(&d->cpu_ns, fg_clock_ns(CLOCK_THREAD_CPUTIME_ID));
  atomic_store(&d->running, 0);
}

int fg_drainer_start(struct fg_drainer *d, JNIEnv *jni, char *err, size_t errlen)
{
  jobject thread = fg_agent_thread_object(d->jvmti, jni, "fgagent drainer");   /* runs no application code */
  if (!thread) {
    snprintf(err, errlen, "fgagent: cannot create the drainer thread object");
    return -1;
  }
  d->thread = (*jni)->NewGlobalRef(jni, thread);
  d->interval_start_ns = fg_clock_ns(CLOCK_MONOTONIC);
  atomic_store(&d->running, 1);
  jvmtiError e = (*d->jvmti)->RunAgentThread(d->jvmti, thread, drainer_main, d,
                                             JVMTI_THREAD_NORM_PRIORITY);
  if (e != JVMTI_ERROR_NONE) {
    atomic_store(&d->running, 0);
    snprintf(err, errlen, "fgagent: RunAgentThread failed with JVMTI error %d", (int)e);
    return -1;
  }
  return 0;
}
