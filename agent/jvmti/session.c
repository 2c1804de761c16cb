/* A profiling session: sampling starts at VMInit (or an attach start) and
 * stops at VMDeath (or an attach stop), where the last samples are drained
 * and every output and the summary written. Who may call what, and when:
 * session_state.c. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "jvmti/agent.h"
#include "jvmti/thread_class.h"
#include "fg/event_kinds.h"
#include "fg/clock.h"
#include "fg/output.h"
#include "fg/utf8.h"
#include "sampling/signal/handler_parts.h"
#include "hotspot/vm_structs.h"
#include "java_events/java_events.h"
#include "native_mem/native_mem.h"

/* How often the unwind tables look for libraries loaded since (besides a
 * walk's wake-up when it meets a pc in none): one dl_iterate_phdr call */
#define UNWIND_REFRESH_NS 50000000ull

static int current_tid(void)
{
  return (int)syscall(SYS_gettid);
}

void fg_session_thread_name(struct fg_agent *a, JNIEnv *jni, jthread thread, char *buf, size_t len)
{
  jvmtiThreadInfo info;
  memset(&info, 0, sizeof info);
  buf[0] = '\0';
  if ((*a->jvmti)->GetThreadInfo(a->jvmti, thread, &info) != JVMTI_ERROR_NONE)
    return;
  fg_utf8_copy(buf, len, info.name ? info.name : "");
  if (info.name)
    (*a->jvmti)->Deallocate(a->jvmti, (unsigned char *)info.name);
  if (info.thread_group)
    (*jni)->DeleteLocalRef(jni, info.thread_group);
  if (info.context_class_loader)
    (*jni)->DeleteLocalRef(jni, info.context_class_loader);
}

int64_t fg_session_java_thread_id(JNIEnv *jni, jthread thread)
{
  /* The field Thread.getId() and threadId() return (private final long tid
   * on JDK 17 to 25), read, never the method: getId() is not final, and a
   * subclass's override (it may lock, log, load classes or throw) would run
   * inside our callback. java.lang.Thread is never unloaded, so its
   * jfieldID is looked up once for every thread's start, on any thread. */
  static _Atomic(jfieldID) tid_field;
  jfieldID f = atomic_load(&tid_field);
  if (!f) {
    jclass cls = fg_thread_class(jni, thread);
    f = cls ? (*jni)->GetFieldID(jni, cls, "tid", "J") : NULL;
    if (cls)
      (*jni)->DeleteLocalRef(jni, cls);
    if ((*jni)->ExceptionCheck(jni))   /* a JDK without the field: no id, as before a thread has one */
      (*jni)->ExceptionClear(jni);
    atomic_store(&tid_field, f);
  }
  return f ? (int64_t)(*jni)->GetLongField(jni, thread, f) : 0;
}

void fg_session_attach_thread(struct fg_agent *a, JNIEnv *jni, jthread thread)
{
  struct fg_thread *t = fg_current_thread;
  if (t && t->env == jni)
    return;
  if (a->drainer.thread && (*jni)->IsSameObject(jni, thread, a->drainer.thread))
    return;   /* fgagent's own thread is never sampled */
  char name[256];
  fg_session_thread_name(a, jni, thread, name, sizeof name);
  int tid = current_tid();
  struct fg_thread *rec = fg_registry_attach(&a->registry, jni, tid, fg_session_java_thread_id(jni, thread), name);
  if (rec) {
    rec->cpu_base_ns = fg_clock_ns(CLOCK_THREAD_CPUTIME_ID);
    rec->cpu_base_session = a->timer.starts;
    fg_timer_thread_start(&a->timer, tid);
    for (int k = 0; k < FG_KERNEL_EVENTS_MAX; k++)
      fg_kevents_thread_start(&a->kevents[k], tid);
    fg_sched_thread_start(&a->sched, tid, name);
  }
}

/* A thread on a POSIX CPU timer, its timer just deleted: the intervals of
 * CPU it ran since its last signal (the timer fires only at the kernel's
 * tick, so up to a tick's worth, or more for a thread that ran in short
 * bursts between ticks), left for the drainer to store with its last
 * sample. They are what its CPU clock says it should have had since it
 * registered in this session, less what its signals stood for. SIGPROF is
 * blocked meanwhile: a signal already pending counts itself. */
static void settle_timer_tail(struct fg_agent *a, struct fg_thread *t)
{
  /* a start may be replacing a->opts (agent.h): read whole under its lock, never a torn mix of two */
  pthread_mutex_lock(&a->opts_lock);
  uint64_t loop_ns = a->opts.loop_ns, interval_ns = a->opts.interval_ns;
  pthread_mutex_unlock(&a->opts_lock);
  if (!t || t->cpu_base_session != a->timer.starts || loop_ns || !interval_ns)
    return;   /* registered in another session, or paused between loop='s intervals: no clock to count from */
  sigset_t prof, old;
  sigemptyset(&prof);
  sigaddset(&prof, SIGPROF);
  pthread_sigmask(SIG_BLOCK, &prof, &old);
  uint64_t cpu = fg_clock_ns(CLOCK_THREAD_CPUTIME_ID);
  uint64_t due = cpu > t->cpu_base_ns ? (cpu - t->cpu_base_ns) / interval_ns : 0;
  uint64_t had = atomic_load(&t->taken) + atomic_load(&t->folded);
  if (due > had)
    atomic_store(&t->tail, due - had);
  pthread_sigmask(SIG_SETMASK, &old, NULL);
}

