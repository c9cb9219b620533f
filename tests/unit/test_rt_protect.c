/*
** test_rt_protect.c - the limit manager's quota error: runaway code of
** every shape is stopped, no Lua construct swallows the error or runs
** code after it, exhaustion is sticky, and the overshoot stays within
** the bound documented in lraf.h (computed here from the bytecode).
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
#include "tutil_vm.h"
#include "bc.h"

static lraf_state *limited(int64_t quota, lraf_env env, lraf_manager **m) {
  lraf_options opt;
  lraf_state *S;
  lraf_default_options(&opt);
  opt.env = env;
  *m = lraf_limit_new(quota);
  opt.manager = *m;
  S = tutil_rt_new(&opt);
  return S;
}

static int global_is_nil(lraf_state *S, const char *name) {
  lua_State *L = lraf_lua(S);
  int nil = lua_getglobal(L, name) == LUA_TNIL;
  lua_pop(L, 1);
  return nil;
}

/* Each must end in LRAF_EQUOTA without setting the global `escaped`. */
static const char *const escapes[][2] = {
  {"while loop", "while true do end"},
  {"numeric for", "for i = 1, math.huge do end"},
  {"goto loop", "::a:: goto a"},
  {"tail calls", "local function f(n) return f(n + 1) end return f(1)"},
  {"mutual tail calls",
   "local g; local function f(n) return g(n) end; g = function(n) return f(n) end; f(1)"},
  {"recursion", "local function f(n) local t = {n} return f(n + 1) + t[1] end f(1)"},
  {"pcall", "local ok = pcall(function() while true do end end) escaped = true"},
  {"pcall in a loop", "while true do pcall(function() while true do end end) end"},
  {"pcall around pcall",
   "pcall(function() while true do pcall(function() while true do end end) end end) escaped = true"},
  {"xpcall handler swallows",
   "xpcall(function() while true do end end, function() return 'fine' end) escaped = true"},
  {"xpcall handler loops",
   "xpcall(function() error('x') end, function() while true do end end) escaped = true"},
  {"error object __tostring loops",
   "error(setmetatable({}, {__tostring = function() while true do end end}))"},
  {"error object swallowed by pcall",
   "local ok, e = pcall(function() while true do end end) escaped = tostring(e)"},
  {"__close loops",
   "do local x <close> = setmetatable({}, {__close = function() while true do end end})"
   " while true do end end escaped = true"},
  {"__close replaces the error",
   "pcall(function() local x <close> = setmetatable({}, {__close = function() "
   "error('replaced') end}) while true do end end) escaped = true"},
  {"__gc loops",
   "setmetatable({}, {__gc = function() while true do end end}) collectgarbage()"
   " while true do end"},
  {"__gc keeps re-arming",
   "local function arm() setmetatable({}, {__gc = function() arm() for i = 1, 1e6 do end end}) end"
   " arm() while true do collectgarbage() end"},
  {"coroutine.wrap under pcall",
   "pcall(coroutine.wrap(function() while true do end end)) escaped = true"},
  {"coroutine.resume",
   "coroutine.resume(coroutine.create(function() while true do end end)) escaped = true"},
  {"coroutine.close runs a looping __close",
   "local co = coroutine.create(function() local x <close> = setmetatable({}, "
   "{__close = function() while true do end end}) coroutine.yield() end)"
   " coroutine.resume(co) coroutine.close(co) escaped = true"},
  {"yield across pcall",
   "local co = coroutine.wrap(function() while true do pcall(coroutine.yield) end end)"
   " while true do pcall(co) end"},
  {"load with a looping reader",
   "load(function() while true do end end) escaped = true"},
  {"metamethod recursion",
   "local t = setmetatable({}, {__index = function(t, k) while true do end end}) return t.x"},
  {"metamethod arithmetic loop",
   "local v = setmetatable({}, {__add = function(a, b) return a end}) while true do v = v + 1 end"},
  {"string.gsub callback",
   "string.gsub(string.rep('x', 100), '.', function() while true do end end) escaped = true"},
  {"table.sort comparator",
   "local t = {} for i = 1, 100 do t[i] = i end"
   " table.sort(t, function(a, b) while true do end end) escaped = true"},
  {"pcall(error, quota-looking value)",
   "local ok = pcall(error, setmetatable({}, {__tostring = function() return 'instruction quota exceeded' end}))"
   " while true do end"},
  {"load + dofile + require of looping code",
   "local f = load('while true do end') pcall(f) escaped = true"},
  {"stack overflow storm", "local function f() pcall(f) f() end f()"},
};

/* On the lraf VM the count after a stop is exact in exact mode: what the
   frames had charged ahead (the rest of their blocks) is given back as
   the stop unwinds them.  A stop comes when the charge crosses the
   limit, so what ran may stay under it: the block that would have
   crossed it never runs to its end. */
#ifdef LRAF_VM
#define REFUNDS 1
#else
#define REFUNDS 0
#endif

