/* The hooks the import slots point at (native_mem.h). Each calls the
 * original, then, when the session records it, samples. Runs inside the
 * application's malloc, free or lock: no allocation, no lock, no stdio, no
 * JNI; a thread-local struct of the initial-exec model (the library is built
 * -ftls-model=initial-exec: no __tls_get_addr, which may allocate on a
 * thread's first touch of a dlopen'ed library's TLS). Built with frame
 * pointers and no sibling calls (Makefile): a hook's caller's registers are
 * read off its own frame. errno is the original's, kept across the record. */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "fg/clock.h"
#include "fg/profile.h"
#include "native_mem/import_patch.h"
#include "native_mem/native_mem.h"
#include "native_mem/nm_sampling.h"

struct nm_thread {
  int64_t left;                  /* bytes to this thread's next sample point */
  uint64_t rng;
  uint32_t session;              /* fg_nm.session the count was drawn in */
  int busy;                      /* recording: a nested call is not sampled */
};
static __thread struct nm_thread nm_self;

static void *(*real_malloc)(size_t);
static void *(*real_calloc)(size_t, size_t);
static void *(*real_realloc)(void *, size_t);
static void (*real_free)(void *);
static int (*real_posix_memalign)(void **, size_t, size_t);
static void *(*real_aligned_alloc)(size_t, size_t);
static void *(*real_memalign)(size_t, size_t);
static void *(*real_valloc)(size_t);
static void *(*real_pvalloc)(size_t);
static void *(*real_reallocarray)(void *, size_t, size_t);
static int (*real_mutex_lock)(pthread_mutex_t *);
static int (*real_rdlock)(pthread_rwlock_t *);
static int (*real_wrlock)(pthread_rwlock_t *);
static int (*real_mutex_timedlock)(pthread_mutex_t *, const struct timespec *);
static int (*real_timedrdlock)(pthread_rwlock_t *, const struct timespec *);
static int (*real_timedwrlock)(pthread_rwlock_t *, const struct timespec *);
static int (*real_mutex_clocklock)(pthread_mutex_t *, clockid_t, const struct timespec *);
static int (*real_clockrdlock)(pthread_rwlock_t *, clockid_t, const struct timespec *);
static int (*real_clockwrlock)(pthread_rwlock_t *, clockid_t, const struct timespec *);
static void *(*real_load_library)(const char *, int);
static size_t page_size = 4096;   /* pvalloc's unit: the system's, read at resolve */

/* The caller's pc, stack pointer and frame pointer, read off the hook's frame. */
#define CALLER_REGS                                                                              \
  (uintptr_t) __builtin_return_address(0), (uintptr_t)__builtin_frame_address(0) + 16,         \
      *(uintptr_t *)__builtin_frame_address(0)

/* Whether an allocation of size bytes is sampled; what it stands for. */
static inline int sampled(size_t size, uint64_t *bytes, uint64_t *calls)
{
  uint64_t interval = fg_nm.interval;
  if (interval == 0) {
    *bytes = size;
    *calls = 1;
    return 1;
  }
  struct nm_thread *me = &nm_self;
  uint32_t session = atomic_load_explicit(&fg_nm.session, memory_order_relaxed);
  if (me->session != session) {   /* this thread's first call in the session */
    if (!me->rng)
      me->rng = ((uint64_t)(uintptr_t)me * 0x9e3779b97f4a7c15ull) ^ (uint64_t)getpid() << 32 ^ 0x5bd1e995u;
    me->session = session;
    me->left = fg_nm_gap(&me->rng, interval);
  }
  me->left -= (int64_t)size;
  if (me->left > 0)
    return 0;
  me->left = fg_nm_gap(&me->rng, interval);   /* memoryless: the next point from this allocation's end */
  fg_nm_weight(size, interval, bytes, calls);
  return 1;
}

