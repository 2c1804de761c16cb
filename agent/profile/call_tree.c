/* Builds a call tree from the profile's stacks. */
#include "fg/call_tree.h"

#include <stdlib.h>
#include <string.h>

#include "fg/profile.h"

static int64_t add_node(struct fg_call_tree *t, uint32_t name, uint32_t parent)
{
  if (t->n == t->cap) {
    uint32_t cap = t->cap ? t->cap * 2 : 64;
    struct fg_tree_node *nodes = realloc(t->nodes, cap * sizeof *nodes);
    uint32_t *parents = nodes ? realloc(t->parents, cap * sizeof *parents) : NULL;
    if (nodes)
      t->nodes = nodes;
    if (!parents)
      return -1;
    t->parents = parents;
    t->cap = cap;
  }
  t->nodes[t->n] = (struct fg_tree_node){name, FG_NO_NODE, FG_NO_NODE, 0, 0};
  t->parents[t->n] = parent;
  return t->n++;
}

static uint32_t slot_of(uint32_t parent, uint32_t name, uint32_t cap)
{
  uint64_t h = ((uint64_t)parent << 32 | name) * 0x9e3779b97f4a7c15ull;
  return (uint32_t)(h >> 32) & (cap - 1);
}

/* Keeps the (parent, name) index at most half full. */
static int reserve_index(struct fg_call_tree *t)
{
  if ((uint64_t)(t->n + 1) * 2 <= t->index_cap)
    return 0;
  uint32_t cap = t->index_cap ? t->index_cap * 2 : 1024;
  uint32_t *index = calloc(cap, sizeof *index);
  if (!index)
    return -1;
  for (uint32_t node = 1; node < t->n; node++) {
    uint32_t i = slot_of(t->parents[node], t->nodes[node].name, cap);
    while (index[i])
      i = (i + 1) & (cap - 1);
    index[i] = node + 1;
  }
  free(t->index);
  t->index = index;
  t->index_cap = cap;
  return 0;
}

static int64_t child_named(struct fg_call_tree *t, uint32_t parent, uint32_t name)
{
  if (reserve_index(t) != 0)
    return -1;
  uint32_t i = slot_of(parent, name, t->index_cap);
  for (; t->index[i]; i = (i + 1) & (t->index_cap - 1)) {
    uint32_t c = t->index[i] - 1;
    if (t->parents[c] == parent && t->nodes[c].name == name)
      return c;
  }
  int64_t added = add_node(t, name, parent);
  if (added < 0)
    return -1;
  t->index[i] = (uint32_t)added + 1;
  t->nodes[added].next_sibling = t->nodes[parent].first_child;
  t->nodes[parent].first_child = (uint32_t)added;
  return added;
}

struct sort_ctx {
  const struct fg_call_tree *t;
  const struct fg_profile *p;
};

static int by_total_then_name(const void *a, const void *b, void *arg)
{
  const struct sort_ctx *ctx = arg;
  const struct fg_tree_node *x = &ctx->t->nodes[*(const uint32_t *)a];
  const struct fg_tree_node *y = &ctx->t->nodes[*(const uint32_t *)b];
  if (x->total != y->total)
    return x->total > y->total ? -1 : 1;
  return strcmp(fg_profile_name(ctx->p, x->name), fg_profile_name(ctx->p, y->name));
}

static int sort_children(struct fg_call_tree *t, const struct fg_profile *p)
{
  uint32_t *kids = malloc((t->n ? t->n : 1) * sizeof *kids);
  if (!kids)
    return -1;
  struct sort_ctx ctx = {t, p};
  for (uint32_t node = 0; node < t->n; node++) {
    uint32_t k = 0;
    for (uint32_t c = t->nodes[node].first_child; c != FG_NO_NODE; c = t->nodes[c].next_sibling)
      kids[k++] = c;
    if (k < 2)
      continue;
    qsort_r(kids, k, sizeof *kids, by_total_then_name, &ctx);
    t->nodes[node].first_child = kids[0];
    for (uint32_t i = 0; i + 1 < k; i++)
      t->nodes[kids[i]].next_sibling = kids[i + 1];
    t->nodes[kids[k - 1]].next_sibling = FG_NO_NODE;
  }
  free(kids);
  return 0;
}

int fg_call_tree_build(struct fg_call_tree *t, const struct fg_profile *p, uint32_t thread)
{
  memset(t, 0, sizeof *t);
  if (add_node(t, UINT32_MAX, FG_NO_NODE) < 0)
    return -1;
  /* Size the index once for the most nodes the stacks can make: no rehashing. */
  uint64_t most = 1;
  for (uint32_t i = 0; i < p->nstacks; i++)
    if (thread == FG_ALL_THREADS || p->stacks[i].thread == thread)
      most += p->stacks[i].nframes;
  uint32_t cap = 1024;
  while (cap < most * 2 && cap < (1u << 31))
    cap *= 2;
  t->index = calloc(cap, sizeof *t->index);
  if (!t->index)
    return -1;
  t->index_cap = cap;
  for (uint32_t i = 0; i < p->nstacks; i++) {
    const struct fg_stack *s = &p->stacks[i];
    if (thread != FG_ALL_THREADS && s->thread != thread)
      continue;
    const uint32_t *frames = fg_stack_frames(p, s);
    uint32_t node = 0;
    t->nodes[0].total += s->count;
    for (uint32_t f = 0; f < s->nframes; f++) {
      int64_t c = child_named(t, node, frames[f]);
      if (c < 0)
        return -1;
      node = (uint32_t)c;
      t->nodes[node].total += s->count;
    }
    t->nodes[node].self += s->count;
  }
  free(t->index);
  t->index = NULL;
  t->index_cap = 0;
  return sort_children(t, p);
}

void fg_call_tree_free(struct fg_call_tree *t)
{
  free(t->nodes);
  free(t->index);
  free(t->parents);
  memset(t, 0, sizeof *t);
}
