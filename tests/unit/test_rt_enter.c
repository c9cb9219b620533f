/*
** test_rt_enter.c - entering and leaving a state (rt_enter.c): a Lua
** error becomes lraf_status and message by its status and its object
** (strings, numbers, objects with and without __tostring, a __tostring
** that fails), lraf_last_error keeps the message; the quota stop's
** message names the limit in the mode's unit, where the code was and
** what native charging added; rt_protected runs a C function on the
** main thread; and the outermost return flushes the counter, so the
** manager's total is exact between calls.
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

/* Statuses and objects: what rt_error makes of them. */
static void test_errors(void **state) {
  static const struct {
    int status;
    const char *push;  /* Lua expression giving the error object */
    lraf_status code;
    const char *msg;   /* prefix of the message */
  } cases[] = {
    {LUA_ERRRUN, "'boom'", LRAF_ERUN, "boom"},
    {LUA_ERRSYNTAX, "'bad syntax'", LRAF_ESYNTAX, "bad syntax"},
    {LUA_ERRMEM, "'no memory'", LRAF_EMEM, "no memory"},
    {LUA_ERRFILE, "'no file'", LRAF_EIO, "no file"},
    {LUA_ERRRUN, "42", LRAF_ERUN, "42"},
    {LUA_ERRRUN, "setmetatable({}, {__tostring = function() "
                 "return 'custom' end})", LRAF_ERUN, "custom"},
    {LUA_ERRRUN, "{}", LRAF_ERUN, "table: "},
    {LUA_ERRRUN, "setmetatable({}, {__tostring = function() "
                 "return {} end})", LRAF_ERUN,
     "(error object is not a string)"},
    {LUA_ERRRUN, "setmetatable({}, {__tostring = function() "
                 "error('again') end})", LRAF_ERUN,
     "(error object is not a string)"},
  };
  size_t i;
  (void)state;
  for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    lraf_state *S = tutil_rt_new(NULL);
    lua_State *L = lraf_lua(S);
    lraf_error err;
    char src[160];
    int top = lua_gettop(L);
    snprintf(src, sizeof src, "return %s", cases[i].push);
    assert_int_equal(luaL_dostring(L, src), LUA_OK);
    assert_int_equal(rt_error(S, L, cases[i].status, &err), cases[i].code);
    if (strncmp(err.message, cases[i].msg, strlen(cases[i].msg)) != 0)
      fail_msg("case %zu: %s", i, err.message);
    assert_string_equal(lraf_last_error(S), err.message);
    assert_int_equal(lua_gettop(L), top);  /* the object was popped */
    tutil_rt_close(S);
  }
}

/* The quota stop's message, by mode and native charging. */
static void test_stop_messages(void **state) {
  static uint32_t weights[LRAF_NUM_OPCODES];
  static const struct {
    lraf_mode mode;
    int native;
    const char *limit, *native_part;
  } cases[] = {
    {LRAF_MODE_ORIGINAL, 0, "(limit 3000 instructions) at t:1: in main "
     "chunk", "; native charging was off"},
    {LRAF_MODE_WEIGHTED, 0, "(limit 3000 weighted units) at t:1: ",
     "; native charging was off"},
    {LRAF_MODE_ORIGINAL, 1, "(limit 3000 units) at t:1: ",
     "; native charging added "},
  };
  size_t i;
  int k;
  (void)state;
  for (k = 0; k < LRAF_NUM_OPCODES; k++) weights[k] = 1;
  for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    lraf_options opt;
    lraf_state *S;
    lraf_error err;
    lraf_default_options(&opt);
    opt.mode = cases[i].mode;
    opt.weights = weights;
    opt.native = cases[i].native;
    opt.manager = lraf_limit_new(3000);
    S = tutil_rt_new(&opt);
    assert_int_equal(lraf_run_string(S, "while true do end", "=t", &err),
                     LRAF_EQUOTA);
    assert_non_null(strstr(err.message, "instruction quota exceeded "));
    if (strstr(err.message, cases[i].limit) == NULL ||
        strstr(err.message, cases[i].native_part) == NULL)
      fail_msg("case %zu: %s", i, err.message);
    assert_string_equal(lraf_last_error(S), err.message);
    tutil_rt_close(S);
    lraf_manager_release(opt.manager);
  }
}

static int push_two(lua_State *L) {
  int *calls = lua_touserdata(L, 1);
  (*calls)++;
  lua_pushinteger(L, 1);
  lua_pushinteger(L, 2);
  return 2;
}

static int fails(lua_State *L) {
  return luaL_error(L, "failed in C");
}

static void test_protected(void **state) {
  lraf_state *S = tutil_rt_new(NULL);
  lua_State *L = lraf_lua(S);
  lraf_error err;
  int calls = 0, top = lua_gettop(L);
  (void)state;
  assert_int_equal(rt_protected(S, push_two, &calls, 2, &err), LRAF_OK);
  assert_int_equal(calls, 1);
  assert_int_equal(lua_gettop(L), top + 2);
  assert_int_equal(lua_tointeger(L, -1), 2);
  lua_settop(L, top);
  assert_int_equal(rt_protected(S, fails, NULL, 0, &err), LRAF_ERUN);
  assert_string_equal(err.message, "failed in C");
  assert_int_equal(lua_gettop(L), top);
  tutil_rt_close(S);
}

/* After every outermost call nothing is left in the counter: the
   manager has everything, at any granularity. */
static void test_leave_flushes(void **state) {
  static const int64_t gran[] = {1, 1000, 1000000};
  size_t i;
  (void)state;
  for (i = 0; i < sizeof gran / sizeof gran[0]; i++) {
    lraf_options opt;
    lraf_state *S;
    lraf_error err;
    int k;
    lraf_default_options(&opt);
    opt.granularity = gran[i];
    opt.manager = lraf_total_new();
    S = tutil_rt_new(&opt);
    for (k = 1; k <= 3; k++) {
      assert_int_equal(tutil_rt_run(S, "local s = 0 for i = 1, 777 do "
                                       "s = s + i end", &err), LRAF_OK);
      assert_int_equal(rt_live(S, lraf_lua(S)), 0);
      assert_int_equal(lraf_manager_total(opt.manager), lraf_total(S));
      assert_true(lraf_total(S) >= k * 777 * 2);
    }
    tutil_rt_close(S);
    lraf_manager_release(opt.manager);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_errors),
    cmocka_unit_test(test_stop_messages),
    cmocka_unit_test(test_protected),
    cmocka_unit_test(test_leave_flushes),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
