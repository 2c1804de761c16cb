/* fgprof diff's call paths; see fg/diff.h. Every run's stacks are merged
 * into one tree of call paths from the root, with each run's samples through
 * each path (total) and ending at it (self). A path whose total share
 * changed is reported unless one of its callees' paths carries at least half
 * of the change the same way (that one, or one under it, is reported), with
 * the frame at or under it whose own share moved most. */
#include "fg/diff.h"

#include <ctype.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fg/profile.h"
#include "fg/u64_map.h"

#define NO_NODE UINT32_MAX

struct path_node {
  uint32_t parent, name;          /* name: an id in the tree's name table */
  uint32_t first_child, next_sibling;
  double base, next;              /* mean total share, base and new */
  double self_change;             /* mean self share, new minus base */
  enum fg_change change;
};

struct path_tree {
  struct fg_profile names;        /* frame names as paths compare them */
  struct path_node *nodes;
  uint32_t nnodes, cap;
  struct fg_u64_map index;        /* (parent + 1) << 32 | (name + 1) -> node */
  double *total, *self;           /* [node * runs + run] */
  double *samples;                /* [run] */
  size_t runs;
};

/* A frame's name as call paths compare it: the address of a lambda or a
 * hidden class (".0x7f..." or "/0x...") and a lambda's number change from
 * run to run, so they are left out. */
static char *path_name(const char *in)
{
  char *out = malloc(strlen(in) + 1), *o = out;
  if (!out)
    return NULL;
  for (const char *p = in; *p;) {
    if ((p[0] == '.' || p[0] == '/') && p[1] == '0' && p[2] == 'x' && isxdigit((unsigned char)p[3])) {
      for (p += 3; isxdigit((unsigned char)*p); p++)
        ;
    } else if (strncmp(p, "$$Lambda$", 9) == 0 && isdigit((unsigned char)p[9])) {
      memcpy(o, "$$Lambda", 8);
      o += 8;
      for (p += 9; isdigit((unsigned char)*p); p++)
        ;
    } else {
      *o++ = *p++;
    }
  }
  *o = '\0';
  return out;
}

/* "[name tid=N]": a thread's root frame, whose tid differs between runs. */
static int is_thread_root(const char *name)
{
  size_t n = strlen(name);
  return n > 2 && name[0] == '[' && name[n - 1] == ']' && strstr(name, " tid=") != NULL;
}

static int grow(struct path_tree *t)
{
  uint32_t cap = t->cap ? t->cap * 2 : 1024;
  struct path_node *nodes = realloc(t->nodes, cap * sizeof *nodes);
  if (!nodes)
    return -1;
  t->nodes = nodes;
  double *arrays[2] = {t->total, t->self};
  for (int i = 0; i < 2; i++) {
    double *a = realloc(arrays[i], (size_t)cap * t->runs * sizeof *a);
    if (!a)
      return -1;
    memset(a + (size_t)t->cap * t->runs, 0, (size_t)(cap - t->cap) * t->runs * sizeof *a);
    *(i == 0 ? &t->total : &t->self) = a;
  }
  t->cap = cap;
  return 0;
}

/* The node of path parent > name, added if new; NO_NODE when out of memory. */
static uint32_t child(struct path_tree *t, uint32_t parent, uint32_t name)
{
  uint64_t key = ((uint64_t)(uint32_t)(parent + 1) << 32) | (uint64_t)(name + 1);
  uint32_t node;
  if (fg_u64_map_get(&t->index, key, &node))
    return node;
  if (t->nnodes == t->cap && grow(t) != 0)
    return NO_NODE;
  node = t->nnodes;
  if (fg_u64_map_put(&t->index, key, node) != 0)
    return NO_NODE;
  t->nodes[t->nnodes++] = (struct path_node){.parent = parent, .name = name, .first_child = NO_NODE,
                                             .next_sibling = NO_NODE};
  return node;
}

