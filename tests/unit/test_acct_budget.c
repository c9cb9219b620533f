/*
** test_acct_budget.c - accounts/acct_budget.c: the limit manager and
** hierarchical budgets (a child stops at its own limit and at every
** limit above it, its granularity is the least of what is left on the
** way up), and what acct_budget_left, acct_budget_quota and
** acct_budget_room (through acct_defer_room) say over chains of every
** kind of manager.
*/
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "acct.h"

static void test_limit(void **state) {
  lraf_manager *m = lraf_limit_new(100);
  lraf_account *a = acct_new(0, m);
  (void)state;
  assert_int_equal(acct_granularity(a, 1000), 100);
  assert_int_equal(acct_granularity(a, 30), 30);
  assert_int_equal(acct_charge(a, 60, 0), LRAF_CONTINUE);
  assert_int_equal(acct_granularity(a, 1000), 40);
  assert_int_equal(acct_charge(a, 40, 0), LRAF_CONTINUE);  /* exactly used */
  assert_int_equal(lraf_limit_remaining(m), 0);
  assert_int_equal(acct_granularity(a, 1000), 0);
  assert_int_equal(acct_charge(a, 1, 0), LRAF_STOP);
  assert_int_equal(acct_charge(a, 0, 0), LRAF_STOP);       /* sticky */
  assert_int_equal(lraf_limit_remaining(m), -1);
  assert_int_equal(acct_granularity(a, 1000), 0);
  lraf_limit_set(m, 200);
  assert_int_equal(acct_granularity(a, 1000), 99);
  assert_int_equal(acct_charge(a, 5, 0), LRAF_CONTINUE);
  lraf_account_release(a);
  lraf_manager_release(m);
}

/* A negative quota is a limit of 0; the limit functions leave other
   kinds of manager alone. */
static void test_limit_edges(void **state) {
  lraf_manager *z = lraf_limit_new(-5), *t = lraf_total_new();
  (void)state;
  assert_int_equal(lraf_limit_remaining(z), 0);
  assert_int_equal(lraf_manager_consume(z, NULL, 1, 0), LRAF_STOP);
  assert_int_equal(lraf_limit_remaining(t), INT64_MAX);
  assert_int_equal(lraf_limit_remaining(NULL), INT64_MAX);
  lraf_limit_set(t, 10);
  lraf_limit_set(NULL, 10);
  assert_int_equal(lraf_manager_consume(t, NULL, 50, 0), LRAF_CONTINUE);
  assert_int_equal(lraf_limit_remaining(t), INT64_MAX);
  lraf_manager_release(z);
  lraf_manager_release(t);
}

static void test_hierarchical(void **state) {
  lraf_manager *tenant = lraf_limit_new(1000);
  lraf_manager *req1 = lraf_hier_new(tenant, 300);
  lraf_manager *req2 = lraf_hier_new(tenant, -1);
  lraf_account *a = acct_new(0, req1), *b = acct_new(1, req2);
  (void)state;
  lraf_manager_release(tenant);  /* the children keep it */
  assert_int_equal(acct_granularity(a, 10000), 300);
  assert_int_equal(acct_granularity(b, 10000), 1000);
  assert_int_equal(acct_charge(a, 250, 0), LRAF_CONTINUE);
  assert_int_equal(acct_charge(b, 600, 0), LRAF_CONTINUE);
  assert_int_equal(lraf_manager_total(tenant), 850);
  assert_int_equal(lraf_limit_remaining(req1), 50);
  assert_int_equal(lraf_limit_remaining(req2), INT64_MAX);
  assert_int_equal(acct_granularity(a, 10000), 50);
  assert_int_equal(acct_granularity(b, 10000), 150);
  /* the child's own budget stops it, not its sibling */
  assert_int_equal(acct_charge(a, 51, 0), LRAF_STOP);
  assert_int_equal(acct_charge(b, 40, 0), LRAF_CONTINUE);
  /* the parent's quota stops every child */
  assert_int_equal(acct_charge(b, 100, 0), LRAF_STOP);
  assert_int_equal(lraf_manager_total(tenant), 1041);
  lraf_limit_set(req1, 10000);
  assert_int_equal(acct_charge(a, 1, 0), LRAF_STOP);  /* parent still out */
  lraf_account_release(a);
  lraf_account_release(b);
  lraf_manager_release(req1);
  lraf_manager_release(req2);
}

/* Three levels: charges to the grandchild reach the top, and the
   tightest limit on the way stops it. */
