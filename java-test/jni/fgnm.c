/* NativeMem's native half: known sizes allocated from known functions, a
 * known part freed; pthread locks contended for known times; a library
 * loaded and unloaded in a loop. Built -fno-optimize-sibling-calls and
 * -fno-builtin-malloc family (Makefile): every site calls the allocator
 * itself, from its own frame. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <jni.h>
#include <malloc.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline, noclone))
#define KEPT_MAX (4u << 20)

static void **kept;         /* the kept sites' pointers (mapped: not an allocation of ours) */
static _Atomic uint32_t nkept;

static void keep(void *p)
{
  uint32_t i = __atomic_fetch_add(&nkept, 1, __ATOMIC_RELAXED);
  if (i < KEPT_MAX)
    kept[i] = p;
}

static void touch(void *p)
{
  if (p)
    *(volatile char *)p = 1;
}

/* A kept block that goes through a failed realloc and reallocarray first:
 * both fail (too large, an overflowing product), leaving it the caller's,
 * and the leak report must still hold it. */
static volatile size_t too_large = SIZE_MAX / 2;
NOINLINE void *nm_site_malloc_kept(size_t n)
{
  void *p = malloc(n);
  touch(p);
  if (p && (realloc(p, too_large) != NULL || reallocarray(p, too_large, 4) != NULL))
    abort();   /* cannot succeed: the kept site's truth would be wrong */
  return p;
}
NOINLINE void *nm_site_malloc_freed(size_t n) { void *p = malloc(n); touch(p); return p; }
NOINLINE void *nm_site_calloc_freed(size_t n) { void *p = calloc(1, n); touch(p); return p; }
NOINLINE void *nm_site_realloc_freed(size_t n)
{
  void *p = realloc(NULL, n / 2);
  touch(p);
  void *q = realloc(p, n);
  touch(q);
  return q;
}
NOINLINE void *nm_site_memalign_kept(size_t n)
{
  void *p = NULL;
  if (posix_memalign(&p, 64, n) != 0)
    return NULL;
  touch(p);
  return p;
}
NOINLINE void *nm_site_aligned_freed(size_t n) { void *p = aligned_alloc(64, n); touch(p); return p; }
NOINLINE void *nm_site_oldmemalign_freed(size_t n) { void *p = memalign(64, n); touch(p); return p; }
NOINLINE void *nm_site_valloc_kept(size_t n) { void *p = valloc(n); touch(p); return p; }
NOINLINE void *nm_site_pvalloc_freed(size_t n) { void *p = pvalloc(n); touch(p); return p; }
NOINLINE void *nm_site_reallocarray_freed(size_t n)
{
  void *p = reallocarray(NULL, n / 2, 1);
  touch(p);
  void *q = reallocarray(p, n / 4, 4);   /* n rounded down to 4 */
  touch(q);
  return q;
}

/* pvalloc where the allocator in use has it: jemalloc has none, and glibc's
 * gives memory of glibc's heap that jemalloc's free cannot take back. */
static int pvalloc_usable(void)
{
  Dl_info a, b;
  void *pv = dlsym(RTLD_DEFAULT, "pvalloc"), *m = dlsym(RTLD_DEFAULT, "malloc");
  return pv && m && dladdr(pv, &a) && dladdr(m, &b) && a.dli_fbase == b.dli_fbase;
}

/* Sizes in a cycle from 100 B to 256 KiB. */
static size_t size_at(uint64_t i)
{
  static const size_t sizes[] = {100, 1000, 4096, 30000, 100000, 262144, 777, 12345};
  return sizes[i % (sizeof sizes / sizeof sizes[0])];
}