static int add_run(struct path_tree *t, const struct fg_profile *p, size_t run)
{
  uint32_t *ids = malloc((p->nnames ? p->nnames : 1) * sizeof *ids);   /* NO_NODE: a thread root */
  int rc = ids ? 0 : -1;
  for (uint32_t i = 0; rc == 0 && i < p->nnames; i++) {
    char *name = is_thread_root(p->names[i]) ? NULL : path_name(p->names[i]);
    int64_t id = name ? fg_profile_intern(&t->names, name, FG_KIND_JAVA) : -1;
    ids[i] = id < 0 ? NO_NODE : (uint32_t)id;
    if (!name && !is_thread_root(p->names[i]))
      rc = -1;
    else if (name && id < 0)
      rc = -1;
    free(name);
  }
  for (uint32_t s = 0; rc == 0 && s < p->nstacks; s++) {
    const struct fg_stack *st = &p->stacks[s];
    const uint32_t *frames = fg_stack_frames(p, st);
    uint32_t node = NO_NODE;
    t->samples[run] += (double)st->count;
    for (uint32_t f = 0; rc == 0 && f < st->nframes; f++) {
      if (ids[frames[f]] == NO_NODE)
        continue;
      if ((node = child(t, node, ids[frames[f]])) == NO_NODE)
        rc = -1;
      else
        t->total[(size_t)node * t->runs + run] += (double)st->count;
    }
    if (rc == 0 && node != NO_NODE)
      t->self[(size_t)node * t->runs + run] += (double)st->count;
  }
  free(ids);
  return rc;
}

static int upwards(enum fg_change c)
{
  return c == FG_CHANGE_SLOWER || c == FG_CHANGE_NEW;
}

static int same_way(enum fg_change a, enum fg_change b)
{
  return a != FG_CHANGE_NONE && b != FG_CHANGE_NONE && upwards(a) == upwards(b);
}

/* A new (gone) path whose last frame is itself new (gone) or renamed is the
 * frame table's news, not a call path's. */
static int frame_news(const struct fg_diff *d, const char *name)
{
  for (size_t i = 0; i < d->nrows; i++) {
    const struct fg_diff_row *r = &d->rows[i];
    if (r->change != FG_CHANGE_NEW && r->change != FG_CHANGE_GONE && r->change != FG_CHANGE_RENAMED &&
        (r->base_total > 0) == (r->new_total > 0))
      continue;
    char *n = path_name(r->name);
    int same = n && strcmp(n, name) == 0;
    free(n);
    if (same)
      return 1;
  }
  return 0;
}

/* Whether a callee's path of this changed path carries at least half of its
 * change the same way: the change is that one's (or deeper) to report. */
static int carried_deeper(const struct path_tree *t, uint32_t node)
{
  const struct path_node *n = &t->nodes[node];
  for (uint32_t c = n->first_child; c != NO_NODE; c = t->nodes[c].next_sibling) {
    const struct path_node *k = &t->nodes[c];
    if (same_way(k->change, n->change) && fabs(k->next - k->base) >= fabs(n->next - n->base) / 2)
      return 1;
  }
  return 0;
}

/* The node at or under top whose self share moved most the way top did. */
static uint32_t self_mover(const struct path_tree *t, uint32_t top, int up)
{
  uint32_t best = top, stack_len = 0, cap = 64;
  uint32_t *stack = malloc(cap * sizeof *stack);
  if (!stack)
    return top;
  stack[stack_len++] = top;
  while (stack_len) {
    uint32_t n = stack[--stack_len];
    double move = up ? t->nodes[n].self_change : -t->nodes[n].self_change;
    if (move > (up ? t->nodes[best].self_change : -t->nodes[best].self_change))
      best = n;
    for (uint32_t c = t->nodes[n].first_child; c != NO_NODE; c = t->nodes[c].next_sibling) {
      if (stack_len == cap) {
        uint32_t *s = realloc(stack, (cap *= 2) * sizeof *s);
        if (!s)
          break;
        stack = s;
      }
      stack[stack_len++] = c;
    }
  }
  free(stack);
  return best;
}

