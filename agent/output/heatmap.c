/* The heatmap page: every timed sample of a profile, drawn as squares of
 * time coloured by their samples, with a flame graph of any square or range
 * and the differential flame graph of one range against another.
 *
 * The page is agent/output/heatmap_template.html with binary parts, each
 * deflated on its own and in base64 (heatmap_blob.h), that its script
 * decodes: the head, then one part per 5-minute column. The head (LEB128
 * varints throughout, "bytes" a varint length then the bytes):
 *   frames:  n; each: kind byte, name bytes
 *   nodes:   n (node 0, the root, is not written); each: i - parent, frame
 *   stacks:  n; each: leaf node, thread, event
 *   threads: n; each: tid, name bytes
 *   marks:   n; each: kind, start - previous start (ns from the page's
 *            start), duration ns, label bytes
 *   totals:  for each event of the mask in the header, in order: a weight a
 *            200 ms square (10 cells); then failed samples a square (CPU)
 *   columns: for each column, its stacks' weights: n; each: stack - the
 *            previous (ascending), weight, samples
 * A column's part is its samples by thread: groups; each: thread, samples.
 * Then, for the column's N samples in that order, N 2-bit time symbols
 * packed four to a byte (low bits first), N 2-bit code symbols the same;
 * the byte lengths of the first three of the escape streams, then the four,
 * each its samples' escapes in order: [delta - 3]; [code]; [stack];
 * [weight] (each stream's bytes alike, for deflate). The time is the cell - the previous sample's of the thread (the
 * column's first cell before the first): symbols 0-2 are it, 3 escapes it.
 * The code: code >> 1 is the stack's rank in the successor list of the
 * thread's previous stack in this column (succ_rank: the stacks that
 * followed it, most often first) plus one, 0 when the stack follows as a
 * number; code & 1: a weight other than 1 follows. Code symbols 1-3 are
 * codes 2, 4, 6; 0 escapes the code.
 * A thread's next stack is mostly the one it was in a moment ago, or one of
 * the few that followed it before: the previous stack as context leaves
 * about the entropy of the thread's transitions to code (a move-to-front
 * list of recent stacks spent an escape on every return to a stack a few
 * others ago). Four 2-bit symbols a byte let deflate's byte codes spend near
 * their entropy, below the bit a byte symbol costs; the lists run through
 * a column, which the page decodes whole.
 * Column sums let a range's flame graph add whole columns, and decode
 * samples only in the columns at the range's two ends. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fg/event_kinds.h"
#include "fg/forte.h"
#include "fg/output.h"
#include "fg/profile.h"
#include "fg/u64_map.h"
#include "fg/utf8.h"
#include "output/byte_buffer.h"
#include "output/heatmap_blob.h"
#include "output/json_text.h"

extern const char fg_heatmap_template[];

#define CELL_NS 20000000ull   /* the finest square: 20 ms */
#define SQUARE_CELLS 10u      /* the totals the page opens with: 200 ms */
#define BLOCK_CELLS 250u      /* 5 s */
#define COLUMN_BLOCKS 60u     /* 5 min */
#define SUCC 64u              /* the stacks a successor list keeps */

struct heat {
  const struct fg_profile *p;
  uint64_t start_ns, end_ns;  /* on the timeline's clock */
  uint64_t ncells, nblocks, ncolumns;
  uint32_t *order;            /* timeline entries in cell order */
  uint64_t *block_first;      /* nblocks + 1: each block's first place in order (first_at for a cell) */
  uint32_t n;                 /* entries in the range */
  uint32_t *leaf;             /* each stack's leaf node */
  unsigned events;            /* bit e: event e has samples */
};

static uint64_t cell_of(const struct heat *h, uint64_t t)
{
  return (t - h->start_ns) / CELL_NS;
}

static void put_bytes(struct fg_bytes *b, const char *s)
{
  size_t n = strlen(s);
  fg_bytes_varint(b, n);
  fg_bytes_raw(b, s, n);
}

