/*
** rw_graph.h - graph algorithms that know nothing of Lua's bytecode:
** depth-first orders, dominators, post-dominators of a graph whose edges
** all go forward, searches that avoid a node, ancestry in a tree and
** strongly connected components.  rw_cfg.c runs them on a function's
** blocks (with a virtual exit node); their scratch comes from an arena.
*/
#ifndef RW_GRAPH_H
#define RW_GRAPH_H

#include "rw_arena.h"

/* Nodes 0 .. n-1; the edges out of v are adj[start[v] .. start[v+1]-1]
   (start has n + 1 entries). */
typedef struct rw_graph {
  int n;
  int *start;
  int *adj;
} rw_graph;

/* Depth-first search from root over g: fills post with the nodes
   reached, in postorder, and returns how many (-1 out of memory).  When
   header is not NULL, sets header[w] for the target w of every
   retreating edge (one to a node on the search's stack, itself
   included), and leaves the rest of header as it was. */
int rw_graph_dfs(const rw_graph *g, int root, int *post, char *header,
                 rw_arena *a);

/* Immediate dominators of the np nodes of post (a postorder from its
   last node, the root) over the graph whose edges into each node are
   preds: idom[root] = root, idom[v] = -1 for the nodes not in post.
   With acyclic (no edge goes back in the order) one pass suffices.
   Returns 0 when out of memory (every idom[v] is -1 then). */
int rw_graph_dominators(const rw_graph *preds, const int *post, int np,
                        int *idom, int acyclic, rw_arena *a);

/* Immediate post-dominators over succ when every edge v -> w has
   w > v and every node reaches the last one (the exit, its own
   ipdom). */
void rw_graph_postdominators_forward(const rw_graph *succ, int *ipdom);

/* The scratch of a series of searches over one graph: a stack with room
   for every node, and marks (zeroed at first) that each search stamps
   afresh; budget is what the searches that keep to one may still
   visit. */
typedef struct rw_graph_walk {
  int *stack;
  unsigned *mark;
  unsigned stamp;       /* the last search's */
  long budget;
} rw_graph_walk;

/* Whether a search from x's successors over g, avoiding node avoid,
   reaches x again (a cycle through x that avoids it) or node other (-1:
   none).  With budgeted, each visit takes one from w->budget, and out of
   budget answers 1. */
int rw_graph_reaches_avoiding(const rw_graph *g, rw_graph_walk *w, int x,
                              int avoid, int other, int budgeted);

/* Number the forest given by parent links (a root v has parent[v] == v,
   a node outside the forest parent[v] < 0) so that rw_graph_above(x, d)
   says whether x is a proper ancestor of d.  Nodes outside the forest
   get tin -1.  Returns 0 when out of memory. */
int rw_graph_number_tree(const int *parent, int n, int *tin, int *tout,
                         rw_arena *a);

static inline int rw_graph_above(const int *tin, const int *tout, int x,
                                 int d) {
  return tin[x] >= 0 && tin[d] >= 0 && tin[x] < tin[d] && tout[d] <= tout[x];
}

/* Strongly connected components of the np nodes of post (a postorder of
   a search over the graph whose transpose is pred): comp[v] is the
   component's first node in reverse postorder, -1 for nodes not in
   post.  Returns 0 when out of memory. */
int rw_graph_components(const rw_graph *pred, const int *post, int np,
                        int *comp, rw_arena *a);

#endif