static void test_escapes(void **state) {
  size_t i;
  (void)state;
  for (i = 0; i < sizeof escapes / sizeof escapes[0]; i++) {
    lraf_manager *m;
    lraf_state *S = limited(i == sizeof escapes / sizeof escapes[0] - 1
                                ? 20000 : 300000,
                            LRAF_ENV_FULL, &m);
    lraf_error err;
    lraf_status st = tutil_rt_run(S, escapes[i][1], &err);
    if (st != LRAF_EQUOTA)
      fail_msg("%s: status %s (%s)", escapes[i][0], lraf_status_name(st),
               err.message);
    if (!global_is_nil(S, "escaped"))
      fail_msg("%s: code ran after the quota error", escapes[i][0]);
    assert_true(lraf_limit_remaining(m) < 0);
    tutil_rt_close(S);
    lraf_manager_release(m);
  }
  printf("  %d escape attempts stopped\n", (int)i);
}

/* Binary chunks and debug access in the sandbox: refused outright. */
static void test_sandbox_escapes(void **state) {
  static const char *const cases[] = {
    "local f = load(string.dump(function() while true do end end)) escaped = f == nil",
    "escaped = debug == nil and not pcall(require, 'debug') and io == nil",
    "escaped = package.loadlib == nil and os.execute == nil and os.exit == nil",
  };
  size_t i;
  (void)state;
  for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    lraf_manager *m;
    lraf_state *S = limited(100000, LRAF_ENV_SANDBOX, &m);
    lraf_error err;
    lua_State *L = lraf_lua(S);
    if (tutil_rt_run(S, cases[i], &err) != LRAF_OK)
      fail_msg("case %d: %s", (int)i, err.message);
    lua_getglobal(L, "escaped");
    if (!lua_toboolean(L, -1)) fail_msg("sandbox case %d failed", (int)i);
    lua_pop(L, 1);
    tutil_rt_close(S);
    lraf_manager_release(m);
  }
}

/* After a quota error every later call stops at its first zero check,
   until the host raises the quota. */
static void test_sticky(void **state) {
  lraf_manager *m;
  lraf_state *S = limited(5000, LRAF_ENV_FULL, &m);
  lraf_error err;
  int64_t used;
  (void)state;
  assert_int_equal(tutil_rt_run(S, "while true do end", &err), LRAF_EQUOTA);
  used = lraf_manager_total(m);
  assert_int_equal(tutil_rt_run(S, "local function f() return 1 end "
                                   "for i = 1, 10 do f() end", &err),
                   LRAF_EQUOTA);
  assert_true(lraf_manager_total(m) - used < 20);
  /* a caught quota error keeps being raised inside the script */
  assert_int_equal(tutil_rt_run(S, "for i = 1, 3 do pcall(print) end", &err),
                   LRAF_EQUOTA);
  lraf_limit_set(m, lraf_manager_total(m) + 100000);
  assert_int_equal(tutil_rt_run(S, "for i = 1, 100 do end done = true", &err),
                   LRAF_OK);
  assert_false(global_is_nil(S, "done"));
  tutil_rt_close(S);
  lraf_manager_release(m);
}

/* ---- the overshoot bound ---- */

/* Instructions of the largest function in f's tree. */
static long largest_function(const bc_proto *f) {
  long n = f->sizecode;
  int i;
  for (i = 0; i < f->sizep; i++) {
    long k = largest_function(f->p[i]);
    if (k > n) n = k;
  }
  return n;
}

/* The documented bound for src: one loop-free path through a function
   (every function checks at its entry, so a callee adds nothing). */
static long overshoot_bound(const char *src) {
  tutil_vm_buf buf;
  bc_chunk *chunk = NULL;
  lraf_error err;
  long b;
  char msg[256];
  assert_true(tutil_vm_dump(src, strlen(src), "=b", 0, &buf, msg, sizeof msg));
  assert_int_equal(bc_read(buf.data, buf.size, NULL, &chunk, &err), LRAF_OK);
  b = largest_function(chunk->main);
  bc_chunk_free(chunk);
  free(buf.data);
  return b;
}

static int64_t overshoot(const char *src, int64_t quota, int exact,
                         lraf_status *st) {
  lraf_options opt;
  lraf_state *S;
  lraf_error err;
  lraf_manager *m = lraf_limit_new(quota);
  int64_t over;
  lraf_default_options(&opt);
  opt.exact = exact;
  opt.manager = m;
  S = tutil_rt_new(&opt);
  *st = tutil_rt_run(S, src, &err);
  tutil_rt_close(S);
  over = lraf_manager_total(m) - quota;
  lraf_manager_release(m);
  return over;
}