void fg_session_detach_thread(struct fg_agent *a, JNIEnv *jni, jthread thread)
{
  /* a thread running before attach: out of the table, so that no later
   * thread whose JNIEnv lands at the same address finds its record */
  struct fg_thread *late = a->sampler.prior ? fg_prior_threads_remove(&a->prior, jni) : NULL;
  if (!fg_current_thread) {
    if (late) {   /* it ended before its handler ever took the record (walker=copy: none does) */
      fg_copy_engine_thread_end(&a->copy_engine, current_tid());
      fg_registry_end_other(&a->registry, late);
    }
    return;
  }
  char name[256];
  fg_session_thread_name(a, jni, thread, name, sizeof name);
  fg_copy_engine_thread_end(&a->copy_engine, current_tid());   /* walker=copy: its last samples */
  if (fg_timer_thread_end(&a->timer, current_tid()))
    settle_timer_tail(a, fg_current_thread);
  for (int k = 0; k < FG_KERNEL_EVENTS_MAX; k++)
    fg_kevents_thread_end(&a->kevents[k], current_tid());
  fg_sched_thread_end(&a->sched, current_tid(), name);
  fg_registry_detach(&a->registry, name);
}

/* The events this session records, FG_STACK_* in order; their count. */
static int session_events(const struct fg_agent *a, enum fg_stack_event events[FG_STACK_EVENTS])
{
  int n = 0;
  if (a->cpu_sampling)
    events[n++] = FG_STACK_CPU;
  if (a->alloc_on)
    events[n++] = FG_STACK_ALLOC;
  if (a->lock_on)
    events[n++] = FG_STACK_LOCK;
  if (a->nativemem_on)
    events[n++] = FG_STACK_NATIVEMEM;
  if (a->nativelock_on)
    events[n++] = FG_STACK_NATIVELOCK;
  if (a->live_on)
    events[n++] = FG_STACK_LIVE;
  for (int k = 0; k < FG_KERNEL_EVENTS_MAX; k++)
    if (a->kevents[k].on)
      events[n++] = (enum fg_stack_event)(FG_STACK_KERNEL + k);
  return n;
}

/* Event e's name as %e has it: the sampled event's as this session's
 * timer has it; a kernel event's "kernel" when it is the session's one,
 * else its own (fg_event_file_name). */
static void session_event_name(const struct fg_agent *a, enum fg_stack_event e, char *out, size_t len)
{
  int k = fg_stack_kernel_index(e);
  if (k >= 0 && a->kevent_on > 1)
    fg_kevent_file_name(a->kevents[k].spec.name, out, len);
  else if (e != FG_STACK_CPU)
    snprintf(out, len, "%s", fg_stack_event_name(e));
  else
    snprintf(out, len, "%s", a->timer.event == FG_EVENT_WALL ? "wall" : a->timer.event == FG_EVENT_ITIMER ? "itimer"
                                                                                                       : "cpu");
}

/* The name %e takes in a file= (one event) or log= (every event, joined by '-'). */
static void event_names(const struct fg_agent *a, const enum fg_stack_event *events, int n, char *out, size_t len)
{
  size_t at = 0;
  out[0] = '\0';
  for (int i = 0; i < n && at < len; i++) {
    char name[FG_KEVENT_NAME_MAX];
    session_event_name(a, events[i], name, sizeof name);
    at += (size_t)snprintf(out + at, len - at, "%s%s", i ? "-" : "", name);
  }
}

static FILE *open_log(struct fg_agent *a)
{
  if (!a->opts.log[0])
    return stderr;
  char path[4096], why[1100];
  struct fg_output_target t;
  FILE *f = NULL;
  enum fg_stack_event events[FG_STACK_EVENTS];
  char names[1400];
  event_names(a, events, session_events(a, events), names, sizeof names);
  if (fg_expand_event_path(a->opts.log, getpid(), a->start_time, a->seq, names, path, sizeof path) == 0 &&
      fg_output_target(path, &t, why, sizeof why) == 0) {
    /* a FIFO nobody reads fails here; a file is never opened through a link someone planted */
    int fd = t.in_place ? fg_output_open_in_place(t.path)
                        : open(t.path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0666);
    f = fd >= 0 ? fdopen(fd, t.in_place ? "a" : "w") : NULL;
    if (!f && fd >= 0)
      close(fd);
  }
  if (!f)
    fprintf(stderr, "fgagent: cannot write log '%s'; the summary goes to stderr\n", a->opts.log);
  return f ? f : stderr;
}

