/* Entry point: java -agentpath:libfgagent.so=OPTIONS.
 * Parses the options, finds AsyncGetCallTrace, enables the JVMTI events;
 * sampling itself starts at VMInit (session.c). */
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "jvmti/agent.h"
#include "fg/output.h"

static struct fg_agent the_agent = {
  .opts_lock = PTHREAD_MUTEX_INITIALIZER,
  .session_lock = PTHREAD_MUTEX_INITIALIZER,
};

/* Records for JVM threads with no JNIEnv (GC workers, compilers, the VM
 * thread); beyond them such threads are counted, not walked. HotSpot sizes
 * those by the CPUs: ParallelGCThreads is 8 + 5/8 of the CPUs past 8, G1
 * adds as many refinement threads and a quarter as many concurrent ones,
 * C1 and C2 about log2(CPUs) x log2(log2(CPUs)) x 1.5 compilers; twice the
 * CPUs and 32 more hold them all, 64 at least. */
static uint32_t jvm_thread_records(void)
{
  long cpus = sysconf(_SC_NPROCESSORS_CONF);
  uint32_t n = cpus > 0 ? 2u * (uint32_t)cpus + 32u : 64u;
  return n < 64u ? 64u : n;
}

/* The trace table's first index (128 KiB) and its chunks: grown as the
 * stacks come, not sized by threads or depth. */
#define FG_TRACE_INDEX_SLOTS 16384u
#define FG_TRACE_CHUNK_BYTES (1024u * 1024u)

static fg_asgct_fn find_asgct(void)
{
  void *sym = dlsym(RTLD_DEFAULT, "AsyncGetCallTrace");
  if (!sym) {
    void *jvm = dlopen("libjvm.so", RTLD_NOW | RTLD_NOLOAD);
    if (jvm)
      sym = dlsym(jvm, "AsyncGetCallTrace");
  }
  return (fg_asgct_fn)sym;
}

/* DebugNonSafepoints in text: -1 turned off, 1 on, else current (the last mention wins). */
static int scan_debug_flag(const char *text, int current)
{
  for (const char *p = text; (p = strstr(p, "DebugNonSafepoints")) != NULL; p++) {
    if (p >= text + 5 && strncmp(p - 5, "-XX:-", 5) == 0)
      current = -1;
    else if (p >= text + 5 && strncmp(p - 5, "-XX:+", 5) == 0)
      current = 1;
  }
  return current;
}

int fg_agent_debug_non_safepoints(void)
{
  int flag = 0;
  static const char *const vars[] = {"JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS", "JDK_JAVA_OPTIONS"};
  for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++)
    if (getenv(vars[i]))
      flag = scan_debug_flag(getenv(vars[i]), flag);
  FILE *f = fopen("/proc/self/cmdline", "r");
  if (f) {
    char arg[4096];
    size_t n = 0;
    int c;
    while ((c = fgetc(f)) != EOF) {
      if (c != '\0' && n + 1 < sizeof arg) {
        arg[n++] = (char)c;
        continue;
      }
      arg[n] = '\0';
      flag = scan_debug_flag(arg, flag);
      n = 0;
    }
    fclose(f);
  }
  return flag;
}

/* Each output must be writable now, not only at exit, when it would be too
 * late to ask for another path: fg_output_probe creates the very temporary
 * file the write will use. */
int fg_agent_check_outputs(const struct fg_options *o, char *err, size_t errlen)
{
  for (int i = 0; i <= o->nfiles; i++) {
    const char *pattern = i < o->nfiles ? o->files[i] : o->log;
    if (!pattern[0])
      continue;
    char path[4096], why[1200];
    if (fg_expand_event_path(pattern, getpid(), time(NULL), 1, "cpu", path, sizeof path) != 0)
      continue;   /* the parser already rejects what does not expand */
    if (fg_output_probe(path, why, sizeof why) == 0)
      continue;
    char expanded[4200] = "";
    if (strcmp(path, pattern) != 0)
      snprintf(expanded, sizeof expanded, " (expanded to '%.1000s')", path);
    snprintf(err, errlen, "fgagent: option %s='%.300s'%s: %s%s", i < o->nfiles ? "file" : "log",
             pattern, expanded, why, strstr(why, "accepted:") ? "" : "; accepted: a new or regular file "
             "in an existing, writable directory, a FIFO or a character device");
    return -1;
  }
  return 0;
}

struct fg_agent *fg_agent_instance(void)
{
  return &the_agent;
}

