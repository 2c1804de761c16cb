/* The call graph in the style of the ftrace function_graph tracer:
 *
 *    main-4242    |               |  Main.main() {
 *    main-4242    | # 1230.000 us |    Main.hot(); /+ 123 samples, 41.0% +/
 *    main-4242    | * 3000.000 us |  } /+ Main.main 300 samples, 100.0% +/
 *
 * One tree per thread. A duration is an estimate, samples x interval, marked
 * as ftrace marks them: + >10us, ! >100us, # >1ms, * >10ms, @ >100ms, $ >1s.
 * Each column has its own small function that reports a failed write. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "fg/call_tree.h"
#include "fg/output.h"
#include "fg/profile.h"

#include "output/ftrace_columns.h"

static const char *call_suffix(const struct fg_profile *p, uint32_t name)
{
  enum fg_frame_kind k = fg_profile_kind(p, name);
  return (k == FG_KIND_JAVA || k == FG_KIND_NATIVE) ? "()" : "";
}

static double percent(uint64_t part, uint64_t whole)
{
  return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

struct walk {
  FILE *out;
  const struct fg_profile *p;
  const struct fg_thread_info *thread;
  const struct fg_call_tree *tree;
  uint64_t ns_per_sample;
};

/* The text stays linear in frames however deep the stacks: indentation stops at
 * MAX_INDENT levels, and a chain of plain recursion (a frame whose only callee is
 * itself, with no samples of its own) is folded into one line. Where the indentation
 * no longer shows a line's depth, "[depth N]" names it. */
#define MAX_INDENT 64

/* One printed node: `first` opens the line, `last` is the end of its folded chain
 * (first itself when nothing folds). `level` is the nesting printed, `depth` the
 * frame's real depth in the stack. */
struct walk_item {
  uint32_t first, last, folded;
  uint32_t level, depth;
  int closing;
};

/* Task and duration columns, indentation, and the depth where indentation cannot show it.
 * An opening line has no duration (NULL), as in ftrace. */
static int print_prefix(const struct walk *w, const struct walk_item *it, const uint64_t *samples)
{
  uint32_t level = it->level < MAX_INDENT ? it->level : MAX_INDENT;
  if (fg_ft_task(w->out, w->thread) ||
      (samples ? fg_ft_duration(w->out, *samples * w->ns_per_sample) : fg_ft_no_duration(w->out)) ||
      fg_ft_indent(w->out, level))
    return -1;
  if (it->level != it->depth || it->level >= MAX_INDENT)
    return fprintf(w->out, "[depth %" PRIu32 "] ", it->depth) < 0 ? -1 : 0;
  return 0;
}

static int print_folded(FILE *out, uint32_t folded, const char *before)
{
  if (folded == 0)
    return 0;
  return fprintf(out, "%s%" PRIu32 " recursive call%s folded", before, folded,
                 folded == 1 ? "" : "s") < 0 ? -1 : 0;
}

static int print_leaf(const struct walk *w, const struct walk_item *it)
{
  const struct fg_tree_node *n = &w->tree->nodes[it->last];
  if (print_prefix(w, it, &n->total))
    return -1;
  if (fprintf(w->out, "%s%s; /* %" PRIu64 " samples, %.1f%%", fg_profile_name(w->p, n->name),
              call_suffix(w->p, n->name), n->total, percent(n->total, w->tree->nodes[0].total)) < 0 ||
      print_folded(w->out, it->folded, ", "))
    return -1;
  return fg_ft_put(w->out, " */\n");
}

static int print_open(const struct walk *w, const struct walk_item *it)
{
  const struct fg_tree_node *n = &w->tree->nodes[it->first];
  if (print_prefix(w, it, NULL) ||
      fprintf(w->out, "%s%s {", fg_profile_name(w->p, n->name), call_suffix(w->p, n->name)) < 0)
    return -1;
  if (it->folded && (print_folded(w->out, it->folded, " /* ") || fg_ft_put(w->out, " */")))
    return -1;
  return fg_ft_put(w->out, "\n");
}

/* The chain's totals are all equal (no level has samples of its own but the last),
 * so the last node's total and self are the whole chain's. */
static int print_close(const struct walk *w, const struct walk_item *it)
{
  const struct fg_tree_node *n = &w->tree->nodes[it->last];
  if (print_prefix(w, it, &n->total))
    return -1;
  return fprintf(w->out, "} /* %s %" PRIu64 " samples, %.1f%%, self %" PRIu64 " */\n",
                 fg_profile_name(w->p, n->name), n->total,
                 percent(n->total, w->tree->nodes[0].total), n->self) < 0 ? -1 : 0;
}

/* Follows plain recursion down from node: while a node has no samples of its own and
 * one child of the same name, the child is folded into it. */
static struct walk_item fold_chain(const struct fg_call_tree *t, uint32_t node, uint32_t level,
                                   uint32_t depth)
{
  struct walk_item it = {node, node, 0, level, depth, 0};
  for (;;) {
    const struct fg_tree_node *n = &t->nodes[it.last];
    uint32_t c = n->first_child;
    if (n->self != 0 || c == FG_NO_NODE || t->nodes[c].next_sibling != FG_NO_NODE ||
        t->nodes[c].name != n->name)
      return it;
    it.last = c;
    it.folded++;
  }
}