long fg_session_env_offset(JNIEnv *jni, jthread thread)
{
  jclass cls = fg_thread_class(jni, thread);
  jfieldID eetop = cls ? (*jni)->GetFieldID(jni, cls, "eetop", "J") : NULL;
  if (cls)
    (*jni)->DeleteLocalRef(jni, cls);
  if (!eetop) {
    (*jni)->ExceptionClear(jni);
    return -1;
  }
  jlong vm_thread = (*jni)->GetLongField(jni, thread, eetop);
  long off = (long)((intptr_t)jni - (intptr_t)vm_thread);
  return vm_thread && off > 0 && off < 65536 ? off : -1;
}

/* The walker the session falls back to: a->opts is written under its lock (agent.h). */
static void set_walker(struct fg_agent *a, enum fg_walker_kind walker)
{
  pthread_mutex_lock(&a->opts_lock);
  a->opts.walker = walker;
  pthread_mutex_unlock(&a->opts_lock);
}

/* walker=vm: the VM's offsets, and the method map filled from here on
 * (ClassPrepare) and for the classes already loaded (the caller's preload).
 * Without them AsyncGetCallTrace walks alone, and the summary says why. */
static void start_vm_walker(struct fg_agent *a, long env)
{
  struct fg_stats *s = &a->profile.stats;
  if (!fg_options_vm_walker(&a->opts)) {
    atomic_store(&a->vm_methods, 0);   /* a session before this one may have left it on */
    a->sampler.walker.use_vm = 0;
    fg_symbols_free(a->jvm_symbols);   /* a later session with walker=vm reads its own */
    a->jvm_symbols = NULL;
    snprintf(s->walker, sizeof s->walker, "asgct");
    return;
  }
  const char *name = a->opts.walker == FG_WALKER_COPY ? "copy" : "vm";
  char why[120];
  /* Read once for the process: the JVM's layout does not change, and a
   * ClassPrepare of a thread still running (a shutdown hook's class, while
   * a start races the exit) may be reading a->vm from the last session:
   * read again it would be zeroed under that reader. Agent_OnLoad's (or
   * the attach's) table, or one read now for a first walker=vm session. */
  int failed = 0;
  if (!a->vm.known) {
    struct fg_symbols *jvm = a->jvm_symbols ? a->jvm_symbols : fg_symbols_new();
    failed = fg_vm_offsets_read(&a->vm, env, jvm, why, sizeof why);
    fg_symbols_free(jvm);
  } else {
    fg_symbols_free(a->jvm_symbols);
  }
  a->jvm_symbols = NULL;
  if (failed) {   /* off, as a session before this one may have left it on: the map's fill needs resolve */
    atomic_store(&a->vm_methods, 0);
    a->sampler.walker.use_vm = 0;
    snprintf(s->walker, sizeof s->walker, "%s asked, unavailable: %s", name, why);
    fprintf(stderr, "fgagent: walker=%s is not available (%s); AsyncGetCallTrace walks alone\n", name, why);
    set_walker(a, FG_WALKER_ASGCT);   /* no copy engine either: it needs the VM's offsets */
    return;
  }
  atomic_store(&a->vm_methods, 1);
  a->sampler.walker.use_vm = 1;
  if (a->deopt.known)
    snprintf(s->walker, sizeof s->walker, "%s", name);
  else   /* frames deoptimized under a callee: AsyncGetCallTrace's, which gives up inside deoptimization */
    snprintf(s->walker, sizeof s->walker, "%s; not through deoptimized frames: %s", name, a->deopt.why);
}

static void rotate(void *ctx);

/* Kernel event k (opts.kevent[k]) started, not yet counting: 0, or -1
 * with its one line said (the session goes on with its other events). */
static int start_one_kernel_event(struct fg_agent *a, int k, uint64_t budget)
{
  char msg[1024];
  struct fg_kevent_spec spec;
  if (fg_kevent_parse(a->opts.kevent[k], &spec, msg, sizeof msg) != 0 ||
      fg_kevents_start(&a->kevents[k], &spec, a->opts.kevent_period, a->opts.kernel, budget, msg, sizeof msg) != 0) {
    fprintf(stderr, "%s\n", msg);
    return -1;
  }
  return 0;
}

/* event=NAME of each kernel event: its counters, each thread's signalling
 * on FG_KEVENT_SIGNAL to the sampler's handler, installed on it here, which
 * tells the events apart by the counter's fd. Their descriptors: with
 * event=cpu's counters, half of their budget; the kernel events that start
 * share the rest evenly. A failure is one line; the session goes on with its
 * other events. */
