/* A call tree built from a profile's stacks: the shape the call-graph output
 * (and later the flame graph) walks. Node 0 is the root and has no name. */
#ifndef FG_CALL_TREE_H
#define FG_CALL_TREE_H

#include <stdint.h>

struct fg_profile;

#define FG_NO_NODE UINT32_MAX
#define FG_ALL_THREADS UINT32_MAX

struct fg_tree_node {
  uint32_t name;          /* frame name id in the profile */
  uint32_t first_child;   /* FG_NO_NODE if a leaf */
  uint32_t next_sibling;  /* FG_NO_NODE if the last child */
  uint64_t total;         /* samples in this frame and below */
  uint64_t self;          /* samples with this frame on top */
};

struct fg_call_tree {
  struct fg_tree_node *nodes;
  uint32_t n, cap;
  uint32_t *index;        /* (parent, name) -> node + 1, open addressing; build time only */
  uint32_t index_cap;
  uint32_t *parents;      /* parent of each node; build time only */
};

/* Builds the tree of one thread's stacks (or FG_ALL_THREADS), children
 * ordered by total samples, most first, then by name. 0 or -1 (no memory). */
int fg_call_tree_build(struct fg_call_tree *t, const struct fg_profile *p, uint32_t thread);
void fg_call_tree_free(struct fg_call_tree *t);

#endif
