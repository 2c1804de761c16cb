/* The drainer thread and one drain pass; see drainer.h. */
#include "drainer.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "fg/sample_record.h"

#define PASS_NS 10000000ull            /* drain every 10 ms */
#define SCAN_EVERY 10                  /* look for new threads every 100 ms */
#define RECLAIM_EVERY 100              /* free dead threads' slots every second */

int fg_drainer_init(struct fg_drainer *d)
{
  d->frames = calloc((size_t)d->depth + 2, sizeof *d->frames);
  if (!d->frames || pthread_mutex_init(&d->lock, NULL) != 0)
    return -1;
  return 0;
}

static int64_t intern(struct fg_drainer *d, const char *name, enum fg_frame_kind kind)
{
  return fg_profile_intern(d->profile, name, kind);
}

/* The profile thread a record's samples go to (new per registration). */
static uint32_t profile_thread_of(struct fg_drainer *d, struct fg_thread *t)
{
  if (t->profile_serial != t->serial) {
    int64_t idx = fg_profile_add_thread(d->profile, t->tid, t->name);
    t->profile_thread = idx < 0 ? 0 : (uint32_t)idx;
    t->profile_serial = t->serial;
  }
  return t->profile_thread;
}

/* Turns one sample record into a profile stack, root first. */
static void add_sample(struct fg_drainer *d, JNIEnv *jni, uint32_t thread, const uint64_t *rec)
{
  struct fg_stats *st = &d->profile->stats;
  int32_t n = fg_sample_num_frames(rec);
  uint32_t count = 0;
  int64_t id;
  if (n <= 0) {
    int tick = fg_tick_index(n);
    char name[48];
    snprintf(name, sizeof name, "[%s]", fg_tick_name(tick));
    st->failed[tick]++;
    if ((id = intern(d, name, FG_KIND_MARKER)) >= 0)
      d->frames[count++] = (uint32_t)id;
  } else {
    st->java++;
    if (fg_sample_flags(rec) & FG_SAMPLE_TRUNCATED) {
      st->truncated++;
      if ((id = intern(d, "[truncated]", FG_KIND_MARKER)) >= 0)
        d->frames[count++] = (uint32_t)id;
    }
    for (int32_t i = n - 1; i >= 0; i--) {   /* records are leaf first */
      id = fg_method_name(d->names, d->jvmti, jni, d->profile, fg_sample_method(rec, (uint32_t)i),
                          fg_sample_bci(rec, (uint32_t)i));
      if (id >= 0)
        d->frames[count++] = (uint32_t)id;
    }
  }
  fg_profile_add(d->profile, thread, d->frames, count, 1);
}

static void drain_thread(struct fg_drainer *d, JNIEnv *jni, struct fg_thread *t)
{
  /* Read the state first: a thread seen ENDED has written its last sample. */
  int state = atomic_load(&t->state);
  if (state == FG_THREAD_FREE)
    return;
  uint32_t thread = profile_thread_of(d, t);
  const uint64_t *rec;
  while ((rec = fg_ring_peek(&t->ring)) != NULL) {
    if (fg_ring_header_tag(*rec) == FG_RECORD_SAMPLE)
      add_sample(d, jni, thread, rec);
    fg_ring_release(&t->ring, rec);
  }
  struct fg_stats *st = &d->profile->stats;
  uint64_t taken = atomic_load(&t->taken), overruns = atomic_load(&t->overruns);
  uint64_t handler_ns = atomic_load(&t->handler_ns);
  st->taken += taken - t->counted_taken;
  st->overruns += overruns - t->counted_overruns;
  st->handler_ns += handler_ns - t->counted_handler_ns;
  st->walks += taken - t->counted_taken;
  t->counted_taken = taken;
  t->counted_overruns = overruns;
  t->counted_handler_ns = handler_ns;
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
  }
  if (f)
    fclose(f);
}

