/*
** test_pf_profile.c - profile/pf_profile.c: the calling-context tree
** from hand-made events.  Random event sequences on several threads
** (enter, leave, charge, unwind to a frame, return of a frame) against
** a plain model of the stacks: each function's calls, self and
** inclusive counts, the total and the tree's sums.  Then interning of
** functions, frame names, per-line counts, deep recursion merged at
** PF_MAX_DEPTH, a stack started afresh, call sites wanted, and a
** memory budget that refuses.
*/
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "tutil_pfcore.h"

#define NFN 6
#define NTHREAD 3
#define DEPTH 40

/* The plain model: per thread a stack of (function, frame id). */
typedef struct model {
  int fn[NTHREAD][DEPTH];
  uintptr_t frame[NTHREAD][DEPTH];
  int n[NTHREAD];
  int64_t calls[NFN], self[NFN], incl[NFN], root, total;
} model;

static unsigned rnd(unsigned *seed) {
  *seed = *seed * 1103515245u + 12345u;
  return (*seed >> 16) & 0x7fff;
}

static void charge(pf_profile *P, model *m, int *stk, int t, int64_t n) {
  int i, j, seen;
  pf_charge(P, pf_top(P, stk[t]), n);
  m->total += n;
  if (m->n[t] == 0) {
    m->root += n;
    return;
  }
  m->self[m->fn[t][m->n[t] - 1]] += n;
  for (i = 0; i < m->n[t]; i++) {   /* once per distinct function */
    for (seen = 0, j = 0; j < i; j++) seen |= m->fn[t][j] == m->fn[t][i];
    if (!seen) m->incl[m->fn[t][i]] += n;
  }
}

static void step(pf_profile *P, model *m, int *stk, const int *fid,
                 unsigned *seed, uintptr_t *next_frame) {
  int t = (int)(rnd(seed) % NTHREAD), k = (int)(rnd(seed) % 10), i;
  if (k < 4 && m->n[t] < DEPTH) {                    /* enter */
    int f = (int)(rnd(seed) % NFN);
    uintptr_t fr = (*next_frame)++;
    pf_enter(P, stk[t], fid[f], (const void *)fr);
    m->fn[t][m->n[t]] = f;
    m->frame[t][m->n[t]++] = fr;
    m->calls[f]++;
  } else if (k < 7) {                                /* charge */
    charge(P, m, stk, t, 1 + (int64_t)(rnd(seed) % 100));
  } else if (k < 8) {                                /* leave */
    pf_leave(P, stk[t]);
    if (m->n[t] > 0) m->n[t]--;
  } else if (k < 9) {                                /* unwind */
    i = m->n[t] > 0 ? (int)(rnd(seed) % (unsigned)(m->n[t] + 1)) : 0;
    if (i < m->n[t]) {
      assert_int_equal(pf_unwind(P, stk[t], (const void *)m->frame[t][i]), 1);
      m->n[t] = i + 1;
    } else {
      assert_int_equal(pf_unwind(P, stk[t], (const void *)(uintptr_t)1), 0);
      m->n[t] = 0;                                   /* a frame not there */
    }
  } else if (m->n[t] > 0) {                          /* return */
    i = (int)(rnd(seed) % (unsigned)m->n[t]);
    assert_true(pf_return(P, stk[t], (const void *)m->frame[t][i]) > 0);
    m->n[t] = i;
  } else {
    assert_int_equal(pf_return(P, stk[t], (const void *)(uintptr_t)2), -1);
  }
}

static void check_tree(const pf_profile *P) {
  int64_t *sum = calloc((size_t)P->nnode, sizeof *sum), self = 0;
  int i;
  assert_non_null(sum);
  for (i = P->nnode - 1; i >= 0; i--) {
    const pf_node *n = &P->node[i];
    assert_int_equal(n->incl, n->self + sum[i]);
    if (i > 0) {
      assert_true(n->parent < i);
      sum[n->parent] += n->incl;
    }
    self += n->self;
  }
  assert_int_equal(self, P->total);
  assert_int_equal(P->node[0].incl, P->total);
  free(sum);
}

static void test_against_model(void **state) {
  unsigned seed;
  (void)state;
  for (seed = 1; seed <= 30; seed++) {
    static const char *const names[NFN] = {"a", "b", "c", "d", "e", "f"};
    pf_profile *P = pf_new("m");
    model m;
    int fid[NFN], stk[NTHREAD], i, host;
    unsigned s = seed;
    uintptr_t next_frame = 16;
    memset(&m, 0, sizeof m);
    for (i = 0; i < NFN; i++) {
      fid[i] = pf_func_id(P, "x.lua", 10 * i, names[i], 0);
      assert_int_equal(fid[i], i);
    }
    for (i = 0; i < NTHREAD; i++)
      stk[i] = pf_stack_id(P, (const void *)(uintptr_t)(i + 1), 0);
    for (i = 0; i < 2000; i++) step(P, &m, stk, fid, &s, &next_frame);
    pf_finish(P);
    assert_false(P->oom);
    for (i = 0; i < NFN; i++) {
      assert_int_equal(P->fn[i].calls, m.calls[i]);
      assert_int_equal(P->fn[i].self, m.self[i]);
      assert_int_equal(P->fn[i].incl, m.incl[i]);
    }
    host = pf_func_find(P, "[C]", -1, "(host)", 1);
    if (m.root > 0) {
      assert_true(host >= 0);
      assert_int_equal(P->fn[host].self, m.root);
    } else {
      assert_int_equal(host, -1);
    }
    assert_int_equal(P->total, m.total);
    check_tree(P);
    pf_free(P);
  }
}

