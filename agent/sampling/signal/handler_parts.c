/* The handler's parts timed; see handler_parts.h. */
#include "sampling/signal/handler_parts.h"

#ifdef FG_HANDLER_PARTS
#include <stdatomic.h>
#include <stdint.h>
#include <time.h>

static const char *const part_names[FG_PARTS] = {
    "period change", "before the walk", "kernel frames", "walk, Java", "walk, no Java", "trace table", "ring", "after",
};

/* the arm of this thread's signal, drawn at random: dealt in turn, the arms
 * would keep step with the period change every FG_JITTER_RUN signals */
static __thread uint64_t draw;
/* A signal whose parts add up to more than this (0.4 ms at 2.5 GHz) is left
 * out of the sums and counted: its thread was switched out meanwhile, most
 * likely, and one such signal in a few thousand moves an arm's mean by a
 * third (a steady-mixing run once read 12 284 and 8 598 cycles for its arms). */
#define OUTLIER_CYCLES 1000000u

static _Atomic uint64_t cycles[2][FG_PARTS], walked[2], left_out[2];
static _Atomic uint64_t first_tsc, first_ns;   /* the counter and CLOCK_MONOTONIC at the first signal */

static uint64_t monotonic_ns(void)
{
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

int fg_parts_arm(void)
{
  return (int)(draw >> 63);
}

void fg_parts_begin(struct fg_parts_clock *c)
{
  if (!draw)
    draw = ((uint64_t)(uintptr_t)&draw + 1) * 0x9E3779B97F4A7C15ull | 1;
  draw ^= draw << 13;   /* xorshift64 */
  draw ^= draw >> 7;
  draw ^= draw << 17;
  if (!atomic_load_explicit(&first_tsc, memory_order_relaxed)) {
    uint64_t none = 0;
    uint64_t ns = monotonic_ns();
    if (atomic_compare_exchange_strong(&first_tsc, &none, __rdtsc()))
      atomic_store(&first_ns, ns);
  }
  for (int p = 0; p < FG_PARTS; p++)
    c->cycles[p] = 0;   /* a part a signal does not pass through adds nothing */
  c->at = __rdtsc();
}

void fg_parts_add(const struct fg_parts_clock *c)
{
  int arm = fg_parts_arm();
  uint64_t total = 0;
  for (int p = 0; p < FG_PARTS; p++)
    total += c->cycles[p];
  if (total > OUTLIER_CYCLES) {
    atomic_fetch_add_explicit(&left_out[arm], 1, memory_order_relaxed);
    return;
  }
  for (int p = 0; p < FG_PARTS; p++)
    atomic_fetch_add_explicit(&cycles[arm][p], c->cycles[p], memory_order_relaxed);
  atomic_fetch_add_explicit(&walked[arm], 1, memory_order_relaxed);
}

void fg_parts_report(FILE *out)
{
  uint64_t n[2] = {atomic_load(&walked[0]), atomic_load(&walked[1])};
  uint64_t t0 = atomic_load(&first_tsc), ns0 = atomic_load(&first_ns);
  uint64_t tsc = __rdtsc(), ns = monotonic_ns();
  if (!n[0] || !n[1] || !t0 || ns <= ns0 + 1000000)
    return;
  double per_ns = (double)(tsc - t0) / (double)(ns - ns0);
  fprintf(out, "  handler parts:     cycles a walked signal (time stamp counter, %.3f a ns), in two arms of signals "
               "drawn at random, %llu and %llu:\n",
          per_ns, (unsigned long long)n[0], (unsigned long long)n[1]);
  double total[2] = {0, 0};
  for (int p = 0; p < FG_PARTS; p++) {
    double a = (double)atomic_load(&cycles[0][p]) / (double)n[0], b = (double)atomic_load(&cycles[1][p]) / (double)n[1];
    total[0] += a;
    total[1] += b;
    fprintf(out, "    %-17s %8.0f %8.0f\n", part_names[p], a, b);
  }
  fprintf(out, "    %-17s %8.0f %8.0f  (%.2f and %.2f us)\n", "total", total[0], total[1], total[0] / per_ns / 1000,
          total[1] / per_ns / 1000);
  fprintf(out, "    left out:         %llu and %llu signals over %u cycles (switched out meanwhile, most likely)\n",
          (unsigned long long)atomic_load(&left_out[0]), (unsigned long long)atomic_load(&left_out[1]),
          OUTLIER_CYCLES);
}

#else
void fg_parts_report(FILE *out)
{
  (void)out;
}
#endif