/* Pushes the children of `parent`'s last node so that the first child is on top. */
static size_t push_children(const struct fg_call_tree *t, const struct walk_item *parent,
                            uint32_t level, struct walk_item *todo, size_t top)
{
  uint32_t depth = parent ? parent->depth + parent->folded + 1 : 0;
  uint32_t node = parent ? parent->last : 0;
  size_t count = 0;
  for (uint32_t c = t->nodes[node].first_child; c != FG_NO_NODE; c = t->nodes[c].next_sibling)
    count++;
  size_t i = top + count;
  for (uint32_t c = t->nodes[node].first_child; c != FG_NO_NODE; c = t->nodes[c].next_sibling)
    todo[--i] = fold_chain(t, c, level, depth);
  return top + count;
}

/* Depth-first, without recursion: stacks can be thousands of frames deep.
 * Each node is pushed once to open and once to close: 2n items at most. */
static int print_tree(const struct walk *w)
{
  const struct fg_call_tree *t = w->tree;
  struct walk_item *todo = malloc((size_t)t->n * 2 * sizeof *todo);
  if (!todo)
    return -1;
  int rc = 0;
  size_t top = push_children(t, NULL, 0, todo, 0);
  while (top > 0 && rc == 0) {
    struct walk_item it = todo[--top];
    if (it.closing) {
      rc = print_close(w, &it);
    } else if (t->nodes[it.last].first_child == FG_NO_NODE) {
      rc = print_leaf(w, &it);
    } else {
      rc = print_open(w, &it);
      todo[top] = it;
      todo[top++].closing = 1;
      top = push_children(t, &it, it.level + 1, todo, top);
    }
  }
  free(todo);
  return rc;
}

/* The whole summary, each line behind "# ". */
static int print_summary_comment(FILE *out, const struct fg_stats *s)
{
  char *text = fg_summary_text(s);
  int rc = text ? 0 : -1;
  for (char *line = text, *nl; rc == 0 && line && *line; line = nl ? nl + 1 : NULL) {
    nl = strchr(line, '\n');
    if (fprintf(out, "# %.*s\n", nl ? (int)(nl - line) : (int)strlen(line), line) < 0)
      rc = -1;
  }
  free(text);
  return rc;
}

static int print_headers(FILE *out, const struct fg_stats *s, uint64_t ns_per_sample)
{
  char asked[32], used[32];
  snprintf(asked, sizeof asked, "%.3f ms", (double)s->interval_ns / 1e6);
  snprintf(used, sizeof used, "%.3f ms", (double)ns_per_sample / 1e6);
  if (fprintf(out, "# fgagent call graph, in the style of ftrace's function_graph tracer\n"
                   "# DURATION = samples x %s (interval asked: %s)\n"
                   "# %" PRIu64 " samples stored of %" PRIu64 " signals taken; the summary "
                   "accounts for every loss\n#\n",
              used, asked, fg_stats_stored(s), s->taken) < 0 ||
      print_summary_comment(out, s) != 0 || fputs("#\n", out) < 0)
    return -1;
  return fg_ft_put(out, "#   TASK/PID    |   DURATION    | FUNCTION CALLS\n"
                  "#    |    |     |    |   |      | |   |   |   |\n");
}

static int print_banner(FILE *out, const struct fg_thread_info *th, uint64_t samples)
{
  return fprintf(out, "\n ------------------------------------------\n"
                      "  => %s-%d  %" PRIu64 " samples\n"
                      " ------------------------------------------\n\n",
                 th->name, th->tid, samples) < 0 ? -1 : 0;
}

struct thread_total {
  uint32_t thread;
  uint64_t samples;
};

static int by_samples(const void *a, const void *b)
{
  const struct thread_total *x = a, *y = b;
  if (x->samples != y->samples)
    return x->samples > y->samples ? -1 : 1;
  return x->thread < y->thread ? -1 : x->thread > y->thread;
}

int fg_write_callgraph(FILE *out, const struct fg_profile *p, const struct fg_output_settings *cfg)
{
  (void)cfg; /* the call graph is always one tree per thread */
  uint64_t weight = fg_stats_ns_per_sample(&p->stats);
  if (print_headers(out, &p->stats, weight) != 0)
    return -1;
  struct thread_total *order = calloc(p->nthreads ? p->nthreads : 1, sizeof *order);
  if (!order)
    return -1;
  for (uint32_t i = 0; i < p->nthreads; i++)
    order[i].thread = i;
  for (uint32_t i = 0; i < p->nstacks; i++)
    order[p->stacks[i].thread].samples += p->stacks[i].count;
  qsort(order, p->nthreads, sizeof *order, by_samples);

  int rc = 0;
  for (uint32_t i = 0; i < p->nthreads && rc == 0 && order[i].samples > 0; i++) {
    struct fg_call_tree tree;
    if (fg_call_tree_build(&tree, p, order[i].thread) != 0) {
      fg_call_tree_free(&tree);
      rc = -1;
      break;
    }
    struct walk w = {out, p, &p->threads[order[i].thread], &tree, weight};
    rc = print_banner(out, w.thread, order[i].samples);
    if (rc == 0)
      rc = print_tree(&w);
    fg_call_tree_free(&tree);
  }
  free(order);
  return rc;
}
