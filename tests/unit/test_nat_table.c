/*
** test_nat_table.c - table functions on values with metatables, charged
** by the length __len reports (nat_table.c).  Which calls nat_table
** takes over (nat_table_plain); the weight of a move through __index
** and __newindex chains (nat_table_move_weight: one more table in a
** chain, one more unit per element); and in Lua, insert, remove, unpack
** and concat charged in proportion to the length __len reports (each
** slice of elements costs the same, within 1%), and sort by its
** comparisons.
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
#include "nat_table.h"
#include "tutil_rt.h"

static lraf_state *native_state(void) {
  lraf_options opt;
  lraf_default_options(&opt);
  opt.native = 1;
  return tutil_rt_new(&opt);
}

/* Run a chunk that leaves its values on L's stack (no accounting: it
   only builds tables). */
static void build(lua_State *L, const char *chunk) {
  lua_settop(L, 0);
  if (luaL_loadstring(L, chunk) != LUA_OK ||
      lua_pcall(L, 0, LUA_MULTRET, 0) != LUA_OK)
    fail_msg("%s: %s", chunk, lua_tostring(L, -1));
}

static void test_plain(void **state) {
  lraf_state *S = native_state();
  lua_State *L = lraf_lua(S);
  (void)state;
  build(L, "return {1, 2, 3}");
  assert_true(nat_table_plain(L));
  build(L, "return setmetatable({}, {})");
  assert_false(nat_table_plain(L));
  build(L, "return 42");  /* no metatable: the stock function refuses it */
  assert_true(nat_table_plain(L));
  tutil_rt_close(S);
}

/* The move weight of table.move(a, 1, 2, 1, b) for a and b made by
   chunk. */
static int move_weight(lua_State *L, const char *chunk) {
  char src[512];
  snprintf(src, sizeof src, "local a, b = %s return a, 1, 2, 1, b", chunk);
  build(L, src);
  return nat_table_move_weight(L);
}

#define F "function() end"

static void test_move_weight(void **state) {
  lraf_state *S = native_state();
  lua_State *L = lraf_lua(S);
  int plain, fn, tab, fn2, both;
  (void)state;
  plain = move_weight(L, "{}, {}");
  fn = move_weight(L, "setmetatable({}, {__index = " F "}), {}");
  tab = move_weight(L, "setmetatable({}, {__index = {}}), {}");
  fn2 = move_weight(L, "setmetatable({}, {__index = setmetatable({}, "
                       "{__index = " F "})}), {}");
  both = move_weight(L, "setmetatable({}, {__index = " F "}), "
                        "setmetatable({}, {__newindex = " F "})");
  assert_int_equal(plain, 1);       /* raw moves: the plain model */
  assert_true(fn > tab);            /* a function costs more than a table */
  assert_int_equal(fn2, fn + 1);    /* one more table in the chain */
  assert_true(both > fn);           /* the destination's chain counts */
  /* the destination defaults to the source: {}'s chain is a's */
  build(L, "return setmetatable({}, {__index = " F "}), 1, 2, 1");
  assert_int_equal(nat_table_move_weight(L), fn);
  tutil_rt_close(S);
}

/* Setups of a value whose __len reports N, and statements using it. */
static const char *const ops[][2] = {
  {"local t = setmetatable({}, {__len = function() return N end, "
   "__index = function(t, k) return 1 end})", "local a = table.unpack(t)"},
  {"local t = setmetatable({}, {__len = function() return N end, "
   "__index = function(t, k) return 'x' end})", "local s = table.concat(t)"},
  {"local t = setmetatable({}, {__len = function() return N end, "
   "__index = function(t, k) return 1 end, __newindex = rawset})",
   "table.insert(t, 1, 0)"},
  {"local t = setmetatable({}, {__len = function() return N end, "
   "__index = function(t, k) return 1 end, __newindex = rawset})",
   "table.remove(t, 1)"},
};

