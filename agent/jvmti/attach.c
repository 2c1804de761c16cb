/* Entry point for a JVM that is already running: jcmd PID JVMTI.agent_load
 * /path/libfgagent.so "COMMAND[,OPTIONS]" (or fgprof attach, which speaks
 * the same attach protocol). HotSpot calls Agent_OnAttach at every load of
 * the library, also when it was started with -agentpath, so each load is a
 * command to the one agent:
 *   start[,OPTIONS]  begin profiling (the first load sets the agent up; a
 *                    load while profiling changes nothing); OPTIONS as at
 *                    -agentpath. A load with no command is a start.
 *   stop             write every output and the summary, stay loaded, idle
 *   dump             write every output now and go on sampling
 *   status           one line: profiling or idle, event, interval, samples
 * reply=PATH (any command): the messages go to that file, for a client that
 * cannot see the JVM's stderr; without it they go to stderr.
 * Each command runs whole under the session lock (session_state.c): a
 * command that meets the JVM's exit is refused (FG_ATTACH_RC_EXITING, one
 * line) or, begun before it, completes, and the exit waits for it. */
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "jvmti/agent.h"
#include "jvmti/thread_class.h"
#include "fg/attach_codes.h"
#include "hotspot/vm_structs.h"
#include "native/safe_read.h"

/* first_start's and start's: the JVM is still starting, the client asks again */
#define FG_START_LATER (-2)
/* command's: the JVM is exiting, the command refused (said) */
#define FG_EXITING (-3)

struct reply {
  FILE *out;
  int file;   /* out is the client's reply file: fgprof's own lines (fg/attach_codes.h) go there too */
};

static void say(struct reply *r, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  vfprintf(r->out, fmt, ap);
  va_end(ap);
  fputc('\n', r->out);
  fflush(r->out);
}

/* A running Java thread's native tid, read through its JavaThread; 0 when unknown. */
static int thread_tid(uintptr_t vm_thread)
{
  static long osthread = -2, thread_id = -2;
  if (osthread == -2) {
    osthread = fg_vm_field_offset("Thread", "_osthread");   /* JDK 25 */
    if (osthread < 0)
      osthread = fg_vm_field_offset("JavaThread", "_osthread");   /* JDK 17 */
    thread_id = fg_vm_field_offset("OSThread", "_thread_id");
  }
  uintptr_t os = 0;
  int tid = 0;
  if (osthread < 0 || thread_id < 0 || !fg_safe_read(vm_thread + (uintptr_t)osthread, &os, sizeof os) || !os ||
      !fg_safe_read(os + (uintptr_t)thread_id, &tid, sizeof tid))
    return 0;
  return tid;
}

/* Records for the Java threads already running, found by their handlers
 * through HotSpot's thread key (prior_threads.h). The number registered, or
 * -1 when the key cannot be found (they then go unsampled). */
static int register_running_threads(struct fg_agent *a, JNIEnv *jni, jthread self, long env_offset)
{
  pthread_key_t key;
  if (!a->jvmti || env_offset < 0 || fg_prior_threads_find_key((char *)jni - env_offset, &key) != 0)
    return -1;
  jint n = 0;
  jthread *threads = NULL;
  if ((*a->jvmti)->GetAllThreads(a->jvmti, &n, &threads) != JVMTI_ERROR_NONE)
    return -1;
  (*jni)->EnsureLocalCapacity(jni, n + 16);   /* the n references exist already: -Xcheck:jni counts them */
  jclass cls = fg_thread_class(jni, self);
  jfieldID eetop = cls ? (*jni)->GetFieldID(jni, cls, "eetop", "J") : NULL;
  int registered = -1;
  if (eetop && fg_prior_threads_init(&a->prior, (uint32_t)n + 16, key, env_offset) == 0) {
    registered = 0;
    for (jint i = 0; i < n; i++) {
      jlong vm_thread = (*jni)->IsSameObject(jni, threads[i], self) ? 0 : (*jni)->GetLongField(jni, threads[i], eetop);
      if (vm_thread) {   /* 0: ourselves (registered as usual), or not started, or ended */
        char name[256];
        fg_session_thread_name(a, jni, threads[i], name, sizeof name);
        JNIEnv *env = (JNIEnv *)((char *)(intptr_t)vm_thread + env_offset);
        struct fg_thread *t = fg_registry_add_other(&a->registry, env, thread_tid((uintptr_t)vm_thread),
                                                    fg_session_java_thread_id(jni, threads[i]), name);
        if (t && fg_prior_threads_add(&a->prior, env, t) == 0)
          registered++;
      }
      (*jni)->DeleteLocalRef(jni, threads[i]);
    }
    a->prior.ready = 1;
    a->sampler.prior = &a->prior;
  }
  (*jni)->ExceptionClear(jni);
  (*a->jvmti)->Deallocate(a->jvmti, (unsigned char *)threads);
  return registered;
}