JNIEXPORT jint JNICALL Agent_OnLoad(JavaVM *vm, char *options, void *reserved)
{
  (void)reserved;
  struct fg_agent *a = &the_agent;
  char err[8192];

  /* One fgagent per JVM: a second -agentpath (this library or another copy
   * of it) would replace the first one's SIGPROF handler and leave its
   * profile empty. The mark carries the pid, so child processes are free. */
  char pid[24], *mark = getenv("FGAGENT_LOADED_IN_PID");
  snprintf(pid, sizeof pid, "%d", (int)getpid());
  if (mark && strcmp(mark, pid) == 0) {
    fprintf(stderr, "fgagent: warning: fgagent is already loaded in this JVM; this second -agentpath "
                    "('%s') is ignored; accepted: one fgagent per JVM, with a file= option per output\n",
            options ? options : "");
    return JNI_OK;
  }
  setenv("FGAGENT_LOADED_IN_PID", pid, 1);
  if (fg_agent_setup(a, vm, options, err, sizeof err) != 0) {
    fprintf(stderr, "%s\n", err);
    return JNI_ERR;
  }
  if (fg_agent_debug_non_safepoints() < 0)   /* the user's flag hides inlined frames: say so */
    fprintf(stderr, "fgagent: warning: -XX:-DebugNonSafepoints is set: inlined methods will "
                    "not get frames of their own and time is credited to their callers\n");
  return JNI_OK;
}

/* The JVM unloads its agents after VMDeath (which ended the session): a
 * command still under way is waited for, so that the library is not
 * unmapped under it. */
JNIEXPORT void JNICALL Agent_OnUnload(JavaVM *vm)
{
  (void)vm;
  if (the_agent.jvmti && !atomic_load(&the_agent.exiting))   /* no VMDeath came (a first start raced it) */
    fg_session_exit(&the_agent, NULL, "Agent_OnUnload");
}

int fg_agent_setup(struct fg_agent *a, JavaVM *vm, const char *options, char *err, size_t errlen)
{
  if (fg_options_parse(options, &a->opts, err, errlen) != 0 || fg_agent_check_outputs(&a->opts, err, errlen) != 0)
    return -1;
  fg_asgct_fn asgct = find_asgct();
  if (!asgct) {
    snprintf(err, errlen, "fgagent: AsyncGetCallTrace not found in this JVM (is it HotSpot?); "
                          "fgagent needs a HotSpot JVM that exports it");
    return -1;
  }
  if ((*vm)->GetEnv(vm, (void **)&a->jvmti, JVMTI_VERSION_1_2) != JNI_OK) {
    a->jvmti = NULL;
    snprintf(err, errlen, "fgagent: JVMTI 1.2 is not available in this JVM");
    return FG_SETUP_NO_JVMTI;
  }
  (*a->jvmti)->SetEnvironmentLocalStorage(a->jvmti, a);

  /* under a small memlimit, chunks small enough that the first index and two of them fit */
  uint64_t limit = a->opts.memlimit, index_bytes = FG_TRACE_INDEX_SLOTS * sizeof(void *) + 4096;
  size_t chunk = limit && (limit - index_bytes) / 2 < FG_TRACE_CHUNK_BYTES ? (size_t)((limit - index_bytes) / 2) - 4096
                                                                          : FG_TRACE_CHUNK_BYTES;
  if (fg_code_map_init(&a->code) != 0 || fg_trace_table_init(&a->traces, FG_TRACE_INDEX_SLOTS, chunk, limit) != 0) {
    snprintf(err, errlen, "fgagent: out of memory at start-up");
    return -1;
  }
  /* libjvm's symbol table, read once, for VMInit's offsets, and where
   * deoptimized frames keep their pc: read whatever the walker, since a
   * later session may walk with walker=vm or copy and every method the
   * code map adds from now on records its deoptimization sites with it */
  a->jvm_symbols = fg_symbols_new();
  fg_vm_deopt_read(&a->deopt, a->jvm_symbols);
  a->sampler.walker = (struct fg_walker){
    .asgct = asgct,
    .code = &a->code,
    .vm = &a->vm,
    .methods = &a->methods,
    .deopt = &a->deopt,
  };
  a->sampler.traces = &a->traces;
  a->sampler.wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);   /* -1: the drainer just polls */
  a->sampler.unregistered = &a->unregistered;
  fg_profile_init(&a->profile);
  fg_timer_init(&a->timer);
  for (int k = 0; k < FG_KERNEL_EVENTS_MAX; k++)
    fg_kevents_init(&a->kevents[k], &a->timer.fd_room);
  a->drainer.kevents = a->kevents;
  a->drainer.jvmti = a->jvmti;
  a->drainer.registry = &a->registry;
  a->drainer.sampler = &a->sampler;
  a->drainer.timer = &a->timer;
  a->drainer.profile = &a->profile;
  a->drainer.names = &a->names;
  a->drainer.events = &a->events;
  a->drainer.gc = &a->gc_pauses;
  if (fg_event_log_init(&a->events) != 0 || pthread_mutex_init(&a->live_objects.lock, NULL) != 0) {
    snprintf(err, errlen, "fgagent: out of memory at start-up");
    return -1;
  }
  if (a->opts.verify && !(a->verifier = fg_edge_verifier_new(a->jvmti, vm))) {
    snprintf(err, errlen, "fgagent: out of memory at start-up");
    return -1;
  }
  if (fg_registry_init(&a->registry, a->opts.ring_bytes, fg_options_first_frames(&a->opts)) != 0) {
    snprintf(err, errlen, "fgagent: out of memory at start-up");
    return -1;
  }
  if (fg_agent_prepare(a, err, errlen) != 0)
    return -1;
  fg_method_names_init(&a->names, a->opts.lines);
  a->profile.timeline.max = fg_options_timeline_max(&a->opts);
  if (fg_drainer_init(&a->drainer) != 0) {
    snprintf(err, errlen, "fgagent: out of memory at start-up");
    return -1;
  }
  fg_code_source_init(a);
  return fg_events_enable(a, err, errlen);
}

