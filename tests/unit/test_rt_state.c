/*
** test_rt_state.c - making and closing states (rt_state.c): options
** refused with a message and no state, what the automatic options
** become in each environment (native charging, determinism, the
** cost-model id), the manager a state takes (its own reference, or a
** new total), lraf_lua and lraf_from_lua from every thread, and
** lraf_close running the pending finalizers, counted.
*/
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include <lua.h>

#include "lraf.h"
#include "tutil_rt.h"

static void test_refused(void **state) {
  static const struct {
    lraf_env env;
    int64_t granularity;
    const char *msg;
  } cases[] = {
    {(lraf_env)5, 0, "unknown environment 5"},
    {LRAF_ENV_FULL, -1, "negative granularity"},
    {LRAF_ENV_SANDBOX, -100, "negative granularity"},
  };
  size_t i;
  lraf_error err;
  (void)state;
  for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    lraf_options opt;
    lraf_state *S = (lraf_state *)&opt;  /* must become NULL */
    lraf_default_options(&opt);
    opt.env = cases[i].env;
    opt.granularity = cases[i].granularity;
    assert_int_equal(lraf_new(&opt, &S, &err), LRAF_EARG);
    assert_null(S);
    assert_string_equal(err.message, cases[i].msg);
  }
  assert_int_equal(lraf_new(NULL, NULL, &err), LRAF_EARG);
  assert_string_equal(err.message, "lraf_new: no output");
}

/* The automatic options per environment, and explicit ones. */
static void test_automatic(void **state) {
  static const struct {
    lraf_env env;
    int native, det;        /* the options */
    int want_native, want_det;
  } cases[] = {
    {LRAF_ENV_FULL, LRAF_NATIVE_AUTO, LRAF_DETERMINISTIC_AUTO, 0, 0},
    {LRAF_ENV_SANDBOX, LRAF_NATIVE_AUTO, LRAF_DETERMINISTIC_AUTO, 1, 1},
    {LRAF_ENV_FULL, 1, 1, 1, 1},
    {LRAF_ENV_SANDBOX, 0, 0, 0, 0},
  };
  size_t i;
  (void)state;
  for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    lraf_options opt;
    lraf_state *S;
    lraf_error err;
    lraf_default_options(&opt);
    opt.env = cases[i].env;
    opt.native = cases[i].native;
    opt.deterministic = cases[i].det;
    assert_int_equal(lraf_new(&opt, &S, &err), LRAF_OK);
    assert_int_equal(lraf_deterministic(S), cases[i].want_det);
    assert_int_equal(strstr(lraf_model(S), "/native-") != NULL,
                     cases[i].want_native);
    /* native charging shows in the units a C built-in adds */
    assert_int_equal(lraf_run_string(S, "local s = ('x'):rep(100000)",
                                     "=n", &err), LRAF_OK);
    assert_int_equal(lraf_native_units(S) > 0, cases[i].want_native);
    lraf_close(S);
  }
}

/* The state holds its own reference to the manager. */
static void test_manager(void **state) {
  lraf_options opt;
  lraf_state *S;
  lraf_error err;
  lraf_manager *m = lraf_total_new();
  (void)state;
  lraf_default_options(&opt);
  opt.manager = lraf_manager_retain(m);
  assert_int_equal(lraf_new(&opt, &S, &err), LRAF_OK);
  lraf_manager_release(opt.manager);
  assert_ptr_equal(lraf_account_manager(lraf_main_account(S)), m);
  assert_int_equal(lraf_run_string(S, "for i = 1, 100 do end", "=m", &err),
                   LRAF_OK);
  assert_int_equal(lraf_manager_total(m), lraf_total(S));
  lraf_close(S);
  assert_true(lraf_manager_total(m) > 100);
  lraf_manager_release(m);
  /* no manager: a total of its own */
  assert_int_equal(lraf_new(NULL, &S, &err), LRAF_OK);
  assert_non_null(lraf_account_manager(lraf_main_account(S)));
  lraf_close(S);
  lraf_close(NULL);
}

/* Every thread of the state leads back to it. */
static void test_from_lua(void **state) {
  lraf_state *S = tutil_rt_new(NULL);
  lraf_state *other = tutil_rt_new(NULL);
  lua_State *L = lraf_lua(S), *co;
  lraf_error err;
  (void)state;
  assert_ptr_equal(lraf_from_lua(L), S);
  assert_ptr_equal(lraf_from_lua(lraf_lua(other)), other);
  assert_int_equal(lraf_load_string(S, "return coroutine.create(print)", 30,
                                    "=t", &err), LRAF_OK);
  assert_int_equal(lraf_call(S, 0, 1, &err), LRAF_OK);
  co = lua_tothread(L, -1);
  assert_ptr_equal(lraf_from_lua(co), S);
  co = lua_newthread(L);
  assert_ptr_equal(lraf_from_lua(co), S);
  lua_settop(L, 0);
  tutil_rt_close(S);
  tutil_rt_close(other);
}

/* lraf_close runs the finalizers still pending, and counts them. */
static void test_close_finalizers(void **state) {
  lraf_options opt;
  lraf_state *S;
  lraf_error err;
  int64_t before;
  (void)state;
  lraf_default_options(&opt);
  opt.manager = lraf_total_new();
  assert_int_equal(lraf_new(&opt, &S, &err), LRAF_OK);
  assert_int_equal(lraf_run_string(S, "keep = setmetatable({}, {__gc = "
                                   "function() local s = 0 for i = 1, 5000 "
                                   "do s = s + i end end})", "=f", &err),
                   LRAF_OK);
  before = lraf_manager_total(opt.manager);
  lraf_close(S);
  assert_true(lraf_manager_total(opt.manager) - before >= 10000);
  lraf_manager_release(opt.manager);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_refused),
    cmocka_unit_test(test_automatic),
    cmocka_unit_test(test_manager),
    cmocka_unit_test(test_from_lua),
    cmocka_unit_test(test_close_finalizers),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
