/*
** test_acct_rate.c - accounts/acct_rate.c: the rate manager on a fake
** clock (tests/support/tutil_clock.h): the schedule it keeps whatever
** the chunking and however many accounts share it, the credit idle time
** earns (one window), pausing a host-scheduled coroutine with its wake
** time, refunds that take no time, its granularity and the arguments it
** refuses.
*/
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>

#include "acct.h"
#include "tutil_clock.h"

static int near(double a, double b) {
  return fabs(a - b) < 1e-9;
}

/* n instructions at 1000/s take n/1000 s, in chunks of every size. */
static void test_schedule(void **state) {
  static const int64_t chunks[] = {1, 7, 100, 999, 10000};
  size_t i;
  (void)state;
  for (i = 0; i < sizeof chunks / sizeof chunks[0]; i++) {
    tutil_clock f;
    lraf_clock clock = tutil_clock_new(&f, 100.0);
    lraf_manager *m = lraf_rate_new(1000.0, 0.5, &clock);
    lraf_account *a = acct_new(0, m);
    int64_t done;
    for (done = 0; done < 10000; done += chunks[i])
      assert_int_equal(acct_charge(a, chunks[i], 0), LRAF_CONTINUE);
    assert_true(near(f.slept, (double)done / 1000.0));
    assert_true(near(f.t, 100.0 + (double)done / 1000.0));
    lraf_account_release(a);
    lraf_manager_release(m);
  }
}

/* Idle time earns at most one window of credit. */
static void test_window_credit(void **state) {
  tutil_clock f;
  lraf_clock clock = tutil_clock_new(&f, 0.0);
  lraf_manager *m = lraf_rate_new(1000.0, 0.5, &clock);
  lraf_account *a = acct_new(0, m);
  (void)state;
  assert_int_equal(acct_charge(a, 1000, 0), LRAF_CONTINUE);
  assert_true(near(f.slept, 1.0));
  f.t += 60.0;
  tutil_clock_reset(&f);
  assert_int_equal(acct_charge(a, 500, 0), LRAF_CONTINUE);  /* the credit */
  assert_true(f.slept < 1e-9);
  assert_int_equal(acct_charge(a, 500, 0), LRAF_CONTINUE);
  assert_true(near(f.slept, 0.5));
  assert_int_equal(f.sleeps, 1);
  lraf_account_release(a);
  lraf_manager_release(m);
}

/* Accounts that share a rate share its schedule. */
static void test_shared(void **state) {
  tutil_clock f;
  lraf_clock clock = tutil_clock_new(&f, 5.0);
  lraf_manager *m = lraf_rate_new(2000.0, 0.1, &clock);
  lraf_account *a = acct_new(0, m), *b = acct_new(1, m);
  int i;
  (void)state;
  for (i = 0; i < 20; i++) {
    acct_charge(a, 300, 0);
    acct_charge(b, 100, 0);
  }
  assert_true(near(f.slept, 8000.0 / 2000.0));
  assert_int_equal(lraf_manager_total(m), 8000);
  lraf_account_release(a);
  lraf_account_release(b);
  lraf_manager_release(m);
}

/* A host-scheduled coroutine is paused with its wake time instead of
   sleeping; without an account to hold the time it sleeps. */
static void test_pause(void **state) {
  tutil_clock f;
  lraf_clock clock = tutil_clock_new(&f, 10.0);
  lraf_manager *m = lraf_rate_new(1000.0, 0.5, &clock);
  lraf_account *a = acct_new(0, m);
  (void)state;
  assert_int_equal(acct_charge(a, 2000, 1), LRAF_PAUSE);
  assert_int_equal(f.sleeps, 0);
  assert_true(near(lraf_account_wake_time(a), 12.0));
  assert_int_equal(lraf_manager_consume(m, NULL, 1000, 1), LRAF_CONTINUE);
  assert_true(near(f.slept, 3.0));
  assert_int_equal(acct_charge(a, 0, 1), LRAF_CONTINUE);  /* on schedule */
  lraf_account_release(a);
  lraf_manager_release(m);
}

/* Nothing new, or a refund: no time, whatever the schedule says. */
static void test_refund(void **state) {
  tutil_clock f;
  lraf_clock clock = tutil_clock_new(&f, 0.0);
  lraf_manager *m = lraf_rate_new(10.0, 1.0, &clock);
  lraf_account *a = acct_new(0, m);
  (void)state;
  assert_int_equal(acct_charge(a, 100, 0), LRAF_CONTINUE);
  tutil_clock_reset(&f);
  f.t -= 5.0;                     /* well behind the schedule */
  assert_int_equal(acct_charge(a, 0, 0), LRAF_CONTINUE);
  assert_int_equal(acct_charge(a, -50, 1), LRAF_CONTINUE);
  assert_int_equal(f.sleeps, 0);
  assert_int_equal(lraf_account_flushed(a), 50);
  /* the refund did not move the schedule back: 10 more take 1 s more */
  assert_int_equal(acct_charge(a, 10, 0), LRAF_CONTINUE);
  assert_true(near(f.slept, 6.0));
  lraf_account_release(a);
  lraf_manager_release(m);
}

/* rate * window / 8, at least 1, at most the default. */
static void test_granularity(void **state) {
  static const struct { double rate, window; int64_t dflt, want; } cases[] = {
    {1000.0, 0.5, 10000, 62}, {1000.0, 0.5, 10, 10}, {8e6, 1.0, 10000, 10000},
    {1.0, 1.0, 100, 1}, {0.001, 1.0, 100, 1}, {800.0, 0.01, 5, 1},
  };
  size_t i;
  (void)state;
  for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    tutil_clock f;
    lraf_clock clock = tutil_clock_new(&f, 0.0);
    lraf_manager *m = lraf_rate_new(cases[i].rate, cases[i].window, &clock);
    assert_non_null(m);
    assert_int_equal(lraf_manager_granularity(m, NULL, cases[i].dflt),
                     cases[i].want);
    lraf_manager_release(m);
  }
}

static void test_bad_arguments(void **state) {
  static const struct { double rate, window; } cases[] = {
    {0, 1}, {10, 0}, {-1, 1}, {10, -1}, {NAN, 1}, {10, NAN},
  };
  tutil_clock f;
  lraf_clock clock = tutil_clock_new(&f, 0.0);
  size_t i;
  (void)state;
  for (i = 0; i < sizeof cases / sizeof cases[0]; i++)
    assert_null(lraf_rate_new(cases[i].rate, cases[i].window, &clock));
}

/* Without a clock it uses the real one: a fast rate lets work through
   at once. */
static void test_real_clock(void **state) {
  lraf_manager *m = lraf_rate_new(1e12, 0.1, NULL);
  lraf_account *a = acct_new(0, m);
  int i;
  (void)state;
  for (i = 0; i < 100; i++)
    assert_int_equal(acct_charge(a, 1000, 0), LRAF_CONTINUE);
  assert_int_equal(lraf_manager_total(m), 100000);
  lraf_account_release(a);
  lraf_manager_release(m);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_schedule),
    cmocka_unit_test(test_window_credit),
    cmocka_unit_test(test_shared),
    cmocka_unit_test(test_pause),
    cmocka_unit_test(test_refund),
    cmocka_unit_test(test_granularity),
    cmocka_unit_test(test_bad_arguments),
    cmocka_unit_test(test_real_clock),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