/* JVMTI's phase is past live: the JVM's exit posted VMDeath (JDK 17 still
 * loads an agent then; JDK 25 refuses it itself). */
static int vm_dead(struct fg_agent *a)
{
  jvmtiPhase phase = JVMTI_PHASE_LIVE;
  return a->jvmti && (*a->jvmti)->GetPhase(a->jvmti, &phase) == JVMTI_ERROR_NONE && phase == JVMTI_PHASE_DEAD;
}

static int say_exiting(struct reply *r, const char *cmd)
{
  say(r, "fgagent: %s: refused, the JVM is exiting (a session running is written by the exit); accepted: "
         "commands to a JVM that is not exiting", cmd);
  return FG_EXITING;
}

/* The first start: set up as -agentpath would, replay what the JVM compiled
 * and generated before us, register the threads already running, start. */
static int first_start(struct fg_agent *a, JavaVM *vm, JNIEnv *jni, const char *options, struct reply *r)
{
  char err[8192] = "fgagent: JVMTI is not available in this JVM";
  int rc = fg_agent_setup(a, vm, options, err, sizeof err);
  if (rc == FG_SETUP_NO_JVMTI) {
    say(r, "fgagent: the JVM is still starting (JVMTI is not available yet); try again in a moment (fgprof asks "
           "again until its --timeout)");
    return FG_START_LATER;
  }
  if (rc != 0 || !a->jvmti) {
    int dead = vm_dead(a);   /* the exit came while it set up: its VMDeath was never ours */
    if (dead)
      say_exiting(r, "start");
    else
      say(r, "%s", err);
    a->jvmti = NULL;
    return dead ? FG_EXITING : -1;
  }
  jthread self = NULL;
  (*a->jvmti)->GetCurrentThread(a->jvmti, &self);
  /* stubs made before us: the walker needs their bounds (compiled methods: code_source.c) */
  (*a->jvmti)->GenerateEvents(a->jvmti, JVMTI_EVENT_DYNAMIC_CODE_GENERATED);
  int running = register_running_threads(a, jni, self, fg_session_env_offset(jni, self));
  if (running < 0)
    say(r, "fgagent: warning: cannot find the Java threads already running (HotSpot's thread key); "
           "only threads started from now on are sampled");
  if (fg_agent_debug_non_safepoints() <= 0)
    say(r, "fgagent: warning: attached to a running JVM: methods compiled before the attach carry debug "
           "information at safepoints only, so their inlined methods are credited to their callers; "
           "start the JVM with -XX:+UnlockDiagnosticVMOptions -XX:+DebugNonSafepoints to keep them");
  fg_session_start(a, jni, self);
  return atomic_load(&a->state) == FG_SESSION_LIVE ? running : -1;
}