static const char *const bounded[][2] = {
  {"empty loop", "while true do end"},
  {"long loop body",
   "local a, b, c = 1, 2, 3 while true do a = b + c; b = a * 2; c = a - b;"
   " a = a // 3; b = b % 7; c = c + a + b; local t = {a, b, c}; a = #t end"},
  {"loop calling a leaf",
   "local function leaf(x) local y = x + 1; y = y * 2; y = y - 3; return y end"
   " local s = 0 while true do s = leaf(s) % 1000 end"},
  {"recursion", "local function f(n) local a = n + 1; a = a * 2; return f(a % 7) + 1 end f(1)"},
  {"tail calls", "local function f(n) local a = n * 3 % 11; return f(a) end f(1)"},
  {"metamethod chain",
   "local mt = {} mt.__add = function(a, b) return setmetatable({v = a.v + 1}, mt) end"
   " local v = setmetatable({v = 0}, mt) while true do v = v + 1 end"},
  {"__index chain",
   "local base = setmetatable({}, {__index = function(t, k) return k * 2 end})"
   " local mid = setmetatable({}, {__index = function(t, k) return base[k] + 1 end})"
   " local s = 0 while true do s = (s + mid[3]) % 100 end"},
  {"string.gsub callback that calls",
   "local function up(c) return string.upper(c) end"
   " while true do string.gsub(string.rep('ab', 500), '.', function(c) return up(c) end) end"},
  {"table.sort comparator that calls",
   "local function key(x) return x % 17 end"
   " while true do local t = {} for i = 1, 200 do t[i] = (i * 7919) % 1000 end"
   " table.sort(t, function(a, b) return key(a) < key(b) end) end"},
};

static void test_overshoot(void **state) {
  static const int64_t quotas[] = {1000, 12345, 100003};
  size_t i, q;
  int exact;
  (void)state;
  for (i = 0; i < sizeof bounded / sizeof bounded[0]; i++) {
    long b = overshoot_bound(bounded[i][1]);
    int64_t worst = 0;
    for (exact = 0; exact <= 1; exact++)
      for (q = 0; q < sizeof quotas / sizeof quotas[0]; q++) {
        lraf_status st;
        int64_t over = overshoot(bounded[i][1], quotas[q], exact, &st);
        if (st != LRAF_EQUOTA)
          fail_msg("%s: not stopped (%s)", bounded[i][0],
                   lraf_status_name(st));
        if (over < (REFUNDS && exact ? 1 - quotas[q] : 1) || over > b)
          fail_msg("%s, quota %lld: overshoot %lld, bound %ld", bounded[i][0],
                   (long long)quotas[q], (long long)over, b);
        if (over > worst) worst = over;
      }
    printf("  %-34s overshoot <= %3lld (bound %ld)\n", bounded[i][0],
           (long long)worst, b);
  }
}

/* Two cases where many functions run back to back without passing a
   loop header: a C function calling a callback many times, and frames
   returning one after another.  Entry checks stop the first; in exact
   mode, where a block after a call is charged when the call returns,
   checks in returning blocks stop the second. */
static void test_overshoot_callbacks_and_unwinding(void **state) {
  const char *leafcb =
    "string.gsub(string.rep('x', 1000), '.', function(c) return c end)"
    " while true do end";
  const char *unwind =
    "local lraf = require 'lraf' local function f(n)"
    " if n > 0 then f(n - 1)"
    " local a = n; a = a + 1; a = a * 2; a = a - 3; a = a // 2; a = a + n;"
    " return a else bottom = lraf.count() end end f(100)";
  lraf_options opt;
  lraf_state *S;
  lraf_manager *m;
  lraf_error err;
  lraf_status st;
  lua_State *L;
  int64_t over, bottom;
  long b;
  int exact;
  (void)state;
  for (exact = 0; exact <= 1; exact++) {
    over = overshoot(leafcb, 500, exact, &st);
    assert_int_equal(st, LRAF_EQUOTA);
    b = overshoot_bound(leafcb);
    printf("  leaf callback x1000, exact=%d: overshoot %lld (bound %ld)\n",
           exact, (long long)over, b);
    assert_true(over >= (REFUNDS && exact ? -500 : 1) && over <= b);
    /* find where the descent ends, then set the quota just past it */
    lraf_default_options(&opt);
    opt.exact = exact;
    S = tutil_rt_new(&opt);
    assert_int_equal(tutil_rt_run(S, unwind, &err), LRAF_OK);
    L = lraf_lua(S);
    lua_getglobal(L, "bottom");
    bottom = lua_tointeger(L, -1);
    tutil_rt_close(S);
    m = lraf_limit_new(bottom + 1);
    opt.manager = m;
    S = tutil_rt_new(&opt);
    st = tutil_rt_run(S, unwind, &err);
    over = lraf_manager_total(m) - (bottom + 1);
    b = overshoot_bound(unwind);
    printf("  unwinding 101 frames, exact=%d: status %s, overshoot %lld "
           "(bound %ld)\n", exact, lraf_status_name(st), (long long)over, b);
    if (exact && REFUNDS) {  /* the remainders were charged on the way
                                down, and given back by the stop */
      assert_int_equal(st, LRAF_EQUOTA);
      assert_true(over <= 0);
    } else if (exact) {
      assert_int_equal(st, LRAF_EQUOTA);
      assert_true(over >= 1 && over <= b);
    } else {  /* the remainders were paid on the way down: under quota */
      assert_int_equal(st, LRAF_OK);
      assert_true(over <= 0);
    }
    tutil_rt_close(S);
    lraf_manager_release(m);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_escapes),
    cmocka_unit_test(test_sandbox_escapes),
    cmocka_unit_test(test_sticky),
    cmocka_unit_test(test_overshoot),
    cmocka_unit_test(test_overshoot_callbacks_and_unwinding),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