/* The helpers' sample: main -> f -> g, main -> g (unwound). */
static void test_tree(void **state) {
  pf_profile *P = tutil_pfcore_sample(100);
  (void)state;
  assert_int_equal(P->total, 215);
  assert_int_equal(P->nfn, 3);
  assert_int_equal(P->fn[2].calls, 2);
  assert_int_equal(P->fn[2].self, 200);
  assert_int_equal(P->fn[1].incl, 105);
  assert_int_equal(P->fn[0].incl, 215);
  assert_int_equal(P->nnode, 5);  /* root, main, f, f/g, main/g */
  pf_free(P);
}

/* Lua functions are one by source and line; C functions by name too. */
static void test_interning(void **state) {
  static const struct {
    const char *source; int line; const char *name; int is_c;
    int same_as;     /* the row whose id it gets, or -1: a new one */
  } rows[] = {
    {"a.lua", 1, "f", 0, -1},
    {"a.lua", 1, "g", 0, 0},      /* another name for the same function */
    {"a.lua", 2, "f", 0, -1},
    {"b.lua", 1, "f", 0, -1},
    {"[C]", -1, "print", 1, -1},
    {"[C]", -1, "pairs", 1, -1},
    {"[C]", -1, "print", 1, 4},
    {"a.lua", 1, "f", 1, -1},     /* C-ness tells apart */
  };
  pf_profile *P = pf_new("m");
  int id[sizeof rows / sizeof rows[0]], next = 0;
  size_t i;
  char buf[32];
  (void)state;
  for (i = 0; i < sizeof rows / sizeof rows[0]; i++) {
    assert_int_equal(pf_func_find(P, rows[i].source, rows[i].line,
                                  rows[i].name, rows[i].is_c),
                     rows[i].same_as < 0 ? -1 : id[rows[i].same_as]);
    id[i] = pf_func_id(P, rows[i].source, rows[i].line, rows[i].name,
                       rows[i].is_c);
    assert_int_equal(id[i], rows[i].same_as < 0 ? next++ : id[rows[i].same_as]);
  }
  assert_int_equal(P->nfn, next);
  /* many more: the table grows and keeps every id */
  for (i = 0; i < 500; i++) {
    snprintf(buf, sizeof buf, "gen%zu.lua", i);
    assert_int_equal(pf_func_id(P, buf, (int)i, "h", 0), next + (int)i);
  }
  for (i = 0; i < 500; i++) {
    snprintf(buf, sizeof buf, "gen%zu.lua", i);
    assert_int_equal(pf_func_find(P, buf, (int)i, "x", 0), next + (int)i);
  }
  assert_string_equal(P->fn[id[0]].name, "f");  /* the first name stays */
  pf_free(P);
}

static void test_frame_name(void **state) {
  static const struct { pf_func f; size_t size; const char *want; } rows[] = {
    {{"f", "a.lua", 3, 0, 0, 0, 0, NULL, 0, 0, 0}, 64, "f (a.lua:3)"},
    {{"print", "[C]", -1, 1, 0, 0, 0, NULL, 0, 0, 0}, 64, "[C] print"},
    {{"main chunk", "x", 0, 0, 0, 0, 0, NULL, 0, 0, 0}, 64, "main chunk (x:0)"},
    {{"long", "file.lua", 12345, 0, 0, 0, 0, NULL, 0, 0, 0}, 8, "long (f"},
  };
  char buf[64];
  size_t i;
  (void)state;
  for (i = 0; i < sizeof rows / sizeof rows[0]; i++) {
    pf_frame_name(&rows[i].f, buf, rows[i].size);
    assert_string_equal(buf, rows[i].want);
  }
}

/* Lines grow the function's range either way and add up. */
static void test_lines(void **state) {
  static const struct { int line; int64_t n; int first, nlines; } steps[] = {
    {10, 5, 10, 1}, {12, 1, 10, 3}, {7, 2, 7, 6}, {10, 3, 7, 6},
    {20, 0, 7, 14},
  };
  pf_profile *P = pf_new("m");
  int f = pf_func_id(P, "a.lua", 5, "f", 0);
  int64_t want[32] = {0};
  size_t i;
  int l;
  (void)state;
  assert_false(P->has_lines);
  for (i = 0; i < sizeof steps / sizeof steps[0]; i++) {
    pf_line(P, f, steps[i].line, steps[i].n);
    want[steps[i].line] += steps[i].n;
    assert_int_equal(P->fn[f].first, steps[i].first);
    assert_int_equal(P->fn[f].nlines, steps[i].nlines);
    for (l = 0; l < P->fn[f].nlines; l++)
      assert_int_equal(P->fn[f].lines[l], want[P->fn[f].first + l]);
  }
  assert_true(P->has_lines);
  pf_free(P);
}