static void test_charged_by_len(void **state) {
  size_t i;
  (void)state;
  for (i = 0; i < sizeof ops / sizeof *ops; i++) {
    /* whole slices: each adds the same units, within 1% (concat's
       bytes are rounded up to a unit per slice, and on the lraf VM the
       metamethods' own calls vary a little) */
    int64_t c1 = tutil_rt_native_charge(ops[i][0], ops[i][1], 2048);
    int64_t c2 = tutil_rt_native_charge(ops[i][0], ops[i][1], 4096);
    int64_t c3 = tutil_rt_native_charge(ops[i][0], ops[i][1], 6144);
    int64_t d = (c3 - c2) - (c2 - c1);
    if (c2 <= c1 || (d < 0 ? -d : d) > 2 + (c2 - c1) / 100)
      fail_msg("%s: %lld, %lld, %lld units at a length of 2048, 4096, "
               "6144", ops[i][1], (long long)c1, (long long)c2,
               (long long)c3);
  }
}

/* One more table in the __index chain: one more unit of size for each
   element unpacked. */
static void test_chain_per_element(void **state) {
  const nat_model *m = nat_find("table", "unpack");
  const char *one = "local t = setmetatable({}, {__len = function() "
                    "return N end, __index = function() return 1 end})";
  const char *two = "local t = setmetatable({}, {__len = function() "
                    "return N end, __index = setmetatable({}, {__index = "
                    "function() return 1 end})})";
  int64_t a, b;
  (void)state;
  assert_non_null(m);
  a = tutil_rt_native_charge(one, "local x = table.unpack(t)", 4096);
  b = tutil_rt_native_charge(two, "local x = table.unpack(t)", 4096);
  /* 4096 more units of size, in whole slices: 4 * per_k */
  assert_int_equal(b - a, 4 * m->per_k);
}

/* The comparisons table.sort(t, lt) makes after setup, for N = n (the
   same in every state: the sort is lraf's, with a fixed pivot). */
static long long comparisons(const char *setup, long long n) {
  char src[1024];
  lraf_state *S = tutil_rt_new(NULL);
  lraf_error err;
  long long c;
  snprintf(src, sizeof src, "local N = %lld %s table.sort(t, lt) C = c", n,
           setup);
  assert_int_equal(tutil_rt_run(S, src, &err), LRAF_OK);
  lua_getglobal(lraf_lua(S), "C");
  c = (long long)lua_tointeger(lraf_lua(S), -1);
  tutil_rt_close(S);
  return c;
}

/* sort on a value with a metatable: charged per comparison, a slice of
   1024 comparisons at a time, each slice the same units. */
static void test_sort_per_comparison(void **state) {
  const char *setup =
      "local c = 0 local t = setmetatable({}, {}) "
      "for i = 1, N do t[i] = (i * 7919) % N end "
      "local function lt(a, b) c = c + 1 return a < b end";
  static const long long n[3] = {500, 2000, 6000};
  int64_t u[3], slices[3];
  int k;
  (void)state;
  for (k = 0; k < 3; k++) {
    u[k] = tutil_rt_native_charge(setup, "table.sort(t, lt)", n[k]);
    slices[k] = (comparisons(setup, n[k]) + 1023) / 1024;
  }
  assert_true(slices[2] > slices[1] && slices[1] > slices[0]);
  if (u[1] <= u[0] ||
      (u[2] - u[1]) * (slices[1] - slices[0]) !=
          (u[1] - u[0]) * (slices[2] - slices[1]))
    fail_msg("sort: %lld, %lld, %lld units for %lld, %lld, %lld slices of "
             "comparisons", (long long)u[0], (long long)u[1],
             (long long)u[2], (long long)slices[0], (long long)slices[1],
             (long long)slices[2]);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_plain),
    cmocka_unit_test(test_move_weight),
    cmocka_unit_test(test_charged_by_len),
    cmocka_unit_test(test_chain_per_element),
    cmocka_unit_test(test_sort_per_comparison),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
