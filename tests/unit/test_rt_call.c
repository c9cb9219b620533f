/*
** test_rt_call.c - the host's calls into a state (rt_call.c):
** lraf_call's arguments and results, the message handler's text for
** every kind of error object (with and without a traceback), a stop
** passed unchanged; lraf_resume driving a coroutine from C through
** yields to its end or its error, pausing at a manager's word, and
** refusing a thread of another state; lraf_last_error.
*/
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include <lua.h>

#include "lraf.h"
#include "tutil_rt.h"

static lraf_state *load(const lraf_options *opt, const char *src) {
  lraf_state *S = tutil_rt_new(opt);
  lraf_error err;
  if (lraf_load_string(S, src, strlen(src), "=c", &err) != LRAF_OK)
    fail_msg("%s", err.message);
  return S;
}

/* Arguments in, results out. */
static void test_call_values(void **state) {
  lraf_state *S = load(NULL, "local a, b = ... return a + b, a * b, 'x'");
  lua_State *L = lraf_lua(S);
  lraf_error err;
  (void)state;
  lua_pushinteger(L, 6);
  lua_pushinteger(L, 7);
  assert_int_equal(lraf_call(S, 2, LUA_MULTRET, &err), LRAF_OK);
  assert_int_equal(lua_gettop(L), 3);
  assert_int_equal(lua_tointeger(L, 1), 13);
  assert_int_equal(lua_tointeger(L, 2), 42);
  assert_string_equal(lua_tostring(L, 3), "x");
  lua_settop(L, 0);
  /* nothing to call */
  assert_int_equal(lraf_call(S, 0, 0, &err), LRAF_EARG);
  lua_pushinteger(L, 1);
  assert_int_equal(lraf_call(S, 3, 0, &err), LRAF_EARG);
  assert_int_equal(lraf_call(NULL, 0, 0, &err), LRAF_EARG);
  tutil_rt_close(S);
}

/* The message of each error object, as lua.c writes it. */
static void test_call_messages(void **state) {
  static const struct {
    const char *src;
    int traceback;
    const char *msg;  /* prefix */
    const char *also; /* somewhere in it, or NULL */
  } cases[] = {
    {"error('plain')", 0, "c:1: plain", NULL},
    {"error('bare', 0)", 0, "bare", NULL},
    {"error(12)", 0, "12", NULL},
    {"error({})", 0, "(error object is a table value)", NULL},
    {"error(setmetatable({}, {__tostring = function() return 'shown' "
     "end}))", 1, "shown", NULL},
    {"error(nil)", 0, "(error object is a nil value)", NULL},
    {"local function f() error('deep') end f()", 1, "c:1: deep",
     "stack traceback:"},
    {"local t = nil; return t.x", 0, "c:1: attempt to index a nil value "
     "(local 't')", NULL},
  };
  size_t i;
  (void)state;
  for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    lraf_options opt;
    lraf_state *S;
    lraf_error err;
    lraf_default_options(&opt);
    opt.traceback = cases[i].traceback;
    S = load(&opt, cases[i].src);
    assert_int_equal(lraf_call(S, 0, 0, &err), LRAF_ERUN);
    if (strncmp(err.message, cases[i].msg, strlen(cases[i].msg)) != 0)
      fail_msg("case %zu: %s", i, err.message);
    if (cases[i].also != NULL)
      assert_non_null(strstr(err.message, cases[i].also));
    else
      assert_null(strstr(err.message, "stack traceback:"));
    assert_string_equal(lraf_last_error(S), err.message);
    tutil_rt_close(S);
  }
  assert_string_equal(lraf_last_error(NULL), "");
}

/* A coroutine driven from C: values both ways, then its end. */
static void test_resume(void **state) {
  lraf_state *S = load(NULL, "return coroutine.create(function(a)\n"
                             "  local b = coroutine.yield(a + 1)\n"
                             "  local c = coroutine.yield(b * 2)\n"
                             "  return 'end', c end)");
  lua_State *L = lraf_lua(S), *co;
  lraf_error err;
  lraf_costatus cs;
  int n;
  (void)state;
  assert_int_equal(lraf_call(S, 0, 1, &err), LRAF_OK);
  co = lua_tothread(L, -1);
  assert_non_null(co);
  lua_pushinteger(co, 10);
  assert_int_equal(lraf_resume(S, co, 1, &n, &cs, &err), LRAF_OK);
  assert_int_equal(cs, LRAF_CO_YIELDED);
  assert_int_equal(n, 1);
  assert_int_equal(lua_tointeger(co, -1), 11);
  lua_pop(co, n);
  lua_pushinteger(co, 4);
  assert_int_equal(lraf_resume(S, co, 1, &n, &cs, &err), LRAF_OK);
  assert_int_equal(lua_tointeger(co, -1), 8);
  lua_pop(co, n);
  lua_pushstring(co, "last");
  assert_int_equal(lraf_resume(S, co, 1, &n, &cs, &err), LRAF_OK);
  assert_int_equal(cs, LRAF_CO_DONE);
  assert_int_equal(n, 2);
  assert_string_equal(lua_tostring(co, -2), "end");
  assert_string_equal(lua_tostring(co, -1), "last");
  /* the coroutine's account has its instructions, the main one not */
  assert_true(lraf_consumed(S, lraf_thread_account(S, co)) > 5);
  tutil_rt_close(S);
}

/* An error in the coroutine, a thread of another state, a pause. */
static void test_resume_errors_and_pauses(void **state) {
  lraf_state *S = load(NULL, "return coroutine.create(function() "
                             "error('inside') end)");
  lraf_state *other = tutil_rt_new(NULL);
  lua_State *co;
  lraf_error err;
  lraf_costatus cs;
  lraf_options opt;
  int n, pauses = 0, rounds = 0;
  (void)state;
  assert_int_equal(lraf_call(S, 0, 1, &err), LRAF_OK);
  co = lua_tothread(lraf_lua(S), -1);
  assert_int_equal(lraf_resume(other, co, 0, &n, &cs, &err), LRAF_EARG);
  assert_int_equal(lraf_resume(S, co, 0, &n, &cs, &err), LRAF_ERUN);
  assert_non_null(strstr(err.message, "c:1: inside"));
  assert_string_equal(lraf_last_error(S), err.message);
  tutil_rt_close(S);
  tutil_rt_close(other);
  /* a manager that pauses: the coroutine yields at its consumes and
     runs on when resumed again, to the same result */
  lraf_default_options(&opt);
  opt.granularity = 500;
  opt.manager = tutil_pausing_manager(&pauses);
  S = load(&opt, "return coroutine.create(function() local s = 0\n"
                 "  for i = 1, 10000 do s = s + i end return s end)");
  assert_int_equal(lraf_call(S, 0, 1, &err), LRAF_OK);
  co = lua_tothread(lraf_lua(S), -1);
  do {
    assert_int_equal(lraf_resume(S, co, 0, &n, &cs, &err), LRAF_OK);
    rounds++;
  } while (cs == LRAF_CO_PAUSED);
  assert_int_equal(cs, LRAF_CO_DONE);
  assert_int_equal(lua_tointeger(co, -1), 50005000);
  assert_true(rounds > 10);
  assert_true(pauses >= rounds - 1 && pauses <= rounds);
  tutil_rt_close(S);
  lraf_manager_release(opt.manager);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_call_values),
    cmocka_unit_test(test_call_messages),
    cmocka_unit_test(test_resume),
    cmocka_unit_test(test_resume_errors_and_pauses),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