static inline void after_alloc(void *p, size_t size, uintptr_t pc, uintptr_t sp, uintptr_t fp)
{
  uint64_t bytes, calls;
  if (!p || !size || !atomic_load_explicit(&fg_nm.mem_on, memory_order_relaxed) || nm_self.busy ||
      !sampled(size, &bytes, &calls))
    return;
  int saved = errno;
  nm_self.busy = 1;
  fg_nm_record(FG_STACK_NATIVEMEM, (uintptr_t)p, bytes, calls, pc, sp, fp);
  nm_self.busy = 0;
  errno = saved;
}

/* A pointer about to go back to the allocator: out of leak's table first
 * (after the free another thread may be given the same address), and a
 * sampled one's free on its way to the recording. */
static inline void before_free(void *p)
{
  struct fg_nm_record r;
  if (p && atomic_load_explicit(&fg_nm.leak_on, memory_order_relaxed) &&
      fg_leak_table_take(&fg_nm.leaks, (uintptr_t)p, &r)) {
    int saved = errno;
    fg_nm_freed((uintptr_t)p, &r, fg_clock_ns(CLOCK_MONOTONIC));
    errno = saved;
  }
}

__attribute__((noinline)) void *fg_nm_malloc(size_t size)
{
  void *p = real_malloc(size);
  after_alloc(p, size, CALLER_REGS);
  return p;
}

__attribute__((noinline)) void *fg_nm_calloc(size_t n, size_t size)
{
  void *p = real_calloc(n, size);
  after_alloc(p, n * size, CALLER_REGS);   /* an overflowing product failed: p is NULL */
  return p;
}

/* A realloc's old block: taken out of leak's table before the call (once
 * freed, its address may be another thread's), and after it either freed
 * or, when the call failed and old is still the caller's, put back: no
 * other thread can be given an address still allocated. Its free time is
 * read before the call: the call frees it, and another thread may be given
 * the address and record that allocation before this one returns. */
static inline int take_moved(void *old, struct fg_nm_record *r, uint64_t *freed_ns)
{
  if (!old || !atomic_load_explicit(&fg_nm.leak_on, memory_order_relaxed) ||
      !fg_leak_table_take(&fg_nm.leaks, (uintptr_t)old, r))
    return 0;
  int saved = errno;
  *freed_ns = fg_clock_ns(CLOCK_MONOTONIC);
  errno = saved;
  return 1;
}

static inline void moved(void *old, int taken, struct fg_nm_record *r, uint64_t freed_ns, int failed)
{
  if (!taken)
    return;
  int saved = errno;
  if (failed && r->session == atomic_load_explicit(&fg_nm.session, memory_order_relaxed))
    fg_leak_table_put_back(&fg_nm.leaks, (uintptr_t)old, r);   /* else taken in a session stopped since */
  else
    fg_nm_freed((uintptr_t)old, r, freed_ns);
  errno = saved;
}

__attribute__((noinline)) void *fg_nm_realloc(void *old, size_t size)
{
  /* a realloc is a new allocation of size bytes; realloc(old, 0) frees old and gives NULL */
  struct fg_nm_record r;
  uint64_t freed_ns = 0;
  int taken = take_moved(old, &r, &freed_ns);
  void *p = real_realloc(old, size);
  moved(old, taken, &r, freed_ns, !p && size != 0);
  after_alloc(p, size, CALLER_REGS);
  return p;
}

__attribute__((noinline)) void fg_nm_free(void *p)
{
  before_free(p);
  real_free(p);
}

__attribute__((noinline)) int fg_nm_posix_memalign(void **out, size_t align, size_t size)
{
  int rc = real_posix_memalign(out, align, size);
  if (rc == 0 && out)
    after_alloc(*out, size, CALLER_REGS);
  return rc;
}

__attribute__((noinline)) void *fg_nm_aligned_alloc(size_t align, size_t size)
{
  void *p = real_aligned_alloc(align, size);
  after_alloc(p, size, CALLER_REGS);
  return p;
}

