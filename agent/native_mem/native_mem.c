/* nativemem, leak and nativelock: a session's start and stop, the walk of
 * a sampled call, and the drainer's side; see native_mem.h. */
#include "native_mem/native_mem.h"

#include <link.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

#include "buffer/drainer_internal.h"
#include "fg/clock.h"
#include "fg/event_kinds.h"
#include "fg/sample_record.h"
#include "jvmti/agent.h"
#include "jvmti/threads.h"
#include "sampling/sample_store.h"
#include "sampling/signal/backoff.h"
#include "walk/walker.h"

struct fg_native_mem fg_nm;

/* A walk room of its own: the signal handler may interrupt the hook on the
 * same thread and walks in the thread's room. Claimed by one bit each. */
static int claim_room(struct fg_native_mem *m, ASGCT_CallFrame **frames, uint8_t **types)
{
  uint64_t busy = atomic_load_explicit(&m->rooms_busy, memory_order_relaxed);
  while (~busy) {
    int i = __builtin_ctzll(~busy);
    if (atomic_compare_exchange_weak_explicit(&m->rooms_busy, &busy, busy | 1ull << i, memory_order_acquire,
                                              memory_order_relaxed)) {
      size_t each = (size_t)m->room_frames * (sizeof **frames + 1);
      char *base = (char *)m->rooms + (size_t)i * each;
      *frames = (ASGCT_CallFrame *)base;
      *types = (uint8_t *)(base + (size_t)m->room_frames * sizeof **frames);
      return i;
    }
  }
  return -1;
}

static void release_room(struct fg_native_mem *m, int i)
{
  atomic_fetch_and_explicit(&m->rooms_busy, ~(1ull << i), memory_order_release);
}

static void lost(struct fg_nm_counts *c, _Atomic uint64_t *why, uint64_t weight)
{
  atomic_fetch_add_explicit(why, 1, memory_order_relaxed);
  atomic_fetch_add_explicit(&c->lost_weight, weight, memory_order_relaxed);
}

/* The stack from the hook's caller: native frames by the unwind tables up
 * to the first Java frame, the Java ones from there or the thread's frame
 * anchor (a thread in native or in the VM has one), as a signal's walk. */
static const struct fg_trace *walk(struct fg_native_mem *m, int event, struct fg_thread *t, uintptr_t pc,
                                   uintptr_t sp, uintptr_t fp, ASGCT_CallFrame *frames, uint8_t *types)
{
  struct fg_agent *a = m->agent;
  const struct fg_walker *w = &a->sampler.walker;
  ucontext_t uc;
  memset(&uc.uc_mcontext, 0, sizeof uc.uc_mcontext);
  uc.uc_mcontext.gregs[REG_RIP] = (greg_t)pc;
  uc.uc_mcontext.gregs[REG_RSP] = (greg_t)sp;
  uc.uc_mcontext.gregs[REG_RBP] = (greg_t)fp;
  uintptr_t hi = t ? __atomic_load_n(&t->stack_hi, __ATOMIC_ACQUIRE) : 0;
  uintptr_t lo = hi ? t->stack_lo : 0;
  int depth = w->depth < FG_NM_JAVA_DEPTH ? w->depth : FG_NM_JAVA_DEPTH;
  uint64_t now = fg_clock_ns(CLOCK_MONOTONIC);
  struct fg_walk res = fg_walk_stack(w, depth, now + FG_WALK_BUDGET_NS / 2, t ? t->env : NULL, &uc, lo, hi, NULL,
                                     frames, types);
  uint32_t flags = res.flags | (event == FG_STACK_NATIVEMEM ? FG_SAMPLE_NATIVEMEM : FG_SAMPLE_NATIVELOCK);
  if (flags & FG_SAMPLE_FAILED)
    flags = fg_sample_flags_with_tick(flags, res.tick);
  return fg_trace_table_put_known(a->sampler.traces, frames, types, (uint32_t)res.n, flags, NULL);
}

