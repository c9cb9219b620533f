/*
** test_acct_account.c - accounts/acct_account.c: an account's charge
** path (what it flushes and reports to its manager), rebinding to
** another manager, its references and its manager's, the memory it
** records, its wake time, and the getters' answers for NULL.
*/
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "acct.h"

static int released;

static void count_release(void *ud) {
  (void)ud;
  released++;
}

static const lraf_manager_ops release_ops = {NULL, NULL, count_release};

/* Charges add to the account's flushed count and its manager's total,
   refunds (negative) take back. */
static void test_charge(void **state) {
  static const int64_t charges[] = {10, 0, 250, -30, 1, 1000000};
  lraf_manager *m = lraf_total_new();
  lraf_account *a = acct_new(3, m);
  int64_t sum = 0;
  size_t i;
  (void)state;
  assert_non_null(a);
  assert_int_equal(lraf_account_id(a), 3);
  assert_ptr_equal(lraf_account_manager(a), m);
  assert_int_equal(lraf_account_flushed(a), 0);
  for (i = 0; i < sizeof charges / sizeof charges[0]; i++) {
    assert_int_equal(acct_charge(a, charges[i], 0), LRAF_CONTINUE);
    sum += charges[i];
    assert_int_equal(lraf_account_flushed(a), sum);
    assert_int_equal(lraf_manager_total(m), sum);
  }
  lraf_account_release(a);
  lraf_manager_release(m);
}

/* Two accounts on one manager: each flushes its own, the manager sums. */
static void test_two_accounts(void **state) {
  lraf_manager *m = lraf_total_new();
  lraf_account *a = acct_new(0, m), *b = acct_new(1, m);
  (void)state;
  acct_charge(a, 11, 0);
  acct_charge(b, 22, 0);
  acct_charge(a, 33, 0);
  assert_int_equal(lraf_account_flushed(a), 44);
  assert_int_equal(lraf_account_flushed(b), 22);
  assert_int_equal(lraf_manager_total(m), 66);
  lraf_account_release(a);
  lraf_account_release(b);
  lraf_manager_release(m);
}

/* After acct_set_manager, charges go to the new manager; the old one
   is released by the account. */
static void test_rebinding(void **state) {
  lraf_manager *t1 = lraf_manager_new(&release_ops, NULL);
  lraf_manager *t2 = lraf_limit_new(1000);
  lraf_account *a = acct_new(0, t1);
  (void)state;
  released = 0;
  assert_int_equal(acct_granularity(a, 1234), 1234);
  acct_charge(a, 10, 0);
  lraf_manager_release(t1);        /* the account's reference remains */
  assert_int_equal(released, 0);
  acct_set_manager(a, t2);
  assert_int_equal(released, 1);   /* the account let go of t1 */
  assert_ptr_equal(lraf_account_manager(a), t2);
  assert_int_equal(acct_granularity(a, 1234), 1000);
  acct_charge(a, 5, 0);
  assert_int_equal(lraf_manager_total(t2), 5);
  assert_int_equal(lraf_account_flushed(a), 15);
  acct_set_manager(a, t2);         /* the same manager again: no change */
  lraf_manager_release(t2);
  assert_int_equal(lraf_limit_remaining(t2), 995);
  lraf_account_release(a);
}

/* The manager lives as long as its last account. */
static void test_references(void **state) {
  lraf_manager *m = lraf_manager_new(&release_ops, NULL);
  lraf_account *a = acct_new(0, m);
  (void)state;
  released = 0;
  lraf_manager_release(m);
  assert_ptr_equal(lraf_account_retain(a), a);
  lraf_account_release(a);
  assert_int_equal(released, 0);
  lraf_account_release(a);
  assert_int_equal(released, 1);
}

/* Allocations add up; the peak is the highest in-use figure seen. */
static void test_memory(void **state) {
  static const struct { int64_t n, in_use, alloc, peak; } steps[] = {
    {100, 100, 100, 100}, {50, 150, 150, 150}, {10, 40, 160, 150},
    {0, 151, 160, 151}, {1000, 90, 1160, 151},
  };
  lraf_manager *m = lraf_total_new();
  lraf_account *a = acct_new(0, m);
  int64_t alloc = -1, peak = -1;
  size_t i;
  (void)state;
  lraf_account_memory(a, &alloc, &peak);
  assert_int_equal(alloc, 0);
  assert_int_equal(peak, 0);
  for (i = 0; i < sizeof steps / sizeof steps[0]; i++) {
    acct_note_alloc(a, steps[i].n, steps[i].in_use);
    lraf_account_memory(a, &alloc, NULL);
    lraf_account_memory(a, NULL, &peak);
    assert_int_equal(alloc, steps[i].alloc);
    assert_int_equal(peak, steps[i].peak);
  }
  lraf_account_release(a);
  lraf_manager_release(m);
}

static void test_wake(void **state) {
  lraf_manager *m = lraf_total_new();
  lraf_account *a = acct_new(0, m);
  (void)state;
  assert_true(lraf_account_wake_time(a) == 0.0);
  acct_set_wake(a, 12.5);
  assert_true(lraf_account_wake_time(a) == 12.5);
  acct_set_wake(a, 3.0);
  assert_true(lraf_account_wake_time(a) == 3.0);
  lraf_account_release(a);
  lraf_manager_release(m);
}

static void test_null(void **state) {
  int64_t alloc = 5, peak = 5;
  (void)state;
  assert_int_equal(lraf_account_id(NULL), -1);
  assert_null(lraf_account_manager(NULL));
  assert_int_equal(lraf_account_flushed(NULL), 0);
  assert_true(lraf_account_wake_time(NULL) == 0.0);
  assert_null(lraf_account_retain(NULL));
  lraf_account_release(NULL);
  lraf_account_memory(NULL, &alloc, &peak);
  assert_int_equal(alloc, 0);
  assert_int_equal(peak, 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_charge),
    cmocka_unit_test(test_two_accounts),
    cmocka_unit_test(test_rebinding),
    cmocka_unit_test(test_references),
    cmocka_unit_test(test_memory),
    cmocka_unit_test(test_wake),
    cmocka_unit_test(test_null),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