/* memalign, valloc and pvalloc (obsolete, still in glibc and in old native
 * code): pvalloc gives whole pages, size rounded up to the page (0: one
 * page), and that is what it is weighed. reallocarray (glibc 2.26): a
 * realloc of n * size bytes; glibc's own calls realloc through libc's slot,
 * which is never patched (libc defines realloc: import_patch.h), so it is
 * seen once. An overflowing product fails with NULL. */
__attribute__((noinline)) void *fg_nm_memalign(size_t align, size_t size)
{
  void *p = real_memalign(align, size);
  after_alloc(p, size, CALLER_REGS);
  return p;
}

__attribute__((noinline)) void *fg_nm_valloc(size_t size)
{
  void *p = real_valloc(size);
  after_alloc(p, size, CALLER_REGS);
  return p;
}

__attribute__((noinline)) void *fg_nm_pvalloc(size_t size)
{
  void *p = real_pvalloc(size);
  size_t page = page_size;
  size_t whole = size == 0 ? page : size > SIZE_MAX - page ? size : (size + page - 1) & ~(page - 1);
  after_alloc(p, whole, CALLER_REGS);
  return p;
}

__attribute__((noinline)) void *fg_nm_reallocarray(void *old, size_t n, size_t size)
{
  struct fg_nm_record r;
  uint64_t freed_ns = 0;
  int taken = take_moved(old, &r, &freed_ns);
  void *p = real_reallocarray(old, n, size);
  moved(old, taken, &r, freed_ns, !p && n != 0 && size != 0);   /* an overflowing product fails, old kept */
  after_alloc(p, n * size, CALLER_REGS);   /* p is NULL when the product overflows */
  return p;
}

/* A blocking wait that took ns: recorded when it reached the threshold. */
static inline void after_wait(uint64_t ns, uintptr_t pc, uintptr_t sp, uintptr_t fp)
{
  if (ns < fg_nm.lock_ns) {
    atomic_fetch_add_explicit(&fg_nm.lock.below, 1, memory_order_relaxed);
    return;
  }
  int saved = errno;
  nm_self.busy = 1;
  fg_nm_record(FG_STACK_NATIVELOCK, 0, ns, 1, pc, sp, fp);
  nm_self.busy = 0;
  errno = saved;
}

/* What glibc's clock and rwlock waits check before they try the lock (a
 * clock futexes wait on, a deadline's nanoseconds in [0, 1e9)). */
static inline int clock_waitable(clockid_t clock)
{
  return clock == CLOCK_REALTIME || clock == CLOCK_MONOTONIC;
}

static inline int deadline_valid(const struct timespec *until)
{
  return !until || (until->tv_nsec >= 0 && until->tv_nsec < 1000000000L);
}

/* Time only a contended lock: the try first (a lock got at once is no wait).
 * A try's other answers (EOWNERDEAD of a robust mutex: taken; EDEADLK,
 * EINVAL, EAGAIN) are the lock's own. Arguments the call refuses before
 * trying the lock (checked: it refuses them, EINVAL) go to it untried. */
#define TIMED_WHEN_CONTENDED(checked, try_call, real_call)                               \
  do {                                                                                   \
    if (!(checked) || !atomic_load_explicit(&fg_nm.lock_on, memory_order_relaxed) ||     \
        nm_self.busy)                                                                    \
      return real_call;                                                                  \
    int rc_ = try_call;                                                                  \
    if (rc_ != EBUSY)                                                                    \
      return rc_;                                                                        \
    uint64_t start_ = fg_clock_ns(CLOCK_MONOTONIC);                                      \
    rc_ = real_call;                                                                     \
    after_wait(fg_clock_ns(CLOCK_MONOTONIC) - start_, CALLER_REGS); /* the hook's frame */ \
    return rc_;                                                                          \
  } while (0)

__attribute__((noinline)) int fg_nm_mutex_lock(pthread_mutex_t *m)
{
  TIMED_WHEN_CONTENDED(1, pthread_mutex_trylock(m), real_mutex_lock(m));
}

__attribute__((noinline)) int fg_nm_rdlock(pthread_rwlock_t *l)
{
  TIMED_WHEN_CONTENDED(1, pthread_rwlock_tryrdlock(l), real_rdlock(l));
}