/* The samples in [start, end) in cell order, a sample's place in the
 * timeline breaking ties (the timeline is in time order per thread, not
 * across them). A counting sort by block, then each block's by cell: the
 * tables are a block's (nblocks + 1) and a sample's, not a cell's of the
 * span, which at the page's room (2^25 cells) took 512 MB; the order is the
 * one a counting sort by cell gives. */
static int sort_cells(struct heat *h)
{
  const struct fg_timeline *tl = &h->p->timeline;
  h->block_first = calloc(h->nblocks + 1, sizeof *h->block_first);
  if (!h->block_first)
    return -1;
  for (uint32_t i = 0; i < tl->n; i++) {
    uint64_t t = tl->entries[i].time_ns;
    if (t >= h->start_ns && t < h->end_ns && tl->entries[i].stack < h->p->nstacks) {
      h->block_first[cell_of(h, t) / BLOCK_CELLS + 1]++;
      h->n++;
    }
  }
  for (uint64_t b = 0; b < h->nblocks; b++)
    h->block_first[b + 1] += h->block_first[b];
  h->order = malloc(((size_t)h->n + 1) * sizeof *h->order);
  uint32_t *by_block = malloc(((size_t)h->n + 1) * sizeof *by_block);
  uint64_t *at = malloc((h->nblocks + 1) * sizeof *at);
  if (!h->order || !by_block || !at) {
    free(by_block);
    free(at);
    return -1;
  }
  memcpy(at, h->block_first, (h->nblocks + 1) * sizeof *at);
  for (uint32_t i = 0; i < tl->n; i++) {
    uint64_t t = tl->entries[i].time_ns;
    if (t >= h->start_ns && t < h->end_ns && tl->entries[i].stack < h->p->nstacks)
      by_block[at[cell_of(h, t) / BLOCK_CELLS]++] = i;
  }
  for (uint64_t b = 0; b < h->nblocks; b++) {
    uint64_t lo = h->block_first[b], hi = h->block_first[b + 1], a = b * BLOCK_CELLS;
    uint64_t first[BLOCK_CELLS + 1] = {0};
    for (uint64_t k = lo; k < hi; k++)
      first[cell_of(h, tl->entries[by_block[k]].time_ns) - a + 1]++;
    for (uint32_t c = 0; c < BLOCK_CELLS; c++)
      first[c + 1] += first[c];
    for (uint64_t k = lo; k < hi; k++)
      h->order[lo + first[cell_of(h, tl->entries[by_block[k]].time_ns) - a]++] = by_block[k];
  }
  free(by_block);
  free(at);
  return 0;
}

/* The first place in order of a sample in cell c or later (h->n past the
 * last): a block's start as stored, a cell inside a block by bisection. */
