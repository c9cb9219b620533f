/*
** test_rt_lravm_refunds.c - exact mode on the lraf VM, whose blocks are as
** large as the default mode's: what a frame charged ahead is given back
** when an error discards it (luaD_pcall, luaD_closeprotected, pcall
** inside a coroutine) and when a coroutine is left suspended or dead
** (lua_resume), and lraf.count() subtracts it during a call.
**
** Each program runs unmodified under a count hook of 1 and rewritten in
** exact mode: every thread's account must equal what the hook counted
** on that thread, and the counts that the program reads during its calls
** (count() in deep frames, in message handlers, after caught errors)
** must be the hook's.  Skipped on the stock build, whose exact mode ends
** blocks at calls and error points instead.
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
#include <lualib.h>

#include "lraf.h"
#include "tutil_rt.h"

static void need_vm(void) {
  if (!lraf_vm_builtin()) {
    printf("  SKIP: built for stock Lua 5.4 (make vm for the lraf VM)\n");
    skip();
  }
}

/* Programs that leave frames by errors and yields in every way the VM
   gives refunds for. */
static const char *const cases[][2] = {
  {"pcall deep",
   "local function deep(n) if n == 0 then error('x') end"
   " local a = n * 2; deep(n - 1); a = a + 1; return a end"
   " for i = 1, 5 do print(pcall(deep, 20 + i)) end"},
  {"runtime errors",
   "local function f(k) local t = {} local a = 1"
   " if k == 1 then a = a // 0 elseif k == 2 then a = a % 0"
   " elseif k == 3 then a = t.x.y elseif k == 4 then a = #nil"
   " elseif k == 5 then a = 1 < 'x' else a = 'a' + {} end return a end"
   " for k = 1, 6 do print(pcall(f, k)) end"},
  {"xpcall handler",
   "local function h(m) local s = 0 for i = 1, 10 do s = s + i end"
   " return 'handled ' .. s end"
   " local function f(n) local x = n + 1 if n > 3 then error('e') end"
   " return f(n + 1) + x end"
   " print(xpcall(f, h, 0)) print(xpcall(f, debug.traceback ~= nil and h, 1))"},
  {"metamethods and callbacks",
   "local mt = {__index = function(t, k) if k == 'bad' then error('no') end"
   " return k end}"
   " local o = setmetatable({}, mt)"
   " print(pcall(function() local a = o.x .. o.y; return o.bad, a end))"
   " print(pcall(string.gsub, 'abc', '%w', function(c)"
   " if c == 'b' then error('cb') end return c:upper() end))"
   " print(pcall(table.sort, {3, 2, 1, 5, 4}, function(a, b)"
   " if a == 5 then error('cmp') end return a < b end))"},
  {"close handlers",
   "local function mk(n, bad) return setmetatable({}, {__close = function()"
   " local s = n * 2 if bad then error('close ' .. n) end end}) end"
   " local function f() local a <close> = mk(1) local b <close> = mk(2, true)"
   " local c <close> = mk(3) error('body') end"
   " print(pcall(f))"
   " local function g() local a <close> = mk(4, true) return 1 end"
   " print(pcall(g))"},
  {"coroutine errors",
   "local co = coroutine.create(function(a)"
   " local ok = pcall(function() coroutine.yield(a) error('in pcall') end)"
   " coroutine.yield(ok) local t = nil return t.x end)"
   " print(coroutine.resume(co, 1)) print(coroutine.resume(co))"
   " print(coroutine.resume(co)) print(coroutine.status(co))"
   " local w = coroutine.wrap(function() local x = 1 error('w') end)"
   " print(pcall(w))"},
  {"coroutines left suspended",
   "local cos = {}"
   " for i = 1, 4 do cos[i] = coroutine.wrap(function(a)"
   " local x = a + i; coroutine.yield(x); x = x * 2; coroutine.yield(x)"
   " x = x - 1 return x end) end"
   " for i = 1, 4 do for k = 1, i % 3 + 1 do cos[i](i) end end"
   " local c = coroutine.create(function() local z <close> ="
   " setmetatable({}, {__close = function() local q = 1 + 1 end})"
   " coroutine.yield(1) local y = 2 end)"
   " coroutine.resume(c) print(coroutine.close(c))"},
  {"deep coroutine frames",
   "local function rec(n) if n == 0 then coroutine.yield('bottom') return 0"
   " end local v = rec(n - 1) + n return v end"
   " local co = coroutine.wrap(function() return rec(30) end)"
   " print(co()) print(co())"
   " local co2 = coroutine.wrap(function() return rec(30) end) print(co2())"},
};