__attribute__((noinline)) int fg_nm_wrlock(pthread_rwlock_t *l)
{
  TIMED_WHEN_CONTENDED(1, pthread_rwlock_trywrlock(l), real_wrlock(l));
}

/* The timed ones: a wait that timed out (ETIMEDOUT) was a wait all the same. */
__attribute__((noinline)) int fg_nm_mutex_timedlock(pthread_mutex_t *m, const struct timespec *until)
{
  TIMED_WHEN_CONTENDED(1, pthread_mutex_trylock(m), real_mutex_timedlock(m, until));   /* checks when it waits */
}

__attribute__((noinline)) int fg_nm_timedrdlock(pthread_rwlock_t *l, const struct timespec *until)
{
  TIMED_WHEN_CONTENDED(deadline_valid(until), pthread_rwlock_tryrdlock(l), real_timedrdlock(l, until));
}

__attribute__((noinline)) int fg_nm_timedwrlock(pthread_rwlock_t *l, const struct timespec *until)
{
  TIMED_WHEN_CONTENDED(deadline_valid(until), pthread_rwlock_trywrlock(l), real_timedwrlock(l, until));
}

/* The ones with a clock of the caller's choice (glibc 2.30, C++'s
 * std::timed_mutex and shared_timed_mutex with steady_clock use them). */
__attribute__((noinline)) int fg_nm_mutex_clocklock(pthread_mutex_t *m, clockid_t clock, const struct timespec *until)
{
  TIMED_WHEN_CONTENDED(clock_waitable(clock), pthread_mutex_trylock(m), real_mutex_clocklock(m, clock, until));
}

__attribute__((noinline)) int fg_nm_clockrdlock(pthread_rwlock_t *l, clockid_t clock, const struct timespec *until)
{
  TIMED_WHEN_CONTENDED(clock_waitable(clock) && deadline_valid(until), pthread_rwlock_tryrdlock(l),
                       real_clockrdlock(l, clock, until));
}

__attribute__((noinline)) int fg_nm_clockwrlock(pthread_rwlock_t *l, clockid_t clock, const struct timespec *until)
{
  TIMED_WHEN_CONTENDED(clock_waitable(clock) && deadline_valid(until), pthread_rwlock_trywrlock(l),
                       real_clockwrlock(l, clock, until));
}

/* System.load and loadLibrary: libjava's call into the JVM, which dlopens
 * from libjvm (so the search is libjvm's, as without us); what it loaded is
 * patched before the first native method of it can run. JDK 17 and later
 * pass (name, throwException). */
__attribute__((noinline)) void *fg_nm_load_library(const char *name, int throw_exception)
{
  void *h = real_load_library(name, throw_exception);
  if (h)
    fg_nm_hooks_patch(FG_NM_PATCH_MORE, NULL, NULL, NULL);
  return h;
}

