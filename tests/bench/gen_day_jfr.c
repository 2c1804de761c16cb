/* Writes a JFR recording of a busy service, made up but shaped like one:
 * THREADS worker threads sampled every 10 ms for HOURS hours, each serving
 * requests one after another (parse, query, compute, render, each phase
 * tens of milliseconds in one method, its leaf drawn from a few), idle
 * between them, and an anomaly every hour: from minute 17 to 19 half the
 * threads rebuild a cache (CacheRebuilder.rebuild). The heatmap benchmark
 * (scripts/bench-heatmap.sh) reads it. Deterministic: the same arguments
 * give the same file.
 * It also prints the information its draws put in the samples, as seen at
 * a heatmap page's 20 ms cells: each draw's -log2 of the probability of
 * what the samples show of it (a phase's sample count, a leaf kept or
 * changed, the idle slots, the anomaly's leaf), less a bit for each cell
 * whose order the page need not keep (two samples of different stacks, or
 * one sample, which of the cell's two 10 ms slots it took). What is left
 * is a lower bound on what a lossless page must carry on average per
 * sample of this generator, however it codes them.
 * Usage: gen_day_jfr HOURS THREADS OUT.jfr */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fg/output.h"
#include "fg/profile.h"

#define INTERVAL_NS 10000000ull
#define EPOCH_START 1796083200000000000ull   /* 2026-12-01T00:00:00Z */

static uint64_t rng = 88172645463325252ull;
static uint32_t next(uint32_t n)
{
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return (uint32_t)(rng % n);
}

struct phase {
  const char *method;
  const char *leaves[4];
  uint32_t min_ms, spread_ms;
};

static const struct phase phases[] = {
  {"com/shop/http/RequestParser.parse", {"java/lang/String.indexOf", "java/util/HashMap.put",
                                         "com/fasterxml/jackson/core/JsonParser.nextToken", NULL}, 5, 25},
  {"com/shop/db/OrderDao.query", {"org/h2/command/Command.executeQuery", "org/h2/index/BtreeIndex.find",
                                  "org/h2/value/ValueString.compareTo", NULL}, 10, 60},
  {"com/shop/price/PriceEngine.compute", {"java/math/BigDecimal.multiply", "java/math/BigDecimal.add",
                                          "com/shop/price/Discounts.apply", "java/util/ArrayList.sort"}, 10, 90},
  {"com/shop/http/ResponseWriter.render", {"java/lang/StringBuilder.append", "java/util/Formatter.format",
                                           "java/nio/charset/CharsetEncoder.encode", NULL}, 5, 20},
};
#define PHASES (sizeof phases / sizeof phases[0])

static double info_bits;   /* the draws' information, -log2 p of each */
static uint64_t loose_cells;   /* cells whose samples' order or slot the page does not keep */

/* P(a phase of f has k samples): its length is min_ms + a uniform draw of spread_ms, a sample every 10 ms. */
static double count_p(const struct phase *f, uint64_t k)
{
  uint32_t hits = 0;
  for (uint32_t d = f->min_ms; d < f->min_ms + f->spread_ms; d++)
    hits += (d + 9) / 10 == k;
  return (double)hits / f->spread_ms;
}

/* A thread's last cell and how it is filled, to count the loose cells. */
struct cell_state {
  uint64_t cell;
  int n;   /* samples in it so far */
  const char *leaf0, *method0;
  int differ;
};

static void cell_done(const struct cell_state *c)
{
  if (c->n == 1 || c->differ)
    loose_cells++;
}

static void cell_sample(struct cell_state *c, uint64_t t, const char *method, const char *leaf)
{
  uint64_t cell = t / 20000000ull;
  if (c->n && cell == c->cell) {
    c->n++;
    c->differ |= leaf != c->leaf0 || method != c->method0;
    return;
  }
  if (c->n)
    cell_done(c);
  *c = (struct cell_state){cell, 1, leaf, method, 0};
}

static int add(struct fg_profile *p, uint32_t thread, const char *const *names, int n, uint64_t t)
{
  uint32_t ids[8];
  for (int i = 0; i < n; i++) {
    int64_t id = fg_profile_intern(p, names[i], FG_KIND_JAVA);
    if (id < 0)
      return -1;
    ids[i] = (uint32_t)id;
  }
  return fg_profile_add_timed(p, thread, ids, (uint32_t)n, 1, t, 0);
}

