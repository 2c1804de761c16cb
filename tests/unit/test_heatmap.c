/* The heatmap page's data, decoded here as the page's script decodes it
 * (agent/output/heatmap.c's header comment is the format): every timed
 * sample comes back with its stack, cell and weight; the totals and column
 * sums agree with them; a span past the page's room is refused. */
#include "unit.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <zlib.h>

#include "fg/output.h"
#include "fg/profile.h"
#include "output/heatmap_blob.h"

#define CELL_NS 20000000ull

struct rd {
  const uint8_t *b;
  size_t p, n;
};

static uint64_t v(struct rd *r)
{
  uint64_t x = 0;
  for (int shift = 0; r->p < r->n; shift += 7) {
    uint8_t c = r->b[r->p++];
    x |= (uint64_t)(c & 127) << shift;
    if (c < 128)
      return x;
  }
  fail_msg("a varint runs past its part");
  return 0;
}

/* fg_put_text7's text back to bytes, as the page's text7 reads it: an ASCII
 * character a group, DEL and a digit j the j-th of NUL, CR, ',', '<', DEL. */
static uint8_t *untext7(const char *s, size_t len, size_t *out)
{
  static const uint8_t bad[5] = {0, '\r', ',', '<', 127};
  uint8_t *b = malloc(len + 2);
  size_t n = 0;
  uint32_t acc = 0;
  int bits = 0;
  for (size_t i = 0; i < len; i++) {
    uint32_t c = (uint8_t)s[i];
    assert_true(c < 128);
    if (c == 127) {
      assert_true(i + 1 < len && s[i + 1] >= '0' && s[i + 1] <= '4');
      c = bad[s[++i] - '0'];
    }
    acc = (acc << 7 | c) & 0x7fff;
    bits += 7;
    if (bits >= 8) {
      bits -= 8;
      b[n++] = (uint8_t)(acc >> bits);
    }
  }
  *out = n;
  return b;
}

/* Any bytes come back; the text is ASCII with no NUL, CR, ',' or '<', and
 * takes 8/7 of the bytes, a character more for each group that is one of
 * those or DEL. */
static void text7_round_trips_any_bytes(void **state)
{
  (void)state;
  uint64_t x = 0x9e3779b97f4a7c15ull;
  for (size_t len = 0; len < 600; len++) {
    uint8_t in[600];
    for (size_t i = 0; i < len; i++) {
      x ^= x << 13, x ^= x >> 7, x ^= x << 17;
      /* random bytes; every 5th length all zero bits (every group bad), every 7th the groups of ',',
         every 11th all one bits (every group DEL) */
      static const uint8_t commas[7] = {0x58, 0xb1, 0x62, 0xc5, 0x8b, 0x16, 0x2c};   /* groups 0101100 */
      in[i] = len % 5 == 0 ? 0 : len % 7 == 0 ? commas[i % 7] : len % 11 == 0 ? 0xff : (uint8_t)x;
    }
    char *text = NULL;
    size_t tlen = 0;
    FILE *f = open_memstream(&text, &tlen);
    assert_int_equal(fg_put_text7(f, in, len), 0);
    fclose(f);
    size_t escapes = 0;
    for (size_t i = 0; i < tlen; i++) {
      assert_true(text[i] != 0 && text[i] != '\r' && text[i] != ',' && text[i] != '<' && (uint8_t)text[i] < 128);
      escapes += text[i] == 127;
    }
    if (len && (len % 5 == 0 || len % 7 == 0))
      assert_int_equal(escapes, (len * 8 + 6) / 7);   /* every group bad: each escaped */
    else if (len % 11 == 0 && len)
      assert_true(escapes >= len * 8 / 7);   /* DEL, but the last group's zero padding */
    assert_int_equal(tlen, (len * 8 + 6) / 7 + escapes);
    size_t n;
    uint8_t *back = untext7(text, tlen, &n);
    assert_int_equal(n, len);
    assert_memory_equal(back, in, len);
    free(back);
    free(text);
  }
}

typedef int (*init_fn)(z_streamp, int, const char *, int);
typedef int (*inflate_fn)(z_streamp, int);
typedef int (*end_fn)(z_streamp);