static uint64_t first_at(const struct heat *h, uint64_t c)
{
  if (c >= h->ncells)
    return h->n;
  uint64_t b = c / BLOCK_CELLS, lo = h->block_first[b], hi = h->block_first[b + 1];
  if (c % BLOCK_CELLS == 0)
    return lo;
  const struct fg_timeline_entry *en = h->p->timeline.entries;
  while (lo < hi) {
    uint64_t mid = lo + (hi - lo) / 2;
    if (cell_of(h, en[h->order[mid]].time_ns) < c)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

/* Frames, the call tree's nodes (each stack's path from the root) and the stacks. */
static int put_shapes(struct heat *h, struct fg_bytes *b)
{
  const struct fg_profile *p = h->p;
  fg_bytes_varint(b, p->nnames);
  for (uint32_t i = 0; i < p->nnames; i++) {
    uint8_t kind = (uint8_t)fg_profile_kind(p, i);
    fg_bytes_raw(b, &kind, 1);
    put_bytes(b, fg_profile_name(p, i));
  }
  struct fg_u64_map nodes;
  fg_u64_map_init(&nodes);
  struct fg_bytes nb = {0};
  uint32_t nnodes = 1;
  int rc = 0;
  h->leaf = calloc((size_t)p->nstacks + 1, sizeof *h->leaf);
  if (!h->leaf)
    rc = -1;
  for (uint32_t s = 0; rc == 0 && s < p->nstacks; s++) {
    const uint32_t *f = fg_stack_frames(p, &p->stacks[s]);
    uint32_t node = 0;
    for (uint32_t k = 0; rc == 0 && k < p->stacks[s].nframes; k++) {
      uint64_t key = ((uint64_t)node << 32 | f[k]) + 1;
      uint32_t child;
      if (!fg_u64_map_get(&nodes, key, &child)) {
        child = nnodes++;
        if (fg_u64_map_put(&nodes, key, child) != 0)
          rc = -1;
        fg_bytes_varint(&nb, child - node);
        fg_bytes_varint(&nb, f[k]);
      }
      node = child;
    }
    h->leaf[s] = node;
  }
  fg_u64_map_free(&nodes);
  fg_bytes_varint(b, nnodes - 1);
  fg_bytes_move(b, &nb);
  free(nb.b);
  fg_bytes_varint(b, p->nstacks);
  for (uint32_t s = 0; rc == 0 && s < p->nstacks; s++) {
    fg_bytes_varint(b, h->leaf[s]);
    fg_bytes_varint(b, p->stacks[s].thread);
    fg_bytes_varint(b, p->stacks[s].event);
  }
  fg_bytes_varint(b, p->nthreads);
  for (uint32_t t = 0; t < p->nthreads; t++) {
    fg_bytes_varint(b, (uint32_t)p->threads[t].tid);   /* the page reads it back as signed */
    put_bytes(b, p->threads[t].name ? p->threads[t].name : "");
  }
  return rc;
}

static int mark_order(const void *a, const void *b)
{
  const struct fg_mark *x = a, *y = b;
  return x->time_ns < y->time_ns ? -1 : x->time_ns > y->time_ns;
}

static int put_marks(struct heat *h, struct fg_bytes *b)
{
  const struct fg_marks *m = &h->p->marks;
  struct fg_mark *sorted = m->n ? malloc((size_t)m->n * sizeof *sorted) : NULL;
  if (m->n && !sorted)
    return -1;
  uint32_t n = 0;
  for (uint32_t i = 0; i < m->n; i++) {   /* each clipped to the page's span: a crafted duration ends there */
    struct fg_mark k = m->m[i];
    uint64_t end = k.duration_ns > UINT64_MAX - k.time_ns ? UINT64_MAX : k.time_ns + k.duration_ns;
    if (end < h->start_ns || k.time_ns >= h->end_ns)
      continue;
    if (k.time_ns < h->start_ns)
      k.time_ns = h->start_ns;
    k.duration_ns = (end < h->end_ns ? end : h->end_ns) - k.time_ns;
    sorted[n++] = k;
  }
  if (n)
    qsort(sorted, n, sizeof *sorted, mark_order);
  fg_bytes_varint(b, n);
  uint64_t prev = 0;
  for (uint32_t i = 0; i < n; i++) {
    uint64_t at = sorted[i].time_ns - h->start_ns;
    fg_bytes_varint(b, sorted[i].kind);
    fg_bytes_varint(b, at - prev);
    fg_bytes_varint(b, sorted[i].duration_ns);
    put_bytes(b, sorted[i].label);
    prev = at;
  }
  free(sorted);
  return 0;
}

/* Each event's weight a square of SQUARE_CELLS, and CPU's failed samples a square. */
static int put_totals(struct heat *h, struct fg_bytes *b)
{
  const struct fg_profile *p = h->p;
  const struct fg_timeline_entry *en = p->timeline.entries;
  uint8_t *failed = calloc(p->nstacks + 1, 1);
  if (!failed)
    return -1;
  for (uint32_t s = 0; s < p->nstacks; s++) {
    h->events |= 1u << p->stacks[s].event;
    failed[s] = p->stacks[s].event == FG_STACK_CPU && p->stacks[s].nframes &&
                fg_profile_tick_of(p, fg_stack_frames(p, &p->stacks[s])[0]) >= 0;
  }
  for (int e = 0; e <= FG_STACK_EVENTS; e++) {   /* FG_STACK_EVENTS: the failed samples */
    if (e < FG_STACK_EVENTS && !(h->events & 1u << e))
      continue;
    uint64_t k = 0;   /* the samples in cell order: each square's follow the last one's */
    for (uint64_t c = 0; c < h->ncells; c += SQUARE_CELLS) {
      uint64_t sum = 0, z = c + SQUARE_CELLS < h->ncells ? c + SQUARE_CELLS : h->ncells;
      for (; k < h->n && cell_of(h, en[h->order[k]].time_ns) < z; k++) {
        const struct fg_timeline_entry *x = &en[h->order[k]];
        if (e < FG_STACK_EVENTS ? p->stacks[x->stack].event == e : failed[x->stack])
          sum += x->weight;
      }
      fg_bytes_varint(b, sum);
    }
  }
  free(failed);
  return 0;
}

static int u32_order(const void *a, const void *b)
{
  uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
  return x < y ? -1 : x > y;
}

/* Each column's weight and samples by stack. */
static int put_columns(struct heat *h, struct fg_bytes *b)
{
  const struct fg_profile *p = h->p;
  const struct fg_timeline_entry *en = p->timeline.entries;
  uint64_t *sum = calloc(p->nstacks + 1, sizeof *sum), *samples = calloc(p->nstacks + 1, sizeof *samples);
  uint32_t *touched = malloc(((size_t)p->nstacks + 1) * sizeof *touched);
  if (!sum || !samples || !touched) {
    free(sum);
    free(samples);
    free(touched);
    return -1;
  }
  uint64_t per = (uint64_t)BLOCK_CELLS * COLUMN_BLOCKS;
  for (uint64_t col = 0; col < h->ncolumns; col++) {
    uint32_t nt = 0;
    uint64_t a = col * per, z = a + per < h->ncells ? a + per : h->ncells;
    for (uint64_t k = first_at(h, a), end = first_at(h, z); k < end; k++) {
      const struct fg_timeline_entry *e = &en[h->order[k]];
      if (!samples[e->stack]++)
        touched[nt++] = e->stack;
      sum[e->stack] += e->weight;
    }
    if (nt > 1)   /* ascending stacks: their differences are small */
      qsort(touched, nt, sizeof *touched, u32_order);
    fg_bytes_varint(b, nt);
    uint32_t prev = 0;
    for (uint32_t i = 0; i < nt; i++) {
      fg_bytes_varint(b, touched[i] - prev);
      fg_bytes_varint(b, sum[touched[i]]);
      fg_bytes_varint(b, samples[touched[i]]);
      prev = touched[i];
      sum[touched[i]] = samples[touched[i]] = 0;
    }
  }
  free(sum);
  free(samples);
  free(touched);
  return 0;
}

/* A thread's successor lists in a column: for each stack (and for none,
 * the thread's first sample), the stacks that followed it, the most frequent
 * first (ties: the most recently followed first), at most SUCC of them. */
struct succ {
  uint32_t n, cap;
  uint32_t *stack, *count;
};

/* The rank (1 = first) of stack s in list l, 0 when it is not there; then
 * counts its sample: its count up by one and moved up past every stack whose
 * count is no larger, or, new, entered with a count of 1 at the end (over
 * the last when full) and moved up the same way. The page's script keeps the
 * same lists. -1 when the list cannot grow. */
static int64_t succ_rank(struct succ *l, uint32_t s)
{
  uint32_t i = 0;
  while (i < l->n && l->stack[i] != s)
    i++;
  int64_t rank = i < l->n ? (int64_t)i + 1 : 0;
  if (i == l->n) {
    if (l->n == SUCC) {
      i = l->n - 1;
    } else {
      if (l->n == l->cap) {
        uint32_t cap = l->cap ? l->cap * 2 : 4;
        uint32_t *a = realloc(l->stack, cap * sizeof *a);
        if (!a)
          return -1;
        l->stack = a;
        uint32_t *c = realloc(l->count, cap * sizeof *c);
        if (!c)
          return -1;
        l->count = c;
        l->cap = cap;
      }
      i = l->n++;
    }
    l->stack[i] = s;
    l->count[i] = 0;
  }
  uint32_t count = ++l->count[i];
  for (; i > 0 && l->count[i - 1] <= count; i--) {
    l->stack[i] = l->stack[i - 1];
    l->count[i] = l->count[i - 1];
  }
  l->stack[i] = s;
  l->count[i] = count;
  return rank;
}

/* The samples, a column at a time, by thread, coded by their successor ranks. */
static int put_samples(struct heat *h, struct fg_bytes *parts, struct fg_heatmap_cuts *cuts)
{
  const struct fg_profile *p = h->p;
  const struct fg_timeline_entry *en = p->timeline.entries;
  uint32_t nt = p->nthreads + 1;
  uint32_t *count = calloc(nt, sizeof *count), *first = calloc(nt, sizeof *first);
  uint32_t *threads = malloc(nt * sizeof *threads);
  struct succ *succ = calloc((size_t)p->nstacks + 1, sizeof *succ);   /* [0]: none; [s + 1]: after stack s */
  uint32_t *touched = malloc(((size_t)p->nstacks + 1) * sizeof *touched);
  uint32_t *byth = NULL;
  size_t byth_cap = 0;
  struct fg_bytes esc[4] = {{0}};   /* a column's escapes: time deltas, codes, stacks, weights */
  int rc = count && first && threads && succ && touched ? 0 : -1;
  uint64_t per = (uint64_t)BLOCK_CELLS * COLUMN_BLOCKS;
  for (uint64_t col = 0; rc == 0 && col < h->ncolumns; col++) {
    struct fg_bytes *data = &parts[col];
    uint64_t a = col * per, z = a + per < h->ncells ? a + per : h->ncells;
    uint64_t lo = first_at(h, a), hi = first_at(h, z);
    uint32_t ngroups = 0;
    for (uint64_t k = lo; k < hi; k++) {
      uint32_t t = en[h->order[k]].thread < p->nthreads ? en[h->order[k]].thread : p->nthreads;
      if (!count[t]++)
        threads[ngroups++] = t;
    }
    if (hi - lo > byth_cap) {
      byth_cap = hi - lo;
      free(byth);
      if (!(byth = malloc(byth_cap * sizeof *byth))) {
        rc = -1;
        break;
      }
    }
    uint32_t at = 0;
    for (uint32_t g = 0; g < ngroups; g++) {
      first[threads[g]] = at;
      at += count[threads[g]];
    }
    for (uint64_t k = lo; k < hi; k++) {
      uint32_t t = en[h->order[k]].thread < p->nthreads ? en[h->order[k]].thread : p->nthreads;
      byth[first[t]++] = h->order[k];
    }
    fg_bytes_varint(data, ngroups);
    for (uint32_t g = 0; g < ngroups; g++) {
      fg_bytes_varint(data, threads[g]);
      fg_bytes_varint(data, count[threads[g]]);
    }
    /* the 2-bit symbols of each sample's time and stack, four to a byte, then what they escape */
    uint32_t total = (uint32_t)(hi - lo), nsym = (total + 3) / 4;
    size_t times = data->len, codes = times + nsym;
    struct fg_heatmap_cuts *cut = &cuts[col];
    cut->at[cut->n++] = times;
    cut->at[cut->n++] = codes;
    cut->at[cut->n++] = codes + nsym;
    uint8_t zero[256] = {0};
    for (uint32_t k = 0; k < 2 * nsym; k += sizeof zero)
      fg_bytes_raw(data, zero, 2 * nsym - k < sizeof zero ? 2 * nsym - k : sizeof zero);
    if (data->failed) {
      rc = -1;
      break;
    }
    at = 0;
    for (uint32_t g = 0; rc == 0 && g < ngroups; g++) {
      uint32_t t = threads[g], n = count[t], ntouched = 0;
      uint64_t prev = a;
      uint32_t ctx = 0;   /* the previous sample's stack + 1; 0 before the first */
      for (uint32_t i = 0; i < n; i++, at++) {
        const struct fg_timeline_entry *e = &en[byth[at]];
        uint64_t cell = cell_of(h, e->time_ns), delta = cell - prev;
        prev = cell;
        if (succ[ctx].n == 0)
          touched[ntouched++] = ctx;
        int64_t rank = succ_rank(&succ[ctx], e->stack);
        if (rank < 0) {
          rc = -1;
          break;
        }
        uint64_t weighted = e->weight != 1;
        uint64_t code = (uint64_t)rank << 1 | weighted;
        uint8_t tsym = delta < 3 ? (uint8_t)delta : 3, csym = code == 2 || code == 4 || code == 6 ? (uint8_t)(code / 2) : 0;
        data->b[times + at / 4] |= (uint8_t)(tsym << (2 * (at % 4)));
        data->b[codes + at / 4] |= (uint8_t)(csym << (2 * (at % 4)));
        if (tsym == 3)
          fg_bytes_varint(&esc[0], delta - 3);
        if (csym == 0)
          fg_bytes_varint(&esc[1], code);
        if (rank == 0)
          fg_bytes_varint(&esc[2], e->stack);
        if (weighted)
          fg_bytes_varint(&esc[3], e->weight);
        ctx = e->stack + 1;
      }
      for (uint32_t k = 0; k < ntouched; k++)   /* each thread's lists are its own */
        succ[touched[k]].n = 0;
    }
    for (uint32_t g = 0; g < ngroups; g++)   /* every count reset: the next column's groups would be wrong otherwise */
      count[threads[g]] = 0;
    for (int k = 0; k < 3; k++)
      fg_bytes_varint(data, esc[k].len);
    for (int k = 0; k < 4; k++) {   /* a failed escape stream fails the part */
      if (k)
        cut->at[cut->n++] = data->len;
      fg_bytes_move(data, &esc[k]);
    }
    if (data->failed)
      rc = -1;
  }
  for (uint32_t s = 0; succ && s <= p->nstacks; s++) {
    free(succ[s].stack);
    free(succ[s].count);
  }
  free(succ);
  for (int k = 0; k < 4; k++)
    free(esc[k].b);
  free(touched);
  free(count);
  free(first);
  free(threads);
  free(byth);
  return rc;
}

static int put_header(FILE *out, const struct heat *h, const struct fg_output_settings *cfg)
{
  const struct fg_stats *st = &h->p->stats;
  uint64_t epoch = st->start_epoch_ns ? st->start_epoch_ns + (h->start_ns - st->start_ns) : 0;
  if (fprintf(out, "{\"title\":") < 0 || fg_put_json_string(out, cfg->title ? cfg->title : "fgagent heatmap") != 0 ||
      fprintf(out, ",\"startEpochNs\":%" PRIu64 ",\"durationNs\":%" PRIu64 ",\"cellNs\":%llu,\"blockCells\":%u,"
                   "\"columnBlocks\":%u,\"cells\":%" PRIu64 ",\"samples\":%" PRIu32 ",\"eventMask\":%u,"
                   "\"untimed\":%" PRIu64 ",\"marksDropped\":%" PRIu64 ",\"lost\":%" PRIu64 ",\"events\":[",
              epoch, h->end_ns - h->start_ns, CELL_NS, BLOCK_CELLS, COLUMN_BLOCKS, h->ncells, h->n, h->events,
              h->p->timeline.dropped, h->p->marks.dropped, fg_stats_lost(st)) < 0)
    return -1;
  int first = 1;
  for (int e = 0; e < FG_STACK_EVENTS; e++) {
    if (!(h->events & 1u << e))
      continue;
    const struct fg_event_kind *k = fg_event_kind((enum fg_stack_event)e);
    int sampled = !strcmp(st->event, "cpu") || !strcmp(st->event, "itimer") || !strcmp(st->event, "wall");
    const char *name = e == FG_STACK_CPU && sampled ? st->event
                       : fg_event_title_name(st, (enum fg_stack_event)e);
    /* what the flame graph counts that the map cannot place: stored with no time (a full
       ring's overflow slots, the timeline's room spent, a folded interval's tail) */
    uint64_t counted = 0, timed = 0;
    for (uint32_t s = 0; s < h->p->nstacks; s++)
      if (h->p->stacks[s].event == e)
        counted += h->p->stacks[s].count;
    for (uint32_t i = 0; i < h->p->timeline.n; i++) {
      const struct fg_timeline_entry *x = &h->p->timeline.entries[i];
      if (x->stack < h->p->nstacks && h->p->stacks[x->stack].event == e)
        timed += x->weight;
    }
    if (fprintf(out, "%s{\"id\":%d,\"name\":", first ? "" : ",", e) < 0 || fg_put_json_string(out, name) != 0 ||
        fprintf(out, ",\"unit\":\"%s\",\"untimed\":%" PRIu64 "}", k->html_unit,
                counted > timed ? counted - timed : 0) < 0)
      return -1;
    first = 0;
  }
  if (fputs("],\"summary\":", out) < 0)
    return -1;
  char *summary = fg_summary_text(st);
  int rc = fg_put_json_string(out, summary ? summary : "");
  free(summary);
  return rc != 0 || fputc('}', out) == EOF ? -1 : 0;
}

/* The page's span on the timeline's clock: the recording's, widened to
 * every sample's time, narrowed to cfg's range. Saturating: a crafted time
 * near 2^64 does not wrap. */
static void span(const struct fg_profile *p, const struct fg_output_settings *cfg, struct heat *hp)
{
  struct heat h = {0};
  const struct fg_stats *st = &p->stats;
  h.start_ns = st->start_ns;
  h.end_ns = st->wall_ns > UINT64_MAX - st->start_ns ? UINT64_MAX - 1 : st->start_ns + st->wall_ns;
  for (uint32_t i = 0; i < p->timeline.n; i++) {   /* a sample past the stated span widens it */
    uint64_t t = p->timeline.entries[i].time_ns;
    if (t == UINT64_MAX)
      t--;
    if (t < h.start_ns)
      h.start_ns = t;
    if (t >= h.end_ns)
      h.end_ns = t + 1;
  }
  if (cfg->range_to && cfg->range_to > cfg->range_from && st->start_epoch_ns) {   /* ns since 1970 */
    uint64_t from = cfg->range_from > st->start_epoch_ns ? cfg->range_from - st->start_epoch_ns : 0;
    uint64_t a = from > UINT64_MAX - 1 - st->start_ns ? UINT64_MAX - 1 : st->start_ns + from;
    if (a > h.start_ns)
      h.start_ns = a;
    if (cfg->range_to <= st->start_epoch_ns) {
      h.end_ns = h.start_ns;   /* before the recording: nothing */
    } else if (cfg->range_to != UINT64_MAX) {   /* UINT64_MAX: to the last sample */
      uint64_t to = cfg->range_to - st->start_epoch_ns;
      uint64_t b = to > UINT64_MAX - 1 - st->start_ns ? UINT64_MAX - 1 : st->start_ns + to;
      if (b < h.end_ns)
        h.end_ns = b;
    }
  }
  if (h.end_ns <= h.start_ns)
    h.end_ns = h.start_ns + 1;
  hp->start_ns = h.start_ns;
  hp->end_ns = h.end_ns;
}

uint64_t fg_heatmap_span_ns(const struct fg_profile *p, const struct fg_output_settings *cfg)
{
  struct heat h = {0};
  span(p, cfg, &h);
  return h.end_ns - h.start_ns;
}

struct page {
  const struct heat *h;
  const struct fg_output_settings *cfg;
  const struct fg_bytes *parts;
  const struct fg_heatmap_cuts *cuts;
};

static int fill(FILE *out, const char *name, void *ctx)
{
  const struct page *pg = ctx;
  if (strcmp(name, "TITLE") == 0)
    return fg_put_html_text(out, pg->cfg->title ? pg->cfg->title : "fgagent heatmap");
  if (strcmp(name, "HEADER") == 0)
    return put_header(out, pg->h, pg->cfg);
  if (strcmp(name, "DATA") == 0)
    return fg_heatmap_put_parts(out, pg->parts, pg->cuts, (size_t)pg->h->ncolumns + 1);
  if (strcmp(name, "TICKS") != 0)
    return 1;
  for (int k = 0; k <= FG_TICK_COUNT; k++) {   /* the failed samples' root frames */
    char tick[96];
    snprintf(tick, sizeof tick, "[%s]", fg_tick_name(k));
    if (fputs(k ? "," : "[", out) < 0 || fg_put_json_string(out, tick) != 0)
      return -1;
  }
  return fputc(']', out) == EOF ? -1 : 0;
}

int fg_write_heatmap_html(FILE *out, const struct fg_profile *p, const struct fg_output_settings *cfg)
{
  struct heat h = {.p = p};
  span(p, cfg, &h);
  if (h.end_ns - h.start_ns > FG_HEATMAP_MAX_SPAN_NS) {   /* its cells are the page's memory and time */
    errno = EFBIG;
    return -1;
  }
  h.ncells = (h.end_ns - h.start_ns + CELL_NS - 1) / CELL_NS;
  h.nblocks = (h.ncells + BLOCK_CELLS - 1) / BLOCK_CELLS;
  h.ncolumns = (h.nblocks + COLUMN_BLOCKS - 1) / COLUMN_BLOCKS;
  struct fg_bytes blob = {0};
  struct fg_bytes *parts = calloc(h.ncolumns + 1, sizeof *parts);   /* parts[0]: blob; then a column each */
  struct fg_heatmap_cuts *cuts = calloc(h.ncolumns + 1, sizeof *cuts);   /* cuts[0]: none */
  int rc = parts && cuts ? sort_cells(&h) : -1;
  if (rc == 0)
    rc = put_shapes(&h, &blob);
  if (rc == 0)
    rc = put_marks(&h, &blob);
  if (rc == 0)
    rc = put_totals(&h, &blob);
  if (rc == 0)
    rc = put_columns(&h, &blob);
  if (rc == 0)
    rc = put_samples(&h, parts + 1, cuts + 1);
  if (rc == 0)
    fg_bytes_move(&parts[0], &blob);
  for (uint64_t i = 0; rc == 0 && i <= h.ncolumns; i++)
    if (parts[i].failed)
      rc = -1;
  /* the template, with @@TITLE@@, @@HEADER@@, @@TICKS@@ and @@DATA@@ filled in */
  struct page pg = {&h, cfg, parts, cuts};
  if (rc == 0)
    rc = fg_put_template(out, fg_heatmap_template, fill, &pg);
  free(blob.b);
  for (uint64_t i = 0; parts && i <= h.ncolumns; i++)
    free(parts[i].b);
  free(parts);
  free(cuts);
  free(h.order);
  free(h.block_first);
  free(h.leaf);
  return rc;
}