/* What a session's options need and an earlier session's did not: each
 * table is made at the first session that walks with it and kept (a
 * signal handler or the copy engine of a later session may read it), and
 * every size or switch taken from the options is set again. Called before
 * the session's threads start, with none of the last session's running. */
int fg_agent_prepare(struct fg_agent *a, char *err, size_t errlen)
{
  const struct fg_options *o = &a->opts;
  int vm_walker = fg_options_vm_walker(o);
  /* walker=copy reaches a thread's Java frames through its native ones, kept or not */
  int native = o->cstack == FG_CSTACK_NATIVE || o->walker == FG_WALKER_COPY;
  int frames = fg_options_max_frames(o), first_frames = fg_options_first_frames(o);
  int made = 1;
  if (vm_walker && !atomic_load(&a->methods.table))   /* its readers announce themselves to it (method_map.h) */
    made = fg_method_map_init(&a->methods) == 0;
  if (!made || (vm_walker && !a->pcs.slots && fg_pc_cache_init(&a->pcs) != 0) ||
      (native && !atomic_load(&a->unwind.set) && fg_unwind_tables_init(&a->unwind) != 0) ||
      (o->cstack == FG_CSTACK_NATIVE && !a->jvm_records.records &&
       fg_jvm_thread_records_init(&a->jvm_records, jvm_thread_records(), o->ring_bytes, first_frames) != 0)) {
    snprintf(err, errlen, "fgagent: out of memory setting up the session's tables (walker=%s, cstack=%s)",
             o->walker == FG_WALKER_COPY ? "copy" : vm_walker ? "vm" : "asgct",
             o->cstack == FG_CSTACK_NATIVE ? "native" : "no");
    return -1;
  }
  struct fg_walker *w = &a->sampler.walker;
  w->depth = o->depth;
  w->native_depth = o->cstack == FG_CSTACK_NATIVE ? FG_MAX_NATIVE_DEPTH : 0;
  w->recover = o->recover;
  w->annotate = o->ann;
  w->pcs = vm_walker ? &a->pcs : NULL;
  w->unwind = native ? &a->unwind : NULL;
  a->sampler.pc_slots = vm_walker ? a->pcs.slots : NULL;
  a->sampler.jvm_records = o->cstack == FG_CSTACK_NATIVE ? &a->jvm_records : NULL;
  a->sampler.scratch_reserve = frames - o->depth;
  a->sampler.interval_ns = o->interval_ns;
  a->sampler.session++;
  a->drainer.max_frames = frames;
  a->drainer.java_depth = o->depth;
  a->drainer.sched = o->sched ? &a->sched : NULL;
  a->drainer.verifier = o->verify ? a->verifier : NULL;
  fg_registry_resize(&a->registry, o->ring_bytes, first_frames);   /* for records made from now on */
  fg_trace_table_set_limit(&a->traces, o->memlimit);
  return 0;
}