/* The program's account per thread against the hook's, and its output. */
static void check_threads(const char *name, const char *src) {
  tutil_threads oracle, acct;
  lraf_options opt;
  lraf_state *S;
  lraf_error err;
  lraf_status st;
  const char *out;
  size_t outlen;
  int i;
  tutil_rt_oracle(src, strlen(src), "=test", &oracle);
  lraf_default_options(&opt);
  opt.exact = 1;
  opt.keep_accounts = 1000;
  S = tutil_rt_new(&opt);
  st = tutil_rt_run(S, src, &err);
  tutil_rt_counts(S, &acct);
  out = tutil_rt_output(S, &outlen);
  if (!oracle.ok) fail_msg("%s: oracle failed: %s", name, oracle.error);
  if (st != LRAF_OK) fail_msg("%s: %s", name, err.message);
  if (outlen != oracle.outlen || memcmp(out, oracle.output, outlen) != 0)
    fail_msg("%s: output differs:\n%s\n-- hook:\n%s", name, out,
             oracle.output);
  if (acct.n != oracle.n)
    fail_msg("%s: %d accounts, the hook saw %d threads", name, acct.n,
             oracle.n);
  for (i = 0; i < acct.n; i++)
    if (acct.count[i] != oracle.count[i])
      fail_msg("%s: thread %d: account %lld, hook %lld", name, i,
               acct.count[i], oracle.count[i]);
  printf("  %-26s %d threads, main %lld, all agree\n", name, acct.n,
         acct.count[0]);
  tutil_threads_free(&oracle);
  tutil_threads_free(&acct);
  tutil_rt_close(S);
}

static void test_threads_agree(void **state) {
  size_t i;
  (void)state;
  need_vm();
  for (i = 0; i < sizeof cases / sizeof cases[0]; i++)
    check_threads(cases[i][0], cases[i][1]);
}

/* ---- counts read during calls ---- */

static long long hook_count;
static lua_State *hook_main;

static void count_hook(lua_State *L, lua_Debug *ar) {
  (void)ar;
  if (L == hook_main) hook_count++;
}

static int oracle_count(lua_State *L) {
  lua_pushinteger(L, (lua_Integer)hook_count);
  return 1;
}

/* Programs that record count() - base (the main thread's count) in
   deep frames, in a message handler, in __close handlers and after
   caught errors, into the global RESULT. */
static const char *const reads[][2] = {
  {"deep frames",
   "local t, base = {}, count()"
   " local function deep(n) if n == 0 then t[#t + 1] = count() - base"
   " error('x') end local a = n * 2; deep(n - 1); a = a + 1; return a end"
   " for i = 1, 3 do pcall(deep, 10 * i) t[#t + 1] = count() - base end"
   " RESULT = table.concat(t, ' ')"},
  {"message handler and close",
   "local t, base = {}, count()"
   " local function h(m) t[#t + 1] = count() - base return m end"
   " local function f(n) local c <close> = setmetatable({}, {__close ="
   " function() t[#t + 1] = count() - base end})"
   " if n == 0 then local z = nil; return z.x end return f(n - 1) + 1 end"
   " xpcall(f, h, 5) t[#t + 1] = count() - base"
   " RESULT = table.concat(t, ' ')"},
  {"calls in a block",
   "local t, base = {}, count()"
   " local function g(x) t[#t + 1] = count() - base return x + 1 end"
   " local a = g(1) local b = g(a) * 2 local c = g(b) + g(a + b)"
   " t[#t + 1] = count() - base RESULT = table.concat(t, ' ')"},
  {"coroutines between reads",
   "local t, base = {}, count()"
   " local co = coroutine.wrap(function() for i = 1, 3 do"
   " local x = i * 2; coroutine.yield(x) end end)"
   " for i = 1, 2 do co() t[#t + 1] = count() - base end"
   " RESULT = table.concat(t, ' ')"},
};

