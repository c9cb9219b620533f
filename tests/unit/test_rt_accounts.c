/*
** test_rt_accounts.c - the embedding API: manager inheritance and
** re-binding, resuming coroutines from C, exact reads while code runs,
** J-RAF2's flush-and-diff benchmarking, require "lraf", error messages,
** and counts that do not depend on the granularity or the mode's
** bookkeeping.
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

#include "tutil_rt.h"
#include "tutil_run.h"

static lraf_state *make(int exact, lraf_manager *m, int64_t granularity) {
  lraf_options opt;
  lraf_default_options(&opt);
  opt.exact = exact;
  opt.manager = m;
  opt.keep_accounts = 1000;
  if (granularity > 0) opt.granularity = granularity;
  return tutil_rt_new(&opt);
}

static void run_ok(lraf_state *S, const char *src) {
  lraf_error err;
  if (tutil_rt_run(S, src, &err) != LRAF_OK)
    fail_msg("%s\n-> %s", src, err.message);
}

static long long hook_count(const char *src) {
  tutil_run r;
  long long n;
  tutil_run_hook(src, strlen(src), "=test", &r);
  assert_true(r.ok);
  n = r.count;
  tutil_run_free(&r);
  return n;
}

/* Coroutines inherit their creator's manager; re-binding splits the
   count exactly. */
static void test_inheritance_and_rebinding(void **state) {
  lraf_manager *a = lraf_total_new(), *b = lraf_total_new();
  lraf_state *S = make(1, a, 0);
  lua_State *L = lraf_lua(S);
  const char *part1 = "local s = 0 for i = 1, 100 do s = s + i end";
  const char *make_co =
    "co = coroutine.create(function() local x = 0 for i = 1, 10 do x = x + i end"
    " coroutine.yield(x)"
    " inner = coroutine.create(function() for i = 1, 5 do end end)"
    " coroutine.resume(inner) end)";
  lraf_account *coacct, *inner;
  lraf_error err;
  (void)state;
  run_ok(S, part1);
  assert_int_equal(lraf_manager_total(a), hook_count(part1));
  run_ok(S, make_co);
  lua_getglobal(L, "co");
  coacct = lraf_thread_account(S, lua_tothread(L, -1));
  lua_pop(L, 1);
  assert_non_null(coacct);
  assert_ptr_equal(lraf_account_manager(coacct), a);  /* inherited */
  assert_int_equal(lraf_set_manager(S, coacct, b, &err), LRAF_OK);
  run_ok(S, "coroutine.resume(co) coroutine.resume(co)");
  lua_getglobal(L, "inner");
  inner = lraf_thread_account(S, lua_tothread(L, -1));
  lua_pop(L, 1);
  /* created inside co, so bound to co's manager */
  assert_ptr_equal(lraf_account_manager(inner), b);
  assert_int_equal(lraf_manager_total(b),
                   lraf_consumed(S, coacct) + lraf_consumed(S, inner));
  assert_int_equal(lraf_manager_total(a) + lraf_manager_total(b),
                   tutil_rt_total(S));
  /* re-bind the main account between two runs */
  assert_int_equal(lraf_set_manager(S, lraf_main_account(S), b, &err),
                   LRAF_OK);
  {
    int64_t before = lraf_manager_total(b), atotal = lraf_manager_total(a);
    run_ok(S, part1);
    assert_int_equal(lraf_manager_total(b) - before, hook_count(part1));
    assert_int_equal(lraf_manager_total(a), atotal);
  }
  tutil_rt_close(S);
  lraf_manager_release(a);
  lraf_manager_release(b);
}

/* A host function that reads the running account exactly. */
static int host_count(lua_State *L) {
  lraf_state *S = lraf_from_lua(L);
  lua_pushinteger(L, lraf_consumed(S, lraf_current_account(S)));
  return 1;
}