static int report(struct fg_diff *d, const struct path_tree *t, uint32_t node, double p)
{
  const struct path_node *n = &t->nodes[node];
  struct fg_path_row *r = &d->paths[d->npaths];
  memset(r, 0, sizeof *r);
  for (uint32_t a = node; a != NO_NODE; a = t->nodes[a].parent)
    r->nframes++;
  if (!(r->frames = calloc(r->nframes, sizeof *r->frames)))
    return -1;
  d->npaths++;
  size_t i = r->nframes;
  for (uint32_t a = node; a != NO_NODE; a = t->nodes[a].parent)
    if (!(r->frames[--i] = strdup(t->names.names[t->nodes[a].name])))
      return -1;
  uint32_t mover = self_mover(t, node, upwards(n->change));
  if (!(r->self_in = strdup(t->names.names[t->nodes[mover].name])))
    return -1;
  r->self_points = t->nodes[mover].self_change * 100;
  r->base_total = n->base;
  r->new_total = n->next;
  r->change_pct = n->base > 0 ? (n->next / n->base - 1) * 100 : INFINITY;
  r->p = p;
  r->change = n->change;
  if (upwards(n->change))
    d->paths_slower++;
  else
    d->paths_faster++;
  return 0;
}

static int by_path_change(const void *a, const void *b)
{
  const struct fg_path_row *x = a, *y = b;
  double dx = fabs(x->new_total - x->base_total), dy = fabs(y->new_total - y->base_total);
  return dx > dy ? -1 : dx < dy ? 1 : 0;
}

int fg_diff_call_paths(const struct fg_profile *base, size_t nbase, const struct fg_profile *new_runs, size_t nnew,
                       struct fg_diff *d)
{
  struct path_tree t = {.runs = nbase + nnew};
  fg_profile_init(&t.names);
  fg_u64_map_init(&t.index);
  t.samples = calloc(t.runs, sizeof *t.samples);
  double *p = NULL;
  int rc = t.samples ? 0 : -1;
  for (size_t r = 0; rc == 0 && r < t.runs; r++)
    rc = add_run(&t, r < nbase ? &base[r] : &new_runs[r - nbase], r);
  if (rc == 0 && !(p = calloc(t.nnodes + 1, sizeof *p)))
    rc = -1;
  for (uint32_t i = 0; rc == 0 && i < t.nnodes; i++) {
    struct path_node *n = &t.nodes[i];
    const double *total = t.total + (size_t)i * t.runs, *self = t.self + (size_t)i * t.runs;
    n->base = fg_diff_mean_share(total, t.samples, 0, nbase);
    n->next = fg_diff_mean_share(total, t.samples, nbase, nnew);
    n->self_change =
        fg_diff_mean_share(self, t.samples, nbase, nnew) - fg_diff_mean_share(self, t.samples, 0, nbase);
    p[i] = fg_diff_share_p(total, t.samples, nbase, nnew);
    n->change = fg_diff_classify(n->base, n->next, p[i], &d->options);
    if (n->parent != NO_NODE) {   /* children listed under their parent */
      n->next_sibling = t.nodes[n->parent].first_child;
      t.nodes[n->parent].first_child = i;
    }
  }
  for (uint32_t i = 0; rc == 0 && i < t.nnodes; i++) {
    const struct path_node *n = &t.nodes[i];
    if (n->change == FG_CHANGE_NONE || carried_deeper(&t, i))
      continue;
    if ((n->change == FG_CHANGE_NEW || n->change == FG_CHANGE_GONE) && frame_news(d, t.names.names[n->name]))
      continue;
    if (!d->paths && !(d->paths = calloc(t.nnodes, sizeof *d->paths)))
      rc = -1;
    if (rc == 0)
      rc = report(d, &t, i, p[i]);
  }
  if (rc == 0 && d->npaths > 1)
    qsort(d->paths, d->npaths, sizeof *d->paths, by_path_change);
  fg_profile_free(&t.names);
  fg_u64_map_free(&t.index);
  free(t.nodes);
  free(t.total);
  free(t.self);
  free(t.samples);
  free(p);
  return rc;
}

void fg_diff_free_paths(struct fg_diff *d)
{
  for (size_t i = 0; i < d->npaths; i++) {
    for (size_t f = 0; f < d->paths[i].nframes; f++)
      free(d->paths[i].frames[f]);
    free(d->paths[i].frames);
    free(d->paths[i].self_in);
  }
  free(d->paths);
  d->paths = NULL;
  d->npaths = 0;
}
