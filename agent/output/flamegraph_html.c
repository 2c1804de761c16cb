/* The HTML flame graph: one self-contained file, the page in
 * flamegraph_template.html (compiled in), the profile embedded as JSON:
 *   names, kinds (per name), kindNames, and the call tree depth-first as
 *   n (name id), d (depth), v (samples in the frame and below); node 0 is "all".
 * The JSON sits in a <script type="application/json">: JSON.parse reads it
 * much faster than the JavaScript parser would read a literal. 
 * Drawn on a canvas, so 100 000 stacks open quickly. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "fg/event_kinds.h"
#include "fg/call_tree.h"
#include "fg/output.h"
#include "fg/profile.h"
#include "output/json_text.h"

extern const char fg_flamegraph_template[];

static int put_u64_array(FILE *out, const char *key, const uint64_t *v, size_t n)
{
  struct fg_numbers *nums = malloc(sizeof *nums);   /* 64 KiB: not on the stack */
  if (!nums)
    return -1;
  fg_numbers_start(nums, out);
  fg_numbers_text(nums, ",\"");
  fg_numbers_text(nums, key);
  fg_numbers_text(nums, "\":[");
  for (size_t i = 0; i < n; i++)
    fg_numbers_put(nums, i ? ',' : 0, v[i]);
  fg_numbers_text(nums, "]");
  int rc = fg_numbers_end(nums);
  free(nums);
  return rc;
}

/* The tree depth-first into n/d/v, leaving out frames under min_samples. */
struct flat {
  uint64_t *n, *d, *v;
  uint64_t *b;          /* differential: the same path's samples in the base tree */
  size_t len;
};

/* The child of base node under with the name of new-tree node name, or FG_NO_NODE. */
static uint32_t base_child(const struct fg_call_tree *base, uint32_t under, uint32_t name)
{
  if (!base || under == FG_NO_NODE)
    return FG_NO_NODE;
  for (uint32_t c = base->nodes[under].first_child; c != FG_NO_NODE; c = base->nodes[c].next_sibling)
    if (base->nodes[c].name == name)
      return c;
  return FG_NO_NODE;
}

/* base (may be NULL) must share t's name ids. */
static int flatten(const struct fg_call_tree *t, const struct fg_call_tree *base, uint32_t all_name,
                   uint64_t min_samples, struct flat *f)
{
  f->n = malloc(t->n * sizeof *f->n);
  f->d = malloc(t->n * sizeof *f->d);
  f->v = malloc(t->n * sizeof *f->v);
  f->b = base ? malloc(t->n * sizeof *f->b) : NULL;
  uint32_t *todo = malloc(t->n * sizeof *todo), *depth = malloc(t->n * sizeof *depth);
  uint32_t *match = malloc(t->n * sizeof *match);
  int rc = f->n && f->d && f->v && todo && depth && match && (f->b || !base) ? 0 : -1;
  size_t top = 0;
  f->len = 0;
  if (rc == 0) {
    todo[top] = 0;
    match[top] = base ? 0 : FG_NO_NODE;
    depth[top++] = 0;
  }
  while (rc == 0 && top > 0) {
    top--;
    uint32_t node = todo[top], d = depth[top], in_base = match[top];
    const struct fg_tree_node *tn = &t->nodes[node];
    if (f->b)
      f->b[f->len] = in_base == FG_NO_NODE ? 0 : base->nodes[in_base].total;
    f->n[f->len] = node == 0 ? all_name : tn->name;
    f->d[f->len] = d;
    f->v[f->len++] = tn->total;
    /* push children last-first so the first child comes out first */
    size_t count = 0;
    for (uint32_t c = tn->first_child; c != FG_NO_NODE; c = t->nodes[c].next_sibling)
      if (t->nodes[c].total >= min_samples)
        count++;
    size_t i = top + count;
    for (uint32_t c = tn->first_child; c != FG_NO_NODE; c = t->nodes[c].next_sibling)
      if (t->nodes[c].total >= min_samples) {
        todo[--i] = c;
        depth[i] = d + 1;
        match[i] = base_child(base, in_base, t->nodes[c].name);
      }
    top += count;
  }
  free(todo);
  free(depth);
  free(match);
  return rc;
}

