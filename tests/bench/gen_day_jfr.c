/* Writes a JFR recording of a busy service, made up but shaped like one:
 * THREADS worker threads sampled every 10 ms for HOURS hours, each serving
 * requests one after another (parse, query, compute, render, each phase
 * tens of milliseconds in one method, its leaf drawn from a few), idle
 * between them, and an anomaly every hour: from minute 17 to 19 half the
 * threads rebuild a cache (CacheRebuilder.rebuild). The heatmap benchmark
 * (scripts/bench-heatmap.sh) reads it. Deterministic: the same arguments
 * give the same file.
 * Usage: gen_day_jfr HOURS THREADS OUT.jfr */
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
    char name[32];
    snprintf(name, sizeof name, "http-worker-%llu", (unsigned long long)t);
    if (fg_profile_add_thread(&p, (int)(1000 + t), name) < 0)
      return 1;
  }
  for (uint64_t t = 0; t < nthreads; t++) {
    uint64_t now = (uint64_t)next(INTERVAL_NS);
    while (now < span) {
      uint64_t minute = now / 60000000000ull % 60;
      if (minute >= 17 && minute < 19 && t % 2 == 0) {   /* the hourly anomaly: a cache rebuilt */
        const char *stack[] = {"java/lang/Thread.run", "com/shop/cache/CacheRebuilder.rebuild",
                               next(2) ? "java/util/HashMap.resize" : "com/shop/cache/Entry.<init>"};
        if (add(&p, (uint32_t)t, stack, 3, now) != 0)
          return 1;
        now += INTERVAL_NS;
        continue;
      }
      for (size_t ph = 0; ph < PHASES && now < span; ph++) {   /* one request */
        const struct phase *f = &phases[ph];
        uint64_t end = now + ((uint64_t)f->min_ms + next(f->spread_ms)) * 1000000ull;
        int nleaves = f->leaves[3] ? 4 : 3;
        const char *leaf = f->leaves[next((uint32_t)nleaves)];
        for (; now < end && now < span; now += INTERVAL_NS) {
          if (next(4) == 0)   /* the leaf changes now and then within a phase */
            leaf = f->leaves[next((uint32_t)nleaves)];
          const char *stack[] = {"java/lang/Thread.run", "com/shop/http/Worker.serve", f->method, leaf};
          if (add(&p, (uint32_t)t, stack, 4, now) != 0)
            return 1;
        }
      }
      now += (uint64_t)next(6) * INTERVAL_NS;   /* idle until the next request: no sample */
    }
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
  fg_profile_free(&p);
  return 0;
}
