/*
** test_nat_wrap_quota.c - native work under an instruction quota: loops
** of string.rep, string.gsub, table.concat and lpeg.match are stopped
** within 10% of the quota in charged units; a call whose known cost is
** over the quota fails before it does the work (string.rep("x", 2^30)
** allocates nothing); catastrophic patterns and huge table.move/unpack
** spans are stopped in bounded time; pcall cannot swallow any of it.
** Calls that Lua refuses before any work (string.rep past INT_MAX
** bytes, table.unpack past the stack's limit, table.move's wrap
** checks) are not charged their size: they fail as in lua5.4.
*/
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lua.h>

#include "tutil_rt.h"

static lraf_state *limited(int64_t quota, lraf_manager **m) {
  lraf_options opt;
  lraf_default_options(&opt);
  opt.native = 1;
  *m = lraf_limit_new(quota);
  opt.manager = *m;
  return tutil_rt_new(&opt);
}

static void expect_stop(const char *what, const char *src, int64_t quota,
                        double slack) {
  lraf_manager *m;
  lraf_state *S = limited(quota, &m);
  lraf_error err;
  lraf_status st = tutil_rt_run(S, src, &err);
  int64_t total = lraf_manager_total(m);
  lua_State *L = lraf_lua(S);
  if (st != LRAF_EQUOTA)
    fail_msg("%s: status %s (%s)", what, lraf_status_name(st), err.message);
  if (total < quota || (double)total > (double)quota * (1 + slack))
    fail_msg("%s: %lld units charged for a quota of %lld", what,
             (long long)total, (long long)quota);
  lua_getglobal(L, "escaped");
  if (!lua_isnil(L, -1)) fail_msg("%s: code ran after the stop", what);
  lua_pop(L, 1);
  tutil_rt_close(S);
  lraf_manager_release(m);
}

static const char *const loops[][2] = {
  {"string.rep", "while true do local s = string.rep('x', 100000) end"},
  {"string.gsub", "local s = string.rep('ab', 50000) "
                  "while true do local r = s:gsub('a', '%0%0') end"},
  {"string.gsub backtracking", "local s = string.rep('ab', 5000) "
                  "while true do pcall(string.gsub, s, 'a.-b', 'x') end"},
  {"table.concat", "local t = {} for i = 1, 10000 do t[i] = 'abcdefgh' end "
                   "while true do local r = table.concat(t, ',') end"},
  {"lpeg.match", "local lpeg = require 'lpeg' local p = lpeg.P'a'^0 * 'b' "
                 "local s = string.rep('a', 100000) "
                 "while true do local r = p:match(s) end"},
  {"string.find", "local s = string.rep('a', 100000) "
                  "while true do local r = s:find('%d') end"},
};

static void test_loops(void **state) {
  size_t i;
  int64_t quota = getenv("LRAF_QUICK") ? 2000000 : 10000000;
  (void)state;
  for (i = 0; i < sizeof loops / sizeof *loops; i++)
    expect_stop(loops[i][0], loops[i][1], quota, 0.10);
  printf("  %d native loops stopped within 10%% of the quota\n", (int)i);
}

/* Calls whose cost is known before they run and exceeds the quota stop
   at once, charged one unit past the quota, and allocate nothing. */
static void test_fail_fast(void **state) {
  static const char *const calls[][2] = {
    {"string.rep 2^30", "local ok = pcall(string.rep, 'x', 2^30) escaped = true"},
    {"string.rep with sep", "string.rep('x', 2^29, ',')"},
    {"table.move 2^40", "table.move({}, 1, 2^40, 1, {})"},
    {"table.unpack 9e5", "pcall(table.unpack, {}, 1, 9e5) escaped = true"},
    {"string.pack c2e9", "string.pack('c2000000000', '')"},
    {"string.format", "local s = string.rep('x', 1000) "
                      "string.format(string.rep('%s', 200), "
                      "table.unpack(setmetatable({}, {__index = function() return s end}), 1, 200))"},
  };
  size_t i;
  (void)state;
  for (i = 0; i < sizeof calls / sizeof *calls; i++) {
    lraf_manager *m;
    lraf_state *S = limited(100000, &m);
    lraf_error err;
    size_t used, peak;
    lraf_status st = tutil_rt_run(S, calls[i][1], &err);
    lua_State *L = lraf_lua(S);
    if (st != LRAF_EQUOTA)
      fail_msg("%s: status %s (%s)", calls[i][0], lraf_status_name(st),
               err.message);
    lraf_memory(S, &used, &peak);
    if (peak > 4u << 20)
      fail_msg("%s: the state reached %zu bytes", calls[i][0], peak);
    if (lraf_manager_total(m) > 100000 + 1000)
      fail_msg("%s: %lld charged", calls[i][0],
               (long long)lraf_manager_total(m));
    lua_getglobal(L, "escaped");
    assert_true(lua_isnil(L, -1));
    lua_pop(L, 1);
    tutil_rt_close(S);
    lraf_manager_release(m);
  }
}