/* Site site's bytes: about total of them in its calls; the bytes asked for. */
JNIEXPORT jlong JNICALL Java_NativeMem_run(JNIEnv *env, jclass cls, jint site, jlong total)
{
  (void)env;
  (void)cls;
  if (!kept) {
    void *m = mmap(NULL, KEPT_MAX * sizeof *kept, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED)
      return -1;
    void **none = NULL;
    if (!__atomic_compare_exchange_n(&kept, &none, (void **)m, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
      munmap(m, KEPT_MAX * sizeof *kept);
  }
  jlong done = 0;
  size_t page = (size_t)sysconf(_SC_PAGESIZE);
  if (site == 8 && !pvalloc_usable())
    return 0;
  for (uint64_t i = (uint64_t)site * 3; done < total; i++) {
    size_t n = size_at(i);
    switch (site) {
    case 0: keep(nm_site_malloc_kept(n)); done += (jlong)n; break;
    case 1: free(nm_site_malloc_freed(n)); done += (jlong)n; break;
    case 2: free(nm_site_calloc_freed(n)); done += (jlong)n; break;
    case 3: free(nm_site_realloc_freed(n)); done += (jlong)(n / 2 + n); break;
    case 4: keep(nm_site_memalign_kept(n)); done += (jlong)n; break;
    case 5: n = (n + 63) & ~(size_t)63; free(nm_site_aligned_freed(n)); done += (jlong)n; break;
    case 6: free(nm_site_oldmemalign_freed(n)); done += (jlong)n; break;
    case 7: keep(nm_site_valloc_kept(n)); done += (jlong)n; break;
    case 8: free(nm_site_pvalloc_freed(n)); done += (jlong)((n + page - 1) & ~(page - 1)); break;
    case 9: free(nm_site_reallocarray_freed(n)); done += (jlong)(n / 2 + n / 4 * 4); break;
    default: return -1;
    }
  }
  return done;
}

/* n blocks of 30 000 bytes (small enough for jemalloc's thread cache)
 * freed through a pointer dlsym gave, which no import slot holds: a free
 * no hook sees, as libc's own are. Each is followed by an allocation of
 * the same size, which the allocator usually places at the freed address,
 * and its free, both seen. The number of allocations given the
 * unseen-freed address back. */
NOINLINE void *nm_site_freed_unseen(size_t n) { void *p = malloc(n); touch(p); return p; }
JNIEXPORT jint JNICALL Java_NativeMem_unseenFrees(JNIEnv *env, jclass cls, jint n)
{
  (void)env;
  (void)cls;
  void (*hidden_free)(void *) = (void (*)(void *))dlsym(RTLD_DEFAULT, "free");
  jint again = 0;
  for (jint i = 0; hidden_free && i < n; i++) {
    void *p = nm_site_freed_unseen(30000);
    hidden_free(p);
    void *q = nm_site_freed_unseen(30000);
    again += q && q == p;
    free(q);
  }
  return again;
}

/* A library of our own loaded, called (it mallocs and frees) and unloaded n times. */
JNIEXPORT jint JNICALL Java_NativeMem_dlcycle(JNIEnv *env, jclass cls, jstring path, jint n)
{
  (void)cls;
  const char *p = (*env)->GetStringUTFChars(env, path, NULL);
  jint unloaded = 0;
  for (jint i = 0; p && i < n; i++) {
    void *h = dlopen(p, RTLD_NOW | RTLD_LOCAL);
    if (!h)
      break;
    long (*churn)(int) = (long (*)(int))dlsym(h, "fgnm_helper_churn");
    if (churn)
      churn(200);
    dlclose(h);
    void *again = dlopen(p, RTLD_NOW | RTLD_NOLOAD);   /* NULL: it was unloaded */
    if (again)
      dlclose(again);
    else
      unloaded++;
  }
  if (p)
    (*env)->ReleaseStringUTFChars(env, path, p);
  return unloaded;
}

/* nativelock: threads of our own taking one mutex (by pthread_mutex_lock
 * or _timedlock) or one rwlock (by _wrlock, _timedwrlock, _timedrdlock) in
 * turns and holding it hold_us; each site measures its own waits. */
static pthread_mutex_t mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_rwlock_t rwlock = PTHREAD_RWLOCK_INITIALIZER;
enum { LOCK_SITES = 8 };
static _Atomic uint64_t waited[LOCK_SITES];   /* by site: as kinds below */

struct turns {
  int rounds, hold_us, kind;
};

static uint64_t now_ns(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* The holder sleeps: ten threads spinning on two cores had the kernel
 * preempt a waiter between its own clock read and the call, a delay the
 * site measures and the hook (timing the call) rightly does not see. */
static void hold(int us)
{
  struct timespec ts = {0, (long)us * 1000};
  nanosleep(&ts, NULL);
}

NOINLINE void nm_lock_site(int hold_us)
{
  uint64_t t0 = now_ns();
  pthread_mutex_lock(&mutex);
  __atomic_fetch_add(&waited[0], now_ns() - t0, __ATOMIC_RELAXED);
  hold(hold_us);
  pthread_mutex_unlock(&mutex);
}

/* The rwlock's writers say when one holds it, and a reader starts its
 * call while one does: it waits then, whatever the threads' schedule (the
 * rwlock prefers readers, and a reader that came between two writers
 * would find it free every time). */
static _Atomic int writing;

static void hold_written(int us)
{
  __atomic_store_n(&writing, 1, __ATOMIC_RELEASE);
  hold(us);
  __atomic_store_n(&writing, 0, __ATOMIC_RELEASE);
}

/* Until a writer holds the rwlock, 5 ms at most (the writers may be done). */
static void writer_holds(void)
{
  uint64_t until = now_ns() + 5000000;
  while (!__atomic_load_n(&writing, __ATOMIC_ACQUIRE) && now_ns() < until)
    sched_yield();
}

NOINLINE void nm_wrlock_site(int hold_us)
{
  uint64_t t0 = now_ns();
  pthread_rwlock_wrlock(&rwlock);
  __atomic_fetch_add(&waited[1], now_ns() - t0, __ATOMIC_RELAXED);
  hold_written(hold_us);
  pthread_rwlock_unlock(&rwlock);
}

/* The timed ones, with a deadline on clock never reached (10 s): a wait that timed out would be a test's failure. */
static struct timespec far_deadline(clockid_t clock)
{
  struct timespec ts;
  clock_gettime(clock, &ts);
  ts.tv_sec += 10;
  return ts;
}

NOINLINE int nm_timedlock_site(int hold_us)
{
  struct timespec until = far_deadline(CLOCK_REALTIME);
  uint64_t t0 = now_ns();
  int rc = pthread_mutex_timedlock(&mutex, &until);
  __atomic_fetch_add(&waited[2], now_ns() - t0, __ATOMIC_RELAXED);
  if (rc != 0)
    return rc;
  hold(hold_us);
  return pthread_mutex_unlock(&mutex);
}

NOINLINE int nm_timedwrlock_site(int hold_us)
{
  struct timespec until = far_deadline(CLOCK_REALTIME);
  uint64_t t0 = now_ns();
  int rc = pthread_rwlock_timedwrlock(&rwlock, &until);
  __atomic_fetch_add(&waited[3], now_ns() - t0, __ATOMIC_RELAXED);
  if (rc != 0)
    return rc;
  hold_written(hold_us);
  return pthread_rwlock_unlock(&rwlock);
}

NOINLINE int nm_timedrdlock_site(int hold_us)
{
  struct timespec until = far_deadline(CLOCK_REALTIME);
  writer_holds();
  uint64_t t0 = now_ns();
  int rc = pthread_rwlock_timedrdlock(&rwlock, &until);
  __atomic_fetch_add(&waited[4], now_ns() - t0, __ATOMIC_RELAXED);
  if (rc != 0)
    return rc;
  hold(hold_us);
  return pthread_rwlock_unlock(&rwlock);
}

/* The ones with a clock of the caller's choice (glibc 2.30), a monotonic deadline. */

NOINLINE int nm_clocklock_site(int hold_us)
{
  struct timespec until = far_deadline(CLOCK_MONOTONIC);
  uint64_t t0 = now_ns();
  int rc = pthread_mutex_clocklock(&mutex, CLOCK_MONOTONIC, &until);
  __atomic_fetch_add(&waited[5], now_ns() - t0, __ATOMIC_RELAXED);
  if (rc != 0)
    return rc;
  hold(hold_us);
  return pthread_mutex_unlock(&mutex);
}

NOINLINE int nm_clockwrlock_site(int hold_us)
{
  struct timespec until = far_deadline(CLOCK_MONOTONIC);
  uint64_t t0 = now_ns();
  int rc = pthread_rwlock_clockwrlock(&rwlock, CLOCK_MONOTONIC, &until);
  __atomic_fetch_add(&waited[6], now_ns() - t0, __ATOMIC_RELAXED);
  if (rc != 0)
    return rc;
  hold_written(hold_us);
  return pthread_rwlock_unlock(&rwlock);
}

NOINLINE int nm_clockrdlock_site(int hold_us)
{
  struct timespec until = far_deadline(CLOCK_MONOTONIC);
  writer_holds();
  uint64_t t0 = now_ns();
  int rc = pthread_rwlock_clockrdlock(&rwlock, CLOCK_MONOTONIC, &until);
  __atomic_fetch_add(&waited[7], now_ns() - t0, __ATOMIC_RELAXED);
  if (rc != 0)
    return rc;
  hold(hold_us);
  return pthread_rwlock_unlock(&rwlock);
}

/* Between turns a thread sleeps a quarter of a hold: the others take the
 * lock meanwhile and it waits for it when it comes back (glibc's mutex
 * is not fair: without the pause one thread takes it again and again). */
static void *take_turns(void *arg)
{
  struct turns *t = arg;
  struct timespec pause = {0, (long)t->hold_us * 250};
  for (int i = 0; i < t->rounds; i++) {
    switch (t->kind) {
    case 0: nm_lock_site(t->hold_us); break;
    case 1: nm_wrlock_site(t->hold_us); break;
    case 2: nm_timedlock_site(t->hold_us); break;
    case 3: nm_timedwrlock_site(t->hold_us); break;
    case 4: nm_timedrdlock_site(t->hold_us); break;
    case 5: nm_clocklock_site(t->hold_us); break;
    case 6: nm_clockwrlock_site(t->hold_us); break;
    default: nm_clockrdlock_site(t->hold_us); break;
    }
    nanosleep(&pause, NULL);
  }
  return NULL;
}

/* Calls glibc refuses before it tries the lock (EINVAL): a clock no futex
 * waits on, a deadline's nanoseconds out of range; on free locks, which a
 * hook trying them first would take. How many of the 4 gave EINVAL. */
JNIEXPORT jint JNICALL Java_NativeMem_refusedArguments(JNIEnv *env, jclass cls)
{
  (void)env;
  (void)cls;
  static pthread_mutex_t free_mutex = PTHREAD_MUTEX_INITIALIZER;
  static pthread_rwlock_t free_rwlock = PTHREAD_RWLOCK_INITIALIZER;
  struct timespec soon = far_deadline(CLOCK_MONOTONIC), bad = {soon.tv_sec, -1};
  int rc[4] = {
    pthread_mutex_clocklock(&free_mutex, CLOCK_PROCESS_CPUTIME_ID, &soon),
    pthread_rwlock_clockrdlock(&free_rwlock, CLOCK_THREAD_CPUTIME_ID, &soon),
    pthread_rwlock_clockwrlock(&free_rwlock, CLOCK_MONOTONIC, &bad),
    pthread_rwlock_timedrdlock(&free_rwlock, &bad),
  };
  jint refused = 0;
  for (int i = 0; i < 4; i++) {
    refused += rc[i] == EINVAL;
    if (rc[i] == 0)   /* taken: given back */
      i == 0 ? pthread_mutex_unlock(&free_mutex) : pthread_rwlock_unlock(&free_rwlock);
  }
  return refused;
}

/* threads native threads, rounds turns each, thread i at site i % 8 (with
 * fewer than 8, the first sites); out[s]: the ns site s waited (as kinds
 * in take_turns: lock, wrlock, timedlock, timedwrlock, timedrdlock,
 * clocklock, clockwrlock, clockrdlock). */
JNIEXPORT void JNICALL Java_NativeMem_contend(JNIEnv *env, jclass cls, jint threads, jint rounds, jint hold_us,
                                              jlongArray out)
{
  (void)cls;
  pthread_t th[64];
  struct turns t[64];
  if (threads > 64)
    threads = 64;
  for (int s = 0; s < LOCK_SITES; s++)
    waited[s] = 0;
  for (int i = 0; i < threads; i++) {
    t[i] = (struct turns){rounds, hold_us, i % LOCK_SITES};
    pthread_create(&th[i], NULL, take_turns, &t[i]);
  }
  for (int i = 0; i < threads; i++)
    pthread_join(th[i], NULL);
  jlong w[LOCK_SITES];
  for (int s = 0; s < LOCK_SITES; s++)
    w[s] = (jlong)waited[s];
  jsize n = (*env)->GetArrayLength(env, out);
  (*env)->SetLongArrayRegion(env, out, 0, n < LOCK_SITES ? n : LOCK_SITES, w);
}