/* start again after a stop, with the options given now */
static int restart(struct fg_agent *a, JNIEnv *jni, const char *options, struct reply *r)
{
  char err[8192];
  struct fg_options next;
  if (fg_options_parse(options, &next, err, sizeof err) != 0 || fg_agent_check_outputs(&next, err, sizeof err) != 0) {
    say(r, "%s", err);
    return -1;
  }
  /* no session is LIVE (the caller holds the session lock), so only a
   * thread's end can read a->opts now, and it reads under opts_lock */
  pthread_mutex_lock(&a->opts_lock);
  a->opts = next;
  pthread_mutex_unlock(&a->opts_lock);
  if (fg_session_reset(a, jni, err, sizeof err) != 0) {
    say(r, "%s", err);
    return -1;
  }
  uint64_t held = atomic_load(&a->traces.mapped);   /* the stack table lives across sessions */
  if (a->opts.memlimit && held >= a->opts.memlimit)
    say(r, "fgagent: warning: memlimit=%llu is below the %llu bytes the stacks of earlier sessions hold: every new "
           "stack is refused and counted; accepted: a memlimit above that, or 0", (unsigned long long)a->opts.memlimit,
        (unsigned long long)held);
  jthread self = NULL;
  if ((*a->jvmti)->GetCurrentThread(a->jvmti, &self) != JVMTI_ERROR_NONE || !self) {
    say(r, "fgagent: start: JVMTI does not name the attach thread (the JVM is not live); not started");
    return -1;
  }
  fg_session_start(a, jni, self);
  return atomic_load(&a->state) == FG_SESSION_LIVE ? 0 : -1;
}

/* Options an attached session cannot take (they need the JVM from its
 * start), or options that do not parse: said, 1. */
static int refused_at_attach(const char *options, struct reply *r)
{
  struct fg_options o;
  char err[8192];
  if (fg_options_parse(options, &o, err, sizeof err) != 0) {
    say(r, "%s", err);
    return 1;
  }
  if (o.sched || o.verify) {
    const char *name = o.sched ? "sched" : "verify";
    say(r, "fgagent: option %s is not available when attaching to a running JVM; accepted: %s at start-up "
           "(-agentpath)", name, name);
    return 1;
  }
  return 0;
}

static int start(struct fg_agent *a, JavaVM *vm, JNIEnv *jni, const char *options, struct reply *r)
{
  char line[256], files[4096];
  if (a->jvmti && atomic_load(&a->state) == FG_SESSION_LIVE) {
    /* another client's session (or -agentpath's): its owner stops it, not this start */
    fg_session_status(a, line, sizeof line);
    fg_session_outputs(a, files, sizeof files);
    say(r, "%s, writing %s: another session is running (started at JVM start or by another client); this start is "
           "refused and that session left as it is; accepted: a start once it is stopped (fgprof attach PID stop "
           "writes its files)", line, files[0] ? files : "no file");
    return -1;
  }
  if (refused_at_attach(options, r))
    return -1;
  if (vm_dead(a))
    return say_exiting(r, "start");
  int running = a->jvmti ? restart(a, jni, options, r) : first_start(a, vm, jni, options, r);
  if (running == FG_START_LATER || running == FG_EXITING)
    return running;
  if (running < 0)
    return -1;
  if (vm_dead(a)) {
    /* A first start raced the exit: VMDeath came before its event was on,
     * and will not come again. The session ends here, its files written. */
    atomic_store(&a->exiting, 1);
    fg_session_finish(a, jni);
    atomic_store(&a->state, FG_SESSION_EXITED);
    fg_session_outputs(a, files, sizeof files);
    say(r, "fgagent: start: the JVM exited as the session began; refused, its files written (%s)",
        files[0] ? files : "none");
    return FG_EXITING;
  }
  fg_session_status(a, line, sizeof line);
  say(r, "%s; started (%d threads already running registered)", line, running);
  return 0;
}