void fg_nm_record(int event, uintptr_t addr, uint64_t weight, uint64_t calls, uintptr_t pc, uintptr_t sp,
                  uintptr_t fp)
{
  struct fg_native_mem *m = &fg_nm;
  struct fg_nm_counts *c = event == FG_STACK_NATIVEMEM ? &m->mem : &m->lock;
  atomic_fetch_add(&m->inflight, 1);
  if (!atomic_load(event == FG_STACK_NATIVEMEM ? &m->mem_on : &m->lock_on)) {   /* stopped meanwhile */
    atomic_fetch_sub(&m->inflight, 1);
    return;
  }
  atomic_fetch_add_explicit(&c->taken, 1, memory_order_relaxed);
  ASGCT_CallFrame *frames;
  uint8_t *types;
  int room = claim_room(m, &frames, &types);
  if (room < 0) {
    lost(c, &c->no_room, weight);
    atomic_fetch_sub(&m->inflight, 1);
    return;
  }
  struct fg_thread *t = fg_current_thread;
  const struct fg_trace *trace = walk(m, event, t, pc, sp, fp, frames, types);
  release_room(m, room);
  if (!trace) {
    lost(c, &c->no_memory, weight);
    atomic_fetch_sub(&m->inflight, 1);
    return;
  }
  struct fg_nm_record r = {
    .trace = trace, .thread = t, .serial = t ? t->serial : 0, .time_ns = fg_clock_ns(CLOCK_MONOTONIC),
    .weight = weight, .events = calls, .tid = t ? t->tid : (int32_t)syscall(SYS_gettid),
    .session = atomic_load_explicit(&m->session, memory_order_relaxed), .event = (uint8_t)event,
  };
  int kept;
  if (event == FG_STACK_NATIVEMEM && atomic_load_explicit(&m->leak_on, memory_order_relaxed)) {
    /* The address held already: malloc gives a live address to no one, so
     * its free went by no hook (libc's own calls free and realloc inside
     * libc; a library's free slot not patched yet while its malloc slot
     * is). Freed before this allocation returned, so before r's time. */
    struct fg_nm_record stale;
    if (fg_leak_table_take(&m->leaks, addr, &stale)) {
      atomic_fetch_add_explicit(&m->frees_late, 1, memory_order_relaxed);
      fg_nm_freed(addr, &stale, r.time_ns - 1);
    }
    kept = fg_leak_table_insert(&m->leaks, addr, &r);
  } else {
    kept = fg_nm_queue_push(&m->queue, &r);
    if (kept && fg_nm_queue_used(&m->queue) > (m->queue.mask + 1) / 2)
      fg_store_wake(&m->agent->sampler);
  }
  if (!kept)
    lost(c, &c->full, weight);
  atomic_fetch_sub(&m->inflight, 1);
}

void fg_nm_freed(uintptr_t addr, struct fg_nm_record *r, uint64_t freed_ns)
{
  struct fg_native_mem *m = &fg_nm;
  atomic_fetch_add(&m->inflight, 1);
  /* else the session stopped meanwhile (its queue is done with), or stopped
   * and another started between the take and here: the record, from the
   * old table, is not the new session's to report */
  if (atomic_load(&m->leak_on) && r->session == atomic_load(&m->session)) {
    r->addr = addr;
    r->freed_ns = freed_ns;
    if (!fg_nm_queue_push(&m->queue, r))
      atomic_fetch_add_explicit(&m->frees_unrecorded, 1, memory_order_relaxed);
    else if (fg_nm_queue_used(&m->queue) > (m->queue.mask + 1) / 2)
      fg_store_wake(&m->agent->sampler);
  }
  atomic_fetch_sub(&m->inflight, 1);
}

/* What is made once for the process and kept (a hook of an earlier session
 * may still be running): the queue, the rooms, leak's table when asked. */
