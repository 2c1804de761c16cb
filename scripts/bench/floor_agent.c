/* The floor of fgagent's event=cpu inside a JVM: a JVMTI agent that arms the
 * same per-thread perf_events cpu-clock counter on every thread of the JVM
 * (the ones there at VMInit, then each Java thread as it starts) and sends its
 * overflow as SIGPROF to an empty handler. With "perf-kernel" each counter
 * also records the kernel's callchain into a ring the handler empties, as
 * fgagent's kernel frames do. No walk, no buffer, no drainer, no JVMTI events
 * but VMInit, ThreadStart and VMDeath: fgagent's runs minus this agent's are
 * what fgagent itself costs above the mechanism it stands on. A thread id is
 * armed once: a reused one is not armed again (the benchmark's workloads keep
 * their threads).
 *   java -agentpath:build/floor_agent.so=perf|perf-kernel|copy-Nk[,INTERVAL_US][,lines=N][,spin=CYCLES][,jitter][,percpu] ...
 * copy-Nk: no signal, each sample copies N KB of stack into the counter's
 * ring, which a reader thread empties every 10 ms; with jitter the reader
 * varies each counter's period as walker=copy's engine does. With percpu
 * (walker=copy's floor) each thread gets a counter a CPU, all writing into
 * one ring a CPU, as walker=copy's do (agent/sampling/perf/cpu_rings.h).
 * At VM death it prints to stderr: FLOOR_SIGNALS n, FLOOR_THREADS n.
 * Loaded into a running JVM (the attach mechanism's JVMTI.agent_load, as
 * java-test/workloads/PairedBench.java does), the same options arm every
 * thread the JVM has now and install the handler; "off" disables every
 * counter, ignores SIGPROF again and prints the two counts so far; a later
 * attach arms them again. */
#include <dirent.h>
#include <jvmti.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <x86intrin.h>

#include "../../agent/sampling/perf/jitter.h"
#include "perf_counter.h"

#define SLOTS 4096   /* tid -> kernel ring; a power of two */
#define RING_PAGES 1 /* data pages of a kernel ring, as fgagent maps */

struct slot {
  _Atomic int tid;
  struct perf_event_mmap_page *_Atomic ring;
  int fd;   /* its counter, -1 when it could not be opened */
  struct fg_jitter jitter;   /* copy-Nk,jitter: the reader's, as walker=copy's engine keeps one a thread */
  int *cpu_fds;              /* copy-Nk,percpu: its counter on each CPU (-1: none) */
};

static struct slot slots[SLOTS];
static atomic_long signals, threads;
static uint64_t interval_ns = 1000000;
static int with_kernel;
static size_t page;

/* copy-Nk: the stack bytes each sample copies (0: signals, not copies), the
 * rings' size, the reader thread and what it has read. */
static unsigned copy_bytes;
static size_t copy_ring_pages;   /* a power of two: 30 ms of 1 kHz samples of copy_bytes and more */
static pthread_t reader;
static atomic_int reader_tid;
static atomic_long copies, copies_lost;
static uint8_t copied[65536];   /* a record is at most 64 KB */
static int percpu, ncpu;        /* copy-Nk,percpu: a ring a CPU, owner_fd[c]'s, mapped at cpu_ring[c] */
static int *owner_fd;
static struct perf_event_mmap_page **cpu_ring;
static __thread int my_tid __attribute__((tls_model("initial-exec")));   /* no malloc in the handler */

/* lines=N: the handler also reads N cache lines at random from a 64 MB
 * buffer, as a handler that meets its tables cold does, so that the paired
 * bench prices what such reads cost the application after the handler
 * beside their own time (counted here with the time stamp counter). */
#define TOUCH_BYTES (64u << 20)
static unsigned lines;
static volatile uint8_t *touch;
static atomic_ulong touch_cycles, touch_signals;
static __thread uint64_t touch_rng __attribute__((tls_model("initial-exec")));