int main(int argc, char **argv)
{
  if (argc != 4 || atoi(argv[1]) <= 0 || atoi(argv[2]) <= 0) {
    fprintf(stderr, "usage: gen_day_jfr HOURS THREADS OUT.jfr\n");
    return 2;
  }
  uint64_t hours = (uint64_t)atoi(argv[1]), nthreads = (uint64_t)atoi(argv[2]);
  uint64_t span = hours * 3600ull * 1000000000ull;
  struct fg_profile p;
  fg_profile_init(&p);
  p.timeline.max = UINT32_MAX - 1;
  p.stats.start_ns = 0;
  p.stats.start_epoch_ns = EPOCH_START;
  p.stats.wall_ns = span;
  p.stats.interval_ns = INTERVAL_NS;
  strcpy(p.stats.event, "cpu");
  for (uint64_t t = 0; t < nthreads; t++) {
    char name[48];
    snprintf(name, sizeof name, "http-worker-%llu", (unsigned long long)t);
    if (fg_profile_add_thread(&p, (int)(1000 + t), name) < 0)
      return 1;
  }
  for (uint64_t t = 0; t < nthreads; t++) {
    uint64_t now = (uint64_t)next(INTERVAL_NS);
    struct cell_state cs = {0};
    while (now < span) {
      uint64_t minute = now / 60000000000ull % 60;
      if (minute >= 17 && minute < 19 && t % 2 == 0) {   /* the hourly anomaly: a cache rebuilt */
        const char *stack[] = {"java/lang/Thread.run", "com/shop/cache/CacheRebuilder.rebuild",
                               next(2) ? "java/util/HashMap.resize" : "com/shop/cache/Entry.<init>"};
        if (add(&p, (uint32_t)t, stack, 3, now) != 0)
          return 1;
        info_bits += 1;
        cell_sample(&cs, now, stack[1], stack[2]);
        now += INTERVAL_NS;
        continue;
      }
      for (size_t ph = 0; ph < PHASES && now < span; ph++) {   /* one request */
        const struct phase *f = &phases[ph];
        uint64_t start = now, end = now + ((uint64_t)f->min_ms + next(f->spread_ms)) * 1000000ull;
        int nleaves = f->leaves[3] ? 4 : 3;
        const char *leaf = f->leaves[next((uint32_t)nleaves)];
        for (; now < end && now < span; now += INTERVAL_NS) {
          const char *was = leaf;
          if (next(4) == 0)   /* the leaf changes now and then within a phase */
            leaf = f->leaves[next((uint32_t)nleaves)];
          /* the first sample's leaf: one of nleaves; then kept (3/4 + 1/4n) or another (1/4n) */
          info_bits -= now == start ? log2(1.0 / nleaves) : log2(leaf == was ? 0.75 + 0.25 / nleaves : 0.25 / nleaves);
          const char *stack[] = {"java/lang/Thread.run", "com/shop/http/Worker.serve", f->method, leaf};
          if (add(&p, (uint32_t)t, stack, 4, now) != 0)
            return 1;
          cell_sample(&cs, now, f->method, leaf);
        }
        if (now < span)   /* a whole phase: its sample count tells its length's draw */
          info_bits -= log2(count_p(f, (now - start) / INTERVAL_NS));
      }
      now += (uint64_t)next(6) * INTERVAL_NS;   /* idle until the next request: no sample */
      info_bits += log2(6.0);
    }
    if (cs.n)
      cell_done(&cs);
  }
  for (uint32_t i = 0; i < p.timeline.n; i++)
    fg_profile_account(&p, fg_stack_frames(&p, &p.stacks[p.timeline.entries[i].stack]),
                       p.stacks[p.timeline.entries[i].stack].nframes, 1);
  FILE *out = fopen(argv[3], "wb");
  struct fg_output_settings cfg = {0};
  if (!out || fg_write_jfr(out, &p, &cfg) != 0 || fclose(out) != 0) {
    perror(argv[3]);
    return 1;
  }
  printf("%u samples, %u threads, %llu h\n", p.timeline.n, p.nthreads, (unsigned long long)hours);
  double bound = info_bits - (double)loose_cells;
  printf("%.0f bits of draws, %llu loose cells: a lossless page carries at least %.0f bits, %.3f bits a sample, "
         "%.1f MB\n", info_bits, (unsigned long long)loose_cells, bound, bound / p.timeline.n, bound / 8 / 1048576);
  fg_profile_free(&p);
  return 0;
}
