/*
** test_acct_manager.c - accounts/acct_manager.c: the manager object, its
** reference counting, custom C managers (their verdicts and
** granularities passed through), the total manager, observers and what
** every manager function does with NULL.
*/
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "acct.h"

typedef struct custom {
  int consumed, released;
  int64_t last_n, sum;
  lraf_verdict answer;
  int64_t gran;         /* what granularity answers */
  lraf_account *last_a;
} custom;

static lraf_verdict c_consume(void *ud, lraf_account *a, int64_t n,
                              int can_pause) {
  custom *c = ud;
  (void)can_pause;
  c->consumed++;
  c->last_n = n;
  c->sum += n;
  c->last_a = a;
  return c->answer;
}

static int64_t c_granularity(void *ud, lraf_account *a, int64_t dflt) {
  (void)a;
  (void)dflt;
  return ((custom *)ud)->gran;
}

static void c_release(void *ud) {
  ((custom *)ud)->released++;
}

static const lraf_manager_ops custom_ops = {c_consume, c_granularity,
                                            c_release};

static void test_custom_manager(void **state) {
  custom c = {0};
  lraf_manager *m = lraf_manager_new(&custom_ops, &c);
  lraf_account *a;
  (void)state;
  assert_non_null(m);
  assert_ptr_equal(lraf_manager_userdata(m), &c);
  a = acct_new(7, m);
  c.answer = LRAF_CONTINUE;
  assert_int_equal(acct_charge(a, 40, 0), LRAF_CONTINUE);
  c.answer = LRAF_STOP;
  assert_int_equal(acct_charge(a, 2, 0), LRAF_STOP);
  c.answer = LRAF_PAUSE;
  assert_int_equal(acct_charge(a, 3, 1), LRAF_PAUSE);
  assert_int_equal(c.consumed, 3);
  assert_int_equal(c.last_n, 3);
  assert_ptr_equal(c.last_a, a);
  assert_int_equal(lraf_manager_total(m), 45);
  /* the account holds a reference: releasing ours does not free it */
  lraf_manager_release(m);
  assert_int_equal(c.released, 0);
  lraf_account_release(a);
  assert_int_equal(c.released, 1);
}

/* The callback's granularity, clamped at 0. */
static void test_granularity(void **state) {
  static const struct { int64_t answer, dflt, want; } cases[] = {
    {500, 1000, 500}, {5000, 1000, 5000}, {0, 1000, 0}, {-1, 1000, 0},
    {INT64_MIN, 7, 0}, {INT64_MAX, 7, INT64_MAX},
  };
  custom c = {0};
  lraf_manager *m = lraf_manager_new(&custom_ops, &c);
  size_t i;
  (void)state;
  for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    c.gran = cases[i].answer;
    assert_int_equal(lraf_manager_granularity(m, NULL, cases[i].dflt),
                     cases[i].want);
  }
  lraf_manager_release(m);
}

/* Retains and releases balance: release runs at the last one only. */
static void test_references(void **state) {
  custom c = {0};
  lraf_manager *m = lraf_manager_new(&custom_ops, &c);
  int i;
  (void)state;
  for (i = 0; i < 5; i++) assert_ptr_equal(lraf_manager_retain(m), m);
  for (i = 0; i < 5; i++) lraf_manager_release(m);
  assert_int_equal(c.released, 0);
  lraf_manager_release(m);
  assert_int_equal(c.released, 1);
}

/* A manager without callbacks: a total; so is lraf_total_new. */
static void test_total(void **state) {
  lraf_manager *t = lraf_total_new();
  lraf_manager *bare = lraf_manager_new(NULL, NULL);
  lraf_manager *ms[2];
  int i;
  (void)state;
  ms[0] = t;
  ms[1] = bare;
  for (i = 0; i < 2; i++) {
    assert_non_null(ms[i]);
    assert_null(lraf_manager_userdata(ms[i]));
    assert_int_equal(lraf_manager_granularity(ms[i], NULL, 1234), 1234);
    assert_int_equal(lraf_manager_consume(ms[i], NULL, 10, 0), LRAF_CONTINUE);
    assert_int_equal(lraf_manager_consume(ms[i], NULL, 32, 1), LRAF_CONTINUE);
    assert_int_equal(lraf_manager_consume(ms[i], NULL, -2, 0), LRAF_CONTINUE);
    assert_int_equal(lraf_manager_total(ms[i]), 40);
    assert_int_equal(acct_defer_room(ms[i]), INT64_MAX);
    lraf_manager_release(ms[i]);
  }
}

/* An observer keeps its parent alive and hands over its room. */
static void test_observer(void **state) {
  custom c = {0}, pc = {0};
  lraf_manager *parent = lraf_manager_new(&custom_ops, &pc);
  lraf_manager *o = lraf_observer_new(&custom_ops, &c, parent);
  lraf_manager *lim = lraf_limit_new(100);
  lraf_manager *o2 = lraf_observer_new(NULL, NULL, lim);
  (void)state;
  assert_non_null(o);
  assert_int_equal(acct_defer_room(o), -1);   /* the parent has a say */
  lraf_manager_release(parent);
  assert_int_equal(pc.released, 0);            /* the observer holds it */
  assert_int_equal(lraf_manager_consume(o, NULL, 5, 0), LRAF_CONTINUE);
  assert_int_equal(c.sum, 5);
  lraf_manager_release(o);
  assert_int_equal(c.released, 1);
  assert_int_equal(pc.released, 1);
  assert_int_equal(lraf_manager_consume(lim, NULL, 30, 0), LRAF_CONTINUE);
  assert_int_equal(acct_defer_room(o2), 70);
  lraf_manager_release(lim);
  lraf_manager_release(o2);
}

/* Every function of the manager takes NULL. */
static void test_null(void **state) {
  (void)state;
  assert_int_equal(lraf_manager_total(NULL), 0);
  assert_null(lraf_manager_userdata(NULL));
  assert_null(lraf_manager_retain(NULL));
  lraf_manager_release(NULL);
  assert_int_equal(lraf_manager_consume(NULL, NULL, 5, 0), LRAF_CONTINUE);
  assert_int_equal(lraf_manager_granularity(NULL, NULL, 99), 99);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_custom_manager),
    cmocka_unit_test(test_granularity),
    cmocka_unit_test(test_references),
    cmocka_unit_test(test_total),
    cmocka_unit_test(test_observer),
    cmocka_unit_test(test_null),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
