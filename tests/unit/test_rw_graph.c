/*
** test_rw_graph.c - the rewriter's graph algorithms (rw_graph.c) on
** small graphs built by hand, each with the answer worked out on paper:
** depth-first postorder and loop headers, dominators (a diamond, loops,
** an irreducible loop with two entries, unreachable nodes, a single
** node, self loops), post-dominators of a forward graph, searches that
** avoid a node (with and without a budget), ancestry in a forest, and
** strongly connected components.
*/
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "rw_graph.h"

#define MAXN 16

/* A graph of n nodes from an edge list (from, to pairs, in order), and
   its transpose. */
typedef struct hgraph {
  rw_graph succ, pred;
  int sstart[MAXN + 1], sadj[64];
  int pstart[MAXN + 1], padj[64];
} hgraph;

static void make(hgraph *h, int n, const int (*e)[2], int ne) {
  int i, fill[MAXN];
  assert_true(n <= MAXN && ne <= 64);
  memset(h, 0, sizeof *h);
  for (i = 0; i < ne; i++) {
    h->sstart[e[i][0] + 1]++;
    h->pstart[e[i][1] + 1]++;
  }
  for (i = 0; i < n; i++) {
    h->sstart[i + 1] += h->sstart[i];
    h->pstart[i + 1] += h->pstart[i];
  }
  memset(fill, 0, sizeof fill);
  for (i = 0; i < ne; i++) {  /* successors in the order given */
    int v = e[i][0];
    h->sadj[h->sstart[v] + fill[v]++] = e[i][1];
  }
  memset(fill, 0, sizeof fill);
  for (i = 0; i < ne; i++) {
    int v = e[i][1];
    h->padj[h->pstart[v] + fill[v]++] = e[i][0];
  }
  h->succ.n = h->pred.n = n;
  h->succ.start = h->sstart;
  h->succ.adj = h->sadj;
  h->pred.start = h->pstart;
  h->pred.adj = h->padj;
}

static rw_arena arena;

static int setup(void **state) {
  (void)state;
  rw_arena_init(&arena);
  return 0;
}

static int teardown(void **state) {
  (void)state;
  rw_arena_free(&arena);
  return 0;
}

/* The postorder of h from root, and its loop headers. */
static int post_of(const hgraph *h, int root, int *post, char *header) {
  memset(header, 0, MAXN);
  return rw_graph_dfs(&h->succ, root, post, header, &arena);
}

/* ---- depth-first search ---- */

static void test_dfs_orders(void **state) {
  /* 0 -> 1 -> 3, 0 -> 2 -> 3, 3 -> 1 (a loop 1 3), 4 unreachable */
  static const int e[][2] = {{0, 1}, {0, 2}, {1, 3}, {2, 3}, {3, 1},
                             {4, 0}};
  static const int want[] = {3, 1, 2, 0};
  hgraph h;
  int post[MAXN], np, i;
  char header[MAXN];
  (void)state;
  make(&h, 5, e, 6);
  np = post_of(&h, 0, post, header);
  assert_int_equal(np, 4);  /* 4 is not reached */
  for (i = 0; i < np; i++) assert_int_equal(post[i], want[i]);
  for (i = 0; i < 5; i++) assert_int_equal(header[i], i == 1);
  /* without header, the same order */
  assert_int_equal(rw_graph_dfs(&h.succ, 0, post, NULL, &arena), 4);
  assert_int_equal(post[3], 0);
}

static void test_dfs_self_loop_and_single(void **state) {
  static const int self[][2] = {{0, 1}, {1, 1}, {1, 2}};
  hgraph h;
  int post[MAXN], np;
  char header[MAXN];
  (void)state;
  make(&h, 3, self, 3);
  np = post_of(&h, 0, post, header);
  assert_int_equal(np, 3);
  assert_int_equal(header[1], 1);  /* the self loop's node heads it */
  assert_int_equal(header[0] + header[2], 0);
  make(&h, 1, NULL, 0);  /* a single node, no edge */
  np = post_of(&h, 0, post, header);
  assert_int_equal(np, 1);
  assert_int_equal(post[0], 0);
  assert_int_equal(header[0], 0);
}

/* ---- dominators ---- */

/* idom of h from root, checked against want (-1: unreachable). */
static void check_idom(const hgraph *h, int root, const int *want) {
  int post[MAXN], idom[MAXN], np, v, acyclic;
  char header[MAXN];
  np = post_of(h, root, post, header);
  assert_true(np > 0);
  for (acyclic = 0, v = 0; v < h->succ.n; v++) acyclic |= header[v];
  acyclic = !acyclic;
  assert_int_equal(rw_graph_dominators(&h->pred, post, np, idom, acyclic,
                                       &arena), 1);
  for (v = 0; v < h->succ.n; v++) {
    if (idom[v] != want[v]) print_error("node %d: idom %d, want %d\n", v,
                                        idom[v], want[v]);
    assert_int_equal(idom[v], want[v]);
  }
}

