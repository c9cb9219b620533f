/*
** test_rt_thread.c - the record of every Lua thread (rt_thread.c): a
** coroutine gets its record and account when it first runs or is
** asked for, bound to the manager of the thread that made it, with ids
** in creation order; its account is retired when the thread is
** collected (kept for lraf_foreach_account up to keep_accounts, summed
** in lraf_retired after that), and nothing it ran is lost.
*/
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include <lauxlib.h>

#include "rt.h"
#include "tutil_rt.h"

/* The main thread's record is the state's; a coroutine's is made once
   and inherits the current manager. */
static void test_records(void **state) {
  lraf_state *S = tutil_rt_new(NULL);
  lua_State *L = lraf_lua(S), *co;
  rt_thread *t, *again;
  lraf_manager *m = lraf_total_new(), *old;
  (void)state;
  assert_ptr_equal(rt_thread_of(L), &S->main);
  assert_ptr_equal(rt_state(L), S);
  co = lua_newthread(L);
  t = rt_thread_other(L, co);
  assert_non_null(t);
  assert_ptr_equal(t->L, co);
  assert_ptr_equal(rt_thread_of(co), t);
  assert_ptr_equal(rt_state(co), S);
  assert_ptr_equal(t->acct->manager, S->main.acct->manager);
  again = rt_thread_other(L, co);
  assert_ptr_equal(again, t);
  assert_int_equal(lraf_account_id(t->acct), 1);
  /* a thread made with another manager, then one it makes */
  old = S->main.acct->manager;
  co = lua_newthread(L);
  t = rt_thread_new(L, co, m);
  assert_ptr_equal(t->acct->manager, m);
  assert_int_equal(lraf_account_id(t->acct), 2);
  assert_ptr_equal(S->main.acct->manager, old);
  lua_settop(L, 0);
  tutil_rt_close(S);
  lraf_manager_release(m);
}

static int count_accounts(lraf_state *S) {
  tutil_threads t;
  int n = 0, i;
  tutil_rt_counts(S, &t);
  for (i = 0; i < t.n; i++) n += t.count[i] > 0;
  tutil_threads_free(&t);
  return n;
}

/* Dead coroutines: kept up to keep_accounts, then retired, and the
   state's total keeps what they ran. */
static void test_retire(void **state) {
  static const char src[] =
    "for k = 1, 10 do coroutine.wrap(function() local s = 0\n"
    "  for i = 1, 100 do s = s + i end end)() end\n"
    "collectgarbage() collectgarbage()\n";
  static const struct {
    int keep;
    int64_t kept, retired;
  } cases[] = {{0, 0, 10}, {4, 4, 6}, {100, 10, 0}};
  size_t i;
  (void)state;
  for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    lraf_options opt;
    lraf_state *S;
    lraf_error err;
    int64_t n, sum;
    lraf_default_options(&opt);
    opt.keep_accounts = cases[i].keep;
    opt.manager = lraf_total_new();
    S = tutil_rt_new(&opt);
    assert_int_equal(tutil_rt_run(S, src, &err), LRAF_OK);
    sum = lraf_retired(S, &n);
    assert_int_equal(n, cases[i].retired);
    assert_true(sum >= cases[i].retired * 200);
    assert_int_equal(count_accounts(S), 1 + cases[i].kept);
    assert_int_equal(tutil_rt_total(S), lraf_total(S));
    assert_int_equal(lraf_total(S), lraf_manager_total(opt.manager));
    tutil_rt_close(S);
    lraf_manager_release(opt.manager);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_records),
    cmocka_unit_test(test_retire),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