static void start_kernel_events(struct fg_agent *a)
{
  a->kevent_on = 0;
  for (int k = 0; k < FG_KERNEL_EVENTS_MAX; k++) {
    a->sampler.kevents[k] = NULL;
    fg_kevents_forget(&a->kevents[k]);   /* the last session's, stopped at its end */
  }
  int n = fg_options_nkevents(&a->opts);
  if (n == 0)
    return;
  uint64_t budget = fg_fd_budget();
  if (a->cpu_sampling && a->timer.event == FG_EVENT_CPU) {   /* event=cpu's counters keep the other half */
    pthread_mutex_lock(&a->timer.lock);
    budget = a->timer.fd_budget -= a->timer.fd_budget / 2;
    pthread_mutex_unlock(&a->timer.lock);
  }
  /* no counter opens before fg_kevents_go: the handler is installed and told of the table first */
  int started = 0;
  for (int k = 0; k < n; k++)
    started += start_one_kernel_event(a, k, budget) == 0;
  if (!started)
    return;
  for (int k = 0; k < n; k++)
    if (a->kevents[k].on)
      fg_kevents_share(&a->kevents[k], budget / (uint64_t)started);
  int unregistered = 0;
  if (fg_sampler_install_kevents(&a->sampler, &unregistered) != 0) {
    fprintf(stderr, "fgagent: cannot install the SIGURG handler; no kernel event (event=%s...) recorded\n",
            a->opts.kevent[0]);
    for (int k = 0; k < n; k++) {
      fg_kevents_stop(&a->kevents[k]);
      fg_kevents_forget(&a->kevents[k]);
    }
    return;
  }
  if (unregistered)
    fprintf(stderr, "fgagent: warning: another SIGURG handler was installed (a library's?); fgagent replaced "
                    "it for event=%s until the session's end\n", a->opts.kevent[0]);
  for (int k = 0; k < n; k++)
    if (a->kevents[k].on) {
      a->sampler.kevents[k] = a->kevents[k].table;
      a->kevent_on++;
    }
  for (int k = 0; k < n; k++)
    if (a->kevents[k].on) {
      fg_kevents_go(&a->kevents[k]);
      fg_kevents_scan(&a->kevents[k]);   /* every thread running now; later ones at their start */
    }
}

/* event= (cpu, itimer, wall): the SIGPROF handler, the timer, sched's and
 * the wall sampler's threads. 0, or -1 when not sampling (said). */
static int start_sampling(struct fg_agent *a)
{
  char msg[512];
  int unregistered = 0;
  if (fg_sampler_install(&a->sampler, &unregistered) != 0) {
    fprintf(stderr, "fgagent: cannot install the SIGPROF handler; not profiling\n");
    return -1;
  }
  if (unregistered)
    fprintf(stderr, "fgagent: warning: another SIGPROF handler was installed (another profiler?); "
                    "fgagent replaced it, and that tool will record nothing\n");
  if (fg_timer_start(&a->timer, a->opts.event, a->opts.clock, a->opts.interval_ns, a->opts.kernel,
                     a->opts.walker == FG_WALKER_COPY ? FG_COPY_STACK_BYTES : 0, msg, sizeof msg) != 0) {
    fprintf(stderr, "%s; not profiling\n", msg);
    fg_sampler_shutdown(&a->sampler);
    return -1;
  }
  if (msg[0])
    fprintf(stderr, "%s\n", msg);
  if (a->opts.walker == FG_WALKER_COPY && !a->timer.copy_bytes) {   /* refused, said so: walker=vm's signal */
    struct fg_stats *st = &a->profile.stats;
    set_walker(a, FG_WALKER_VM);
    if (strncmp(st->walker, "copy", 4) == 0) {   /* "copy" and what it cannot walk through: "vm" and the same */
      memcpy(st->walker, "vm", 2);
      memmove(st->walker + 2, st->walker + 4, strlen(st->walker + 4) + 1);
    }
  }
  a->sampler.perf = a->timer.perf;
  a->sampler.clock_auto = a->timer.event == FG_EVENT_CPU && a->timer.clock == FG_CLOCK_AUTO;
  if (a->opts.sched && !fg_sched_start(&a->sched, msg, sizeof msg))
    fprintf(stderr, "%s\n", msg);
  if (a->timer.event == FG_EVENT_WALL) {
    if (fg_wall_start(&a->wall, &a->registry, a->opts.interval_ns, a->opts.wall_threads) != 0) {
      fprintf(stderr, "fgagent: cannot start the wall-clock sampler thread; not profiling\n");
      fg_sampler_shutdown(&a->sampler);
      return -1;
    }
    a->drainer.wall = &a->wall;
    snprintf(a->timer.detail, sizeof a->timer.detail, "a sampler thread signals up to %d Java threads a tick",
             a->opts.wall_threads);
  }
  a->cpu_sampling = 1;
  return 0;
}