static void test_exact_reads(void **state) {
  lraf_state *S = make(1, NULL, 1000000);
  lua_State *L = lraf_lua(S);
  (void)state;
  lua_pushcfunction(L, host_count);
  lua_setglobal(L, "host_count");
  run_ok(S,
    "local lraf = require 'lraf'\n"
    "local a = lraf.count()\n"
    "local b = host_count()\n"
    "assert(b - a == 2, b - a)  -- GETTABUP and CALL of host_count\n"
    "local n, r = lraf.measure(function(x) local s = 0 for i = 1, x do s = s + i end return s end, 10)\n"
    "assert(r == 55)\n"
    "measured = n\n"
    "local m2 = lraf.measure(function()\n"
    "  local co = coroutine.wrap(function() for i = 1, 10 do coroutine.yield(i) end end)\n"
    "  for i = 1, 10 do co() end end)\n"
    "with_coroutine = m2\n"
    "local ok, e = pcall(lraf.measure, function() error('inside') end)\n"
    "assert(not ok and e:find('inside'))\n");
  lua_getglobal(L, "measured");
  /* f's own instructions: LOADI, 3 for-loop setup, FORPREP, 10 x (ADD,
     FORLOOP; the MMBIN is skipped), RETURN1 */
  assert_int_equal(lua_tointeger(L, -1), 5 + 10 * 2 + 1);
  lua_pop(L, 1);
  lua_getglobal(L, "with_coroutine");
  assert_true(lua_tointeger(L, -1) > 10 * 4);
  lua_pop(L, 1);
  tutil_rt_close(S);
}

/* J-RAF2 Fig. 4: flush, read the manager, run, flush, read again. */
static void test_flush_and_diff(void **state) {
  lraf_manager *m = lraf_total_new();
  lraf_state *S = make(0, m, 0);
  lraf_error err;
  const char *bench = "local t = {} for i = 1, 5000 do t[i] = i % 13 end table.sort(t)";
  int64_t before, after;
  (void)state;
  run_ok(S, "x = 1");
  assert_int_equal(lraf_flush(S, &err), LRAF_OK);
  before = lraf_manager_total(m);
  assert_int_equal(lraf_load_string(S, bench, strlen(bench), "=b", &err), LRAF_OK);
  assert_int_equal(lraf_call(S, 0, 0, &err), LRAF_OK);
  assert_int_equal(lraf_flush(S, &err), LRAF_OK);
  after = lraf_manager_total(m);
  printf("  benchmark: %lld instructions\n", (long long)(after - before));
  assert_int_equal(after - before, hook_count(bench));
  tutil_rt_close(S);
  lraf_manager_release(m);
}

/* Resuming from C attributes the coroutine's work to its own account. */
static void test_resume_from_c(void **state) {
  lraf_state *S = make(1, NULL, 0);
  lua_State *L = lraf_lua(S), *co;
  lraf_error err;
  lraf_costatus cs;
  lraf_account *acct;
  int64_t main_before;
  int n;
  const char *body = "local a = ... for i = 1, a do a = a + coroutine.yield(i) end return a";
  (void)state;
  assert_int_equal(lraf_load_string(S, body, strlen(body), "=co", &err), LRAF_OK);
  co = lua_newthread(L);
  lua_pushvalue(L, -2);
  lua_xmove(L, co, 1);
  main_before = lraf_consumed(S, lraf_main_account(S));
  lua_pushinteger(co, 3);
  assert_int_equal(lraf_resume(S, co, 1, &n, &cs, &err), LRAF_OK);
  assert_int_equal(cs, LRAF_CO_YIELDED);
  assert_int_equal(n, 1);
  assert_int_equal(lua_tointeger(co, -1), 1);
  lua_pop(co, 1);
  do {
    lua_pushinteger(co, 10);
    assert_int_equal(lraf_resume(S, co, 1, &n, &cs, &err), LRAF_OK);
    if (cs == LRAF_CO_YIELDED) lua_pop(co, n);
  } while (cs == LRAF_CO_YIELDED);
  assert_int_equal(cs, LRAF_CO_DONE);
  assert_int_equal(lua_tointeger(co, -1), 33);
  acct = lraf_thread_account(S, co);
  assert_int_equal(lraf_consumed(S, lraf_main_account(S)), main_before);
  assert_true(lraf_consumed(S, acct) > 10);
  assert_int_equal(tutil_rt_total(S), main_before + lraf_consumed(S, acct));
  /* an error ends the coroutine and is reported */
  lua_settop(L, 0);
  assert_int_equal(lraf_load_string(S, "error('co failed')", 18, "=e", &err), LRAF_OK);
  co = lua_newthread(L);
  lua_pushvalue(L, -2);
  lua_xmove(L, co, 1);
  assert_int_equal(lraf_resume(S, co, 0, &n, &cs, &err), LRAF_ERUN);
  assert_non_null(strstr(err.message, "co failed"));
  lua_settop(L, 0);
  tutil_rt_close(S);
}

