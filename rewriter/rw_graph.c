/*
** rw_graph.c - graph algorithms that know nothing of Lua's bytecode
** (see rw_graph.h): the orders, dominators and searches that rw_cfg.c
** runs on a function's blocks.
*/
#include <string.h>

#include "rw_graph.h"

int rw_graph_dfs(const rw_graph *g, int root, int *post, char *header,
                 rw_arena *a) {
  rw_arena_mark mark = rw_arena_save(a);
  int *stack = rw_arena_alloc(a, 2 * (size_t)g->n, sizeof(int));
  int *next = stack != NULL ? stack + g->n : NULL;  /* -1 new, -2 done, else
                                                       on the stack: the
                                                       next edge to take */
  int sp = 0, np = 0;
  if (stack == NULL) {
    rw_arena_restore(a, mark);
    return -1;
  }
  memset(next, 0xff, (size_t)g->n * sizeof *next);  /* all -1 */
  stack[sp++] = root;
  next[root] = g->start[root];
  while (sp > 0) {
    int v = stack[sp - 1];
    if (next[v] < g->start[v + 1]) {
      int w = g->adj[next[v]++];
      if (next[w] == -1) {
        next[w] = g->start[w];
        stack[sp++] = w;
      } else if (next[w] >= 0 && header != NULL) {
        header[w] = 1;
      }
    } else {
      next[v] = -2;
      post[np++] = v;
      sp--;
    }
  }
  rw_arena_restore(a, mark);
  return np;
}

/* Whether every retreating edge p -> v (order[p] <= order[v]: the first
   pass of dominators had not done p, and left the edge out) goes to a
   dominator of p by the idoms found in that pass.  heads are the nh
   nodes v with such an edge. */
static int retreats_dominated(const rw_graph *preds, const int *heads, int nh,
                              const int *order, const int *idom) {
  int i, k;
  for (i = 0; i < nh; i++) {
    int v = heads[i];
    for (k = preds->start[v]; k < preds->start[v + 1]; k++) {
      int x = preds->adj[k];
      if (order[x] < 0 || order[x] > order[v]) continue;
      while (order[x] < order[v]) x = idom[x];
      if (x != v) return 0;
    }
  }
  return 1;
}

/* Immediate dominators over g from its postorder (Cooper, Harvey and
   Kennedy's iteration).  preds are the edges into each node.  The first
   pass in reverse postorder sees each node's predecessors that come
   before it and leaves out the others (retreating edges, which that
   pass has not reached): it finds the dominators of the graph without
   the retreating edges, exactly, since that graph is acyclic and every
   predecessor is done before its node.  When each retreating edge
   p -> v goes to a dominator v of p there, those are the dominators of
   the whole graph (the usual case: the graphs of loops without gotos,
   where the retreating edges are back edges): they still satisfy the
   equations (the edge adds to v's predecessors p, whose dominators
   include v's), and an edge can only take dominators away, so they are
   the largest solution.  Otherwise the iteration goes on as it would
   have, to the same result. */
int rw_graph_dominators(const rw_graph *preds, const int *post, int np,
                        int *idom, int acyclic, rw_arena *a) {
  rw_arena_mark mark = rw_arena_save(a);
  int *order = rw_arena_alloc(a, 2 * (size_t)preds->n, sizeof(int));
  int *heads = order != NULL ? order + preds->n : NULL;
  int i, changed = 1, root = post[np - 1], pass = 0, nh = 0;
  if (order == NULL || heads == NULL) {
    for (i = 0; i < preds->n; i++) idom[i] = -1;
    rw_arena_restore(a, mark);
    return 0;
  }
  for (i = 0; i < preds->n; i++) { idom[i] = -1; order[i] = -1; }
  for (i = 0; i < np; i++) order[post[i]] = i;
  idom[root] = root;
  while (changed) {
    if (pass++ == 1 && retreats_dominated(preds, heads, nh, order, idom))
      break;
    changed = 0;
    for (i = np - 2; i >= 0; i--) {  /* reverse postorder */
      int v = post[i], nd = -1, k;
      for (k = preds->start[v]; k < preds->start[v + 1]; k++) {
        int p = preds->adj[k];
        if (order[p] < 0) continue;
        if (idom[p] < 0) {  /* not done yet: a retreating edge */
          if (pass == 1 && (nh == 0 || heads[nh - 1] != v)) heads[nh++] = v;
          continue;
        }
        if (nd < 0) { nd = p; continue; }
        while (nd != p) {  /* intersect */
          while (order[nd] < order[p]) nd = idom[nd];
          while (order[p] < order[nd]) p = idom[p];
        }
      }
      if (nd >= 0 && idom[v] != nd) { idom[v] = nd; changed = 1; }
    }
    if (acyclic) break;
  }
  rw_arena_restore(a, mark);
  return 1;
}

