/* The floor of each way to get a signal every interval of a thread's CPU time:
 * fixed work on one thread, timed by itself, under one mechanism that sends
 * SIGPROF to an empty handler. What a profiler using that mechanism cannot
 * cost less than. One run per invocation, so runs can be interleaved:
 *   mechanism_floor MODE [INTERVAL_US] [WORK]
 * MODE:
 *   none        no timer (the baseline)
 *   perf        a perf_events cpu-clock counter on the thread, its overflow as
 *               SIGPROF to that thread (fgagent's event=cpu)
 *   perf-kernel the same with the kernel's callchain recorded into a ring the
 *               handler reads (what kernel frames cost)
 *   posix-cpu   timer_create(CLOCK_THREAD_CPUTIME_ID), SIGEV_THREAD_ID
 *   itimer      setitimer(ITIMER_PROF)
 *   sampler     a sampler thread wakes every interval, reads the worker's CPU
 *               clock and tgkill()s it once per interval of CPU it used
 *   perf-stack-Nk  no signal at all: the same counter, at each overflow the
 *               kernel copies the user registers and the top N KB of the
 *               thread's stack (with the kernel callchain) into a ring, which a
 *               reader thread empties every 10 ms, copying each sample out as a
 *               walker working off the copy would (what perf record
 *               --call-graph dwarf does; a walk would then run off the thread)
 * Prints: WORK_NS, CPU_NS (the worker's), SIGNALS, SAMPLER_CPU_NS, PROCESS_CPU_NS. */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "fixed_work.h"
#include "perf_counter.h"

static atomic_long signals;
static struct perf_event_mmap_page *ring;   /* perf-kernel: the worker's */
static size_t ring_data;
static atomic_int done;
static pid_t worker_tid;
static uint64_t interval_ns;

/* perf-kernel: what a handler reading the kernel callchain does: take the
 * newest sample's frames, hand the ring back. */
static volatile uint64_t kernel_frames;

static void drain_ring(void)
{
  uint64_t head = __atomic_load_n(&ring->data_head, __ATOMIC_ACQUIRE), tail = ring->data_tail;
  const uint8_t *data = (const uint8_t *)ring + ring->data_offset;
  while (tail < head) {
    struct perf_event_header h;
    size_t at = tail % ring_data;
    memcpy(&h, data + at, sizeof h);   /* records do not wrap mid-header on 8-byte alignment */
    if (h.type == PERF_RECORD_SAMPLE) {
      uint64_t nr;
      memcpy(&nr, data + (at + sizeof h) % ring_data, sizeof nr);
      kernel_frames += nr;
    }
    tail += h.size ? h.size : 8;
  }
  __atomic_store_n(&ring->data_tail, tail, __ATOMIC_RELEASE);
}

static void on_sigprof(int sig, siginfo_t *info, void *uc)
{
  (void)sig;
  (void)info;
  (void)uc;
  atomic_fetch_add_explicit(&signals, 1, memory_order_relaxed);
  if (ring)
    drain_ring();
}

/* perf-stack: the ring the kernel writes the copies into, and the reader's
 * tally of them. */
static struct floor_ring copy_ring;
static long copies, lost;
static uint8_t copy_out[65536];   /* a record is at most 64 KB */

static void *copy_reader(void *arg)
{
  (void)arg;
  while (!atomic_load(&done)) {
    struct timespec ten_ms = {0, 10000000};
    nanosleep(&ten_ms, NULL);
    copies += floor_ring_empty(&copy_ring, copy_out, &lost);
  }
  copies += floor_ring_empty(&copy_ring, copy_out, &lost);
  return NULL;
}