static void test_error_messages(void **state) {
  lraf_options opt;
  lraf_state *S = make(0, NULL, 0);
  lraf_error err;
  (void)state;
  assert_int_equal(tutil_rt_run(S, "local x = nil; return x.y", &err), LRAF_ERUN);
  assert_string_equal(err.message, "test:1: attempt to index a nil value (local 'x')");
  assert_int_equal(tutil_rt_run(S, "error(setmetatable({}, {__tostring = "
                                   "function() return 'custom' end}))", &err),
                   LRAF_ERUN);
  assert_string_equal(err.message, "custom");
  assert_int_equal(tutil_rt_run(S, "error({})", &err), LRAF_ERUN);
  assert_string_equal(err.message, "(error object is a table value)");
  assert_int_equal(lua_gettop(lraf_lua(S)), 0);
  tutil_rt_close(S);
  lraf_default_options(&opt);
  opt.traceback = 1;
  S = tutil_rt_new(&opt);
  assert_int_equal(tutil_rt_run(S, "local function f() error('deep') end f()",
                                &err), LRAF_ERUN);
  assert_non_null(strstr(lraf_last_error(S), "stack traceback:"));
  assert_non_null(strstr(lraf_last_error(S), "in local 'f'"));
  tutil_rt_close(S);
}

/* Counts do not depend on the granularity; overhead mode adds exactly
   the accounting code (as a hook on the rewritten code sees it) plus
   RW_CONSUME_OVERHEAD per consume.  (Only without coroutines does the
   test binding call consume at the same points: lraf also restarts the
   counter at every coroutine switch.) */
static void test_granularity_and_modes(void **state) {
  static const int64_t grains[] = {1, 7, 1000, 10000, 1000000000};
  size_t len, i;
  char *src = tutil_run_slurp("tests/corpus/towers.lua", &len);
  long long oracle = -1;
  lraf_options opt;
  lraf_state *S;
  lraf_error err;
  rw_options ro;
  tutil_run rw;
  (void)state;
  assert_non_null(src);
  if (getenv("LRAF_QUICK") != NULL) {  /* smaller, for the sanitizers */
    static const char small[] =
      "local t = {} for i = 1, 2000 do t[i] = tostring(i):rep(2) end\n"
      "local s = 0 for i = 1, 100 do"
      " s = s + select(2, pcall(function() return i end)) end\n"
      "table.sort(t) print(s, #t)\n";
    free(src);
    len = sizeof small - 1;
    src = malloc(len + 1);
    assert_non_null(src);
    memcpy(src, small, len + 1);
  }
  for (i = 0; i < sizeof grains / sizeof grains[0]; i++) {
    S = make(0, NULL, grains[i]);
    assert_int_equal(lraf_load_string(S, src, len, "=towers", &err), LRAF_OK);
    assert_int_equal(lraf_call(S, 0, 0, &err), LRAF_OK);
    if (oracle < 0) oracle = tutil_rt_total(S);
    assert_int_equal(tutil_rt_total(S), oracle);
    tutil_rt_close(S);
  }
  lraf_default_options(&opt);
  opt.mode = LRAF_MODE_OVERHEAD;
  opt.granularity = 1000;
  S = tutil_rt_new(&opt);
  assert_string_equal(lraf_model(S), TUTIL_VM "/overhead");
  assert_int_equal(lraf_load_string(S, src, len, "=towers", &err), LRAF_OK);
  assert_int_equal(lraf_call(S, 0, 0, &err), LRAF_OK);
  rw_default_options(&ro);
  ro.mode = RW_OVERHEAD;
  tutil_run_rewritten(src, len, "=towers", &ro, 1000, 1, &rw);
  printf("  original %lld, overhead %lld (hook on rewritten code %lld)\n",
         oracle, (long long)tutil_rt_total(S), rw.count);
  assert_int_equal(tutil_rt_total(S), rw.count);
  if (ro.target == RW_LRAVM)  /* the hook never sees ACCT */
    assert_true(rw.count >= oracle);
  else
    assert_true(rw.count > oracle);
  tutil_run_free(&rw);
  tutil_rt_close(S);
  free(src);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_inheritance_and_rebinding),
    cmocka_unit_test(test_exact_reads),
    cmocka_unit_test(test_flush_and_diff),
    cmocka_unit_test(test_resume_from_c),
    cmocka_unit_test(test_error_messages),
    cmocka_unit_test(test_granularity_and_modes),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