/* names and kinds; the root's "all" is one more name after the profile's */
static int put_data(FILE *out, const struct fg_profile *view, const struct flat *f,
                    const struct fg_stats *stats, const char *title)
{
  if (fputs("{\"title\":", out) < 0 || fg_put_json_string(out, title) != 0 ||
      fputs(",\"names\":[", out) < 0)
    return -1;
  for (uint32_t i = 0; i < view->nnames; i++)
    if (fg_put_json_string(out, view->names[i]) != 0 || fputc(',', out) == EOF)
      return -1;
  if (fputs("\"all\"],\"kinds\":[", out) < 0)
    return -1;
  for (uint32_t i = 0; i < view->nnames; i++)
    if (fprintf(out, "%u,", view->kinds[i]) < 0)
      return -1;
  if (fprintf(out, "%u", (unsigned)FG_KIND_MARKER) < 0)
    return -1;
  if (fputs("],\"kindNames\":[", out) < 0)
    return -1;
  for (int k = 0; k < FG_KIND_COUNT; k++)
    if (fprintf(out, k ? ",\"%s\"" : "\"%s\"", fg_kind_name((enum fg_frame_kind)k)) < 0)
      return -1;
  if (fputc(']', out) == EOF || put_u64_array(out, "n", f->n, f->len) ||
      put_u64_array(out, "d", f->d, f->len) || put_u64_array(out, "v", f->v, f->len) ||
      (f->b && put_u64_array(out, "b", f->b, f->len)))
    return -1;
  return fprintf(out, ",\"unattributed\":%" PRIu64 ",\"intervalNs\":%" PRIu64 ",\"unit\":\"%s\"}",
                 fg_stats_failed_total(stats), stats->interval_ns,
                 fg_event_kind(view->event)->html_unit)
         < 0 ? -1 : 0;
}

static int put_summary(FILE *out, const struct fg_stats *stats)
{
  char *text = fg_summary_text(stats);
  int rc = text ? fg_put_html_text(out, text) : -1;
  free(text);
  return rc;
}

struct page {
  const struct fg_profile *view;
  const struct flat *f;
  const struct fg_stats *stats;
  const char *title;
};

static int fill(FILE *out, const char *name, void *ctx)
{
  const struct page *pg = ctx;
  if (strcmp(name, "TITLE") == 0)
    return fg_put_html_text(out, pg->title);
  if (strcmp(name, "SUMMARY") == 0)
    return put_summary(out, pg->stats);
  if (strcmp(name, "DATA") == 0)
    return put_data(out, pg->view, pg->f, pg->stats, pg->title);
  return 1;
}

static int write_page(FILE *out, const struct fg_profile *p, const struct fg_profile *base,
                      const struct fg_output_settings *cfg)
{
  const char *title = cfg->title ? cfg->title : base ? "fgprof diff" : "fgagent flame graph";
  /* Per thread, each stack gets a [thread] root: that needs a copy. Otherwise
   * the tree merges the threads itself. */
  struct fg_profile merged;
  const struct fg_profile *view = p;
  struct fg_call_tree tree = {0};
  struct flat f = {0};
  int rc = 0;
  fg_profile_init(&merged);
  if (cfg->per_thread) {
    rc = fg_profile_merge_threads(p, true, &merged);
    view = &merged;
  }
  uint32_t all = view->nnames;   /* put_data writes "all" after the profile's names */
  struct fg_call_tree base_tree = {0};
  if (rc != 0 || fg_call_tree_build(&tree, view, FG_ALL_THREADS) != 0 ||
      (base && fg_call_tree_build(&base_tree, base, FG_ALL_THREADS) != 0))
    rc = -1;
  uint64_t min_samples = 0;
  if (rc == 0 && cfg->min_width_pct > 0)
    min_samples = (uint64_t)(cfg->min_width_pct / 100.0 * (double)tree.nodes[0].total);
  if (rc == 0)
    rc = flatten(&tree, base ? &base_tree : NULL, all, min_samples, &f);

  /* the template, with @@TITLE@@, @@SUMMARY@@ and @@DATA@@ filled in */
  struct page pg = {view, &f, &p->stats, title};
  if (rc == 0)
    rc = fg_put_template(out, fg_flamegraph_template, fill, &pg);
  free(f.n);
  free(f.d);
  free(f.v);
  free(f.b);
  fg_call_tree_free(&tree);
  fg_call_tree_free(&base_tree);
  fg_profile_free(&merged);
  return rc;
}

int fg_write_flamegraph_html(FILE *out, const struct fg_profile *p, const struct fg_output_settings *cfg)
{
  return write_page(out, p, NULL, cfg);
}

int fg_write_diff_flamegraph_html(FILE *out, const struct fg_profile *base, const struct fg_profile *p,
                                  const struct fg_output_settings *cfg)
{
  struct fg_output_settings merged = *cfg;
  merged.per_thread = false;   /* threads differ between runs; frames are compared */
  return write_page(out, p, base, &merged);
}