/* Immediate post-dominators when every edge goes forward (acyclic): the
   node order is then a topological one, every post-dominator of a node
   comes after it, and each node reaches the exit.  So the numbering is
   one in which dominators' intersection works (the finger further from
   the root is the one with the smaller number), and going back from the
   last node meets each node's successors done: one pass, the same tree
   as dominators over the reverse graph, without its search from the
   exit. */
void rw_graph_postdominators_forward(const rw_graph *succ, int *ipdom) {
  int exitn = succ->n - 1, v, k;
  ipdom[exitn] = exitn;
  for (v = exitn - 1; v >= 0; v--) {
    int nd = succ->adj[succ->start[v]];
    for (k = succ->start[v] + 1; k < succ->start[v + 1]; k++) {
      int p = succ->adj[k];
      while (nd != p) {  /* intersect */
        while (nd < p) nd = ipdom[nd];
        while (p < nd) p = ipdom[p];
      }
    }
    ipdom[v] = nd;
  }
}

int rw_graph_reaches_avoiding(const rw_graph *g, rw_graph_walk *w, int x,
                              int avoid, int other, int budgeted) {
  int *stack = w->stack, sp = 0, k;
  unsigned *mark = w->mark, stamp = ++w->stamp;
  for (k = g->start[x]; k < g->start[x + 1]; k++) {
    int y = g->adj[k];
    if (y != avoid && mark[y] != stamp) { mark[y] = stamp; stack[sp++] = y; }
  }
  while (sp > 0) {
    int v = stack[--sp];
    if (v == x || v == other) return 1;
    if (budgeted && --w->budget < 0) return 1;
    for (k = g->start[v]; k < g->start[v + 1]; k++) {
      int y = g->adj[k];
      if (y != avoid && mark[y] != stamp) { mark[y] = stamp; stack[sp++] = y; }
    }
  }
  return 0;
}

/* (x is a proper ancestor of d iff tin[x] < tin[d] && tout[d] <=
   tout[x].) */
int rw_graph_number_tree(const int *parent, int n, int *tin, int *tout,
                         rw_arena *a) {
  int *first = rw_arena_alloc(a, 3 * (size_t)n, sizeof(int));
  int *next, *stack;
  int v, clock = 0, sp = 0;
  if (first == NULL)
    return 0;
  next = first + n;
  stack = first + 2 * n;
  for (v = 0; v < n; v++) { first[v] = -1; tin[v] = tout[v] = -1; }
  for (v = n - 1; v >= 0; v--)  /* children lists */
    if (parent[v] >= 0 && parent[v] != v) {
      next[v] = first[parent[v]];
      first[parent[v]] = v;
    }
  for (v = 0; v < n; v++) {
    if (parent[v] != v) continue;  /* roots only */
    stack[sp++] = v;
    tin[v] = clock++;
    while (sp > 0) {
      int u = stack[sp - 1], c = first[u];
      if (c >= 0) {  /* descend into the next child */
        first[u] = next[c];
        tin[c] = clock++;
        stack[sp++] = c;
      } else {
        tout[u] = clock;
        sp--;
      }
    }
  }
  return 1;
}

/* (Kosaraju: a search over pred from each root in reverse postorder.) */
int rw_graph_components(const rw_graph *pred, const int *post, int np,
                        int *comp, rw_arena *a) {
  int *stack = rw_arena_alloc(a, (size_t)pred->n, sizeof(int));
  int i, k, sp;
  if (stack == NULL) return 0;
  for (i = 0; i < pred->n; i++) comp[i] = -2;
  for (i = 0; i < np; i++) comp[post[i]] = -1;  /* reachable, unassigned */
  for (i = np - 1; i >= 0; i--) {
    int root = post[i];
    if (comp[root] != -1) continue;
    comp[root] = root;
    stack[0] = root;
    sp = 1;
    while (sp > 0) {
      int v = stack[--sp];
      for (k = pred->start[v]; k < pred->start[v + 1]; k++) {
        int w = pred->adj[k];
        if (comp[w] == -1) { comp[w] = root; stack[sp++] = w; }
      }
    }
  }
  for (i = 0; i < pred->n; i++)
    if (comp[i] == -2) comp[i] = -1;
  return 1;
}