/* spin=CYCLES: the handler also waits CYCLES of the time stamp counter,
 * touching no memory, so that the paired bench tells what a handler as long
 * as fgagent's costs the application from what fgagent's handler reads and
 * calls in that time. */
static uint64_t spin_cycles;

static void spin(void)
{
  uint64_t end = __rdtsc() + spin_cycles;
  while (__rdtsc() < end)
    ;
}

/* jitter: the handler also changes its counter's period as fgagent's does
 * (agent/sampling/perf/jitter.h: a system call every FG_JITTER_RUN signals), so
 * that the floor includes it, or the paired bench prices it alone. */
static int with_jitter;
static __thread struct fg_jitter jitter __attribute__((tls_model("initial-exec")));

static void touch_lines(void)
{
  uint64_t x = touch_rng ? touch_rng : (uint64_t)(uintptr_t)&touch_rng * 0x9E3779B97F4A7C15ull | 1;
  uint64_t t0 = __rdtsc();
  for (unsigned i = 0; i < lines; i++) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    (void)touch[(x % (TOUCH_BYTES / 64)) * 64];   /* volatile: read */
  }
  touch_rng = x;
  atomic_fetch_add_explicit(&touch_cycles, __rdtsc() - t0, memory_order_relaxed);
  atomic_fetch_add_explicit(&touch_signals, 1, memory_order_relaxed);
}

/* tid's slot, or NULL when it has none. */
static struct slot *slot_of(int tid)
{
  for (uint32_t i = (uint32_t)tid * 2654435761u % SLOTS, n = 0; n < SLOTS; n++, i = (i + 1) % SLOTS) {
    int t = atomic_load_explicit(&slots[i].tid, memory_order_acquire);
    if (t == tid)
      return &slots[i];
    if (t == 0)
      return NULL;
  }
  return NULL;
}

static void remember(int tid, struct perf_event_mmap_page *ring, int fd, int *cpu_fds)
{
  for (uint32_t i = (uint32_t)tid * 2654435761u % SLOTS, n = 0; n < SLOTS; n++, i = (i + 1) % SLOTS) {
    int expected = 0;
    if (atomic_compare_exchange_strong(&slots[i].tid, &expected, tid) || expected == tid) {
      slots[i].fd = fd;
      slots[i].cpu_fds = cpu_fds;
      atomic_store_explicit(&slots[i].ring, ring, memory_order_release);
      return;
    }
  }
}

/* What fgagent's handler does with the ring, minus keeping the frames. */
static void empty_ring(struct perf_event_mmap_page *ring)
{
  uint64_t head = __atomic_load_n(&ring->data_head, __ATOMIC_ACQUIRE);
  __atomic_store_n(&ring->data_tail, head, __ATOMIC_RELEASE);
}

/* copy-Nk,percpu,jitter: the period of the sample's counter (the ring's
 * CPU's), varied as walker=copy's engine does at each sample. */
static void vary_from_record(void *ctx, const uint8_t *rec)
{
  int cpu = *(const int *)ctx, tid;
  memcpy(&tid, rec + sizeof(struct perf_event_header) + 8 + 4, 4);   /* after the ip and the pid */
  struct slot *s = slot_of(tid);
  uint64_t period = s ? fg_jitter_next(&s->jitter, interval_ns, (uint64_t)tid) : 0;
  if (period && s->cpu_fds && s->cpu_fds[cpu] >= 0)
    ioctl(s->cpu_fds[cpu], PERF_EVENT_IOC_PERIOD, &period);
}

