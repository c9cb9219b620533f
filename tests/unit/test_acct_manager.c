/*
** test_acct_manager.c - accounts/ on its own: the manager object and
** its reference counting, custom C managers, and the total, limit,
** hierarchical and rate managers (the rate one with a fake clock).
*/
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "acct.h"

typedef struct custom {
  int consumed, released;
  int64_t last_n;
  lraf_verdict answer;
} custom;

static lraf_verdict c_consume(void *ud, lraf_account *a, int64_t n,
                              int can_pause) {
  custom *c = ud;
  (void)a;
  (void)can_pause;
  c->consumed++;
  c->last_n = n;
  return c->answer;
}

static int64_t c_granularity(void *ud, lraf_account *a, int64_t dflt) {
  (void)ud;
  (void)a;
  return dflt / 2;
}

static void c_release(void *ud) {
  ((custom *)ud)->released++;
}

static const lraf_manager_ops custom_ops = {c_consume, c_granularity,
                                            c_release};

static void test_custom_manager(void **state) {
  custom c = {0, 0, 0, LRAF_CONTINUE};
  lraf_manager *m = lraf_manager_new(&custom_ops, &c);
  lraf_account *a;
  (void)state;
  assert_non_null(m);
  assert_ptr_equal(lraf_manager_userdata(m), &c);
  a = acct_new(7, m);
  assert_int_equal(lraf_account_id(a), 7);
  assert_ptr_equal(lraf_account_manager(a), m);
  assert_int_equal(acct_charge(a, 40, 0), LRAF_CONTINUE);
  c.answer = LRAF_STOP;
  assert_int_equal(acct_charge(a, 2, 0), LRAF_STOP);
  assert_int_equal(c.consumed, 2);
  assert_int_equal(c.last_n, 2);
  assert_int_equal(lraf_account_flushed(a), 42);
  assert_int_equal(lraf_manager_total(m), 42);
  assert_int_equal(acct_granularity(a, 1000), 500);
  /* the account holds a reference: releasing ours does not free it */
  lraf_manager_release(m);
  assert_int_equal(c.released, 0);
  lraf_account_retain(a);
  lraf_account_release(a);
  assert_int_equal(c.released, 0);
  lraf_account_release(a);
  assert_int_equal(c.released, 1);
}

static void test_total_and_rebinding(void **state) {
  lraf_manager *t1 = lraf_total_new(), *t2 = lraf_total_new();
  lraf_account *a = acct_new(0, t1);
  (void)state;
  assert_int_equal(acct_granularity(a, 1234), 1234);
  acct_charge(a, 10, 0);
  acct_set_manager(a, t2);
  acct_charge(a, 5, 0);
  assert_int_equal(lraf_manager_total(t1), 10);
  assert_int_equal(lraf_manager_total(t2), 5);
  assert_int_equal(lraf_account_flushed(a), 15);
  assert_int_equal(lraf_limit_remaining(t1), INT64_MAX);
  lraf_account_release(a);
  lraf_manager_release(t1);
  lraf_manager_release(t2);
}

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

typedef struct fake {
  double t, slept;
  int sleeps;
} fake;

static double f_now(void *ud) {
  return ((fake *)ud)->t;
}

static void f_sleep(void *ud, double s) {
  fake *f = ud;
  f->t += s;
  f->slept += s;
  f->sleeps++;
}

static void test_rate(void **state) {
  fake f = {100.0, 0, 0};
  lraf_clock clock = {f_now, f_sleep, &f};
  lraf_manager *m = lraf_rate_new(1000.0, 0.5, &clock);
  lraf_account *a = acct_new(0, m);
  int i;
  (void)state;
  assert_null(lraf_rate_new(0, 1, &clock));
  assert_null(lraf_rate_new(10, 0, &clock));
  assert_int_equal(acct_granularity(a, 10000), 62);  /* rate*window/8 */
  /* 10000 instructions at 1000/s take 10 s, whatever the chunking */
  for (i = 0; i < 100; i++) assert_int_equal(acct_charge(a, 100, 0),
                                             LRAF_CONTINUE);
  assert_true(f.slept > 10.0 - 1e-9 && f.slept < 10.0 + 1e-9);
  /* idle time earns at most one window of credit */
  f.t += 60.0;
  f.slept = 0;
  assert_int_equal(acct_charge(a, 500, 0), LRAF_CONTINUE);
  assert_true(f.slept < 1e-9);
  assert_int_equal(acct_charge(a, 500, 0), LRAF_CONTINUE);
  assert_true(f.slept > 0.5 - 1e-9 && f.slept < 0.5 + 1e-9);
  /* a host-scheduled coroutine is paused instead, with its wake time */
  f.slept = 0;
  assert_int_equal(acct_charge(a, 1000, 1), LRAF_PAUSE);
  assert_true(f.slept == 0);
  assert_true(lraf_account_wake_time(a) > f.t + 1.0 - 1e-9);
  lraf_account_release(a);
  lraf_manager_release(m);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_custom_manager),
    cmocka_unit_test(test_total_and_rebinding),
    cmocka_unit_test(test_limit),
    cmocka_unit_test(test_hierarchical),
    cmocka_unit_test(test_rate),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