static uint8_t *inflate_raw(const uint8_t *in, size_t len, size_t *out)
{
  void *z = dlopen("libz.so.1", RTLD_NOW | RTLD_LOCAL);
  assert_non_null(z);
  init_fn init = (init_fn)dlsym(z, "inflateInit2_");
  inflate_fn step = (inflate_fn)dlsym(z, "inflate");
  end_fn end = (end_fn)dlsym(z, "inflateEnd");
  z_stream s;
  memset(&s, 0, sizeof s);
  assert_int_equal(init(&s, -15, ZLIB_VERSION, (int)sizeof s), Z_OK);
  size_t cap = 1 << 20;
  uint8_t *b = malloc(cap);
  s.next_in = (Bytef *)(uintptr_t)in;
  s.avail_in = (uInt)len;
  s.next_out = b;
  s.avail_out = (uInt)cap;
  assert_int_equal(step(&s, Z_FINISH), Z_STREAM_END);
  *out = cap - s.avail_out;
  end(&s);
  dlclose(z);
  return b;
}

static char *page(const struct fg_profile *p, int *rc)
{
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  struct fg_output_settings cfg = {.title = "t"};
  *rc = fg_write_heatmap_html(f, p, &cfg);
  fclose(f);
  return text;
}

/* Column c's part b[0..n), decoded as the page's eachSample does: f(ctx, thread, cell, stack,
 * weight) for each sample; each sample's cell in the column and not before its thread's previous
 * one, each escape stream read to its end. nstacks: the page's stacks. */
typedef void (*sample_fn)(void *ctx, uint64_t thread, uint64_t cell, uint64_t stack, uint64_t weight);
static void each_sample(const uint8_t *b, size_t len, uint64_t c, uint32_t nstacks, sample_fn f, void *fctx)
{
  struct rd q = {b, 0, len};
  uint64_t groups = v(&q), total_n = 0;
  uint64_t *threads = calloc(groups + 1, sizeof *threads), *sizes = calloc(groups + 1, sizeof *sizes);
  for (uint64_t g = 0; g < groups; g++) {
    threads[g] = v(&q);
    sizes[g] = v(&q);
    total_n += sizes[g];
  }
  size_t nsym = (total_n + 3) / 4, times = q.p, codes = times + nsym, k = 0;
  q.p = codes + nsym;
  size_t n0 = v(&q), n1 = v(&q), n2 = v(&q), a0 = q.p;   /* the escape streams */
  assert_true(a0 + n0 + n1 + n2 <= q.n);
  struct rd qt = {b, a0, a0 + n0}, qc = {b, a0 + n0, a0 + n0 + n1}, qs = {b, a0 + n0 + n1, a0 + n0 + n1 + n2},
            qw = {b, a0 + n0 + n1 + n2, q.n};
  /* the successor lists, as the page keeps them: [stack + 1] for after stack, [0] for the first */
  uint32_t *list = malloc(((size_t)nstacks + 1) * 64 * sizeof *list), *cnt = malloc(((size_t)nstacks + 1) * 64 * sizeof *cnt);
  uint32_t *nlist = malloc(((size_t)nstacks + 1) * sizeof *nlist);
  for (uint64_t g = 0; g < groups; g++) {
    memset(nlist, 0, ((size_t)nstacks + 1) * sizeof *nlist);
    uint32_t ctx = 0;
    uint64_t cell = c * 15000, prev_cell = cell;
    for (uint64_t i = 0; i < sizes[g]; i++, k++) {
      int tsym = b[times + k / 4] >> (2 * (k % 4)) & 3;
      int csym = b[codes + k / 4] >> (2 * (k % 4)) & 3;
      cell += tsym == 3 ? 3 + v(&qt) : (uint64_t)tsym;
      uint64_t code = csym ? (uint64_t)csym * 2 : v(&qc), rank = code >> 1, s;
      uint32_t *ls = list + (size_t)ctx * 64, *lk = cnt + (size_t)ctx * 64, at;
      if (rank == 0) {
        s = v(&qs);
        assert_true(s < nstacks);
        for (uint32_t j = 0; j < nlist[ctx]; j++)
          assert_true(ls[j] != s);   /* a stack listed is named by its rank */
        at = nlist[ctx] < 64 ? nlist[ctx]++ : 63;   /* full: the last one goes */
        ls[at] = (uint32_t)s;
        lk[at] = 0;
      } else {
        assert_true(rank <= nlist[ctx]);
        at = (uint32_t)rank - 1;
        s = ls[at];
      }
      uint32_t n = lk[at] + 1;
      for (; at > 0 && lk[at - 1] <= n; at--) {
        ls[at] = ls[at - 1];
        lk[at] = lk[at - 1];
      }
      ls[at] = (uint32_t)s;
      lk[at] = n;
      ctx = (uint32_t)s + 1;
      uint64_t w = code & 1 ? v(&qw) : 1;
      assert_true(cell >= c * 15000 && cell < (c + 1) * 15000 && cell >= prev_cell);
      prev_cell = cell;
      f(fctx, threads[g], cell, s, w);
    }
  }
  assert_true(qt.p == qt.n && qc.p == qc.n && qs.p == qs.n && qw.p == qw.n);   /* each stream read to its end */
  free(list);
  free(cnt);
  free(nlist);
  free(threads);
  free(sizes);
}