void fg_session_start(struct fg_agent *a, JNIEnv *jni, jthread thread)
{
  long env = fg_session_env_offset(jni, thread);
  start_vm_walker(a, env);
  fg_classes_preload_all(a, jni);
  uintptr_t lo, hi;
  if (fg_vm_code_cache_bounds(&lo, &hi))
    fg_code_map_set_bounds(&a->code, lo, hi);
  fg_code_source_start(a);
  long anchor = fg_vm_field_offset("JavaThread", "_anchor");
  struct fg_walker *w = &a->sampler.walker;
  w->env_to_anchor = anchor - env;
  w->anchor_sp = fg_vm_field_offset("JavaFrameAnchor", "_last_Java_sp");
  w->anchor_pc = fg_vm_field_offset("JavaFrameAnchor", "_last_Java_pc");
  w->anchor_known = env >= 0 && anchor >= 0 && w->anchor_sp >= 0 && w->anchor_pc >= 0;
  if (w->unwind)   /* libjava and the rest the JVM loaded since Agent_OnLoad */
    fg_unwind_tables_refresh(w->unwind);
  a->start_time = time(NULL);

  char msg[1024];
  a->cpu_sampling = 0;
  if (a->opts.cpu && start_sampling(a) != 0)
    return;
  start_kernel_events(a);
  a->start_wall_ns = fg_clock_ns(CLOCK_MONOTONIC);
  a->start_epoch_ns = fg_clock_ns(CLOCK_REALTIME);
  a->start_cpu_ns = fg_clock_ns(CLOCK_PROCESS_CPUTIME_ID);
  a->seq = 1;
  a->drainer_cpu_before = a->wall_cpu_before = a->wall_sampled_before = 0;   /* their threads are new */
  a->refresher_cpu_before = a->copy_cpu_before = 0;
  a->drainer.loop_ns = a->opts.loop_ns;   /* 0: one profile for the session */
  a->drainer.rotate = rotate;
  a->drainer.rotate_ctx = a;
  if (w->unwind && fg_unwind_refresher_start(&a->unwind_refresher, w->unwind, UNWIND_REFRESH_NS) != 0)
    fprintf(stderr, "fgagent: cannot start the unwind tables' refresher thread; the native frames of a library "
                    "loaded from now on are cut at its first frame\n");
  atomic_store(&a->live, 1);
  /* before the drainer's thread starts: its passes read the hooks' queue, which this empties */
  a->nativemem_on = a->nativelock_on = 0;
  if ((a->opts.nativemem || a->opts.nativelock) && fg_native_mem_start(a, msg, sizeof msg) != 0 && msg[0])
    fprintf(stderr, "%s\n", msg);
  a->nativemem_on = a->opts.nativemem && atomic_load(&fg_nm.mem_on);
  a->nativelock_on = a->opts.nativelock && atomic_load(&fg_nm.lock_on);
  a->profile.marks.max = fg_options_marks_max(&a->opts);
  fg_gc_events_start(a);   /* before the drainer's thread: it empties the ring of an earlier session */
  if (fg_drainer_start(&a->drainer, jni, msg, sizeof msg) != 0)
    fprintf(stderr, "%s; samples are drained at exit only\n", msg);
  a->alloc_on = a->lock_on = a->live_on = 0;   /* a session before may have had them: only this one's options count */
  if ((a->opts.alloc || a->opts.lock) && fg_java_events_start(a, jni, msg, sizeof msg) != 0)
    fprintf(stderr, "%s\n", msg);
  if (a->cpu_sampling && a->timer.copy_bytes &&
      fg_copy_engine_start(&a->copy_engine, &a->sampler, &a->registry, &a->timer, msg, sizeof msg) != 0) {
    fprintf(stderr, "%s; not profiling\n", msg);
    fg_timer_stop(&a->timer);
  }
  fg_session_attach_thread(a, jni, thread);
  atomic_store(&a->state, FG_SESSION_LIVE);
}

/* Kernel event k's accounting beside its samples': its name, period and threads. */
static void fill_kernel_event_stats(struct fg_agent *a, int k)
{
  struct fg_stats *s = &a->profile.stats;
  struct fg_kevents *kev = &a->kevents[k];
  pthread_mutex_lock(&kev->lock);
  s->kernel[k].on = kev->on;
  s->kernel[k].interval = kev->on ? kev->period : 0;
  s->kevent[k] = (struct fg_kevent_stats){.threads = kev->counted, .no_fd = kev->no_fd, .refused = kev->refused,
                                          .fd_budget = kev->budget, .user_only = kev->exclude_kernel};
  snprintf(s->kevent[k].name, sizeof s->kevent[k].name, "%s", kev->on ? kev->spec.name : "");
  pthread_mutex_unlock(&kev->lock);
}