/* A recursion of 5000 frames: the tree stops at PF_MAX_DEPTH, the
   counts per function stay exact. */
static void test_deep_recursion(void **state) {
  static char frames[5000];
  pf_profile *P = pf_new("m");
  int s = pf_stack_id(P, P, 0), r = pf_func_id(P, "r.lua", 1, "r", 0);
  int leaf = pf_func_id(P, "r.lua", 9, "leaf", 0), i;
  (void)state;
  for (i = 0; i < 5000; i++) {
    pf_enter(P, s, r, &frames[i]);
    pf_charge(P, pf_top(P, s), 2);
  }
  pf_enter(P, s, leaf, P);
  pf_charge(P, pf_top(P, s), 7);
  assert_true(pf_return(P, s, &frames[0]) > 0);
  pf_finish(P);
  assert_true(P->nnode <= PF_MAX_DEPTH + 3);  /* root, chain, r, leaf */
  assert_int_equal(P->fn[r].calls, 5000);
  assert_int_equal(P->fn[r].self, 10000);
  assert_int_equal(P->fn[r].incl, 10007);
  assert_int_equal(P->fn[leaf].self, 7);
  assert_int_equal(P->total, 10007);
  check_tree(P);
  pf_free(P);
}

/* A thread made anew starts under another root; call sites are asked
   for once per new node. */
static void test_stacks_and_sites(void **state) {
  static const char fr[4] = {0};
  pf_profile *P = pf_new("m");
  int f = pf_func_id(P, "a.lua", 1, "f", 0);
  int g = pf_func_id(P, "a.lua", 5, "g", 0);
  int s, s2, n;
  (void)state;
  s = pf_stack_id(P, "thread", 0);
  assert_int_equal(pf_stack_id(P, "thread", 0), s);
  assert_int_equal(pf_top(P, s), 0);
  assert_int_equal(pf_site_wanted(P, s), -1);      /* the root */
  pf_enter(P, s, f, &fr[0]);
  n = pf_site_wanted(P, s);
  assert_int_equal(n, pf_top(P, s));
  P->node[n].site = 12;
  assert_int_equal(pf_site_wanted(P, s), -1);
  s2 = pf_stack_reset(P, "co", n);                 /* a coroutine under f */
  assert_true(s2 != s);
  pf_enter(P, s2, g, &fr[1]);
  assert_int_equal(P->node[pf_top(P, s2)].parent, n);
  assert_int_equal(pf_stack_reset(P, "co", 0), s2);  /* made anew */
  assert_int_equal(pf_top(P, s2), 0);
  pf_enter(P, s2, g, &fr[2]);
  assert_int_equal(P->node[pf_top(P, s2)].parent, 0);
  pf_enter(P, s2, -1, &fr[3]);                     /* no function: ignored */
  assert_int_equal(P->stack[s2].n, 1);
  assert_int_equal(pf_child(P, 0, g), pf_top(P, s2));
  pf_free(P);
}

static size_t budget;

static int reserve(void *ud, size_t n) {
  (void)ud;
  if (n > budget) return 0;
  budget -= n;
  return 1;
}

/* A budget that runs out: the profile says so and stays consistent. */
static void test_budget(void **state) {
  static const size_t budgets[] = {0, 100, 2000, 20000};
  size_t b;
  (void)state;
  for (b = 0; b < sizeof budgets / sizeof budgets[0]; b++) {
    pf_profile *P = pf_new("m");
    char name[32];
    int i, s;
    P->reserve = reserve;
    budget = budgets[b];
    s = pf_stack_id(P, P, 0);
    for (i = 0; i < 300; i++) {
      int f;
      snprintf(name, sizeof name, "f%d", i);
      f = pf_func_id(P, "a.lua", i, name, 0);
      if (s >= 0 && f >= 0) {
        pf_enter(P, s, f, name + i % 8);
        pf_charge(P, pf_top(P, s), 1);
      }
    }
    pf_finish(P);
    assert_true(P->oom);
    assert_true(P->refused);
    check_tree(P);
    pf_free(P);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_tree),
    cmocka_unit_test(test_against_model),
    cmocka_unit_test(test_interning),
    cmocka_unit_test(test_frame_name),
    cmocka_unit_test(test_lines),
    cmocka_unit_test(test_deep_recursion),
    cmocka_unit_test(test_stacks_and_sites),
    cmocka_unit_test(test_budget),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
