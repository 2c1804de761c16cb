/* Per-thread context-switch records; see sched.h. */
#include "sched/sched.h"
#include "fg/utf8.h"

#include <errno.h>
#include <inttypes.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "fg/clock.h"
#include "fg/profile.h"

#define DATA_PAGES 16          /* 64 KiB a thread: ~2000 switches between 10 ms drains */

static int open_switches(int tid)
{
  struct perf_event_attr attr;
  memset(&attr, 0, sizeof attr);
  attr.size = sizeof attr;
  attr.type = PERF_TYPE_SOFTWARE;
  attr.config = PERF_COUNT_SW_DUMMY;
  attr.context_switch = 1;
  attr.sample_id_all = 1;
  attr.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU;
  attr.use_clockid = 1;
  attr.clockid = CLOCK_MONOTONIC;
  attr.exclude_kernel = 1;
  attr.exclude_hv = 1;
  return (int)syscall(SYS_perf_event_open, &attr, tid, -1, -1, PERF_FLAG_FD_CLOEXEC);
}

bool fg_sched_start(struct fg_sched *s, char *warn, size_t warnlen)
{
  warn[0] = '\0';
  pthread_mutex_init(&s->lock, NULL);
  int fd = open_switches((int)syscall(SYS_gettid));
  if (fd < 0) {
    snprintf(warn, warnlen, "fgagent: warning: sched unavailable (perf_event_open for context switches: %s); "
             "carrying on without it", strerror(errno));
    return false;
  }
  close(fd);
  long page = sysconf(_SC_PAGESIZE);
  s->scratch_len = (size_t)page * DATA_PAGES;
  s->scratch = malloc(s->scratch_len);
  s->enabled = s->scratch != NULL;
  return s->enabled;
}

/* Whether tid already has an open stream (main comes back as DestroyJavaVM). */
static bool has_stream(struct fg_sched *s, int tid)
{
  pthread_mutex_lock(&s->lock);
  bool found = false;
  for (uint32_t i = 0; i < s->n && !found; i++)
    found = s->threads[i].tid == tid && s->threads[i].fd >= 0 && !s->threads[i].ended;
  pthread_mutex_unlock(&s->lock);
  return found;
}

void fg_sched_thread_start(struct fg_sched *s, int tid, const char *name)
{
  if (!s->enabled || has_stream(s, tid))
    return;
  int fd = open_switches(tid);
  long page = sysconf(_SC_PAGESIZE);
  size_t len = (size_t)page * (1 + DATA_PAGES);
  void *ring = fd >= 0 ? mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0) : MAP_FAILED;
  pthread_mutex_lock(&s->lock);
  if (ring != MAP_FAILED && s->n == s->cap) {
    uint32_t cap = s->cap ? s->cap * 2 : 64;
    struct fg_sched_thread *grown = realloc(s->threads, cap * sizeof *grown);
    if (grown) {
      s->threads = grown;
      s->cap = cap;
    }
  }
  if (ring == MAP_FAILED || s->n == s->cap) {
    s->open_failures++;
    pthread_mutex_unlock(&s->lock);
    if (ring != MAP_FAILED)
      munmap(ring, len);
    if (fd >= 0)
      close(fd);
    return;
  }
  struct fg_sched_thread *t = &s->threads[s->n++];
  memset(t, 0, sizeof *t);
  t->tid = tid;
  t->fd = fd;
  t->ring = ring;
  t->ring_len = len;
  t->opened_ns = fg_clock_ns(CLOCK_MONOTONIC);
  fg_utf8_copy(t->name, sizeof t->name, name && *name ? name : "?");
  fg_switch_stream_init(&t->stream, (uint32_t)tid);
  pthread_mutex_unlock(&s->lock);
}

void fg_sched_thread_end(struct fg_sched *s, int tid, const char *final_name)
{
  if (!s->enabled)
    return;
  pthread_mutex_lock(&s->lock);
  for (uint32_t i = s->n; i-- > 0;)
    if (s->threads[i].tid == tid && s->threads[i].fd >= 0 && !s->threads[i].ended) {
      s->threads[i].ended = true;
      s->threads[i].closed_ns = fg_clock_ns(CLOCK_MONOTONIC);
      if (final_name && *final_name)
        snprintf(s->threads[i].name, sizeof s->threads[i].name, "%s", final_name);
      break;
    }
  pthread_mutex_unlock(&s->lock);
}

static void off_period(struct fg_sched_thread *t, uint64_t in)
{
  if (t->last_out_ns && in > t->last_out_ns && in - t->last_out_ns > t->longest_off_ns) {
    t->longest_off_ns = in - t->last_out_ns;
    t->longest_off_start = t->last_out_ns;
  }
}

static void on_execution(void *ctx, const struct fg_execution *e)
{
  struct fg_sched_thread *t = ctx;
  uint64_t start = e->start, end = e->end;
  switch (e->kind) {
  case FG_EXEC_ONLY_END:
    start = t->opened_ns < end ? t->opened_ns : end;
    break;
  case FG_EXEC_ONLY_START:
    end = t->closed_ns > start ? t->closed_ns : start;
    break;
  default:
    break;
  }
  if (e->kind != FG_EXEC_ONLY_END)
    off_period(t, start);
  t->on_cpu_ns += end - start;
  if (e->kind == FG_EXEC_COMPLETE || e->kind == FG_EXEC_ONLY_END || e->kind == FG_EXEC_HINTED_START) {
    t->switch_outs++;
    t->last_out_ns = end;
  } else {
    t->last_out_ns = 0;
  }
}

