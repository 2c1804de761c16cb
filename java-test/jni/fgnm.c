/* NativeMem's native half: known sizes allocated from known functions, a
 * known part freed; pthread locks contended for known times; a library
 * loaded and unloaded in a loop. Built -fno-optimize-sibling-calls and
 * -fno-builtin-malloc family (Makefile): every site calls the allocator
 * itself, from its own frame. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <jni.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

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

NOINLINE void *nm_site_malloc_kept(size_t n) { void *p = malloc(n); touch(p); return p; }
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
  for (uint64_t i = (uint64_t)site * 3; done < total; i++) {
    size_t n = size_at(i);
    switch (site) {
    case 0: keep(nm_site_malloc_kept(n)); done += (jlong)n; break;
    case 1: free(nm_site_malloc_freed(n)); done += (jlong)n; break;
    case 2: free(nm_site_calloc_freed(n)); done += (jlong)n; break;
    case 3: free(nm_site_realloc_freed(n)); done += (jlong)(n / 2 + n); break;
    case 4: keep(nm_site_memalign_kept(n)); done += (jlong)n; break;
    case 5: n = (n + 63) & ~(size_t)63; free(nm_site_aligned_freed(n)); done += (jlong)n; break;
    default: return -1;
    }
  }
  return done;
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

/* nativelock: threads of our own taking one mutex (or a rwlock for
 * writing) in turns and holding it hold_us; each measures its own waits. */
static pthread_mutex_t mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_rwlock_t rwlock = PTHREAD_RWLOCK_INITIALIZER;
static _Atomic uint64_t waited_mutex, waited_rw;

struct turns {
  int rounds, hold_us, rw;
};

static uint64_t now_ns(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void hold(int us)
{
  uint64_t end = now_ns() + (uint64_t)us * 1000u;
  while (now_ns() < end)
    ;
}

NOINLINE void nm_lock_site(int hold_us)
{
  uint64_t t0 = now_ns();
  pthread_mutex_lock(&mutex);
  __atomic_fetch_add(&waited_mutex, now_ns() - t0, __ATOMIC_RELAXED);
  hold(hold_us);
  pthread_mutex_unlock(&mutex);
}

NOINLINE void nm_wrlock_site(int hold_us)
{
  uint64_t t0 = now_ns();
  pthread_rwlock_wrlock(&rwlock);
  __atomic_fetch_add(&waited_rw, now_ns() - t0, __ATOMIC_RELAXED);
  hold(hold_us);
  pthread_rwlock_unlock(&rwlock);
}

/* Between turns a thread sleeps a quarter of a hold: the others take the
 * lock meanwhile and it waits for it when it comes back (glibc's mutex
 * is not fair: without the pause one thread takes it again and again). */
static void *take_turns(void *arg)
{
  struct turns *t = arg;
  struct timespec pause = {0, (long)t->hold_us * 250};
  for (int i = 0; i < t->rounds; i++) {
    if (t->rw)
      nm_wrlock_site(t->hold_us);
    else
      nm_lock_site(t->hold_us);
    nanosleep(&pause, NULL);
  }
  return NULL;
}

/* threads native threads, rounds turns each; out[0], out[1]: ns waited on the mutex, on the rwlock. */
JNIEXPORT void JNICALL Java_NativeMem_contend(JNIEnv *env, jclass cls, jint threads, jint rounds, jint hold_us,
                                              jlongArray out)
{
  (void)cls;
  pthread_t th[64];
  struct turns t[64];
  if (threads > 64)
    threads = 64;
  waited_mutex = waited_rw = 0;
  for (int i = 0; i < threads; i++) {
    t[i] = (struct turns){rounds, hold_us, i & 1};
    pthread_create(&th[i], NULL, take_turns, &t[i]);
  }
  for (int i = 0; i < threads; i++)
    pthread_join(th[i], NULL);
  jlong w[2] = {(jlong)waited_mutex, (jlong)waited_rw};
  (*env)->SetLongArrayRegion(env, out, 0, 2, w);
}
