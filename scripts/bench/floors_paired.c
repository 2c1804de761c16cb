/* The floor of each way perf_events can sample a thread every interval of its
 * CPU time, paired in one process: short blocks of the same fixed work on one
 * thread, timed by itself, each block under one mechanism (its counter
 * enabled before the block, disabled after), every mechanism once a round in
 * an order shuffled for the round. Separate processes differ here by more than
 * these floors do (results/overhead.md's per-round spread); blocks a second
 * apart see the same machine. Each mechanism's per-round ratio to the round's
 * block with nothing; their median and its 95% interval (order statistics).
 *   floors_paired [ROUNDS] [WORK_A_BLOCK] [INTERVAL_US]
 * Mechanisms:
 *   signal         SIGPROF to an empty handler at each overflow (fgagent's event=cpu, kernel=no)
 *   signal+kernel  the same, the kernel callchain recorded into a one-page ring the handler
 *                  empties (fgagent's event=cpu)
 *   record         no signal: a sample record (ip, thread, time, kernel callchain) into a ring a
 *                  reader thread empties every 10 ms (perf record)
 *   copy-2k, copy-8k, copy-32k  the same with the user registers and the top 2, 8 or 32 KB of
 *                  the stack copied into each record (perf record --call-graph dwarf): what a
 *                  profiler that walks off the thread stands on
 * Prints one line per mechanism, then the samples each took. */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
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
#include <time.h>
#include <unistd.h>

#include "fixed_work.h"
#include "perf_counter.h"

enum { NONE, SIGNAL, SIGNAL_KERNEL, RECORD, COPY_2K, COPY_8K, COPY_32K, MECHANISMS };
static const char *const names[MECHANISMS] = {"nothing", "signal", "signal+kernel", "record",
                                              "copy-2k", "copy-8k", "copy-32k"};
static const unsigned copy_bytes[MECHANISMS] = {[COPY_2K] = 2048, [COPY_8K] = 8192, [COPY_32K] = 32768};

#define RECORD_RING_PAGES 512   /* 2 MB: 10 ms of 1 kHz samples of 32 KB, many times over */

static int fds[MECHANISMS];
static struct floor_ring rings[MECHANISMS];
static long samples[MECHANISMS], lost;
static atomic_long signals;
static atomic_int done;
static uint8_t copied[65536];

static void on_sigprof(int sig, siginfo_t *info, void *uc)
{
  (void)sig;
  (void)info;
  (void)uc;
  atomic_fetch_add_explicit(&signals, 1, memory_order_relaxed);
  struct perf_event_mmap_page *ring = rings[SIGNAL_KERNEL].page;
  if (ring)   /* what fgagent's handler does with it, minus keeping the frames */
    __atomic_store_n(&ring->data_tail, __atomic_load_n(&ring->data_head, __ATOMIC_ACQUIRE), __ATOMIC_RELEASE);
}

static void *reader(void *arg)
{
  (void)arg;
  for (;;) {
    int last = atomic_load(&done);
    struct timespec ten_ms = {0, 10000000};
    if (!last)
      nanosleep(&ten_ms, NULL);
    for (int m = RECORD; m < MECHANISMS; m++)
      samples[m] += floor_ring_empty(&rings[m], copied, &lost);
    if (last)
      return NULL;
  }
}