static void *read_every_ring(void *arg)
{
  (void)arg;
  atomic_store(&reader_tid, (int)syscall(SYS_gettid));
  for (;;) {
    struct timespec ten_ms = {0, 10000000};
    nanosleep(&ten_ms, NULL);
    long lost = 0;
    for (int c = 0; percpu && c < ncpu; c++) {
      struct floor_ring r = {cpu_ring[c], page * copy_ring_pages};
      if (r.page)
        atomic_fetch_add_explicit(&copies, floor_ring_empty_each(&r, copied, &lost, with_jitter ? vary_from_record : NULL, &c),
                                  memory_order_relaxed);
    }
    for (int i = 0; !percpu && i < SLOTS; i++) {
      struct floor_ring r = {atomic_load_explicit(&slots[i].ring, memory_order_acquire), page * copy_ring_pages};
      if (!r.page)
        continue;
      long n = floor_ring_empty(&r, copied, &lost);
      atomic_fetch_add_explicit(&copies, n, memory_order_relaxed);
      uint64_t period = 0, next;
      for (long k = 0; with_jitter && k < n; k++)   /* walker=copy's engine: the period, from its thread */
        if ((next = fg_jitter_next(&slots[i].jitter, interval_ns, (uint64_t)atomic_load(&slots[i].tid))) != 0)
          period = next;
      if (period)
        ioctl(slots[i].fd, PERF_EVENT_IOC_PERIOD, &period);
    }
    atomic_fetch_add_explicit(&copies_lost, lost, memory_order_relaxed);
  }
  return NULL;
}

/* copy-Nk,percpu: tid's counter on each CPU, into that CPU's ring; 0, or
 * -1 when one was refused (none left open). */
static int arm_per_cpu(int tid, int *fds)
{
  for (int c = 0; c < ncpu; c++) {
    fds[c] = -1;
    if (owner_fd[c] < 0)
      continue;
    fds[c] = floor_sample_open_on(tid, c, interval_ns, copy_bytes, page * copy_ring_pages);
    if (fds[c] < 0 || ioctl(fds[c], PERF_EVENT_IOC_SET_OUTPUT, owner_fd[c]) != 0 ||
        ioctl(fds[c], PERF_EVENT_IOC_ENABLE, 0) != 0) {
      for (int d = 0; d <= c; d++)
        if (fds[d] >= 0)
          close(fds[d]);
      return -1;
    }
  }
  return 0;
}

/* copy-Nk,percpu: a ring for every CPU; 0, or -1 with a message. */
static int open_cpu_rings(void)
{
  ncpu = (int)sysconf(_SC_NPROCESSORS_CONF);
  owner_fd = malloc((size_t)ncpu * sizeof *owner_fd);
  cpu_ring = calloc((size_t)ncpu, sizeof *cpu_ring);
  for (int c = 0; owner_fd && cpu_ring && c < ncpu; c++) {
    owner_fd[c] = floor_ring_owner(c);
    if (owner_fd[c] < 0)
      continue;   /* offline */
    void *m = mmap(NULL, page * (1 + copy_ring_pages), PROT_READ | PROT_WRITE, MAP_SHARED, owner_fd[c], 0);
    if (m == MAP_FAILED) {
      fprintf(stderr, "floor_agent: CPU %d's ring refused\n", c);
      return -1;
    }
    cpu_ring[c] = m;
  }
  return owner_fd && cpu_ring ? 0 : -1;
}

static void on_sigprof(int sig, siginfo_t *info, void *uc)
{
  (void)sig;
  (void)info;
  (void)uc;
  atomic_fetch_add_explicit(&signals, 1, memory_order_relaxed);
  if (lines && touch)
    touch_lines();
  if (spin_cycles)
    spin();
  if (!with_kernel && !with_jitter)
    return;
  if (!my_tid)
    my_tid = (int)syscall(SYS_gettid);
  struct slot *s = slot_of(my_tid);
  if (s && with_jitter) {
    uint64_t period = fg_jitter_next(&jitter, interval_ns, (uint64_t)my_tid);
    if (period)
      ioctl(s->fd, PERF_EVENT_IOC_PERIOD, &period);
  }
  struct perf_event_mmap_page *ring = s && with_kernel ? atomic_load_explicit(&s->ring, memory_order_acquire) : NULL;
  if (ring)
    empty_ring(ring);
}