static char *oracle_reads(const char *src) {
  lua_State *L = luaL_newstate();
  char *r;
  assert_non_null(L);
  luaL_openlibs(L);
  lua_register(L, "count", oracle_count);
  hook_main = L;
  hook_count = 0;
  assert_int_equal(luaL_loadstring(L, src), LUA_OK);
  lua_sethook(L, count_hook, LUA_MASKCOUNT, 1);
  if (lua_pcall(L, 0, 0, 0) != LUA_OK)
    fail_msg("oracle: %s", lua_tostring(L, -1));
  lua_sethook(L, NULL, 0, 0);
  lua_getglobal(L, "RESULT");
  r = strdup(lua_tostring(L, -1));
  lua_close(L);
  return r;
}

static char *lraf_reads(const char *src) {
  lraf_options opt;
  lraf_state *S;
  lraf_error err;
  lua_State *L;
  char *r;
  lraf_default_options(&opt);
  opt.exact = 1;
  S = tutil_rt_new(&opt);
  if (tutil_rt_run(S, "count = require('lraf').count", &err) != LRAF_OK ||
      tutil_rt_run(S, src, &err) != LRAF_OK)
    fail_msg("lraf: %s", err.message);
  L = lraf_lua(S);
  lua_getglobal(L, "RESULT");
  r = strdup(lua_tostring(L, -1));
  lua_pop(L, 1);
  tutil_rt_close(S);
  return r;
}

static void test_counts_read_during_calls(void **state) {
  size_t i;
  (void)state;
  need_vm();
  for (i = 0; i < sizeof reads / sizeof reads[0]; i++) {
    char *hook = oracle_reads(reads[i][1]);
    char *acct = lraf_reads(reads[i][1]);
    if (strcmp(hook, acct) != 0)
      fail_msg("%s: lraf.count() read %s, the hook %s", reads[i][0], acct,
               hook);
    printf("  %-26s %s\n", reads[i][0], acct);
    free(hook);
    free(acct);
  }
}

/* A quota stop inside deep frames: the stop comes when the charge (what
   ran and what the 51 frames charged ahead, at most a block of deep's
   each) crosses the limit, and the total is what ran; what the deepest
   frame read before the stop is not more than the total. */
static void test_quota_in_deep_frames(void **state) {
  const char *src =
    "local lraf = require 'lraf'"
    " local function deep(n) if n == 0 then SEEN = lraf.count()"
    " local s = 0 while true do s = s + 1 end end"
    " local a = n + 1; deep(n - 1); a = a * 2; return a end"
    " pcall(deep, 50)";
  lraf_options opt;
  lraf_state *S;
  lraf_error err;
  lraf_manager *m;
  lua_State *L;
  int64_t total, seen;
  (void)state;
  need_vm();
  m = lraf_limit_new(20000);
  lraf_default_options(&opt);
  opt.exact = 1;
  opt.manager = m;
  S = tutil_rt_new(&opt);
  assert_int_equal(tutil_rt_run(S, src, &err), LRAF_EQUOTA);
  L = lraf_lua(S);
  lua_getglobal(L, "SEEN");
  seen = (int64_t)lua_tointeger(L, -1);
  lua_pop(L, 1);
  total = lraf_manager_total(m);
  printf("  quota 20000 in 50 frames: %lld counted, %lld at the bottom\n",
         (long long)total, (long long)seen);
  assert_true(seen > 0 && seen <= total);
  assert_true(total <= 20000 + 10);
  assert_true(total > 20000 - 51 * 20);
  tutil_rt_close(S);
  lraf_manager_release(m);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_threads_agree),
    cmocka_unit_test(test_counts_read_during_calls),
    cmocka_unit_test(test_quota_in_deep_frames),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