static void test_dominators(void **state) {
  /* a diamond 0 -> {1, 2} -> 3 -> 4 */
  static const int diamond[][2] = {{0, 1}, {0, 2}, {1, 3}, {2, 3}, {3, 4}};
  static const int diamond_idom[] = {0, 0, 0, 0, 3};
  /* a while loop: 0 -> 1 (header) -> {2 (body), 3 (exit)}, 2 -> 1 */
  static const int loop[][2] = {{0, 1}, {1, 2}, {1, 3}, {2, 1}};
  static const int loop_idom[] = {0, 0, 1, 1};
  /* nested loops with a break: 0 -> 1 -> 2 -> 3 -> 2, 3 -> 1, 2 -> 4,
     1 -> 4 */
  static const int nested[][2] = {{0, 1}, {1, 2}, {2, 3}, {3, 2}, {3, 1},
                                  {2, 4}, {1, 4}};
  static const int nested_idom[] = {0, 0, 1, 2, 1};
  /* unreachable 3 and 4 (4 -> 2 does not make 4 dominate anything) */
  static const int unreach[][2] = {{0, 1}, {1, 2}, {3, 4}, {4, 2}};
  static const int unreach_idom[] = {0, 0, 1, -1, -1};
  hgraph h;
  (void)state;
  make(&h, 5, diamond, 5);
  check_idom(&h, 0, diamond_idom);
  make(&h, 4, loop, 4);
  check_idom(&h, 0, loop_idom);
  make(&h, 5, nested, 7);
  check_idom(&h, 0, nested_idom);
  make(&h, 5, unreach, 4);
  check_idom(&h, 0, unreach_idom);
}

static void test_dominators_irreducible(void **state) {
  /* a loop 1 <-> 2 entered at both 1 and 2 (a goto into a loop): neither
     dominates the other; 3 after it is dominated by the entry only.  The
     retreating edge does not go to a dominator, so the iteration goes on
     past the first pass. */
  static const int twoentry[][2] = {{0, 1}, {0, 2}, {1, 2}, {2, 1},
                                    {1, 3}, {2, 3}};
  static const int twoentry_idom[] = {0, 0, 0, 0};
  /* a longer way in: 0 -> 1 -> 2 <-> 3, 0 -> 3: the first pass, which
     leaves out the retreating edge 3 -> 2, takes 2's idom to be 1; the
     next pass corrects it to 0 */
  static const int longer[][2] = {{0, 1}, {1, 2}, {2, 3}, {3, 2}, {0, 3},
                                  {3, 4}};
  static const int longer_idom[] = {0, 0, 0, 0, 3};
  /* self loops change nothing */
  static const int selfl[][2] = {{0, 0}, {0, 1}, {1, 1}, {1, 2}};
  static const int selfl_idom[] = {0, 0, 1};
  hgraph h;
  (void)state;
  make(&h, 4, twoentry, 6);
  check_idom(&h, 0, twoentry_idom);
  make(&h, 5, longer, 6);
  check_idom(&h, 0, longer_idom);
  make(&h, 3, selfl, 4);
  check_idom(&h, 0, selfl_idom);
}

static void test_dominators_single_node(void **state) {
  static const int none[] = {0};
  hgraph h;
  (void)state;
  make(&h, 1, NULL, 0);
  check_idom(&h, 0, none);
}

/* post-dominators of a forward graph, against dominators over its
   reverse from the exit */
static void test_postdominators_forward(void **state) {
  /* 0 -> {1, 2}; 1 -> {3, 5}; 2 -> 3; 3 -> 5 (exit); 4 -> 5 (4 not
     reached from 0, still post-dominated by the exit) */
  static const int e[][2] = {{0, 1}, {0, 2}, {1, 3}, {1, 5}, {2, 3},
                             {3, 5}, {4, 5}};
  static const int want[] = {5, 5, 3, 5, 5, 5};
  hgraph h;
  int ipdom[MAXN], rpost[MAXN], idom[MAXN], nrp, v;
  (void)state;
  make(&h, 6, e, 7);
  rw_graph_postdominators_forward(&h.succ, ipdom);
  for (v = 0; v < 6; v++) assert_int_equal(ipdom[v], want[v]);
  nrp = rw_graph_dfs(&h.pred, 5, rpost, NULL, &arena);
  assert_int_equal(nrp, 6);
  assert_int_equal(rw_graph_dominators(&h.succ, rpost, nrp, idom, 0,
                                       &arena), 1);
  for (v = 0; v < 6; v++) assert_int_equal(idom[v], ipdom[v]);
}