static void fill_stats(struct fg_agent *a)
{
  struct fg_stats *s = &a->profile.stats;
  uint64_t cpu = fg_clock_ns(CLOCK_PROCESS_CPUTIME_ID) - a->start_cpu_ns;
  s->profiler_cpu_ns = atomic_load(&a->drainer.cpu_ns) - a->drainer_cpu_before +
                       atomic_load(&a->unwind_refresher.cpu_ns) - a->refresher_cpu_before +
                       atomic_load(&a->copy_engine.cpu_ns) - a->copy_cpu_before;
  s->cpu_ns = cpu > s->profiler_cpu_ns ? cpu - s->profiler_cpu_ns : 0;
  s->wall_ns = fg_clock_ns(CLOCK_MONOTONIC) - a->start_wall_ns;
  s->start_ns = a->start_wall_ns;
  s->start_epoch_ns = a->start_epoch_ns;
  s->interval_ns = a->opts.interval_ns;
  snprintf(s->event, sizeof s->event, "%s",
           a->timer.event == FG_EVENT_CPU ? "cpu" : a->timer.event == FG_EVENT_WALL ? "wall" : "itimer");
  s->cpu_off = !a->cpu_sampling;
  s->alloc.on = a->alloc_on;
  s->alloc.interval = a->opts.alloc_bytes;
  s->lock.on = a->lock_on;
  s->nativemem.on = a->nativemem_on;
  s->nativemem.interval = a->opts.nativemem_bytes;
  s->nativemem.leak = a->nativemem_on && a->opts.leak;
  s->nativelock.on = a->nativelock_on;
  s->nativelock.interval = a->opts.nativelock_ns;
  s->lock.interval = a->opts.lock_ns;
  s->live.on = a->live_on;
  s->live.interval = a->opts.alloc_bytes;
  s->alloc.verified = s->lock.verified = a->opts.verify;
  for (int k = 0; k < FG_KERNEL_EVENTS_MAX; k++)
    fill_kernel_event_stats(a, k);
  if (a->timer.event == FG_EVENT_WALL) {
    s->cpu_ns = atomic_load(&a->wall.sampled_ns) - a->wall_sampled_before;   /* what the samples stand for */
    s->profiler_cpu_ns += atomic_load(&a->wall.cpu_ns) - a->wall_cpu_before;
  }
  snprintf(s->event_detail, sizeof s->event_detail, "%s", a->timer.detail);
  int kernel_rings = fg_perf_threads_rings(a->timer.perf) && !a->timer.copy_bytes;   /* walker=copy's say so below */
  s->kernel_no_ring = kernel_rings ? atomic_load(&a->timer.perf->no_slot) : 0;
  s->copy_no_ring = a->timer.copy_no_ring;
  s->threads_no_fd = a->timer.no_fd;
  s->fd_budget = a->timer.fd_budget;
  s->clock = (int)a->timer.clock;
  fg_timer_clock_counts(&a->timer, &s->clock_timers, &s->clock_counters);
  s->clock_to_counter = a->timer.to_counter;
  s->clock_to_timer = a->timer.to_timer;
  s->clock_timer_refused = a->timer.timer_refused;
  s->clock_counter_refused = a->timer.counter_refused;
  s->copy_too_deep = a->timer.copy_too_deep;
  s->copy_held = atomic_load(&a->copy_engine.held_n);
  s->copy_held_failed = atomic_load(&a->copy_engine.held_failed);
  pthread_mutex_lock(&a->code.lock);
  s->code_map_dropped = a->code.dropped;
  pthread_mutex_unlock(&a->code.lock);
  s->code_from_heap = a->drainer.discovery != NULL;
  s->code_found = a->discovery.found;
  s->code_unnamed = a->discovery.unnamed;
  s->code_gone = a->discovery.gone;
  pthread_mutex_lock(&a->code_records.lock);
  s->code_checked = a->code_records.checked;
  s->code_differ = a->code_records.differ;
  s->code_unread = a->code_records.unread;
  snprintf(s->code_first, sizeof s->code_first, "%s", a->code_records.first);
  pthread_mutex_unlock(&a->code_records.lock);
  if (atomic_load(&a->methods.table)) {
    pthread_mutex_lock(&a->methods.lock);
    s->methods_mapped = a->methods.count;
    s->methods_gone = a->methods.gone;
    pthread_mutex_unlock(&a->methods.lock);
    s->methods_follow_classes = a->class_unloads;
  }
}

int fg_session_outputs(struct fg_agent *a, char *buf, size_t len)
{
  size_t o = 0;
  buf[0] = '\0';
  enum fg_stack_event events[FG_STACK_EVENTS];
  int nevents = session_events(a, events);
  for (int i = 0; i < a->opts.nfiles && o < len; i++) {
    int each = strstr(a->opts.files[i], "%e") != NULL;
    for (int k = 0; k < (each ? nevents : 1) && o < len; k++) {
      char path[4096], name[FG_KEVENT_NAME_MAX];
      session_event_name(a, events[each ? k : 0], name, sizeof name);
      if (fg_expand_event_path(a->opts.files[i], getpid(), a->start_time, a->seq, name, path, sizeof path) == 0)
        o += (size_t)snprintf(buf + o, len - o, "%s%s", o ? ", " : "", path);
    }
  }
  return (int)o;
}

/* p written to path; when that fails, to a new file in /tmp (nothing collected is lost). */
static void write_one(struct fg_agent *a, int i, const char *path, const struct fg_profile *p,
                      const struct fg_output_settings *cfg)
{
  char err[4400];
  if (fg_write_profile_file(path, p, cfg, err, sizeof err) == 0) {
    fprintf(stderr, "fgagent: wrote %s\n", path);
    if (fg_format_holds_every_event(fg_format_for_path(path)) && p->timeline.dropped)
      fprintf(stderr, "fgagent: %s: %llu samples past the first %u kept in time order are events at its end\n",
              path, (unsigned long long)p->timeline.dropped, p->timeline.max);
    return;
  }
  /* Nothing collected is lost: the same format in the temporary directory,
   * at a name nobody could have planted a link at (mkstemps: new, 0600,
   * the profile then renamed over it keeping that mode) */
  fprintf(stderr, "%s\n", err);
  a->outputs_failed++;
  const char *ext = fg_format_extension(fg_format_for_path(path));
  char fallback[256];
  snprintf(fallback, sizeof fallback, "/tmp/fgagent-%d-%d-XXXXXX%s", (int)getpid(), i, ext);
  int fd = mkstemps(fallback, (int)strlen(ext));
  if (fd < 0) {
    fprintf(stderr, "fgagent: cannot create a file in /tmp for it either: %s\n", strerror(errno));
    return;
  }
  close(fd);
  if (fg_write_profile_file(fallback, p, cfg, err, sizeof err) == 0) {
    fprintf(stderr, "fgagent: wrote %s instead\n", fallback);
  } else {
    fprintf(stderr, "%s\n", err);
    unlink(fallback);
  }
}

