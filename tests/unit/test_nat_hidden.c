/*
** test_nat_hidden.c - work that no argument's length shows
** (nat_hidden.c): error(msg, level), debug.traceback and debug.getinfo
** charged by the frames they walk (a stack 100 times deeper costs at
** least 30 times more; a level bounds the walk whatever the depth), the
** __name that tostring copies and the strings an arithmetic metamethod
** converts (their sizes read directly, and charged in Lua).
*/
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>
#include <lua.h>

#include "rt.h"
#include "nat_cost.h"
#include "nat_hidden.h"
#include "tutil_rt.h"

/* rec(d, f) calls f from d frames down (no tail calls). */
#define REC \
  "local function rec(d, f) if d == 0 then return (f()) end " \
  "return (rec(d - 1, f)) end"

/* Statements whose charge grows with N: the frames walked. */
static const char *const deep[] = {
  "pcall(rec, N, function() error('x', N) end)",
  "rec(N, function() return debug.traceback('x') end)",
  "rec(N, function() return debug.getinfo(N, 'l') end)",
  "rec(N, function() return debug.traceback('x', N) end)",
};

static void test_frames_walked(void **state) {
  size_t i;
  (void)state;
  for (i = 0; i < sizeof deep / sizeof *deep; i++) {
    int64_t small = tutil_rt_native_charge(REC, deep[i], 10);
    int64_t big = tutil_rt_native_charge(REC, deep[i], 1000);
    if (small <= 0 || big < 30 * small)
      fail_msg("%s: %lld units at N=10, %lld at N=1000", deep[i],
               (long long)small, (long long)big);
  }
}

/* A level bounds the walk: the same charge at depth 10 and 1000. */
static void test_level_bounds(void **state) {
  static const char *const bounded[] = {
    "pcall(rec, N, function() error('x', 8) end)",
    "rec(N, function() return debug.getinfo(8, 'l') end)",
  };
  size_t i;
  (void)state;
  for (i = 0; i < sizeof bounded / sizeof *bounded; i++) {
    int64_t small = tutil_rt_native_charge(REC, bounded[i], 10);
    int64_t big = tutil_rt_native_charge(REC, bounded[i], 1000);
    if (small <= 0 || big != small)
      fail_msg("%s: %lld units at N=10, %lld at N=1000", bounded[i],
               (long long)small, (long long)big);
  }
  /* a level of 1 or 2 walks nothing lua_getstack would */
  assert_int_equal(tutil_rt_native_charge(
                       REC, "pcall(rec, N, function() error('x', 2) end)",
                       1000),
                   tutil_rt_native_charge(
                       REC, "pcall(rec, N, function() error('x', 1) end)",
                       1000));
}

static const nat_model *model(const char *lib, const char *name) {
  const nat_model *m = nat_find(lib, name);
  assert_non_null(m);
  return m;
}

/* The sizes read directly: tostring copies __name, an arithmetic
   metamethod converts every string operand. */
static void test_sizes(void **state) {
  lraf_options opt;
  lraf_state *S;
  lua_State *L;
  const nat_model *ts = model("_G", "tostring");
  static const size_t lens[] = {0, 1, 100, 100000};
  size_t i;
  (void)state;
  lraf_default_options(&opt);
  opt.native = 1;
  S = tutil_rt_new(&opt);
  L = lraf_lua(S);
  for (i = 0; i < sizeof lens / sizeof *lens; i++) {
    char *s = malloc(lens[i] + 1);
    assert_non_null(s);
    memset(s, '7', lens[i]);
    s[lens[i]] = '\0';
    lua_settop(L, 0);
    lua_newtable(L);                 /* a value named s */
    lua_newtable(L);
    lua_pushstring(L, s);
    lua_setfield(L, -2, "__name");
    lua_setmetatable(L, 1);
    assert_int_equal(ts->size(L, ts), (int64_t)lens[i]);
    lua_settop(L, 0);
    lua_pushstring(L, s);            /* s + "12" */
    lua_pushstring(L, "12");
    assert_int_equal(nat_hidden_strarith(L, NULL), (int64_t)lens[i] + 2);
    lua_settop(L, 0);
    lua_pushinteger(L, 3);           /* 3 + s: the string only */
    lua_pushstring(L, s);
    assert_int_equal(nat_hidden_strarith(L, NULL), (int64_t)lens[i]);
    free(s);
  }
  /* __tostring: the name is not copied */
  lua_settop(L, 0);
  assert_int_equal(luaL_dostring(L, "return setmetatable({}, {__name = "
                   "string.rep('x', 50), __tostring = function() return '' "
                   "end})"), LUA_OK);
  assert_int_equal(lua_gettop(L), 1);
  assert_int_equal(ts->size(L, ts), 0);
  tutil_rt_close(S);
}

/* In Lua, the same sizes are charged: a 100 times longer name or
   numeral costs at least 30 times more. */
static void test_charged_in_lua(void **state) {
  static const char *const grows[][2] = {
    {"local v = setmetatable({}, {__name = string.rep('n', N)})",
     "local s = tostring(v)"},
    {"local s = string.rep(' ', N) .. '1'",
     "local ok = pcall(function() return s + 1 end)"},
  };
  size_t i;
  (void)state;
  for (i = 0; i < sizeof grows / sizeof *grows; i++) {
    int64_t small = tutil_rt_native_charge(grows[i][0], grows[i][1], 10000);
    int64_t big = tutil_rt_native_charge(grows[i][0], grows[i][1], 1000000);
    if (small <= 0 || big < 30 * small)
      fail_msg("%s: %lld units at N=1e4, %lld at N=1e6", grows[i][1],
               (long long)small, (long long)big);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_frames_walked),
    cmocka_unit_test(test_level_bounds),
    cmocka_unit_test(test_sizes),
    cmocka_unit_test(test_charged_in_lua),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