static struct fg_foreign_name *foreign_name(struct fg_drainer *d, int tid)
{
  if ((d->foreign_used + 1) * 2 > d->foreign_capacity) {
    uint32_t cap = d->foreign_capacity ? d->foreign_capacity * 2 : 256;
    struct fg_foreign_name *names = calloc(cap, sizeof *names);
    if (!names)
      return NULL;
    for (uint32_t i = 0; i < d->foreign_capacity; i++) {
      if (!d->foreign_names[i].tid)
        continue;
      uint32_t j = (uint32_t)d->foreign_names[i].tid & (cap - 1);
      while (names[j].tid)
        j = (j + 1) & (cap - 1);
      names[j] = d->foreign_names[i];
    }
    free(d->foreign_names);
    d->foreign_names = names;
    d->foreign_capacity = cap;
  }
  uint32_t j = (uint32_t)tid & (d->foreign_capacity - 1);
  for (; d->foreign_names[j].tid; j = (j + 1) & (d->foreign_capacity - 1))
    if (d->foreign_names[j].tid == tid)
      return &d->foreign_names[j];
  char comm[64], frame[80];
  thread_comm(tid, comm, sizeof comm);
  snprintf(frame, sizeof frame, "[%s]", comm);
  int64_t thread = fg_profile_add_thread(d->profile, tid, comm);
  int64_t id = intern(d, frame, FG_KIND_THREAD);
  if (thread < 0 || id < 0)
    return NULL;
  d->foreign_names[j] = (struct fg_foreign_name){tid, (uint32_t)thread, (uint32_t)id};
  d->foreign_used++;
  return &d->foreign_names[j];
}

static void add_foreign(void *ctx, int tid, uint64_t samples)
{
  struct fg_drainer *d = ctx;
  struct fg_foreign_name *f = foreign_name(d, tid);
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
static void reclaim_foreign(struct fg_drainer *d)
{
  fg_foreign_reclaim(d->sampler->foreign, tid_alive);
  memset(d->foreign_names, 0, d->foreign_capacity * sizeof *d->foreign_names);
  d->foreign_used = 0;
}

static void drain_all(struct fg_drainer *d, JNIEnv *jni)
{
  pthread_mutex_lock(&d->registry->lock);
  for (uint32_t i = 0; i < d->registry->n; i++)
    drain_thread(d, jni, d->registry->all[i]);
  pthread_mutex_unlock(&d->registry->lock);

  fg_foreign_drain(d->sampler->foreign, add_foreign, d);
  struct fg_stats *st = &d->profile->stats;
  uint64_t foreign = atomic_load(&d->sampler->foreign_taken);
  st->taken += foreign - d->foreign_counted;
  d->foreign_counted = foreign;
  st->no_slot = atomic_load(&d->sampler->foreign->no_slot);
}

/* One pass over every ring, with jni the calling thread's. Takes the lock. */
static void drainer_pass(struct fg_drainer *d, JNIEnv *jni)
{
  pthread_mutex_lock(&d->lock);
  if (!d->closed)
    drain_all(d, jni);
  pthread_mutex_unlock(&d->lock);
}

void fg_drainer_finish(struct fg_drainer *d, JNIEnv *jni)
{
  atomic_store(&d->stop, 1);
  pthread_mutex_lock(&d->lock);
  if (!d->closed)
    drain_all(d, jni);
  d->closed = 1;
  pthread_mutex_unlock(&d->lock);
}

static uint64_t thread_cpu_ns(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void JNICALL drainer_main(jvmtiEnv *jvmti, JNIEnv *jni, void *arg)
{
  (void)jvmti;
  struct fg_drainer *d = arg;
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGPROF);
  pthread_sigmask(SIG_BLOCK, &set, NULL);
  d->timer->skip_tid = (int)syscall(SYS_gettid);
  fg_timer_thread_end(d->timer, d->timer->skip_tid);

  struct timespec period = {0, (long)PASS_NS};
  for (uint64_t pass = 0; !atomic_load(&d->stop); pass++) {
    if (pass % SCAN_EVERY == 0)
      fg_timer_scan(d->timer);
    drainer_pass(d, jni);
    if (pass % RECLAIM_EVERY == RECLAIM_EVERY - 1) {
      pthread_mutex_lock(&d->lock);
      if (!d->closed)
        reclaim_foreign(d);
      pthread_mutex_unlock(&d->lock);
    }
    atomic_store(&d->cpu_ns, thread_cpu_ns());
    nanosleep(&period, NULL);
  }
  atomic_store(&d->cpu_ns, thread_cpu_ns());
  atomic_store(&d->running, 0);
}

int fg_drainer_start(struct fg_drainer *d, JNIEnv *jni, char *err, size_t errlen)
{
  jclass cls = (*jni)->FindClass(jni, "java/lang/Thread");
  jmethodID init = cls ? (*jni)->GetMethodID(jni, cls, "<init>", "(Ljava/lang/String;)V") : NULL;
  jstring name = (*jni)->NewStringUTF(jni, "fgagent drainer");
  jobject thread = (cls && init && name) ? (*jni)->NewObject(jni, cls, init, name) : NULL;
  if (!thread) {
    (*jni)->ExceptionClear(jni);
    snprintf(err, errlen, "fgagent: cannot create the drainer thread object");
    return -1;
  }
  d->thread = (*jni)->NewGlobalRef(jni, thread);
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