/* Every file=: with %e one file an event; else a .jfr holds every event, any
 * other format the one event there is (the options refuse more). */
static void write_outputs(struct fg_agent *a)
{
  enum fg_stack_event events[FG_STACK_EVENTS];
  int nevents = session_events(a, events);
  unsigned present = fg_profile_events(&a->profile);   /* the events with stacks */
  a->outputs_failed = 0;
  for (int i = 0; i < a->opts.nfiles; i++) {
    const char *pattern = a->opts.files[i];
    int each = strstr(pattern, "%e") != NULL;
    int all = !each && fg_format_holds_every_event(fg_format_for_path(pattern));
    for (int k = 0; k < (all || !each ? 1 : nevents) && nevents > 0; k++) {
      enum fg_stack_event e = events[each ? k : 0];
      char path[4096], name[FG_KEVENT_NAME_MAX];
      session_event_name(a, e, name, sizeof name);
      if (fg_expand_event_path(pattern, getpid(), a->start_time, a->seq, name, path, sizeof path) != 0) {
        fprintf(stderr, "fgagent: cannot expand file='%s'\n", pattern);
        break;
      }
      struct fg_output_settings cfg = {.per_thread = a->opts.threads, .timeline = a->opts.timeline,
                                       .title = fg_event_kind(e)->title};
      char title[400];
      if (fg_stack_kernel_index(e) >= 0) {   /* the kernel event's own name in the title */
        snprintf(title, sizeof title, "fgagent kernel event flame graph: %s", fg_event_title_name(&a->profile.stats, e));
        cfg.title = title;
      }
      if (all || (e == FG_STACK_CPU && !(present & ~1u))) {
        write_one(a, i, path, &a->profile, &cfg);   /* the profile as it is */
        continue;
      }
      struct fg_profile one;
      int jfr = fg_format_for_path(pattern) == FG_FORMAT_JFR;   /* with leak's frees */
      if ((jfr ? fg_profile_select_trail : fg_profile_select)(&a->profile, e, &one) != 0)
        fprintf(stderr, "fgagent: out of memory writing %s\n", path);
      else
        write_one(a, i, path, &one, &cfg);
      fg_profile_free(&one);
    }
  }
}

/* The summary, sched's table and notes, flushed; -1 when a write failed. */
static int write_summary(struct fg_agent *a, FILE *log)
{
  if (fg_write_summary(log, &a->profile.stats) != 0 || fg_sched_write_summary(log, &a->sched, &a->profile) != 0)
    return -1;
  if (a->names.unresolved &&
      fprintf(log, "  note: %llu methods were unloaded before their names were read\n",
              (unsigned long long)a->names.unresolved) < 0)
    return -1;
  fg_parts_report(log);   /* build/libfgagent-parts.so only */
  return fflush(log) != 0 || ferror(log) ? -1 : 0;
}

/* alloc,live: what is alive now into the profile, before it is written
 * (no GC forced first: java_events/live_objects.h says why). */
static void report_live(struct fg_agent *a, JNIEnv *jni)
{
  if (a->live_on && jni)
    fg_drainer_report_live(&a->drainer, &a->live_objects, jni);
}

int fg_session_dump(struct fg_agent *a, JNIEnv *jni)
{
  if (atomic_load(&a->state) != FG_SESSION_LIVE)
    return -1;
  fg_drainer_hold(&a->drainer, jni);   /* the drainer waits while the profile is written */
  fill_stats(a);
  report_live(a, jni);
  write_outputs(a);
  fg_drainer_release(&a->drainer);
  return 0;
}

/* The kernel events' samples taken so far, all of them. */
static uint64_t kernel_taken(const struct fg_stats *s)
{
  uint64_t n = 0;
  for (int k = 0; k < FG_KERNEL_EVENTS_MAX; k++)
    n += s->kernel[k].taken;
  return n;
}

int fg_session_status(struct fg_agent *a, char *buf, size_t len)
{
  if (atomic_load(&a->state) != FG_SESSION_LIVE)
    return snprintf(buf, len, "fgagent: idle (loaded, not profiling)");
  uint64_t ms = (fg_clock_ns(CLOCK_MONOTONIC) - a->start_wall_ns) / 1000000;
  enum fg_stack_event events[FG_STACK_EVENTS];
  char names[1400];
  event_names(a, events, session_events(a, events), names, sizeof names);
  return snprintf(buf, len, "fgagent: profiling for %llu.%03llu s, events %s, interval=%.3f ms, %llu samples so far",
                  (unsigned long long)(ms / 1000), (unsigned long long)(ms % 1000), names,
                  (double)a->opts.interval_ns / 1e6,
                  (unsigned long long)(a->profile.stats.taken + kernel_taken(&a->profile.stats)));
}

