/*
** test_rt_accounts_total.c - what a host reads of a state when a run ends:
** lraf_total (everything the state ran, coroutines included, equal to
** the sum lraf_foreach_account and lraf_retired give), the stop
** messages (the limit, the place, the native units, as lraf run says
** them) and the status names the report uses.
*/
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "lraf.h"

static void add(lraf_account *a, int64_t n, int alive, void *ud) {
  (void)a;
  (void)alive;
  *(int64_t *)ud += n;
}

static lraf_state *state(lraf_manager *m, lraf_env env, int keep) {
  lraf_options opt;
  lraf_state *S;
  lraf_error err;
  lraf_default_options(&opt);
  opt.manager = m;
  opt.env = env;
  opt.keep_accounts = keep;
  assert_int_equal(lraf_new(&opt, &S, &err), LRAF_OK);
  return S;
}

/* Work in coroutines: the main account sees little of it, lraf_total
   all of it, kept or retired, and the manager the same. */
static void test_total(void **state_) {
  static const char src[] =
    "for k = 1, 5 do coroutine.wrap(function()\n"
    "  local s = 0 for i = 1, 1000 do s = s + i end end)() end\n"
    "collectgarbage() collectgarbage()\n";
  int keep;
  (void)state_;
  for (keep = 0; keep <= 10; keep += 10) {
    lraf_manager *m = lraf_total_new();
    lraf_state *S = state(m, LRAF_ENV_FULL, keep);
    lraf_error err;
    int64_t sum = 0, retired;
    assert_int_equal(lraf_run_string(S, src, "=co", &err), LRAF_OK);
    lraf_foreach_account(S, add, &sum);
    sum += lraf_retired(S, NULL);
    retired = lraf_retired(S, NULL);
    assert_true(lraf_total(S) > 5 * 2000);
    assert_int_equal(lraf_total(S), sum);
    assert_int_equal(lraf_total(S), lraf_manager_total(m));
    assert_true(lraf_consumed(S, lraf_main_account(S)) < 200);
    if (keep == 0) assert_true(retired > 0);
    lraf_close(S);
    lraf_manager_release(m);
  }
  assert_int_equal(lraf_total(NULL), 0);
}

/* The library's stop message says what lraf run says: the limit, where,
   and what native charging added. */
static void test_stop_message(void **state_) {
  lraf_manager *m = lraf_limit_new(5000);
  lraf_state *S = state(m, LRAF_ENV_SANDBOX, 0);
  lraf_error err;
  char want[128];
  (void)state_;
  assert_int_equal(lraf_run_string(S, "local function spin()\n"
                                   "  while true do local s = ('x'):rep(10) "
                                   "end end\nspin()", "=spin", &err),
                   LRAF_EQUOTA);
  snprintf(want, sizeof want, "instruction quota exceeded (limit 5000 "
           "units) at spin:2: in local 'spin'; native charging added %lld "
           "units", (long long)lraf_native_units(S));
  assert_string_equal(err.message, want);
  assert_string_equal(lraf_last_error(S), want);
  assert_true(lraf_native_units(S) > 0);
  lraf_close(S);
  lraf_manager_release(m);
  assert_string_equal(lraf_status_name(LRAF_EQUOTA), "quota");
  assert_string_equal(lraf_status_name(LRAF_EMEMLIMIT), "memory");
  assert_string_not_equal(lraf_status_name(LRAF_EMEM), "memory");
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_total),
    cmocka_unit_test(test_stop_message),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
