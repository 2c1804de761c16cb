/* The SIGPROF handler, driven by raise() on a registered thread with a fake
 * AsyncGetCallTrace: what it asks for, what it stores, what it counts. */
#include "unit.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "fg/sample_record.h"
#include "jvmti/threads.h"
#include "sampling/sampler.h"
#include "sampling/wall/wall.h"
#include "hotspot/code_map.h"

#include <jvmticmlr.h>
#include <time.h>
#include <ucontext.h>

static struct fg_sampler sampler;
static struct fg_unregistered_threads unregistered;
static struct fg_registry registry;
static struct fg_code_map code;
static struct fg_jvm_thread_records jvm_records;
static struct fg_trace_table traces;
#define FRAMES (8 + 3 + 16)   /* depth 8, 16 native frames */
static JNIEnv *const fake_env = (JNIEnv *)0x1234;

/* What the fake walker returns next, and what it was asked. */
static int fake_frames;
static uintptr_t fake_base = 0x1000;   /* the leaf's method id; the caller's are the next ones */
static jint asked_depth;
static JNIEnv *asked_env;
/* when set, the fake fails with unknown_Java unless the context's pc is good_pc */
static uintptr_t good_pc;
static uintptr_t asked_pc;
/* the frame the fake gives at bci -1 (SynchronizationEntryBCI, as forte.cpp passes it on); -1: none */
static int fake_entry_frame = -1;
/* how long the fake walk burns CPU */
static uint64_t fake_spin_ns;

