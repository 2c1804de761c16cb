/* Sample storage, timed on the agent's own code without a JVM: SAMPLES
 * samples over STACKS distinct stacks (10 to 40 frames over 3000 methods,
 * fixed seed, each stack drawn as often as the others), taken the way the
 * handler stores them (fg_trace_table_put) and drained the way the drainer
 * turns them into the profile (fg_trace_account, fg_trace_stack,
 * fg_profile_count), then the profile written as the HTML flame graph.
 * Beside it, in the same run, the drainer's former way: every sample's
 * frames named and the whole stack hashed into the profile.
 * Prints one line per figure: "name value unit". */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fg/output.h"
#include "fg/sample_record.h"
#include "fg/trace_stacks.h"

#define METHODS 3000

static uint32_t method_name[METHODS];   /* profile name ids, as the drainer's name cache has them */

static uint64_t now_ns(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int64_t name_frame(void *ctx, const struct fg_trace *tr, uint32_t i)
{
  (void)ctx;
  return method_name[fg_trace_methods(tr)[i] % METHODS];
}

static uint64_t rng = 42;
static uint32_t next_random(void)
{
  rng = rng * 6364136223846793005ull + 1442695040888963407ull;
  return (uint32_t)(rng >> 33);
}

int main(int argc, char **argv)
{
  uint32_t stacks = argc > 1 ? (uint32_t)atoi(argv[1]) : 100000, samples = argc > 2 ? (uint32_t)atoi(argv[2]) : 1000000;
  const char *html = argc > 3 ? argv[3] : "/dev/null";
  /* the stacks, leaf first; the last frame names the stack so that all are distinct */
  ASGCT_CallFrame *frames = calloc((size_t)stacks * 40, sizeof *frames);
  uint8_t *types = calloc(40, 1);
  uint32_t *depth = calloc(stacks, sizeof *depth);
  for (uint32_t s = 0; s < stacks; s++) {
    depth[s] = 10 + next_random() % 31;
    for (uint32_t i = 0; i < depth[s]; i++)
      frames[(size_t)s * 40 + i] = (ASGCT_CallFrame){(jint)(next_random() % 200),
                                                     (jmethodID)(uintptr_t)(1 + next_random() % METHODS)};
    frames[(size_t)s * 40].lineno = (jint)s;   /* the leaf's bci: distinct per stack */
  }
  uint32_t *order = calloc(samples, sizeof *order);
  for (uint32_t k = 0; k < samples; k++)
    order[k] = k < stacks ? k : next_random() % stacks;

  struct fg_profile p, old;
  fg_profile_init(&p);
  fg_profile_init(&old);
  for (uint32_t m = 0; m < METHODS; m++) {
    char name[64];
    snprintf(name, sizeof name, "com/acme/C%u.m%u", m / 10, m % 10);
    method_name[m] = (uint32_t)fg_profile_intern(&p, name, FG_KIND_JAVA);
    fg_profile_intern(&old, name, FG_KIND_JAVA);
  }
  uint32_t thread = (uint32_t)fg_profile_add_thread(&p, 1, "main");
  fg_profile_add_thread(&old, 1, "main");

  /* the handler's side */
  struct fg_trace_table t;
  if (fg_trace_table_init(&t, 16384, 1u << 20, 0) != 0)
    return 1;
  const struct fg_trace **taken = calloc(samples, sizeof *taken);
  uint64_t t0 = now_ns();
  for (uint32_t k = 0; k < samples; k++) {
    uint32_t s = order[k];
    taken[k] = fg_trace_table_put(&t, frames + (size_t)s * 40, types, depth[s], 0);
    if (k % 10000 == 0)
      fg_trace_table_prepare(&t);   /* the drainer's turn, every 10 ms at 1 kHz */
  }
  uint64_t t1 = now_ns();

  /* the drainer's side */
  struct fg_trace_stacks ts;
  fg_trace_stacks_init(&ts, 64, (struct fg_stack_namer){name_frame, NULL, NULL, NULL, NULL});
  for (uint32_t k = 0; k < samples; k++) {
    fg_trace_account(&p.stats, taken[k], -1, 1);
    int64_t idx = fg_trace_stack(&ts, &p, thread, -1, taken[k], 0);
    if (idx < 0)
      return 1;
    fg_profile_count(&p, (uint32_t)idx, 1, 1 + k, 0);
  }
  uint64_t t2 = now_ns();

  /* the drainer's former way: name every frame of every sample, hash the whole stack */
  uint32_t ids[64];
  for (uint32_t k = 0; k < samples; k++) {
    const struct fg_trace *tr = taken[k];
    for (uint32_t i = 0; i < tr->n; i++)
      ids[tr->n - 1 - i] = method_name[fg_trace_methods(tr)[i] % METHODS];
    if (fg_profile_add_timed(&old, 0, ids, tr->n, 1, 1 + k, 0) != 0)
      return 1;
  }
  uint64_t t3 = now_ns();

  FILE *out = fopen(html, "w");
  struct fg_output_settings cfg;
  memset(&cfg, 0, sizeof cfg);
  if (!out || fg_write_flamegraph_html(out, &p, &cfg) != 0)
    return 1;
  fclose(out);
  uint64_t t4 = now_ns();

  printf("stacks %u distinct\n", fg_trace_table_count(&t));
  printf("samples %u\n", samples);
  printf("profile_stacks %u\n", p.nstacks);
  printf("store_ns_per_sample %.1f ns\n", (double)(t1 - t0) / samples);
  printf("table_bytes %.1f MB\n", (double)atomic_load(&t.mapped) / 1048576.0);
  printf("drain_ns_per_sample %.1f ns\n", (double)(t2 - t1) / samples);
  printf("drain_former_ns_per_sample %.1f ns\n", (double)(t3 - t2) / samples);
  printf("html_ms %.1f ms\n", (double)(t4 - t3) / 1e6);
  printf("drain_and_html_ms %.1f ms\n", (double)(t2 - t1 + t4 - t3) / 1e6);
  fg_trace_stacks_free(&ts);
  fg_trace_table_destroy(&t);
  fg_profile_free(&p);
  fg_profile_free(&old);
  free(frames);
  free(types);
  free(depth);
  free(order);
  free(taken);
  return 0;
}