/* Decodes what the kernel wrote since the last call. Under the lock. */
static void drain_one(struct fg_sched *s, struct fg_sched_thread *t)
{
  struct perf_event_mmap_page *pg = (struct perf_event_mmap_page *)t->ring;
  uint64_t head = __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE), tail = pg->data_tail;
  const uint8_t *data = t->ring + pg->data_offset;
  uint64_t size = pg->data_size;
  uint64_t len = head - tail;
  if (len > size || len > s->scratch_len)
    len = 0;   /* cannot happen with a well-behaved kernel: drop rather than read wrong */
  for (uint64_t i = 0; i < len;) {
    uint64_t at = (tail + i) % size, chunk = size - at < len - i ? size - at : len - i;
    memcpy(s->scratch + i, data + at, chunk);
    i += chunk;
  }
  if (len && !t->stream.failed &&
      fg_switch_decode(&t->stream, s->scratch, len, on_execution, t, t->error, sizeof t->error) != 0)
    fprintf(stderr, "fgagent: sched: thread %d: %s; its context switches are no longer counted\n", t->tid,
            t->error);
  __atomic_store_n(&pg->data_tail, head, __ATOMIC_RELEASE);
}

static void close_one(struct fg_sched_thread *t)
{
  if (!t->closed_ns)
    t->closed_ns = fg_clock_ns(CLOCK_MONOTONIC);
  fg_switch_finish(&t->stream, on_execution, t);
  off_period(t, t->closed_ns);   /* still off-CPU at the end */
  munmap(t->ring, t->ring_len);
  close(t->fd);
  t->fd = -1;
  t->ring = NULL;
}

/* Decodes every open ring; closes those of ended threads, or all of them. */
static void drain_all(struct fg_sched *s, bool closing)
{
  if (!s->enabled)
    return;
  pthread_mutex_lock(&s->lock);
  for (uint32_t i = 0; i < s->n; i++) {
    struct fg_sched_thread *t = &s->threads[i];
    if (t->fd < 0)
      continue;
    drain_one(s, t);
    if (closing || t->ended)
      close_one(t);
  }
  pthread_mutex_unlock(&s->lock);
}

void fg_sched_drain(struct fg_sched *s)
{
  drain_all(s, false);
}

void fg_sched_stop(struct fg_sched *s)
{
  drain_all(s, true);
}

/* The leaf side of the last sample of tid taken before time (a little slack:
 * a wall sample's own wake-up and return to sleep come just before the
 * switch-out), as "a <- b <- c". */
static void stack_before(const struct fg_profile *p, int tid, uint64_t time, char *buf, size_t len)
{
  const struct fg_timeline_entry *best = NULL;
  uint64_t limit = time + 200000;
  for (uint32_t i = 0; i < p->timeline.n; i++) {
    const struct fg_timeline_entry *e = &p->timeline.entries[i];
    if (p->threads[e->thread].tid == tid && e->time_ns <= limit && (!best || e->time_ns > best->time_ns))
      best = e;
  }
  buf[0] = '\0';
  if (!best)
    return;
  const struct fg_stack *s = &p->stacks[best->stack];
  const uint32_t *f = fg_stack_frames(p, s);
  size_t used = 0;
  for (uint32_t k = 0; k < s->nframes && k < 6 && used + 1 < len; k++) {
    int n = snprintf(buf + used, len - used, "%s%s", k ? " <- " : "", fg_profile_name(p, f[s->nframes - 1 - k]));
    if (n < 0)
      break;
    used += (size_t)n < len - used ? (size_t)n : len - used - 1;
  }
}

int fg_sched_write_summary(FILE *out, const struct fg_sched *s, const struct fg_profile *p)
{
  if (!s->enabled)
    return 0;
  uint64_t lost = 0;
  for (uint32_t i = 0; i < s->n; i++)
    lost += s->threads[i].stream.lost;
  if (s->open_failures &&
      fprintf(out, "  sched: %" PRIu64 " threads got no context-switch records (perf_event_open or its ring "
                   "refused: perf_event_mlock_kb for non-root users, or the thread ended)\n",
              s->open_failures) < 0)
    return -1;
  if (fprintf(out, "  sched (kernel context switches, %u threads, %" PRIu64 " records lost):\n"
                   "    %-24s %8s %10s %10s %7s %9s %12s\n",
              s->n, lost, "thread", "tid", "on-CPU s", "off-CPU s", "off %", "switches", "longest off") < 0)
    return -1;
  for (uint32_t i = 0; i < s->n; i++) {
    const struct fg_sched_thread *t = &s->threads[i];
    uint64_t span = t->closed_ns > t->opened_ns ? t->closed_ns - t->opened_ns : 0;
    uint64_t on = t->on_cpu_ns < span ? t->on_cpu_ns : span, off = span - on;
    if (fprintf(out, "    %-24.24s %8d %10.3f %10.3f %6.1f%% %9" PRIu64 " %10.3f s%s%s\n", t->name, t->tid,
                (double)on / 1e9, (double)off / 1e9, span ? 100.0 * (double)off / (double)span : 0.0,
                t->switch_outs, (double)t->longest_off_ns / 1e9, t->error[0] ? "  decoding stopped: " : "",
                t->error) < 0)
      return -1;
    char stack[600];
    if (t->longest_off_ns >= 1000000) {
      stack_before(p, t->tid, t->longest_off_start, stack, sizeof stack);
      if (stack[0] && fprintf(out, "      longest off-CPU period began in: %s\n", stack) < 0)
        return -1;
    }
  }
  return 0;
}