static void map_ring(int fd, size_t pages, struct floor_ring *r)
{
  size_t page = (size_t)sysconf(_SC_PAGESIZE);
  r->size = pages * page;
  r->page = mmap(NULL, page + r->size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (r->page == MAP_FAILED) {
    perror("floors_paired: mmap");
    exit(2);
  }
}

static void open_counters(uint64_t interval_ns)
{
  int tid = (int)syscall(SYS_gettid);
  size_t page = (size_t)sysconf(_SC_PAGESIZE);
  for (int m = SIGNAL; m < MECHANISMS; m++) {
    fds[m] = m <= SIGNAL_KERNEL ? floor_perf_open(tid, interval_ns, m == SIGNAL_KERNEL)
                                : floor_sample_open(tid, interval_ns, copy_bytes[m], RECORD_RING_PAGES * page);
    if (fds[m] < 0) {
      fprintf(stderr, "floors_paired: perf_event_open for %s: %s\n", names[m], strerror(errno));
      exit(2);
    }
    if (m == SIGNAL_KERNEL)
      map_ring(fds[m], 1, &rings[m]);
    else if (m >= RECORD)
      map_ring(fds[m], RECORD_RING_PAGES, &rings[m]);
    /* armed for signals, then off until its blocks */
    if (m <= SIGNAL_KERNEL && floor_perf_start(fds[m], tid) != 0) {
      perror("floors_paired: perf_event signal");
      exit(2);
    }
    ioctl(fds[m], PERF_EVENT_IOC_DISABLE, 0);
  }
}

static int by_value(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
  int rounds = argc > 1 ? atoi(argv[1]) : 200;
  long block = argc > 2 ? atol(argv[2]) : 100000000;
  uint64_t interval_ns = (argc > 3 ? strtoull(argv[3], NULL, 10) : 1000) * 1000u;
  if (rounds < 10 || block < 1 || interval_ns == 0) {
    fprintf(stderr, "floors_paired: usage: floors_paired [ROUNDS >= 10] [WORK_A_BLOCK >= 1] [INTERVAL_US >= 1]\n");
    return 2;
  }
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_sigprof;
  sa.sa_flags = SA_SIGINFO | SA_RESTART;
  sigaction(SIGPROF, &sa, NULL);
  open_counters(interval_ns);
  pthread_t th;
  pthread_create(&th, NULL, reader, NULL);

  double *t[MECHANISMS];
  for (int m = 0; m < MECHANISMS; m++)
    t[m] = calloc((size_t)rounds, sizeof(double));
  uint64_t x = fixed_work(block, FIXED_WORK_SEED);   /* one block untimed: the caches and the clock settle */
  long signalled[MECHANISMS] = {0};
  srand(20261127);
  for (int r = 0; r < rounds; r++) {
    int order[MECHANISMS];
    for (int i = 0; i < MECHANISMS; i++)
      order[i] = i;
    for (int i = MECHANISMS - 1; i > 0; i--) {
      int j = rand() % (i + 1), s = order[i];
      order[i] = order[j];
      order[j] = s;
    }
    for (int i = 0; i < MECHANISMS; i++) {
      int m = order[i];
      long s0 = atomic_load(&signals);
      if (m != NONE)
        ioctl(fds[m], PERF_EVENT_IOC_ENABLE, 0);
      uint64_t t0 = clock_ns(CLOCK_MONOTONIC);
      x = fixed_work(block, x);
      uint64_t t1 = clock_ns(CLOCK_MONOTONIC);
      if (m != NONE)
        ioctl(fds[m], PERF_EVENT_IOC_DISABLE, 0);
      t[m][r] = (double)(t1 - t0);
      signalled[m] += atomic_load(&signals) - s0;
    }
  }
  atomic_store(&done, 1);
  pthread_join(th, NULL);
  samples[SIGNAL] = signalled[SIGNAL];
  samples[SIGNAL_KERNEL] = signalled[SIGNAL_KERNEL];

  double *ratio = calloc((size_t)rounds, sizeof(double)), none = 0;
  for (int r = 0; r < rounds; r++)
    none += t[NONE][r];
  int k = (int)ceil(0.98 * sqrt(rounds));   /* the median's 95% interval: order statistics */
  printf("floors_paired: %d rounds of blocks of %.0f ms, interval %llu us (result %llx)\n", rounds,
         none / rounds / 1e6, (unsigned long long)(interval_ns / 1000), (unsigned long long)x);
  for (int m = SIGNAL; m < MECHANISMS; m++) {
    for (int r = 0; r < rounds; r++)
      ratio[r] = t[m][r] / t[NONE][r];
    qsort(ratio, (size_t)rounds, sizeof(double), by_value);
    double blocks_s = 0;
    for (int r = 0; r < rounds; r++)
      blocks_s += t[m][r] / 1e9;
    printf("FLOOR %s %.4f %.4f %.4f %.0f\n", names[m], ratio[rounds / 2], ratio[rounds / 2 - k],
           ratio[rounds / 2 + k < rounds ? rounds / 2 + k : rounds - 1], samples[m] / blocks_s);
  }
  printf("LOST %ld\n", lost);
  return 0;
}