/* nativemem's hooks first (to H_LAST_MEM), then nativelock's (to H_LAST_LOCK), then what both need. */
enum {
  H_MALLOC, H_CALLOC, H_REALLOC, H_FREE, H_MEMALIGN, H_ALIGNED, H_OLD_MEMALIGN, H_VALLOC, H_PVALLOC, H_REALLOCARRAY,
  H_MUTEX, H_RDLOCK, H_WRLOCK, H_MUTEX_TIMED, H_TIMEDRD, H_TIMEDWR, H_MUTEX_CLOCK, H_CLOCKRD, H_CLOCKWR,
  H_LOAD, H_COUNT,
  H_LAST_MEM = H_REALLOCARRAY, H_LAST_LOCK = H_CLOCKWR
};
_Static_assert(H_COUNT <= FG_IMPORT_MAX_HOOKS, "fg_import_patch takes every hook in one call");
static struct fg_import_hook hooks[H_COUNT] = {
  [H_MALLOC] = {"malloc", (void *)fg_nm_malloc, NULL, 1},
  [H_CALLOC] = {"calloc", (void *)fg_nm_calloc, NULL, 1},
  [H_REALLOC] = {"realloc", (void *)fg_nm_realloc, NULL, 1},
  [H_FREE] = {"free", (void *)fg_nm_free, NULL, 1},
  [H_MEMALIGN] = {"posix_memalign", (void *)fg_nm_posix_memalign, NULL, 1},
  [H_ALIGNED] = {"aligned_alloc", (void *)fg_nm_aligned_alloc, NULL, 1},
  [H_OLD_MEMALIGN] = {"memalign", (void *)fg_nm_memalign, NULL, 1},
  [H_VALLOC] = {"valloc", (void *)fg_nm_valloc, NULL, 1},
  [H_PVALLOC] = {"pvalloc", (void *)fg_nm_pvalloc, NULL, 1},
  [H_REALLOCARRAY] = {"reallocarray", (void *)fg_nm_reallocarray, NULL, 1},
  [H_MUTEX] = {"pthread_mutex_lock", (void *)fg_nm_mutex_lock, NULL, 0},
  [H_RDLOCK] = {"pthread_rwlock_rdlock", (void *)fg_nm_rdlock, NULL, 0},
  [H_WRLOCK] = {"pthread_rwlock_wrlock", (void *)fg_nm_wrlock, NULL, 0},
  [H_MUTEX_TIMED] = {"pthread_mutex_timedlock", (void *)fg_nm_mutex_timedlock, NULL, 0},
  [H_TIMEDRD] = {"pthread_rwlock_timedrdlock", (void *)fg_nm_timedrdlock, NULL, 0},
  [H_TIMEDWR] = {"pthread_rwlock_timedwrlock", (void *)fg_nm_timedwrlock, NULL, 0},
  [H_MUTEX_CLOCK] = {"pthread_mutex_clocklock", (void *)fg_nm_mutex_clocklock, NULL, 0},
  [H_CLOCKRD] = {"pthread_rwlock_clockrdlock", (void *)fg_nm_clockrdlock, NULL, 0},
  [H_CLOCKWR] = {"pthread_rwlock_clockwrlock", (void *)fg_nm_clockwrlock, NULL, 0},
  [H_LOAD] = {"JVM_LoadLibrary", (void *)fg_nm_load_library, NULL, 0},
};

void fg_nm_hooks_resolve(void)
{
  static int resolved;
  if (resolved)
    return;
  for (int i = 0; i < H_COUNT; i++)
    hooks[i].original = dlsym(RTLD_DEFAULT, hooks[i].name);
  real_malloc = (void *(*)(size_t))hooks[H_MALLOC].original;
  real_calloc = (void *(*)(size_t, size_t))hooks[H_CALLOC].original;
  real_realloc = (void *(*)(void *, size_t))hooks[H_REALLOC].original;
  real_free = (void (*)(void *))hooks[H_FREE].original;
  real_posix_memalign = (int (*)(void **, size_t, size_t))hooks[H_MEMALIGN].original;
  real_aligned_alloc = (void *(*)(size_t, size_t))hooks[H_ALIGNED].original;
  real_memalign = (void *(*)(size_t, size_t))hooks[H_OLD_MEMALIGN].original;
  real_valloc = (void *(*)(size_t))hooks[H_VALLOC].original;
  real_pvalloc = (void *(*)(size_t))hooks[H_PVALLOC].original;
  real_reallocarray = (void *(*)(void *, size_t, size_t))hooks[H_REALLOCARRAY].original;
  real_mutex_lock = (int (*)(pthread_mutex_t *))hooks[H_MUTEX].original;
  real_rdlock = (int (*)(pthread_rwlock_t *))hooks[H_RDLOCK].original;
  real_wrlock = (int (*)(pthread_rwlock_t *))hooks[H_WRLOCK].original;
  real_mutex_timedlock = (int (*)(pthread_mutex_t *, const struct timespec *))hooks[H_MUTEX_TIMED].original;
  real_timedrdlock = (int (*)(pthread_rwlock_t *, const struct timespec *))hooks[H_TIMEDRD].original;
  real_timedwrlock = (int (*)(pthread_rwlock_t *, const struct timespec *))hooks[H_TIMEDWR].original;
  real_mutex_clocklock = (int (*)(pthread_mutex_t *, clockid_t, const struct timespec *))hooks[H_MUTEX_CLOCK].original;
  real_clockrdlock = (int (*)(pthread_rwlock_t *, clockid_t, const struct timespec *))hooks[H_CLOCKRD].original;
  real_clockwrlock = (int (*)(pthread_rwlock_t *, clockid_t, const struct timespec *))hooks[H_CLOCKWR].original;
  real_load_library = (void *(*)(const char *, int))hooks[H_LOAD].original;
  long page = sysconf(_SC_PAGESIZE);
  if (page > 0 && (page & (page - 1)) == 0)
    page_size = (size_t)page;
  resolved = 1;
}