/* A page's data parts (the head, then a column each), inflated: their number. */
static size_t page_parts(const char *text, uint8_t **parts, size_t *lens, size_t max)
{
  const char *data = strstr(text, "deflate-raw:");
  assert_non_null(data);
  data += strlen("deflate-raw:");
  size_t end = strcspn(data, "<"), nparts = 0;
  for (size_t i = 0; i <= end && nparts < max;) {
    size_t j = i;
    while (j < end && data[j] != ',')
      j++;
    size_t blen;
    uint8_t *packed = untext7(data + i, j - i, &blen);
    parts[nparts] = inflate_raw(packed, blen, &lens[nparts]);
    free(packed);
    nparts++;
    i = j + 1;
  }
  return nparts;
}

struct tally {
  const struct fg_profile *p;
  uint64_t got[4][2], samples;
};

static void tally(void *ctx, uint64_t thread, uint64_t cell, uint64_t s, uint64_t w)
{
  struct tally *t = ctx;
  (void)thread;
  (void)cell;
  t->got[s % 4][t->p->stacks[s].event ? 1 : 0] += w;
  t->samples++;
}

/* 2 threads, a cpu and an alloc event, samples over 12 minutes (three 5-minute columns). */
static void samples_come_back_as_written(void **state)
{
  (void)state;
  struct fg_profile p;
  fg_profile_init(&p);
  p.timeline.max = 100000;
  p.stats.start_ns = 1000;
  p.stats.start_epoch_ns = 1796083200000000000ull;
  p.stats.wall_ns = 12ull * 60 * 1000000000;
  uint32_t t0 = (uint32_t)fg_profile_add_thread(&p, 7, "main"), t1 = (uint32_t)fg_profile_add_thread(&p, 8, "w");
  uint32_t f[6];
  const char *names[] = {"A.run", "A.hot", "A.cold", "B.loop", "B.x", "java/lang/String"};
  for (int i = 0; i < 6; i++)
    f[i] = (uint32_t)fg_profile_intern(&p, names[i], i == 5 ? FG_KIND_CLASS : FG_KIND_JAVA);
  uint32_t s1[] = {f[0], f[1]}, s2[] = {f[0], f[2]}, s3[] = {f[3], f[4]}, s4[] = {f[0], f[1], f[5]};
  uint64_t want[4][2] = {{0}};   /* [stack kind][event] weights */
  uint32_t n = 0;
  for (uint64_t t = 0; t < p.stats.wall_ns; t += 7000000 + (t / 7 % 5) * 1000000, n++) {
    uint32_t which = (uint32_t)(t / 97000000 % 3);
    const uint32_t *st = which == 0 ? s1 : which == 1 ? s2 : s3;
    assert_int_equal(fg_profile_add_timed(&p, which == 2 ? t1 : t0, st, 2, 1, p.stats.start_ns + t, 0), 0);
    if (n % 11 == 0) {   /* an alloc sample weighing its bytes */
      int64_t a = fg_profile_event_stack(&p, FG_STACK_ALLOC, t0, s4, 3);
      fg_profile_count(&p, (uint32_t)a, n % 3 ? 4096 + n : 0, p.stats.start_ns + t, 0);   /* weight 0 too */
    }
  }
  for (uint32_t i = 0; i < p.timeline.n; i++)
    want[p.timeline.entries[i].stack % 4][p.stacks[p.timeline.entries[i].stack].event ? 1 : 0] +=
        p.timeline.entries[i].weight;
  int rc;
  char *text = page(&p, &rc);
  assert_int_equal(rc, 0);
  uint64_t ncells = (p.stats.wall_ns + CELL_NS - 1) / CELL_NS, ncol = (ncells + 14999) / 15000;
  uint8_t *parts[16];
  size_t lens[16], nparts = page_parts(text, parts, lens, 16);
  assert_int_equal(nparts, 1 + ncol);
  struct rd r = {parts[0], 0, lens[0]};
  uint64_t nf = v(&r);
  assert_int_equal(nf, p.nnames);
  for (uint64_t i = 0; i < nf; i++) {
    r.p++;   /* kind */
    uint64_t len = v(&r);
    assert_memory_equal(parts[0] + r.p, p.names[i], len);
    r.p += len;
  }
  uint64_t nn = v(&r);
  for (uint64_t i = 0; i < 2 * nn; i++)
    v(&r);
  uint64_t ns = v(&r);
  assert_int_equal(ns, p.nstacks);
  for (uint64_t i = 0; i < 3 * ns; i++)
    v(&r);
  uint64_t nt = v(&r);
  for (uint64_t i = 0; i < nt; i++) {
    v(&r);
    r.p += v(&r);
  }
  assert_int_equal(v(&r), 0);   /* no marks */
  uint64_t nsq = (ncells + 9) / 10, total[2] = {0};
  for (int e = 0; e < 2; e++)
    for (uint64_t q = 0; q < nsq; q++)
      total[e] += v(&r);
  for (uint64_t q = 0; q < nsq; q++)
    assert_int_equal(v(&r), 0);   /* no failed sample */
  assert_int_equal(total[0], want[0][0] + want[1][0] + want[2][0] + want[3][0]);
  assert_int_equal(total[1], want[0][1] + want[1][1] + want[2][1] + want[3][1]);
  uint64_t colsum = 0, colsamples = 0;
  for (uint64_t c = 0; c < ncol; c++)
    for (uint64_t k = v(&r); k > 0; k--) {
      v(&r);
      colsum += v(&r);
      colsamples += v(&r);
    }
  assert_int_equal(colsum, total[0] + total[1]);
  assert_int_equal(colsamples, p.timeline.n);
  assert_int_equal(r.p, r.n);
  /* every column decoded: each sample's stack and weight, and its cell in its column */
  struct tally t = {.p = &p};
  for (uint64_t c = 0; c < ncol; c++)
    each_sample(parts[1 + c], lens[1 + c], c, p.nstacks, tally, &t);
  assert_int_equal(t.samples, p.timeline.n);
  assert_memory_equal(t.got, want, sizeof want);
  for (size_t k = 0; k < nparts; k++)
    free(parts[k]);
  free(text);
  fg_profile_free(&p);
}