/* Calls that Lua's own checks refuse before any work: under a quota of
   10^9 each returns false with lua5.4's message and costs little (they
   were charged their size first, and stopped the script). */
static void test_refused_like_lua(void **state) {
  static const char *const calls[][2] = {
    {"string.rep('x', 2^40)", "resulting string too large"},
    {"string.rep('x', 2^31)", "resulting string too large"},
    {"string.rep('ab', 2^30, ',')", "resulting string too large"},
    {"string.rep({}, 2^40)", "bad argument #1 "},
    {"string.rep('x', 2^40, {})", "bad argument #3 "},
    {"table.unpack({}, 1, 1e8)", "too many results to unpack"},
    {"table.unpack({}, 1, 2^40)", "too many results to unpack"},
    {"table.unpack({}, -2^62, 2^62)", "too many results to unpack"},
    {"table.move({}, 1, math.maxinteger, 2)", "destination wrap around"},
    {"table.move({}, -1, math.maxinteger, 2)", "too many elements to move"},
    {"table.move({}, 1, 2^40)", "bad argument #4 "},
    {"string.pack('c' .. ('9'):rep(30), '')", "invalid format option '9'"},
  };
  size_t i;
  (void)state;
  for (i = 0; i < sizeof calls / sizeof *calls; i++) {
    lraf_manager *m;
    lraf_state *S = limited(1000000000, &m);
    lraf_error err;
    char src[256];
    lraf_status st;
    lua_State *L = lraf_lua(S);
    snprintf(src, sizeof src, "local ok, e = pcall(function() return %s end)"
             " assert(not ok) msg = e", calls[i][0]);
    st = tutil_rt_run(S, src, &err);
    if (st != LRAF_OK)
      fail_msg("%s: status %s (%s)", calls[i][0], lraf_status_name(st),
               err.message);
    lua_getglobal(L, "msg");
    if (lua_tostring(L, -1) == NULL ||
        strstr(lua_tostring(L, -1), calls[i][1]) == NULL)
      fail_msg("%s: error '%s', not '%s'", calls[i][0], lua_tostring(L, -1),
               calls[i][1]);
    lua_pop(L, 1);
    if (lraf_manager_total(m) > 100000)
      fail_msg("%s: %lld charged", calls[i][0],
               (long long)lraf_manager_total(m));
    tutil_rt_close(S);
    lraf_manager_release(m);
  }
}

/* table.move through metamethods is paid as it goes: a move of 2^63
   elements that __newindex ends at its first write (Lua's sort.lua)
   costs little and returns false; one that goes on is stopped by the
   quota near it. */
static void test_move_metered(void **state) {
  lraf_manager *m;
  lraf_state *S = limited(1000000000, &m);
  lraf_error err;
  (void)state;
  assert_int_equal(tutil_rt_run(S, "local a = setmetatable({}, {__index = "
                   "function() end, __newindex = function() error() end}) "
                   "assert(not pcall(table.move, a, 1, math.maxinteger, 0)) "
                   "assert(not pcall(table.move, a, math.mininteger, -2, 0))",
                   &err), LRAF_OK);
  if (lraf_manager_total(m) > 1000000)  /* a first slice of 1024 moves */
    fail_msg("%lld charged", (long long)lraf_manager_total(m));
  tutil_rt_close(S);
  lraf_manager_release(m);
  expect_stop("table.move through __index", "table.move(setmetatable({}, "
              "{__index = function() end}), 1, 2^40, 1, {})", 1000000, 0.10);
}

/* Searches that take O(n^5) steps in stock Lua are stopped by the quota
   while the dry run searches. */
static void test_catastrophic_patterns(void **state) {
  static const char *const cases[][2] = {
    {"find .-.-.-.-b", "string.find(('a'):rep(5e4), '.-.-.-.-b')"},
    {"match nested", "string.match(('a'):rep(5e4), '(.-)(.-)(.-)(.-)b')"},
    {"gmatch", "for x in ('a'):rep(5e4):gmatch('a*a*a*a*b') do end"},
    {"gsub", "pcall(string.gsub, ('a'):rep(5e4), '.*.*.*b', '') escaped = true"},
    {"balance", "string.find(('('):rep(1e5), '%b()')"},
    {"backref", "string.find(('a'):rep(1e5), '(a*)%1b')"},
  };
  size_t i;
  (void)state;
  for (i = 0; i < sizeof cases / sizeof *cases; i++)
    expect_stop(cases[i][0], cases[i][1], 1000000, 0.10);
  printf("  %d catastrophic searches stopped\n", (int)i);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_loops),
    cmocka_unit_test(test_fail_fast),
    cmocka_unit_test(test_refused_like_lua),
    cmocka_unit_test(test_move_metered),
    cmocka_unit_test(test_catastrophic_patterns),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