/* FG_NM_PATCH_START: marks the session patched and patches the hooks of
 * fg_nm.hook_kinds into every loaded object's slots but fgagent's own;
 * FG_NM_PATCH_MORE: the same for objects loaded since, only while patched;
 * FG_NM_PATCH_RESTORE: marks it not patched and puts every hook's original
 * back. Serialized, the mark under the same lock: a library load or a
 * drainer pass racing the stop never patches after it. A hook whose
 * original is not found (no JVM_LoadLibrary outside a JVM) is left out.
 * 0, or -1 when the originals are unknown. */
int fg_nm_hooks_patch(int how, uint32_t *slots, uint32_t *foreign, uint32_t *failed)
{
  static pthread_mutex_t patching = PTHREAD_MUTEX_INITIALIZER;
  if (!real_malloc || !real_free)
    return -1;
  Dl_info self;
  uintptr_t own = dladdr((void *)fg_nm_hooks_patch, &self) ? (uintptr_t)self.dli_fbase : 0;
  struct fg_import_patch_counts c = {0}, first = {0};
  pthread_mutex_lock(&patching);
  if (how == FG_NM_PATCH_START)
    __atomic_store_n(&fg_nm.patched, 1, __ATOMIC_RELEASE);
  else if (how == FG_NM_PATCH_RESTORE)
    __atomic_store_n(&fg_nm.patched, 0, __ATOMIC_RELEASE);
  if (how == FG_NM_PATCH_RESTORE || __atomic_load_n(&fg_nm.patched, __ATOMIC_ACQUIRE)) {
    unsigned kinds = how == FG_NM_PATCH_RESTORE ? FG_NM_HOOK_MEM | FG_NM_HOOK_LOCK : (unsigned)fg_nm.hook_kinds;
    struct fg_import_hook use[H_COUNT];
    int n = 0;
    for (int i = 0; i < H_COUNT; i++) {
      unsigned kind = i <= H_LAST_MEM ? FG_NM_HOOK_MEM : i <= H_LAST_LOCK ? FG_NM_HOOK_LOCK : FG_NM_HOOK_MEM | FG_NM_HOOK_LOCK;
      if (hooks[i].original && (kind & kinds))
        use[n++] = hooks[i];
    }
    /* free first, in every object: of a library loaded during a session,
     * a block its patched malloc gave is not freed by its slot still
     * unpatched (at START nothing is recorded until every slot is patched) */
    if (how != FG_NM_PATCH_RESTORE) {
      struct fg_import_hook frees[1];
      int k = 0;
      for (int i = 0; i < n; i++)
        if (use[i].hook == (void *)fg_nm_free)
          frees[k++] = use[i];
      fg_import_patch(frees, k, own, 0, &first);
    }
    fg_import_patch(use, n, own, how == FG_NM_PATCH_RESTORE, &c);
    c.slots += first.slots;   /* a foreign or failed slot the second pass meets again and counts */
  }
  pthread_mutex_unlock(&patching);
  if (slots)
    *slots = c.slots;
  if (foreign)
    *foreign = c.foreign;
  if (failed)
    *failed = c.failed;
  return 0;
}