static int command(struct fg_agent *a, JavaVM *vm, JNIEnv *jni, const char *cmd, const char *options,
                   struct reply *r)
{
  char line[256];
  int live = a->jvmti && atomic_load(&a->state) == FG_SESSION_LIVE;
  if (strcmp(cmd, "start") == 0)
    return start(a, vm, jni, options, r);
  if (options[0]) {
    say(r, "fgagent: %s takes no options, not '%s'; accepted: reply=PATH", cmd, options);
    return -1;
  }
  if (strcmp(cmd, "status") == 0) {
    fg_session_status(a, line, sizeof line);
    say(r, "%s", a->jvmti ? line : "fgagent: idle (loaded, not profiling)");
    return 0;
  }
  if (!live) {
    say(r, "fgagent: %s: not profiling; accepted: start first", cmd);
    return -1;
  }
  char files[4096];
  fg_session_outputs(a, files, sizeof files);
  if (r->file)   /* fgprof waits past its --timeout for a large profile's writing */
    say(r, FG_ATTACH_WORKING "%s", cmd);
  if (strcmp(cmd, "dump") == 0) {
    if (fg_session_dump(a, jni) != 0)
      return -1;
  } else {
    fg_session_finish(a, jni);
  }
  if (a->outputs_failed) {
    say(r, "fgagent: %s: %d of the outputs (%s) could not be written there; the JVM's stderr says where they "
           "went instead", cmd, a->outputs_failed, files);
    return -1;
  }
  if (strcmp(cmd, "dump") == 0)
    say(r, "fgagent: dumped, profiling goes on; wrote %s", files);
  else
    say(r, "fgagent: stopped; wrote %s; the summary went to %s", files,
        a->opts.log[0] ? a->opts.log : "the JVM's stderr");
  return 0;
}

/* Splits "COMMAND,reply=PATH,OPTIONS" into its command (start when the
 * first word is none), reply path and the other options, in place. */
static const char *split(char *text, char **reply)
{
  static const char *const commands[] = {"start", "stop", "dump", "status"};
  const char *cmd = "start";
  char *out = text;
  *reply = NULL;
  for (char *tok = text, *next; tok; tok = next) {
    next = strchr(tok, ',');
    size_t n = next ? (size_t)(next - tok) : strlen(tok);
    if (next)
      next++;
    int is_cmd = 0;
    for (size_t i = 0; tok == text && i < sizeof commands / sizeof commands[0]; i++)
      if (strlen(commands[i]) == n && strncmp(tok, commands[i], n) == 0) {
        cmd = commands[i];
        is_cmd = 1;
      }
    if (is_cmd)
      continue;
    if (n > 6 && strncmp(tok, "reply=", 6) == 0) {
      free(*reply);
      *reply = strndup(tok + 6, n - 6);
      continue;
    }
    if (out != text)
      *out++ = ',';
    memmove(out, tok, n);
    out += n;
  }
  *out = '\0';
  return cmd;
}

JNIEXPORT jint JNICALL Agent_OnAttach(JavaVM *vm, char *options, void *reserved)
{
  (void)reserved;
  char *text = strdup(options ? options : ""), *reply_path = NULL;
  if (!text)
    return JNI_ENOMEM;
  const char *cmd = split(text, &reply_path);
  struct reply r = {stderr, 0};
  /* the client's file: never through a link someone planted at its name */
  int fd = reply_path ? open(reply_path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600) : -1;
  FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
  if (!f && fd >= 0)
    close(fd);
  if (f) {
    r.out = f;
    r.file = 1;
  }
  struct fg_agent *a = fg_agent_instance();
  JNIEnv *jni = NULL;
  int rc;
  if ((*vm)->GetEnv(vm, (void **)&jni, JNI_VERSION_1_6) != JNI_OK) {
    say(&r, "fgagent: the attach thread has no JNIEnv");
    rc = JNI_ERR;
  } else if (fg_session_enter(a) != 0) {
    rc = say_exiting(&r, cmd) == FG_EXITING ? FG_ATTACH_RC_EXITING : JNI_ERR;
  } else {
    rc = command(a, vm, jni, cmd, text, &r);
    rc = rc == 0 ? JNI_OK : rc == FG_START_LATER ? FG_ATTACH_RC_STARTING : rc == FG_EXITING ? FG_ATTACH_RC_EXITING
       : JNI_ERR;
    fg_session_leave(a);
  }
  if (r.file)   /* the answer, for a client whose socket the JVM's exit closes first */
    say(&r, FG_ATTACH_RC "%d", rc);
  if (f)
    fclose(f);
  free(reply_path);
  free(text);
  return rc;
}