static uint64_t thread_cpu_ns(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void fake_asgct(ASGCT_CallTrace *trace, jint depth, void *ucontext)
{
  asked_pc = (uintptr_t)((ucontext_t *)ucontext)->uc_mcontext.gregs[REG_RIP];
  for (uint64_t until = thread_cpu_ns() + fake_spin_ns; fake_spin_ns && thread_cpu_ns() < until;)
    ;
  if (good_pc && asked_pc != good_pc) {
    trace->num_frames = FG_TICK_UNKNOWN_JAVA;
    return;
  }
  asked_depth = depth;
  asked_env = trace->env_id;
  errno = 7;   /* the handler must restore the interrupted code's errno */
  if (fake_frames <= 0) {
    trace->num_frames = fake_frames;
    return;
  }
  int n = fake_frames < depth ? fake_frames : depth;
  for (int i = 0; i < n; i++) {
    trace->frames[i].method_id = (jmethodID)(fake_base + (uintptr_t)i);
    trace->frames[i].lineno = i == fake_entry_frame ? -1 : i;
  }
  trace->num_frames = n;
}

static int setup(void **state)
{
  (void)state;
  memset(&sampler, 0, sizeof sampler);
  memset(&unregistered, 0, sizeof unregistered);
  fg_code_map_init(&code);
  good_pc = 0;
  fake_entry_frame = -1;
  fake_spin_ns = 0;
  fake_base = 0x1000;
  sampler.interval_ns = 1000000;
  sampler.walker = (struct fg_walker){.asgct = fake_asgct, .code = &code, .depth = 8, .recover = 1};
  sampler.unregistered = &unregistered;
  sampler.wake_fd = -1;
  fg_trace_table_init(&traces, 16, 65536, 0);
  sampler.traces = &traces;
  sampler.scratch_reserve = FRAMES - 8;
  fg_registry_init(&registry, 4096, FRAMES);
  int unregistered;
  fg_sampler_install(&sampler, &unregistered);
  return 0;
}

static int teardown(void **state)
{
  (void)state;
  fg_registry_detach(&registry, NULL);
  fg_sampler_shutdown(&sampler);
  fg_code_map_free(&code);
  fg_trace_table_destroy(&traces);
  return 0;
}

static const uint64_t *take_one(struct fg_thread *t)
{
  const uint64_t *rec = fg_ring_peek(&t->ring);
  assert_non_null(rec);
  return rec;
}

static void stores_a_walk_and_restores_errno(void **state)
{
  (void)state;
  struct fg_thread *t = fg_registry_attach(&registry, fake_env, 99, 0, "t");
  fake_frames = 5;
  errno = 42;
  raise(SIGPROF);
  assert_int_equal(errno, 42);
  assert_int_equal(asked_depth, 9);              /* depth + 1 */
  assert_ptr_equal(asked_env, fake_env);
  assert_int_equal(atomic_load(&t->taken), 1);
  /* the handler's time, or the walk left out as most likely switched out
   * (a busy host preempts the test in the handler now and then) */
  assert_true(atomic_load(&t->handler_ns) > 0 || atomic_load(&t->unproven) == 1);
  const uint64_t *rec = take_one(t);
  assert_int_equal(fg_sample_nframes(rec), 5);
  assert_int_equal(fg_sample_flags(rec) & 15u, 0);
  assert_int_equal(fg_sample_type(rec, 0), FG_FRAME_JAVA);
  assert_int_equal(fg_sample_serial(rec), t->serial);
  assert_ptr_equal(fg_sample_method(rec, 4), (jmethodID)(uintptr_t)0x1004);
  fg_ring_release(&t->ring, rec);
}

static void deeper_than_depth_is_cut_and_flagged(void **state)
{
  (void)state;
  struct fg_thread *t = fg_registry_attach(&registry, fake_env, 99, 0, "t");
  fake_frames = 100;
  raise(SIGPROF);
  const uint64_t *rec = take_one(t);
  assert_int_equal(fg_sample_nframes(rec), 8);
  assert_int_equal(fg_sample_flags(rec) & 15u, FG_SAMPLE_TRUNCATED);
  assert_ptr_equal(fg_sample_method(rec, 0), (jmethodID)(uintptr_t)0x1000);   /* leaf kept */
  fg_ring_release(&t->ring, rec);
  /* exactly depth frames is not truncated */
  fake_frames = 8;
  raise(SIGPROF);
  rec = take_one(t);
  assert_int_equal(fg_sample_flags(rec) & 15u, 0);
  fg_ring_release(&t->ring, rec);
}

static void tick_codes_are_stored(void **state)
{
  (void)state;
  struct fg_thread *t = fg_registry_attach(&registry, fake_env, 99, 0, "t");
  for (int tick = 0; tick >= -10; tick--) {
    fake_frames = tick;
    raise(SIGPROF);
    const uint64_t *rec = take_one(t);
    assert_int_equal(fg_sample_nframes(rec), 0);
    assert_true(fg_sample_flags(rec) & FG_SAMPLE_FAILED);
    assert_int_equal(fg_sample_tick(rec), tick);
    fg_ring_release(&t->ring, rec);
  }
}

/* A walk cut by the scratch's room, not by depth: marked truncated (not
 * budget-cut), and the thread asks for more; the bigger room the drainer
 * makes is taken at the next signal, the old one handed back. */
static void a_small_scratch_asks_for_a_bigger_one(void **state)
{
  (void)state;
  struct fg_thread *t = fg_registry_attach(&registry, fake_env, 99, 0, "t");
  fg_scratch_free(atomic_exchange(&t->scratch, fg_scratch_new(FRAMES - 4)));   /* room for 4 Java frames */
  fake_frames = 8;
  raise(SIGPROF);
  const uint64_t *rec = take_one(t);
  assert_int_equal(fg_sample_nframes(rec), 4);
  assert_int_equal(fg_sample_flags(rec) & (FG_SAMPLE_TRUNCATED | FG_SAMPLE_BUDGET), FG_SAMPLE_TRUNCATED);
  assert_ptr_equal(fg_sample_method(rec, 0), (jmethodID)(uintptr_t)0x1000);   /* leaf kept */
  fg_ring_release(&t->ring, rec);
  assert_int_equal(atomic_load(&t->scratch_short), 1);
  struct fg_scratch *small = atomic_load(&t->scratch), *big = fg_scratch_new(FRAMES);
  atomic_store(&t->bigger, big);
  raise(SIGPROF);
  rec = take_one(t);
  assert_int_equal(fg_sample_nframes(rec), 8);
  assert_int_equal(fg_sample_flags(rec) & FG_SAMPLE_TRUNCATED, 0);
  fg_ring_release(&t->ring, rec);
  assert_ptr_equal(atomic_load(&t->scratch), big);
  assert_ptr_equal(atomic_load(&t->retired), small);
  assert_null(atomic_load(&t->bigger));
}

/* Without waiting for the drainer: the signal after a walk cut by its room
 * takes one of the sampler's spare full-size rooms; a thread with a
 * full-size room takes none, and a room the drainer offers that is no
 * bigger is handed back unused. */
static void a_cut_walk_takes_a_spare_room_at_the_next_signal(void **state)
{
  (void)state;
  struct fg_thread *t = fg_registry_attach(&registry, fake_env, 99, 0, "t");
  fg_scratch_free(atomic_exchange(&t->scratch, fg_scratch_new(FRAMES - 4)));   /* room for 4 Java frames */
  struct fg_scratch *spare = fg_scratch_new(FRAMES), *other = fg_scratch_new(FRAMES);
  atomic_store(&sampler.spare_rooms[1], spare);
  atomic_store(&sampler.spare_rooms[2], other);
  fake_frames = 8;
  raise(SIGPROF);
  fg_ring_release(&t->ring, take_one(t));
  struct fg_scratch *small = atomic_load(&t->scratch);
  raise(SIGPROF);
  const uint64_t *rec = take_one(t);
  assert_int_equal(fg_sample_nframes(rec), 8);
  assert_int_equal(fg_sample_flags(rec) & FG_SAMPLE_TRUNCATED, 0);
  fg_ring_release(&t->ring, rec);
  assert_ptr_equal(atomic_load(&t->scratch), spare);
  assert_null(atomic_load(&sampler.spare_rooms[1]));
  assert_ptr_equal(atomic_load(&t->retired), small);
  fg_scratch_free(atomic_exchange(&t->retired, NULL));   /* the drainer's part */
  raise(SIGPROF);   /* scratch_short still set, but the room is full-size */
  fg_ring_release(&t->ring, take_one(t));
  assert_ptr_equal(atomic_load(&sampler.spare_rooms[2]), other);
  struct fg_scratch *late = fg_scratch_new(FRAMES - 2);   /* the drainer's, made before it saw the spare */
  atomic_store(&t->bigger, late);
  raise(SIGPROF);
  fg_ring_release(&t->ring, take_one(t));
  assert_ptr_equal(atomic_load(&t->scratch), spare);
  assert_ptr_equal(atomic_load(&t->retired), late);
  assert_null(atomic_load(&t->bigger));
  fg_scratch_free(atomic_exchange(&t->retired, NULL));
  fg_scratch_free(atomic_exchange(&sampler.spare_rooms[2], NULL));
}

/* loop='s switch: while paused a signal only counts itself, then sampling goes on. */
static void a_paused_sampler_only_counts_signals(void **state)
{
  (void)state;
  struct fg_thread *t = fg_registry_attach(&registry, fake_env, 99, 0, "t");
  fake_frames = 3;
  fg_sampler_pause(&sampler);
  raise(SIGPROF);
  assert_null(fg_ring_peek(&t->ring));
  assert_int_equal(atomic_load(&t->taken), 0);
  assert_int_equal(atomic_load(&sampler.paused), 1);
  fg_sampler_resume(&sampler);
  raise(SIGPROF);
  const uint64_t *rec = take_one(t);
  assert_int_equal(fg_sample_nframes(rec), 3);
  assert_int_equal(atomic_load(&t->taken), 1);
  fg_ring_release(&t->ring, rec);
}

/* event=wall: the signal's number is handed back as taken, and the ticks the
 * wall sampler added while it was pending go into its sample's weight. */
static void a_wall_sample_takes_the_ticks_its_signal_was_pending(void **state)
{
  (void)state;
  struct fg_thread *t = fg_registry_attach(&registry, fake_env, 99, 0, "t");
  atomic_store(&t->wall_state, FG_STATE_RUNNABLE);
  atomic_store(&t->wall_signalled, 7);
  atomic_store(&t->wall_owed, 3);
  fake_frames = 4;
  raise(SIGPROF);
  const uint64_t *rec = take_one(t);
  assert_int_equal(fg_sample_weight(rec), 4);
  assert_int_equal(fg_sample_state(rec), FG_STATE_RUNNABLE);
  assert_int_equal(atomic_load(&t->wall_owed), 0);
  assert_int_equal(atomic_load(&t->wall_handled), 7);
  fg_ring_release(&t->ring, rec);
}

/* event=wall: a sample's stack is kept for the wall sampler to count again
 * while the thread stays idle, only when that stack is whole and in the ring. */
static void a_wall_sample_keeps_its_stack_for_repeats_only_when_whole_and_stored(void **state)
{
  (void)state;
  struct fg_thread *t = fg_registry_attach(&registry, fake_env, 99, 0, "t");
  atomic_store(&t->wall_state, FG_STATE_SLEEPING);
  fake_frames = 4;
  raise(SIGPROF);
  const uint64_t *rec = take_one(t);
  assert_ptr_equal(atomic_load(&t->wall_trace), fg_sample_trace(rec));
  assert_int_equal(fg_sample_state(rec), FG_STATE_SLEEPING);
  assert_true(atomic_load(&t->cpu_at_sample) > 0);
  fg_ring_release(&t->ring, rec);

  fg_scratch_free(atomic_exchange(&t->scratch, fg_scratch_new(FRAMES - 6)));   /* room for 2 Java frames */
  raise(SIGPROF);   /* cut by the room: walked again at the next look, not counted again as cut */
  rec = take_one(t);
  assert_int_equal(fg_sample_nframes(rec), 2);
  assert_null(atomic_load(&t->wall_trace));
  fg_ring_release(&t->ring, rec);

  fg_scratch_free(atomic_exchange(&t->scratch, fg_scratch_new(FRAMES)));
  for (int i = 0; i < 102; i++)   /* fills the ring */
    raise(SIGPROF);
  assert_non_null(atomic_load(&t->wall_trace));
  raise(SIGPROF);   /* into an overflow slot: no record for the drainer to count again */
  assert_int_equal(atomic_load(&t->overflow[0].weight), 1);
  assert_null(atomic_load(&t->wall_trace));
}

/* A full ring: samples go on into the overflow slots, one per distinct
 * stack; past those they are overruns. */
static void full_ring_overflows_then_overruns(void **state)
{
  (void)state;
  struct fg_thread *t = fg_registry_attach(&registry, fake_env, 99, 0, "t");
  fake_frames = 8;   /* five words a sample: a 512-word ring holds 102 */
  uint64_t before = atomic_load(&t->taken);
  for (int i = 0; i < 150; i++)
    raise(SIGPROF);
  assert_int_equal(atomic_load(&t->taken) - before, 150);
  assert_int_equal(atomic_load(&t->overruns), 0);
  assert_int_equal(atomic_load(&t->overflow[0].weight), 48);
  for (int i = 0; i < FG_OVERFLOW_SLOTS + 8; i++) {   /* distinct stacks: 31 more slots, then 9 lost */
    fake_base = 0x2000 + 0x100 * (uintptr_t)i;
    raise(SIGPROF);
  }
  assert_int_equal(atomic_load(&t->overruns), 9);
  for (int i = 1; i < FG_OVERFLOW_SLOTS; i++)
    assert_int_equal(atomic_load(&t->overflow[i].weight), 1);
  int stored = 0;
  const uint64_t *rec;
  while ((rec = fg_ring_peek(&t->ring)) != NULL) {
    stored++;
    fg_ring_release(&t->ring, rec);
  }
  assert_int_equal(stored, 102);
}

static void unregistered_thread_is_counted_by_tid(void **state)
{
  (void)state;
  fg_registry_detach(&registry, NULL);
  raise(SIGPROF);
  raise(SIGPROF);
  assert_int_equal(atomic_load(&sampler.unregistered_taken), 2);
  int tid = (int)syscall(SYS_gettid);
  uint64_t count = 0;
  for (int i = 0; i < FG_UNREGISTERED_SLOTS; i++)
    if (atomic_load(&unregistered.slots[i].tid) == tid)
      count += atomic_load(&unregistered.slots[i].count);
  assert_int_equal(count, 2);
}

static void after_shutdown_signals_are_ignored(void **state)
{
  (void)state;
  struct fg_thread *t = fg_registry_attach(&registry, fake_env, 99, 0, "t");
  fg_sampler_shutdown(&sampler);
  struct sigaction now;
  sigaction(SIGPROF, NULL, &now);
  assert_ptr_equal(now.sa_handler, SIG_IGN);   /* never SIG_DFL: that kills the JVM */
  raise(SIGPROF);                               /* survives */
  assert_int_equal(atomic_load(&t->taken), 0);
}

static void native_frames_come_first_and_a_cut_is_flagged(void **state)
{
  (void)state;
  struct fg_thread *t = fg_registry_attach(&registry, fake_env, 99, 0, "t");
  sampler.walker.native_depth = 16;
  fake_frames = 2;
  raise(SIGPROF);
  const uint64_t *rec = take_one(t);
  uint32_t n = fg_sample_nframes(rec);
  assert_true(n >= 3);   /* raise's own native frames, then the two Java ones */
  assert_int_equal(fg_sample_type(rec, 0), FG_FRAME_NATIVE_PC);
  assert_int_equal(fg_sample_type(rec, n - 2), FG_FRAME_JAVA);
  assert_ptr_equal(fg_sample_method(rec, n - 1), (jmethodID)(uintptr_t)0x1001);
  /* no code cache here, so the native walk never reaches Java: said so */
  assert_true(fg_sample_flags(rec) & FG_SAMPLE_NATIVE_CUT);
  fg_ring_release(&t->ring, rec);
}

static void thread_without_env_keeps_native_frames_in_a_pool_record(void **state)
{
  (void)state;
  fg_registry_detach(&registry, NULL);
  assert_int_equal(fg_jvm_thread_records_init(&jvm_records, 2, 4096, FRAMES), 0);
  sampler.jvm_records = &jvm_records;
  sampler.walker.native_depth = 16;
  raise(SIGPROF);
  struct fg_thread *t = fg_current_thread;
  assert_non_null(t);
  assert_int_equal(t->tid, (int)syscall(SYS_gettid));
  assert_int_equal(atomic_load(&t->state), FG_THREAD_LIVE);
  const uint64_t *rec = take_one(t);
  assert_true(fg_sample_nframes(rec) >= 1);
  assert_true(fg_sample_flags(rec) & FG_SAMPLE_FAILED);
  assert_int_equal(fg_sample_tick(rec), FG_TICK_NO_JAVA_FRAME);
  assert_int_equal(fg_sample_type(rec, 0), FG_FRAME_NATIVE_PC);
  fg_ring_release(&t->ring, rec);
  assert_int_equal(atomic_load(&sampler.unregistered_taken), 0);
  fg_current_thread = NULL;
  sampler.jvm_records = NULL;
}

/* A frame HotSpot's ASGCT gives up on: pc inside a stub that begins with
 * push rbp; mov rbp, rsp. The walker pops it through rbp and retries from
 * inside the caller's call instruction. */
static void a_stub_frame_is_popped_and_the_walk_retried(void **state)
{
  (void)state;
  static uint8_t stub[64];
  memset(stub, 0x90, sizeof stub);
  memcpy(stub, "\x55\x48\x89\xe5", 4);
  fg_code_map_add_stub(&code, "jint_arraycopy", stub, sizeof stub);
  static uint8_t caller[64];
  fg_code_map_add_stub(&code, "caller", caller, sizeof caller);
  uintptr_t ret = (uintptr_t)caller + 20;
  uintptr_t stack[16] = {0};
  stack[4] = 0xdead;   /* the caller's rbp, saved by the stub */
  stack[5] = ret;      /* the return address into the caller */
  ucontext_t uc;
  memset(&uc, 0, sizeof uc);
  uc.uc_mcontext.gregs[REG_RIP] = (greg_t)(uintptr_t)(stub + 10);
  uc.uc_mcontext.gregs[REG_RSP] = (greg_t)(uintptr_t)&stack[2];
  uc.uc_mcontext.gregs[REG_RBP] = (greg_t)(uintptr_t)&stack[4];
  good_pc = ret - 1;
  fake_frames = 2;
  ASGCT_CallFrame frames[FRAMES];
  uint8_t types[FRAMES];
  struct fg_walk w = fg_walk_stack(&sampler.walker, 0, UINT64_MAX, fake_env, &uc, (uintptr_t)stack,
                                   (uintptr_t)(stack + 16), NULL, frames, types);
  assert_int_equal(w.n, 3);
  assert_int_equal(w.flags, FG_SAMPLE_RECOVERED);
  assert_int_equal(types[0], FG_FRAME_STUB);
  assert_string_equal(((const struct fg_code_blob *)(uintptr_t)frames[0].method_id)->name, "jint_arraycopy");
  assert_ptr_equal(frames[1].method_id, (jmethodID)(uintptr_t)0x1000);

  /* with recovery off, or a saved rbp outside the stack, the failure stays */
  sampler.walker.recover = 0;
  w = fg_walk_stack(&sampler.walker, 0, UINT64_MAX, fake_env, &uc, (uintptr_t)stack, (uintptr_t)(stack + 16), NULL, frames, types);
  assert_int_equal(w.flags, FG_SAMPLE_FAILED);
  assert_int_equal(w.tick, FG_TICK_UNKNOWN_JAVA);
  sampler.walker.recover = 1;
  w = fg_walk_stack(&sampler.walker, 0, UINT64_MAX, fake_env, &uc, (uintptr_t)stack, (uintptr_t)(stack + 4), NULL, frames, types);
  assert_int_equal(w.flags, FG_SAMPLE_FAILED);
  assert_int_equal(w.n, 1);   /* only the stub the pc is in, named under the tick frame */
  assert_int_equal(types[0], FG_FRAME_STUB);
  assert_string_equal(((const struct fg_code_blob *)(uintptr_t)frames[0].method_id)->name, "jint_arraycopy");
}

/* AsyncGetCallTrace names a frame in an OSR method's entry by the first
 * debug record after its pc, another place's (C1's synchronization entry
 * at bci -1 among them): the walker gives the method its entry bci there
 * (osr_entry.h), and leaves any other pc's frame as it was. */
static void an_osr_entry_frame_from_asgct_gets_its_entry_bci(void **state)
{
  (void)state;
  static uint8_t method[256];
  memset(method, 0x90, sizeof method);
  fg_code_map_add_method(&code, (jmethodID)(uintptr_t)0x1000, method, sizeof method, NULL,
                         &(struct fg_deopt_sites){.orig_pc = -1, .osr_entry = 100, .osr_return = 141, .entry_bci = 27},
                         NULL);
  uintptr_t stack[16] = {0};
  ucontext_t uc;
  memset(&uc, 0, sizeof uc);
  uc.uc_mcontext.gregs[REG_RIP] = (greg_t)(uintptr_t)(method + 141);
  uc.uc_mcontext.gregs[REG_RSP] = (greg_t)(uintptr_t)&stack[2];
  fake_frames = 2;
  ASGCT_CallFrame frames[FRAMES];
  uint8_t types[FRAMES];
  struct fg_walk w = fg_walk_stack(&sampler.walker, 0, UINT64_MAX, fake_env, &uc, (uintptr_t)stack,
                                   (uintptr_t)(stack + 16), NULL, frames, types);
  assert_int_equal(w.n, 2);
  assert_ptr_equal(frames[0].method_id, (jmethodID)(uintptr_t)0x1000);
  assert_int_equal(frames[0].lineno, 27);
  assert_int_equal(frames[1].lineno, 1);
  uc.uc_mcontext.gregs[REG_RIP] = (greg_t)(uintptr_t)(method + 142);   /* past the call */
  w = fg_walk_stack(&sampler.walker, 0, UINT64_MAX, fake_env, &uc, (uintptr_t)stack, (uintptr_t)(stack + 16), NULL,
                    frames, types);
  assert_int_equal(w.n, 2);
  assert_int_equal(frames[0].lineno, 0);
  fake_base = 0x2000;                                                   /* another method's frame first */
  uc.uc_mcontext.gregs[REG_RIP] = (greg_t)(uintptr_t)(method + 141);
  w = fg_walk_stack(&sampler.walker, 0, UINT64_MAX, fake_env, &uc, (uintptr_t)stack, (uintptr_t)(stack + 16), NULL,
                    frames, types);
  assert_int_equal(frames[0].lineno, 0);
}

/* AsyncGetCallTrace passes a frame's raw bci -1 on (a record at a
 * method's entry: C1's counter_overflow call, a synchronized method's
 * monitorenter); HotSpot's own frames, and the walker, name it 0. */
static void an_entry_record_from_asgct_is_bci_0(void **state)
{
  (void)state;
  uintptr_t stack[16] = {0};
  ucontext_t uc;
  memset(&uc, 0, sizeof uc);
  uc.uc_mcontext.gregs[REG_RSP] = (greg_t)(uintptr_t)&stack[2];
  fake_frames = 3;
  fake_entry_frame = 1;
  ASGCT_CallFrame frames[FRAMES];
  uint8_t types[FRAMES];
  struct fg_walk w = fg_walk_stack(&sampler.walker, 0, UINT64_MAX, fake_env, &uc, (uintptr_t)stack,
                                   (uintptr_t)(stack + 16), NULL, frames, types);
  assert_int_equal(w.n, 3);
  assert_int_equal(frames[0].lineno, 0);
  assert_int_equal(frames[1].lineno, 0);
  assert_int_equal(frames[2].lineno, 2);
}

/* A walk that costs more than its share of the interval: the thread skips the
 * signals after it, and the next sample carries them as its weight. */
static void a_costly_walk_is_followed_by_skipped_signals(void **state)
{
  (void)state;
  struct fg_thread *t = fg_registry_attach(&registry, fake_env, 99, 0, "t");
  fake_frames = 2;
  fake_spin_ns = 2000000;   /* 2 ms a walk at 1 ms */
  raise(SIGPROF);           /* slow on the wall clock: the next walk is timed on the CPU clock */
  raise(SIGPROF);           /* proven, the first: judged with none before, nothing skipped */
  assert_int_equal(t->backoff.skip_left, 0);
  raise(SIGPROF);           /* proven again: 19 x 2 ms of quiet, 37 signals or a few more skipped */
  uint32_t skip = t->backoff.skip_left;
  assert_in_range(skip, 37, 40);
  fake_spin_ns = 0;
  for (uint32_t i = 0; i < skip; i++)
    raise(SIGPROF);
  assert_int_equal(atomic_load(&t->skipped), skip);
  raise(SIGPROF);
  assert_int_equal(atomic_load(&t->taken), 4 + skip);
  uint64_t weights[4] = {0}, n = 0;
  const uint64_t *rec;
  while ((rec = fg_ring_peek(&t->ring)) != NULL) {
    assert_true(n < 4);
    weights[n++] = fg_sample_weight(rec);
    fg_ring_release(&t->ring, rec);
  }
  assert_int_equal(n, 4);
  assert_int_equal(weights[0], 1);
  assert_int_equal(weights[1], 1);
  assert_int_equal(weights[2], 1);
  assert_int_equal(weights[3], 1 + skip);   /* itself and the signals it followed */
  assert_int_equal(weights[0] + weights[1] + weights[2] + weights[3], atomic_load(&t->taken));
}

/* A stub called from a compiled method whose debug record at the call holds
 * more inlined frames than AsyncGetCallTrace gave: the frames come from the
 * call's own record, the first at or after the return address (C2 records an
 * instruction's scopes where it ends), not the record of the instruction
 * before the call; and the frames added are Java frames, whatever an earlier
 * walk left in the thread's type buffer (a stale FG_FRAME_STUB there once
 * printed a jmethodID's bytes as a name). */
static void frames_taken_from_the_call_record_are_java(void **state)
{
  (void)state;
  static uint8_t stub[64];
  memset(stub, 0x90, sizeof stub);
  fg_code_map_add_stub(&code, "jbyte_disjoint_arraycopy", stub, sizeof stub);
  static uint8_t method[64];
  uintptr_t ret = (uintptr_t)method + 20;
  /* before the call (pc 15): delete inlined into the method (0x1000); the call's record,
   * written where C2 ended the call's node (pc 23, past the return address at 20): shift
   * inlined into delete inlined into the method. No record sits at the return address. */
  struct {
    jvmtiCompiledMethodLoadInlineRecord r;
    PCStackInfo pc[2];
    jmethodID before[2], methods[3];
    jint bcis[3];
  } info;
  memset(&info, 0, sizeof info);
  info.r.header.kind = JVMTI_CMLR_INLINE_INFO;
  info.r.header.majorinfoversion = JVMTI_CMLR_MAJOR_VERSION;
  info.r.numpcs = 2;
  info.r.pcinfo = info.pc;
  info.before[0] = (jmethodID)(uintptr_t)0x2001;
  info.before[1] = (jmethodID)(uintptr_t)0x1000;
  info.methods[0] = (jmethodID)(uintptr_t)0x2002;
  info.methods[1] = (jmethodID)(uintptr_t)0x2001;
  info.methods[2] = (jmethodID)(uintptr_t)0x1000;
  info.pc[0] = (PCStackInfo){(void *)(ret - 5), 2, info.before, info.bcis};
  info.pc[1] = (PCStackInfo){(void *)(ret + 3), 3, info.methods, info.bcis};
  fg_code_map_add_method(&code, (jmethodID)(uintptr_t)0x1000, method, sizeof method, &info, NULL, NULL);
  uintptr_t stack[16] = {0};
  stack[2] = ret;   /* the stub is frameless: the return address on top */
  ucontext_t uc;
  memset(&uc, 0, sizeof uc);
  uc.uc_mcontext.gregs[REG_RIP] = (greg_t)(uintptr_t)stub;
  uc.uc_mcontext.gregs[REG_RSP] = (greg_t)(uintptr_t)&stack[2];
  good_pc = ret - 1;
  fake_frames = 2;   /* ASGCT: the method (0x1000), its caller (0x1001) */
  ASGCT_CallFrame frames[FRAMES];
  uint8_t types[FRAMES];
  memset(types, FG_FRAME_STUB, sizeof types);   /* what an earlier walk left */
  struct fg_walk w = fg_walk_stack(&sampler.walker, 0, UINT64_MAX, fake_env, &uc, (uintptr_t)stack,
                                   (uintptr_t)(stack + 16), NULL, frames, types);
  assert_int_equal(w.n, 5);
  assert_int_equal(types[0], FG_FRAME_STUB);
  static const uintptr_t want[] = {0x2002, 0x2001, 0x1000, 0x1001};
  for (int i = 0; i < 4; i++) {
    assert_ptr_equal(frames[1 + i].method_id, (jmethodID)want[i]);
    assert_int_equal(types[1 + i], FG_FRAME_JAVA);
  }
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test_setup_teardown(stores_a_walk_and_restores_errno, setup, teardown),
    cmocka_unit_test_setup_teardown(deeper_than_depth_is_cut_and_flagged, setup, teardown),
    cmocka_unit_test_setup_teardown(tick_codes_are_stored, setup, teardown),
    cmocka_unit_test_setup_teardown(full_ring_overflows_then_overruns, setup, teardown),
    cmocka_unit_test_setup_teardown(a_small_scratch_asks_for_a_bigger_one, setup, teardown),
    cmocka_unit_test_setup_teardown(a_cut_walk_takes_a_spare_room_at_the_next_signal, setup, teardown),
    cmocka_unit_test_setup_teardown(a_wall_sample_keeps_its_stack_for_repeats_only_when_whole_and_stored, setup,
                                    teardown),
    cmocka_unit_test_setup_teardown(a_wall_sample_takes_the_ticks_its_signal_was_pending, setup, teardown),
    cmocka_unit_test_setup_teardown(a_paused_sampler_only_counts_signals, setup, teardown),
    cmocka_unit_test_setup_teardown(unregistered_thread_is_counted_by_tid, setup, teardown),
    cmocka_unit_test_setup_teardown(after_shutdown_signals_are_ignored, setup, teardown),
    cmocka_unit_test_setup_teardown(native_frames_come_first_and_a_cut_is_flagged, setup, teardown),
    cmocka_unit_test_setup_teardown(thread_without_env_keeps_native_frames_in_a_pool_record, setup, teardown),
    cmocka_unit_test_setup_teardown(a_stub_frame_is_popped_and_the_walk_retried, setup, teardown),
    cmocka_unit_test_setup_teardown(an_osr_entry_frame_from_asgct_gets_its_entry_bci, setup, teardown),
    cmocka_unit_test_setup_teardown(an_entry_record_from_asgct_is_bci_0, setup, teardown),
    cmocka_unit_test_setup_teardown(a_costly_walk_is_followed_by_skipped_signals, setup, teardown),
    cmocka_unit_test_setup_teardown(frames_taken_from_the_call_record_are_java, setup, teardown),
  };
  return cmocka_run_group_tests_name("handler", tests, NULL, NULL);
}