static void arm(int tid)
{
  struct slot *known = slot_of(tid);
  if (known) {   /* armed before: on again after an "off" */
    if (known->fd >= 0)
      ioctl(known->fd, PERF_EVENT_IOC_ENABLE, 0);
    for (int c = 0; known->cpu_fds && c < ncpu; c++)
      if (known->cpu_fds[c] >= 0)
        ioctl(known->cpu_fds[c], PERF_EVENT_IOC_ENABLE, 0);
    return;
  }
  if (tid == atomic_load(&reader_tid))
    return;
  if (percpu) {
    int *fds = malloc((size_t)ncpu * sizeof *fds);
    if (!fds || arm_per_cpu(tid, fds) != 0) {
      free(fds);
      return;   /* the thread may have ended */
    }
    remember(tid, NULL, -1, fds);
    atomic_fetch_add(&threads, 1);
    return;
  }
  int fd = copy_bytes ? floor_sample_open(tid, interval_ns, copy_bytes, page * copy_ring_pages)
                      : floor_perf_open(tid, interval_ns, with_kernel);
  if (fd < 0)
    return;   /* the thread may have ended */
  struct perf_event_mmap_page *ring = NULL;
  if (with_kernel || copy_bytes) {
    ring = mmap(NULL, page * (1 + (copy_bytes ? copy_ring_pages : RING_PAGES)), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (ring == MAP_FAILED) {
      close(fd);
      return;
    }
  }
  remember(tid, ring, fd, NULL);
  if (copy_bytes ? ioctl(fd, PERF_EVENT_IOC_ENABLE, 0) == 0 : floor_perf_start(fd, tid) == 0)
    atomic_fetch_add(&threads, 1);
}

static void arm_every_thread(void)
{
  DIR *d = opendir("/proc/self/task");
  struct dirent *e;
  while (d && (e = readdir(d)) != NULL)
    if (atoi(e->d_name) > 0)
      arm(atoi(e->d_name));
  if (d)
    closedir(d);
}

static void JNICALL on_vm_init(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread)
{
  (void)jvmti;
  (void)jni;
  (void)thread;
  arm_every_thread();
}

static void JNICALL on_thread_start(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread)
{
  (void)jvmti;
  (void)jni;
  (void)thread;
  arm((int)syscall(SYS_gettid));
}

static void ignore_sigprof(void)
{
  struct sigaction ignore;
  memset(&ignore, 0, sizeof ignore);
  ignore.sa_handler = SIG_IGN;   /* never the default: that would end the JVM */
  sigaction(SIGPROF, &ignore, NULL);
}

/* Signals taken, or stack copies read, and threads armed, to stderr. */
static void report(void)
{
  long lost = atomic_load(&copies_lost);
  fprintf(stderr, "FLOOR_SIGNALS %ld\nFLOOR_THREADS %ld\n", copy_bytes ? atomic_load(&copies) : atomic_load(&signals),
          atomic_load(&threads));
  if (lost)
    fprintf(stderr, "FLOOR_COPIES_LOST %ld\n", lost);
}

static void JNICALL on_vm_death(jvmtiEnv *jvmti, JNIEnv *jni)
{
  (void)jvmti;
  (void)jni;
  ignore_sigprof();
  report();
}

/* perf|perf-kernel|copy-Nk[,INTERVAL_US]: 0, or -1 with a message. */
static int parse(const char *o)
{
  unsigned kb = 0;
  if (strncmp(o, "perf-kernel", 11) == 0)
    with_kernel = 1;
  else if (strncmp(o, "perf", 4) == 0)
    with_kernel = 0;
  else if (sscanf(o, "copy-%uk", &kb) == 1 && kb >= 1 && kb <= 63)
    copy_bytes = kb * 1024;
  else {
    fprintf(stderr, "floor_agent: options '%s' not accepted; accepted: perf|perf-kernel|copy-Nk (N 1-63)[,INTERVAL_US][,lines=N][,spin=CYCLES][,jitter][,percpu], or off\n", o);
    return -1;
  }
  const char *comma = strchr(o, ',');
  if (comma)
    interval_ns = strtoull(comma + 1, NULL, 10) * 1000u;
  const char *l = strstr(o, ",lines=");
  lines = l ? (unsigned)strtoul(l + 7, NULL, 10) : 0;
  const char *w = strstr(o, ",spin=");
  spin_cycles = w ? strtoull(w + 6, NULL, 10) : 0;
  with_jitter = strstr(o, ",jitter") != NULL;
  percpu = copy_bytes && strstr(o, ",percpu") != NULL;
  if (lines && !touch) {
    void *p = mmap(NULL, TOUCH_BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
    if (p == MAP_FAILED) {
      fprintf(stderr, "floor_agent: no memory for lines=%u\n", lines);
      return -1;
    }
    memset(p, 1, TOUCH_BYTES);
    touch = p;
  }
  page = (size_t)sysconf(_SC_PAGESIZE);
  for (copy_ring_pages = 1; copy_bytes && copy_ring_pages * page < 30 * ((size_t)copy_bytes + 1024);)
    copy_ring_pages *= 2;
  if (percpu && !cpu_ring && open_cpu_rings() != 0)
    return -1;
  if (copy_bytes && !atomic_load(&reader_tid)) {
    if (pthread_create(&reader, NULL, read_every_ring, NULL) != 0) {
      fprintf(stderr, "floor_agent: no reader thread for %s\n", o);
      return -1;
    }
    while (!atomic_load(&reader_tid))
      sched_yield();
  }
  return 0;
}

static void install_handler(void)
{
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_sigprof;
  sa.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGPROF, &sa, NULL);
}

/* In a running JVM: arm every thread (options as at load), or "off". */
JNIEXPORT jint JNICALL Agent_OnAttach(JavaVM *vm, char *options, void *reserved)
{
  (void)vm;
  (void)reserved;
  const char *o = options ? options : "";
  if (strcmp(o, "off") == 0) {
    for (int i = 0; i < SLOTS; i++) {
      if (atomic_load(&slots[i].tid) && slots[i].fd >= 0)
        ioctl(slots[i].fd, PERF_EVENT_IOC_DISABLE, 0);
      for (int c = 0; atomic_load(&slots[i].tid) && slots[i].cpu_fds && c < ncpu; c++)
        if (slots[i].cpu_fds[c] >= 0)
          ioctl(slots[i].cpu_fds[c], PERF_EVENT_IOC_DISABLE, 0);
    }
    ignore_sigprof();
    report();
    if (atomic_load(&touch_signals))   /* this round's */
      fprintf(stderr, "FLOOR_TOUCH_CYCLES %lu\n", atomic_exchange(&touch_cycles, 0) / atomic_exchange(&touch_signals, 0));
    return JNI_OK;
  }
  if (parse(o) != 0)
    return JNI_ERR;
  install_handler();
  arm_every_thread();
  return JNI_OK;
}

JNIEXPORT jint JNICALL Agent_OnLoad(JavaVM *vm, char *options, void *reserved)
{
  (void)reserved;
  if (parse(options ? options : "") != 0)
    return JNI_ERR;
  install_handler();

  jvmtiEnv *jvmti;
  if ((*vm)->GetEnv(vm, (void **)&jvmti, JVMTI_VERSION_1_2) != JNI_OK)
    return JNI_ERR;
  jvmtiEventCallbacks cb;
  memset(&cb, 0, sizeof cb);
  cb.VMInit = on_vm_init;
  cb.ThreadStart = on_thread_start;
  cb.VMDeath = on_vm_death;
  (*jvmti)->SetEventCallbacks(jvmti, &cb, sizeof cb);
  (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, JVMTI_EVENT_VM_INIT, NULL);
  (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, JVMTI_EVENT_THREAD_START, NULL);
  (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, JVMTI_EVENT_VM_DEATH, NULL);
  return JNI_OK;
}