static void test_three_levels(void **state) {
  static const struct { int64_t n; lraf_verdict v; int64_t gran; } steps[] = {
    {100, LRAF_CONTINUE, 400},   /* left: 900, 400, 400 (unlimited) */
    {399, LRAF_CONTINUE, 1},
    {1, LRAF_CONTINUE, 0},       /* the middle's 500 exactly used */
    {1, LRAF_STOP, 0},
  };
  lraf_manager *top = lraf_limit_new(1000);
  lraf_manager *mid = lraf_hier_new(top, 500);
  lraf_manager *leaf = lraf_hier_new(mid, -1);
  lraf_account *a = acct_new(0, leaf);
  size_t i;
  (void)state;
  lraf_manager_release(top);
  lraf_manager_release(mid);
  for (i = 0; i < sizeof steps / sizeof steps[0]; i++) {
    assert_int_equal(acct_charge(a, steps[i].n, 0), steps[i].v);
    assert_int_equal(acct_granularity(a, 100000), steps[i].gran);
  }
  assert_int_equal(lraf_manager_total(top), 501);
  assert_int_equal(lraf_manager_total(mid), 501);
  assert_int_equal(acct_budget_quota(leaf), 500);
  lraf_account_release(a);
  lraf_manager_release(leaf);
}

/* Chains for acct_budget_left/quota/room.  Levels from the top. */
enum { L_LIMIT, L_HIER, L_TOTAL, L_CUSTOM, L_RATE, L_OBSERVER };
typedef struct level { int kind; int64_t quota; } level;

static lraf_verdict go_on(void *ud, lraf_account *a, int64_t n, int p) {
  (void)ud;
  (void)a;
  (void)n;
  (void)p;
  return LRAF_CONTINUE;
}
static const lraf_manager_ops custom_ops = {go_on, NULL, NULL};

static lraf_manager *make(const level *l, lraf_manager *parent) {
  switch (l->kind) {
    case L_LIMIT: return lraf_limit_new(l->quota);
    case L_HIER: return lraf_hier_new(parent, l->quota);
    case L_TOTAL: return lraf_total_new();
    case L_CUSTOM: return lraf_manager_new(&custom_ops, NULL);
    case L_RATE: return lraf_rate_new(1e12, 1.0, NULL);
    default: return lraf_observer_new(NULL, NULL, parent);
  }
}

static void test_chains(void **state) {
  static const struct {
    const char *what;
    level l[3];
    int n;
    int64_t charge, left, quota, room;
  } cases[] = {
    {"limit", {{L_LIMIT, 100}}, 1, 30, 70, 100, 70},
    {"limit over", {{L_LIMIT, 100}}, 1, 130, -30, 100, -30},
    {"child left least", {{L_LIMIT, 1000}, {L_HIER, 300}}, 2, 250, 50, 300, 50},
    {"child out", {{L_LIMIT, 1000}, {L_HIER, 300}}, 2, 301, -1, 300, -1},
    {"parent left least", {{L_LIMIT, 200}, {L_HIER, 300}}, 2, 150, 50, 300, 50},
    {"parent out", {{L_LIMIT, 200}, {L_HIER, 300}}, 2, 250, -50, 200, -50},
    {"child unlimited", {{L_LIMIT, 100}, {L_HIER, -1}}, 2, 40, 60, 100, 60},
    {"three levels", {{L_LIMIT, 1000}, {L_HIER, -1}, {L_HIER, 200}}, 3, 50,
     150, 200, 150},
    {"no limit at all", {{L_HIER, -1}}, 1, 10, INT64_MAX, -1, INT64_MAX},
    {"under a total", {{L_TOTAL, 0}, {L_HIER, 500}}, 2, 100, 400, 500, 400},
    {"under a callback", {{L_CUSTOM, 0}, {L_HIER, 500}}, 2, 100, 400, 500, -1},
    {"under a rate", {{L_RATE, 0}, {L_HIER, 500}}, 2, 100, 400, 500, -1},
    {"through an observer", {{L_LIMIT, 25}, {L_OBSERVER, 0}, {L_HIER, 50}}, 3,
     20, 25, 50, 25},
  };
  size_t i;
  int j;
  (void)state;
  for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    lraf_manager *m[3] = {NULL, NULL, NULL}, *bottom;
    for (j = 0; j < cases[i].n; j++) {
      m[j] = make(&cases[i].l[j], j > 0 ? m[j - 1] : NULL);
      assert_non_null(m[j]);
    }
    bottom = m[cases[i].n - 1];
    lraf_manager_consume(bottom, NULL, cases[i].charge, 0);
    print_message("  %s\n", cases[i].what);
    assert_int_equal(acct_budget_left(bottom), cases[i].left);
    assert_int_equal(acct_budget_quota(bottom), cases[i].quota);
    assert_int_equal(acct_budget_room(bottom), cases[i].room);
    assert_int_equal(acct_defer_room(bottom), cases[i].room);
    for (j = cases[i].n - 1; j >= 0; j--) lraf_manager_release(m[j]);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_limit),
    cmocka_unit_test(test_limit_edges),
    cmocka_unit_test(test_hierarchical),
    cmocka_unit_test(test_three_levels),
    cmocka_unit_test(test_chains),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