/* An empty profile in place of the last one (whose method names were freed). */
static void begin_profile(struct fg_agent *a)
{
  fg_profile_free(&a->profile);
  fg_profile_init(&a->profile);
  a->profile.timeline.max = fg_options_timeline_max(&a->opts);
  a->profile.marks.max = fg_options_marks_max(&a->opts);
  fg_method_names_init(&a->names, a->opts.lines);
}

int fg_session_reset(struct fg_agent *a, JNIEnv *jni, char *err, size_t errlen)
{
  /* sizes first: the drainer's reset makes its stack buffer by them */
  if (fg_agent_prepare(a, err, errlen) != 0)
    return -1;
  if (fg_drainer_reset(&a->drainer, jni) != 0) {
    snprintf(err, errlen, "fgagent: out of memory emptying the last session's profile");
    return -1;
  }
  begin_profile(a);
  fg_wall_destroy(&a->wall);
  atomic_store(&a->live, 0);
  return 0;
}

/* loop=: this interval's profile written like a last one, and the next one
 * begun. On the drainer's thread, its lock held, the rings just drained. */
static void rotate(void *ctx)
{
  struct fg_agent *a = ctx;
  fill_stats(a);
  report_live(a, a->drainer.jni);   /* the drainer's thread, a JVMTI agent thread */
  write_outputs(a);
  FILE *log = open_log(a);
  if (write_summary(a, log) != 0)
    fprintf(stderr, "fgagent: cannot write interval %u's summary\n", a->seq);
  if (log != stderr)
    fclose(log);
  fg_method_names_free(&a->names, a->jvmti);   /* it caches the profile's name ids */
  begin_profile(a);
  a->seq++;
  a->start_time = time(NULL);
  a->start_wall_ns = fg_clock_ns(CLOCK_MONOTONIC);
  a->start_epoch_ns = fg_clock_ns(CLOCK_REALTIME);
  a->start_cpu_ns = fg_clock_ns(CLOCK_PROCESS_CPUTIME_ID);
  a->drainer_cpu_before = fg_clock_ns(CLOCK_THREAD_CPUTIME_ID);   /* this is the drainer's thread */
  a->wall_cpu_before = atomic_load(&a->wall.cpu_ns);
  a->refresher_cpu_before = atomic_load(&a->unwind_refresher.cpu_ns);
  a->copy_cpu_before = atomic_load(&a->copy_engine.cpu_ns);
  a->wall_sampled_before = atomic_load(&a->wall.sampled_ns);
}

void fg_session_finish(struct fg_agent *a, JNIEnv *jni)
{
  if (atomic_load(&a->state) != FG_SESSION_LIVE)
    return;
  /* Disarm, ignore late signals, wait out running handlers: then no sample
   * can arrive after the final pass, and the accounting closes exactly. */
  fg_java_events_stop(a);   /* no callback logs after the last pass */
  fg_native_mem_stop(a);    /* the import slots put back; no hook queues after the last pass */
  fg_copy_engine_stop(&a->copy_engine);   /* its last pass reads what the counters copied so far */
  fg_timer_stop(&a->timer);
  for (int k = 0; k < FG_KERNEL_EVENTS_MAX; k++)
    fg_kevents_stop(&a->kevents[k]);
  fg_wall_stop(&a->wall);
  if (a->cpu_sampling || a->kevent_on)   /* else SIGPROF is the application's, as it was */
    fg_sampler_shutdown(&a->sampler);
  fg_unwind_refresher_stop(&a->unwind_refresher);   /* no handler can write on its eventfd any more */
  fg_gc_events_stop(a);   /* the final pass takes the last pauses */
  fg_drainer_finish(&a->drainer, jni);
  fg_sched_stop(&a->sched);
  fill_stats(a);
  report_live(a, jni);
  fg_live_objects_stop(&a->live_objects, jni);   /* every weak reference released */
  write_outputs(a);
  FILE *log = open_log(a);
  int failed = write_summary(a, log) != 0;
  if (log != stderr)
    failed |= fclose(log) != 0;   /* a full disk shows only here, at the last flush */
  if (failed && log != stderr) {
    /* nothing collected is lost: the summary goes to stderr instead */
    fprintf(stderr, "fgagent: cannot write the summary to log='%s' (%s); it follows here\n", a->opts.log,
            strerror(errno));
    failed = write_summary(a, stderr) != 0;
  }
  if (failed)
    fprintf(stderr, "fgagent: cannot write the summary\n");
  /* The drainer is closed: nothing resolves names any more. JVMTI is still
   * live in VMDeath, so the line tables it allocated go back to it. */
  fg_method_names_free(&a->names, a->jvmti);
  a->sampler.perf = NULL;
  for (int k = 0; k < FG_KERNEL_EVENTS_MAX; k++)
    a->sampler.kevents[k] = NULL;
  a->sampler.clock_auto = 0;
  fg_timer_release(&a->timer);   /* walker=copy's rings: nothing reads them until a next start */
  atomic_store(&a->state, FG_SESSION_IDLE);
}