struct sequence {
  uint64_t *stack, *cell, n, cap;
};

static void record(void *ctx, uint64_t thread, uint64_t cell, uint64_t s, uint64_t w)
{
  struct sequence *q = ctx;
  (void)thread;
  assert_int_equal(w, 1);
  assert_true(q->n < q->cap);
  q->stack[q->n] = s;
  q->cell[q->n++] = cell;
}

/* One thread going back to stack A between 150 others, twice: A's successor
 * list fills (64) and its least used stack makes way; every sample comes back
 * in order with its stack and cell, the runs of one stack (rank 1) too. */
static void a_stack_with_many_successors_comes_back_in_order(void **state)
{
  (void)state;
  struct fg_profile p;
  fg_profile_init(&p);
  p.timeline.max = 100000;
  p.stats.start_ns = 0;
  p.stats.start_epoch_ns = 1796083200000000000ull;
  p.stats.wall_ns = 60ull * 1000000000;
  uint32_t t = (uint32_t)fg_profile_add_thread(&p, 7, "main");
  uint32_t a = (uint32_t)fg_profile_intern(&p, "A.a", FG_KIND_JAVA);
  uint64_t n = 0, time = 1000;   /* a time of 0 is none */
  for (int round = 0; round < 2; round++)
    for (int i = 0; i < 150; i++) {
      char name[32];
      snprintf(name, sizeof name, "B.b%d", (i * 7 + round) % 150);
      uint32_t b = (uint32_t)fg_profile_intern(&p, name, FG_KIND_JAVA);
      for (int k = 0; k < 1 + i % 3; k++, n++, time += 10000000)   /* a run of 1-3 samples of A */
        assert_int_equal(fg_profile_add_timed(&p, t, &a, 1, 1, time, 0), 0);
      assert_int_equal(fg_profile_add_timed(&p, t, &b, 1, 1, time + (uint64_t)(i % 5) * 30000000, 0), 0);
      n++;
      time += 10000000 + (uint64_t)(i % 5) * 30000000;
    }
  assert_int_equal(p.timeline.n, n);
  int rc;
  char *text = page(&p, &rc);
  assert_int_equal(rc, 0);
  uint8_t *parts[4];
  size_t lens[4];
  assert_int_equal(page_parts(text, parts, lens, 4), 2);   /* the head and one column */
  struct sequence q = {calloc(n, sizeof(uint64_t)), calloc(n, sizeof(uint64_t)), 0, n};
  each_sample(parts[1], lens[1], 0, p.nstacks, record, &q);
  assert_int_equal(q.n, n);
  for (uint64_t i = 0; i < n; i++) {
    assert_int_equal(q.stack[i], p.timeline.entries[i].stack);
    assert_int_equal(q.cell[i], p.timeline.entries[i].time_ns / CELL_NS);
  }
  free(q.stack);
  free(q.cell);
  free(parts[0]);
  free(parts[1]);
  free(text);
  fg_profile_free(&p);
}