static int make_tables(struct fg_native_mem *m, int leak, char *msg, size_t len)
{
  if (!m->queue.slots && fg_nm_queue_init(&m->queue, FG_NM_QUEUE_SLOTS) != 0)
    return snprintf(msg, len, "the memory for its queue was refused"), -1;
  if (!m->rooms) {
    int frames = FG_MAX_NATIVE_DEPTH + FG_NM_JAVA_DEPTH + 1 + FG_MAX_RECOVERED_FRAMES;
    void *r = mmap(NULL, (size_t)FG_NM_ROOMS * (size_t)frames * (sizeof(ASGCT_CallFrame) + 1),
                   PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (r == MAP_FAILED)
      return snprintf(msg, len, "the memory for its walks was refused"), -1;
    m->room_frames = frames;
    m->rooms = r;
  }
  if (leak && !m->leaks.keys && fg_leak_table_init(&m->leaks, FG_LEAK_SLOTS) != 0)
    return snprintf(msg, len, "the memory for leak's table was refused"), -1;
  if (leak && !m->owners) {
    void *o = mmap(NULL, (size_t)FG_LEAK_SLOTS * sizeof *m->owners, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (o == MAP_FAILED)
      return snprintf(msg, len, "the memory for leak's table was refused"), -1;
    m->owners = o;
  }
  return 0;
}

static int count_loads(struct dl_phdr_info *info, size_t size, void *ctx)
{
  (void)size;
  *(uint64_t *)ctx = info->dlpi_adds;
  return 1;   /* the first object says it for all */
}

static uint64_t loads_so_far(void)
{
  uint64_t adds = 0;
  dl_iterate_phdr(count_loads, &adds);
  return adds;
}

static void reset_counts(struct fg_nm_counts *c)
{
  atomic_store(&c->taken, 0);
  atomic_store(&c->no_room, 0);
  atomic_store(&c->no_memory, 0);
  atomic_store(&c->full, 0);
  atomic_store(&c->lost_weight, 0);
  atomic_store(&c->below, 0);
}

int fg_native_mem_start(struct fg_agent *a, char *msg, size_t len)
{
  struct fg_native_mem *m = &fg_nm;
  const struct fg_options *o = &a->opts;
  msg[0] = '\0';
  if (!o->nativemem && !o->nativelock)
    return 0;
  char why[160];
  fg_nm_hooks_resolve();
  if (make_tables(m, o->leak, why, sizeof why) != 0) {
    snprintf(msg, len, "fgagent: %s is not recorded: %s", o->nativemem ? "nativemem" : "nativelock", why);
    return -1;
  }
  m->agent = a;
  fg_nm_queue_reset(&m->queue);
  reset_counts(&m->mem);
  reset_counts(&m->lock);
  if (o->leak) {
    fg_leak_table_reset(&m->leaks);
    memset(m->owners, 0, (size_t)FG_LEAK_SLOTS * sizeof *m->owners);
  }
  atomic_store(&m->leak_flush, 0);
  atomic_store(&m->frees_unrecorded, 0);
  atomic_store(&m->frees_late, 0);
  m->interval = o->nativemem_bytes;
  m->lock_ns = o->nativelock_ns;
  atomic_fetch_add(&m->session, 1);
  m->hook_kinds = (o->nativemem ? FG_NM_HOOK_MEM : 0) | (o->nativelock ? FG_NM_HOOK_LOCK : 0);
  m->loads_seen = loads_so_far();
  uint32_t slots = 0, foreign = 0, failed = 0;
  if (fg_nm_hooks_patch(FG_NM_PATCH_START, &slots, &foreign, &failed) != 0) {
    snprintf(msg, len, "fgagent: nativemem and nativelock are not recorded: malloc and free were not found");
    return -1;
  }
  /* on once every slot is patched: an allocation a hook records is freed
   * through a hook, whichever library frees it */
  atomic_store(&m->leak_on, o->nativemem && o->leak);
  atomic_store(&m->mem_on, o->nativemem);
  atomic_store(&m->lock_on, o->nativelock);
  m->patched_slots = slots;
  m->foreign_slots = foreign;
  m->patch_failed = failed;
  if (failed)
    snprintf(msg, len, "fgagent: %u import slots could not be made writable: the calls through them are not seen",
             failed);
  return failed ? -1 : 0;
}

void fg_native_mem_stop(struct fg_agent *a)
{
  (void)a;
  struct fg_native_mem *m = &fg_nm;
  if (!__atomic_load_n(&m->patched, __ATOMIC_ACQUIRE))
    return;
  int leak = atomic_load(&m->leak_on);
  atomic_store(&m->mem_on, 0);
  atomic_store(&m->lock_on, 0);
  atomic_store(&m->leak_on, 0);
  fg_nm_hooks_patch(FG_NM_PATCH_RESTORE, NULL, NULL, NULL);
  while (atomic_load(&m->inflight) > 0)   /* a sampled call between its check and its record */
    sched_yield();
  if (leak)
    atomic_store(&m->leak_flush, 1);
}

/* leak: an allocation (freed or not) into the profile's trail, with its address. */
static void add_trail(struct fg_drainer *d, const struct fg_nm_record *r, uintptr_t addr, uint32_t stack,
                      uint32_t thread)
{
  struct fg_native_trail *t = &d->profile->trail;
  if (!t->max)
    t->max = FG_NM_TRAIL_FREED;
  struct fg_native_trail_entry e = {r->time_ns, r->freed_ns, addr, r->weight, stack, thread};
  if (fg_native_trail_add(t, &e) != 0)
    t->dropped++;
}

/* One event into the profile under profile thread thread, counted in its kind's stats; its stack's index, or -1. */
static int64_t add_to_thread(struct fg_drainer *d, const struct fg_nm_record *r, uint32_t thread)
{
  struct fg_event_stats *es = fg_stats_event(&d->profile->stats, (enum fg_stack_event)r->event);
  int64_t idx = fg_trace_stack(&d->stacks, d->profile, thread, -1, r->trace, 0);
  if (idx < 0) {
    es->no_memory++;
    es->lost_weight += r->weight;
    return -1;
  }
  fg_profile_count(d->profile, (uint32_t)idx, r->weight, r->time_ns, 0);
  d->profile->stacks[idx].events += r->events;
  es->stored++;
  es->weight += r->weight;
  es->events += r->events;
  es->walked++;
  return idx;
}

/* leak: a sampled allocation freed before the end, into the trail alone (its
 * stack with no count of its own: not a leak). Under its tid when its
 * thread's record is another thread's by now. */
static void add_freed(struct fg_drainer *d, const struct fg_nm_record *r)
{
  uint32_t thread = r->thread && r->thread->serial == r->serial ? fg_drainer_profile_thread(d, r->thread)
                                                                : fg_drainer_unregistered_thread(d, r->tid);
  int64_t idx = fg_trace_stack(&d->stacks, d->profile, thread, -1, r->trace, 0);
  if (idx < 0)
    d->profile->trail.dropped++;
  else
    add_trail(d, r, r->addr, (uint32_t)idx, thread);
}

static void add_record(struct fg_drainer *d, const struct fg_nm_record *r)
{
  if (r->freed_ns) {
    add_freed(d, r);
    return;
  }
  if (r->thread && r->thread->serial != r->serial) {   /* the record was taken again by a new thread */
    struct fg_event_stats *es = fg_stats_event(&d->profile->stats, (enum fg_stack_event)r->event);
    es->no_thread++;
    es->lost_weight += r->weight;
    return;
  }
  add_to_thread(d, r, r->thread ? fg_drainer_profile_thread(d, r->thread) : fg_drainer_unregistered_thread(d, r->tid));
}

/* leak: each live address's thread named while its record is still its own. */
static void name_owner(void *ctx, uintptr_t addr, const struct fg_nm_record *r)
{
  struct fg_drainer *d = ctx;
  struct fg_native_mem *m = &fg_nm;
  uint32_t slot = (uint32_t)(r - m->leaks.records);
  struct fg_leak_owner *o = &m->owners[slot];
  if (o->addr == addr && o->serial == r->serial)
    return;
  if (r->thread && r->thread->serial == r->serial)
    *o = (struct fg_leak_owner){addr, r->serial, fg_drainer_profile_thread(d, r->thread)};
}

/* leak, at the end: an allocation not freed, under the thread that made it
 * (named while it lived; else by its tid: it ended before any pass saw it). */
static void add_leak(void *ctx, uintptr_t addr, const struct fg_nm_record *r)
{
  struct fg_drainer *d = ctx;
  struct fg_native_mem *m = &fg_nm;
  const struct fg_leak_owner *o = &m->owners[r - m->leaks.records];
  uint32_t thread = o->addr == addr && o->serial == r->serial                ? o->thread
                    : r->thread && r->thread->serial == r->serial ? fg_drainer_profile_thread(d, r->thread)
                                                                  : fg_drainer_unregistered_thread(d, r->tid);
  int64_t idx = add_to_thread(d, r, thread);
  if (idx >= 0)
    add_trail(d, r, addr, (uint32_t)idx, thread);
}

/* The hooks' counts since the last pass into the profile's accounting. */
static void take_counts(struct fg_event_stats *es, struct fg_nm_counts *c)
{
  es->taken += atomic_exchange(&c->taken, 0);
  uint64_t room = atomic_exchange(&c->no_room, 0), memory = atomic_exchange(&c->no_memory, 0);
  es->no_memory += room + memory;
  es->log_full += atomic_exchange(&c->full, 0);
  es->lost_weight += atomic_exchange(&c->lost_weight, 0);
  es->below += atomic_exchange(&c->below, 0);
}

void fg_native_mem_drain(struct fg_drainer *d)
{
  struct fg_native_mem *m = &fg_nm;
  if (!m->agent || !m->queue.slots)
    return;
  if (__atomic_load_n(&m->patched, __ATOMIC_ACQUIRE)) {   /* objects some dlopen loaded since */
    uint64_t adds = loads_so_far();
    if (adds != m->loads_seen) {
      m->loads_seen = adds;
      fg_nm_hooks_patch(FG_NM_PATCH_MORE, NULL, NULL, NULL);
    }
  }
  struct fg_stats *st = &d->profile->stats;
  struct fg_nm_record r;
  while (fg_nm_queue_pop(&m->queue, &r))
    add_record(d, &r);
  if (atomic_exchange(&m->leak_flush, 0))
    fg_leak_table_each(&m->leaks, add_leak, d);
  else if (atomic_load_explicit(&m->leak_on, memory_order_relaxed))
    fg_leak_table_each(&m->leaks, name_owner, d);
  take_counts(fg_stats_event(st, FG_STACK_NATIVEMEM), &m->mem);
  if (m->leaks.keys) {
    struct fg_event_stats *es = fg_stats_event(st, FG_STACK_NATIVEMEM);
    es->freed += atomic_exchange(&m->leaks.freed, 0);
    es->frees_queue_full += atomic_exchange(&m->frees_unrecorded, 0);   /* this profile's: loop= starts another */
    es->frees_unrecorded = es->frees_queue_full + d->profile->trail.dropped;
    es->frees_late += atomic_exchange(&m->frees_late, 0);
  }
  take_counts(fg_stats_event(st, FG_STACK_NATIVELOCK), &m->lock);
}