/* ---- searches that avoid a node ---- */

static void test_reaches_avoiding(void **state) {
  /* 0 -> 1 -> 2 -> 0 (a cycle), 1 -> 3, 3 -> 3 */
  static const int e[][2] = {{0, 1}, {1, 2}, {2, 0}, {1, 3}, {3, 3}};
  hgraph h;
  int stack[MAXN];
  unsigned mark[MAXN];
  rw_graph_walk w;
  (void)state;
  make(&h, 4, e, 5);
  memset(mark, 0, sizeof mark);
  w.stack = stack;
  w.mark = mark;
  w.stamp = 0;
  w.budget = 1000;
  assert_true(rw_graph_reaches_avoiding(&h.succ, &w, 0, -1, -1, 0));
  assert_false(rw_graph_reaches_avoiding(&h.succ, &w, 0, 2, -1, 0));
  assert_true(rw_graph_reaches_avoiding(&h.succ, &w, 0, 2, 3, 0));
  assert_true(rw_graph_reaches_avoiding(&h.succ, &w, 3, -1, -1, 0));
  assert_false(rw_graph_reaches_avoiding(&h.succ, &w, 3, 3, -1, 0));
  assert_int_equal(w.stamp, 5);  /* each search stamps afresh */
  assert_int_equal(w.budget, 1000);  /* none of them kept to a budget */
  /* with a budget: visits counted; out of it, the worst answer */
  assert_false(rw_graph_reaches_avoiding(&h.succ, &w, 0, 2, -1, 1));
  assert_int_equal(w.budget, 1000 - 2);  /* it visited 1 and 3 */
  w.budget = 1;
  assert_true(rw_graph_reaches_avoiding(&h.succ, &w, 0, 2, -1, 1));
}

/* ---- ancestry in a forest ---- */

static void test_number_tree(void **state) {
  /* 0 is a root with children 1, 2; 2's child 3; 4 a root of its own;
     5 outside the forest */
  static const int parent[] = {0, 0, 0, 2, 4, -1};
  int tin[6], tout[6], x, d;
  static const char above[6][6] = {  /* [x][d]: x a proper ancestor of d */
    {0, 1, 1, 1, 0, 0}, {0}, {0, 0, 0, 1, 0, 0}, {0}, {0}, {0}};
  (void)state;
  assert_int_equal(rw_graph_number_tree(parent, 6, tin, tout, &arena), 1);
  assert_int_equal(tin[5], -1);
  for (x = 0; x < 6; x++)
    for (d = 0; d < 6; d++)
      assert_int_equal(rw_graph_above(tin, tout, x, d), above[x][d]);
}

/* ---- strongly connected components ---- */

static void test_components(void **state) {
  /* {0}, {1 2 3} (1 -> 2 -> 3 -> 1), {4} with a self loop, {5}; 6
     unreachable */
  static const int e[][2] = {{0, 1}, {1, 2}, {2, 3}, {3, 1}, {3, 4},
                             {4, 4}, {4, 5}, {6, 1}};
  hgraph h;
  int post[MAXN], comp[MAXN], np;
  char header[MAXN];
  (void)state;
  make(&h, 7, e, 8);
  np = post_of(&h, 0, post, header);
  assert_int_equal(np, 6);
  assert_int_equal(rw_graph_components(&h.pred, post, np, comp, &arena), 1);
  assert_int_equal(comp[1], comp[2]);
  assert_int_equal(comp[2], comp[3]);
  assert_int_not_equal(comp[0], comp[1]);
  assert_int_not_equal(comp[4], comp[1]);
  assert_int_not_equal(comp[5], comp[4]);
  assert_int_equal(comp[0], 0);   /* each named by its first node */
  assert_int_equal(comp[4], 4);
  assert_int_equal(comp[5], 5);
  assert_int_equal(comp[6], -1);  /* not reached */
  assert_true(comp[1] >= 1 && comp[1] <= 3);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_dfs_orders),
    cmocka_unit_test(test_dfs_self_loop_and_single),
    cmocka_unit_test(test_dominators),
    cmocka_unit_test(test_dominators_irreducible),
    cmocka_unit_test(test_dominators_single_node),
    cmocka_unit_test(test_postdominators_forward),
    cmocka_unit_test(test_reaches_avoiding),
    cmocka_unit_test(test_number_tree),
    cmocka_unit_test(test_components),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