static void a_span_past_the_room_is_refused_and_empty_is_a_page(void **state)
{
  (void)state;
  struct fg_profile p;
  fg_profile_init(&p);
  p.timeline.max = 10;
  uint32_t t = (uint32_t)fg_profile_add_thread(&p, 1, "main"), f = (uint32_t)fg_profile_intern(&p, "A.a", FG_KIND_JAVA);
  int rc;
  char *text = page(&p, &rc);   /* no sample at all */
  assert_int_equal(rc, 0);
  assert_non_null(strstr(text, "\"samples\":0"));
  free(text);
  assert_int_equal(fg_profile_add_timed(&p, t, &f, 1, 1, 5, 0), 0);
  assert_int_equal(fg_profile_add_timed(&p, t, &f, 1, 1, 5 + FG_HEATMAP_MAX_SPAN_NS, 0), 0);
  errno = 0;
  text = page(&p, &rc);
  assert_int_equal(rc, -1);
  assert_int_equal(errno, EFBIG);
  free(text);
  assert_int_equal(fg_profile_add_timed(&p, t, &f, 1, 1, UINT64_MAX, 0), 0);   /* no wrap past 2^64 */
  text = page(&p, &rc);
  assert_int_equal(rc, -1);
  free(text);
  fg_profile_free(&p);
}

/* Two samples at the ends of the page's room (7.7 days, 2^25 cells): the
 * writer's tables are sized by blocks and samples, not by cells (two cell
 * tables took 512 MB). Run first: ru_maxrss is the peak so far. */
static void a_sparse_span_takes_memory_by_its_samples(void **state)
{
  (void)state;
  struct fg_profile p;
  fg_profile_init(&p);
  p.timeline.max = 10;
  uint32_t t = (uint32_t)fg_profile_add_thread(&p, 1, "main"), f = (uint32_t)fg_profile_intern(&p, "A.a", FG_KIND_JAVA);
  assert_int_equal(fg_profile_add_timed(&p, t, &f, 1, 1, 1000, 0), 0);
  assert_int_equal(fg_profile_add_timed(&p, t, &f, 1, 1, FG_HEATMAP_MAX_SPAN_NS - CELL_NS, 0), 0);
  struct rusage before, after;
  getrusage(RUSAGE_SELF, &before);
  int rc;
  char *text = page(&p, &rc);
  getrusage(RUSAGE_SELF, &after);
  assert_int_equal(rc, 0);
  assert_non_null(strstr(text, "\"samples\":2"));
  long grew_mb = (after.ru_maxrss - before.ru_maxrss) / 1024;
  printf("a page of 2 samples 7.7 days apart: peak memory grew %ld MB\n", grew_mb);
  assert_true(grew_mb < 128);
  free(text);
  fg_profile_free(&p);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(a_sparse_span_takes_memory_by_its_samples),
    cmocka_unit_test(samples_come_back_as_written),
    cmocka_unit_test(text7_round_trips_any_bytes),
    cmocka_unit_test(a_stack_with_many_successors_comes_back_in_order),
    cmocka_unit_test(a_span_past_the_room_is_refused_and_empty_is_a_page),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