static void open_stack_copies(unsigned stack_bytes)
{
  size_t page = (size_t)sysconf(_SC_PAGESIZE);
  copy_ring.size = 512 * page;   /* 2 MB: 20 ms of 1 kHz samples of 64 KB and more */
  int fd = floor_sample_open((int)syscall(SYS_gettid), interval_ns, stack_bytes, copy_ring.size);
  if (fd < 0) {
    perror("perf_event_open (stack copies)");
    exit(2);
  }
  copy_ring.page = mmap(NULL, page + copy_ring.size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (copy_ring.page == MAP_FAILED) {
    perror("mmap (stack copies)");
    exit(2);
  }
  if (ioctl(fd, PERF_EVENT_IOC_ENABLE, 0) != 0) {
    perror("PERF_EVENT_IOC_ENABLE");
    exit(2);
  }
}

static int open_perf(int with_callchain)
{
  int tid = (int)syscall(SYS_gettid);
  int fd = floor_perf_open(tid, interval_ns, with_callchain);
  if (fd < 0) {
    perror("perf_event_open");
    exit(2);
  }
  if (with_callchain) {
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    ring_data = 2 * page;
    ring = mmap(NULL, page + ring_data, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (ring == MAP_FAILED) {
      perror("mmap");
      exit(2);
    }
  }
  if (floor_perf_start(fd, tid) != 0) {
    perror("perf_event signal");
    exit(2);
  }
  return fd;
}

static void *sampler(void *arg)
{
  clockid_t worker_clock = *(clockid_t *)arg;
  uint64_t signalled_at = clock_ns(worker_clock);
  struct timespec next;
  clock_gettime(CLOCK_MONOTONIC, &next);
  while (!atomic_load(&done)) {
    next.tv_nsec += (long)interval_ns;
    while (next.tv_nsec >= 1000000000) {
      next.tv_nsec -= 1000000000;
      next.tv_sec++;
    }
    clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL);
    uint64_t cpu = clock_ns(worker_clock);
    if (cpu - signalled_at >= interval_ns) {
      signalled_at += (cpu - signalled_at) / interval_ns * interval_ns;
      syscall(SYS_tgkill, getpid(), worker_tid, SIGPROF);
    }
  }
  return NULL;
}

int main(int argc, char **argv)
{
  if (argc < 2) {
    fprintf(stderr, "usage: mechanism_floor none|perf|perf-kernel|posix-cpu|itimer|sampler|perf-stack-Nk [INTERVAL_US] [WORK]\n");
    return 2;
  }
  const char *mode = argv[1];
  interval_ns = (argc > 2 ? strtoull(argv[2], NULL, 10) : 1000) * 1000u;
  long rounds = argc > 3 ? atol(argv[3]) : 2500000000L;
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_sigprof;
  sa.sa_flags = SA_SIGINFO | SA_RESTART;
  sigaction(SIGPROF, &sa, NULL);
  worker_tid = (pid_t)syscall(SYS_gettid);
  pthread_t th;
  clockid_t worker_clock, sampler_clock = 0;
  pthread_getcpuclockid(pthread_self(), &worker_clock);
  timer_t timer;
  if (strcmp(mode, "perf") == 0 || strcmp(mode, "perf-kernel") == 0) {
    open_perf(strcmp(mode, "perf-kernel") == 0);
  } else if (strcmp(mode, "posix-cpu") == 0) {
    struct sigevent ev;
    memset(&ev, 0, sizeof ev);
    ev.sigev_notify = SIGEV_THREAD_ID;
    ev.sigev_signo = SIGPROF;
    ev._sigev_un._tid = worker_tid;
    struct itimerspec its = {{0, (long)interval_ns}, {0, (long)interval_ns}};
    if (timer_create(CLOCK_THREAD_CPUTIME_ID, &ev, &timer) != 0 || timer_settime(timer, 0, &its, NULL) != 0) {
      perror("timer_create");
      return 2;
    }
  } else if (strcmp(mode, "itimer") == 0) {
    struct itimerval it = {{0, (long)(interval_ns / 1000)}, {0, (long)(interval_ns / 1000)}};
    setitimer(ITIMER_PROF, &it, NULL);
  } else if (strcmp(mode, "sampler") == 0) {
    pthread_create(&th, NULL, sampler, &worker_clock);
    pthread_getcpuclockid(th, &sampler_clock);
  } else if (strncmp(mode, "perf-stack-", 11) == 0) {
    unsigned kb = (unsigned)atoi(mode + 11);
    if (kb < 1 || kb > 63) {
      fprintf(stderr, "mechanism_floor: perf-stack-Nk takes N from 1 to 63, not '%s'\n", mode + 11);
      return 2;
    }
    open_stack_copies(kb * 1024);
    pthread_create(&th, NULL, copy_reader, NULL);
    pthread_getcpuclockid(th, &sampler_clock);
  } else if (strcmp(mode, "none") != 0) {
    fprintf(stderr, "mechanism_floor: unknown mode '%s'\n", mode);
    return 2;
  }
  uint64_t c0 = clock_ns(worker_clock), t0 = clock_ns(CLOCK_MONOTONIC);
  volatile uint64_t sink = fixed_work(rounds, FIXED_WORK_SEED);
  (void)sink;
  uint64_t t1 = clock_ns(CLOCK_MONOTONIC), c1 = clock_ns(worker_clock);
  uint64_t sampler_cpu = 0;
  if (strcmp(mode, "sampler") == 0 || copy_ring.page) {
    sampler_cpu = clock_ns(sampler_clock);
    atomic_store(&done, 1);
    pthread_join(th, NULL);
  }
  if (copy_ring.page) {
    atomic_store(&signals, copies);
    fprintf(stderr, "mechanism_floor: %ld stack copies, %ld lost\n", copies, lost);
  }
  printf("WORK_NS %llu\nCPU_NS %llu\nSIGNALS %ld\nSAMPLER_CPU_NS %llu\nPROCESS_CPU_NS %llu\nKERNEL_FRAMES %llu\n",
         (unsigned long long)(t1 - t0), (unsigned long long)(c1 - c0), atomic_load(&signals),
         (unsigned long long)sampler_cpu, (unsigned long long)clock_ns(CLOCK_PROCESS_CPUTIME_ID),
         (unsigned long long)kernel_frames);
  return 0;
}
