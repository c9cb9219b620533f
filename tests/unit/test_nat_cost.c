/*
** test_nat_cost.c - each charged built-in is charged in proportion
** to its input: at 3 sizes, the units one call adds to the count (the
** count with native charging minus the count without) are within 20% of
** the model's units for that size, or, for pattern functions (whose size
** is the matcher's steps), within 20% of the same units per byte at every
** size and at least one model step per byte.  Host costs: lraf_native_wrap
** with a fixed charge and a cost callback, lraf_charge from a host
** function, and the default per-call charge of C module functions.
*/
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>
#include <lua.h>

#include "nat_cost.h"
#include "tutil_rt.h"
#include "tutil_run.h"

static lraf_state *new_state(int native) {
  lraf_options opt;
  lraf_default_options(&opt);
  opt.native = native;
  return tutil_rt_new(&opt);
}

/* Units the statement call adds to the count, with setup before it. */
static int64_t measure(int native, const char *setup, const char *call,
                       long long n) {
  char src[2048];
  lraf_state *S = new_state(native);
  lraf_error err;
  lua_State *L = lraf_lua(S);
  int64_t r;
  snprintf(src, sizeof src,
           "local N = %lld\n%s\nlocal lraf = require 'lraf'\n"
           "local c0 = lraf.count()\n%s\nRESULT = lraf.count() - c0\n",
           n, setup, call);
  if (tutil_rt_run(S, src, &err) != LRAF_OK)
    fail_msg("%s: %s", call, err.message);
  lua_getglobal(L, "RESULT");
  r = (int64_t)lua_tointeger(L, -1);
  lua_pop(L, 1);
  tutil_rt_close(S);
  return r;
}

static int64_t charge_of(const char *setup, const char *call, long long n) {
  return measure(1, setup, call, n) - measure(0, setup, call, n);
}

static int64_t units(const char *lib, const char *name, double size) {
  const nat_model *m = nat_find(lib, name);
  assert_non_null(m);
  return nat_units(m, (int64_t)size);
}

typedef struct ccase {
  const char *lib, *name;
  const char *setup, *call;
  double scale;       /* model size = scale * N + offset */
  double offset;
  int stack_bound;    /* sizes limited by Lua's stack */
  const char *also;   /* a second model the statement is charged by */
} ccase;

static const ccase exact_cases[] = {
  {"string", "rep", "", "local r = string.rep('ab', N // 2)", 1.5, 0, 0, NULL},
  {"string", "format", "local s = string.rep('x', N)",
   "local r = string.format('%s', s)", 1, 2, 0, NULL},
  {"string", "sub", "local s = string.rep('x', N + 5)",
   "local r = s:sub(1, N)", 1, 0, 0, NULL},
  {"string", "upper", "local s = string.rep('x', N)", "local r = s:upper()",
   1, 0, 0, NULL},
  {"string", "lower", "local s = string.rep('X', N)", "local r = s:lower()",
   1, 0, 0, NULL},
  {"string", "reverse", "local s = string.rep('xy', N // 2)",
   "local r = s:reverse()", 1, 0, 0, NULL},
  {"string", "byte", "local s = string.rep('x', N)",
   "local r = s:byte(1, N)", 1, 0, 1, NULL},
  {"string", "pack", "local s = string.rep('x', N)",
   "local r = string.pack('s4', s)", 1, 12, 0, NULL},
  {"string", "unpack", "local s = string.pack('s4', string.rep('x', N))",
   "local r = string.unpack('s4', s)", 1, 20, 0, NULL},
  {"table", "concat",
   "local t = {} for i = 1, N // 8 do t[i] = 'abcdefg' end",
   "local r = table.concat(t)", 1, 0, 0, NULL},
  {"table", "unpack", "local t = {} for i = 1, N do t[i] = i end",
   "local r = table.unpack(t, 1, N)", 1, 0, 1, NULL},
  {"table", "insert", "local t = {} for i = 1, N do t[i] = i end",
   "table.insert(t, 1, 0)", 1, 0, 0, NULL},
  {"table", "remove", "local t = {} for i = 1, N do t[i] = i end",
   "table.remove(t, 1)", 1, 0, 0, NULL},
  {"table", "move", "local a, b = {}, {} for i = 1, N do a[i] = i end",
   "table.move(a, 1, N, 1, b)", 1, 0, 0, NULL},
  {"string", "char", "local t = {} for i = 1, N do t[i] = 65 end",
   "local r = string.char(table.unpack(t, 1, N))", 1, 0, 1, "unpack"},
  {"utf8", "char", "local t = {} for i = 1, N do t[i] = 945 end",
   "local r = utf8.char(table.unpack(t, 1, N))", 1, 0, 1, "unpack"},
  {"utf8", "codepoint", "local s = string.rep('x', N)",
   "local r = utf8.codepoint(s, 1, N)", 1, 0, 1, NULL},
  {"utf8", "len", "local s = string.rep('x', N)", "local r = utf8.len(s)",
   1, 0, 0, NULL},
  {"utf8", "offset", "local s = string.rep('x', N)",
   "local r = utf8.offset(s, N // 2)", 0.5, 0, 0, NULL},
  {"_G", "tonumber", "local s = string.rep(' ', N) .. '1'",
   "local r = tonumber(s)", 1, 1, 0, NULL},
  {"_G", "load", "local s = string.rep('a = 1 + 2\\n', N // 10)",
   "local r = load(s)", 1, 0, 0, NULL},
};

static void sizes(int stack_bound, long long *n) {
  int quick = getenv("LRAF_QUICK") != NULL;
  n[0] = quick ? 2000 : 10000;
  n[1] = n[0] * 4;
  n[2] = stack_bound ? 160000 : n[0] * 16;
}

static void test_exact_models(void **state) {
  size_t i;
  int k;
  (void)state;
  for (i = 0; i < sizeof exact_cases / sizeof *exact_cases; i++) {
    const ccase *c = &exact_cases[i];
    long long n[3];
    sizes(c->stack_bound, n);
    for (k = 0; k < 3; k++) {
      double size = c->scale * (double)n[k] + c->offset;
      int64_t want = units(c->lib, c->name, size);
      int64_t got = charge_of(c->setup, c->call, n[k]);
      if (c->also != NULL) want += units("table", c->also, (double)n[k]);
      if (fabs((double)(got - want)) > 0.2 * (double)want)
        fail_msg("%s.%s at N=%lld: charged %lld, model %lld", c->lib,
                 c->name, n[k], (long long)got, (long long)want);
    }
  }
  /* table.sort: n log2 n */
  {
    long long n[3];
    sizes(0, n);
    for (k = 0; k < 3; k++) {
      int64_t want = units("table", "sort", (double)n[k] * log2((double)n[k]));
      int64_t got = charge_of("local t = {} for i = 1, N do "
                              "t[i] = (i * 7919) % 10007 end",
                              "table.sort(t)", n[k]);
      if (fabs((double)(got - want)) > 0.2 * (double)want)
        fail_msg("table.sort at N=%lld: charged %lld, model %lld", n[k],
                 (long long)got, (long long)want);
    }
  }
  printf("  %d built-ins charged within 20%% of the model at 3 sizes\n",
         (int)i + 1);
}

/* Charge per unit of n is the same (within 20%) at 3 sizes and at least
   min_per_n. */
static void proportional(const char *what, const char *setup,
                         const char *call, double min_per_n) {
  long long n[3];
  double per[3];
  int k;
  sizes(0, n);
  for (k = 0; k < 3; k++) {
    per[k] = (double)charge_of(setup, call, n[k]) / (double)n[k];
    if (per[k] < min_per_n)
      fail_msg("%s at N=%lld: %.3f units per byte, below %.3f", what, n[k],
               per[k], min_per_n);
  }
  for (k = 1; k < 3; k++)
    if (fabs(per[k] - per[0]) > 0.2 * per[0])
      fail_msg("%s: %.3f units per byte at N=%lld but %.3f at N=%lld", what,
               per[k], n[k], per[0], n[0]);
}

static double per_step(const char *name) {
  return (double)nat_find("string", name)->per_k / 1024.0;
}

static void test_patterns_proportional(void **state) {
  (void)state;
  proportional("find (linear)", "local s = string.rep('a', N)",
               "local r = s:find('%d')", per_step("find"));
  proportional("find (backtracking)", "local s = string.rep('ab', N // 2)",
               "local r = s:find('a-%d')", per_step("find"));
  proportional("find (plain)", "local s = string.rep('a', N)",
               "local r = s:find('b', 1, true)", per_step("find"));
  proportional("match", "local s = string.rep('a', N)",
               "local r = s:match('(%d+)')", per_step("match"));
  proportional("gmatch", "local s = string.rep('ab ', N // 3)",
               "for w in s:gmatch('%a+') do end", per_step("gmatch") / 3);
  proportional("gsub", "local s = string.rep('a', N)",
               "local r = s:gsub('a', 'bb')", per_step("gsub"));
  proportional("gsub (backtracking)", "local s = string.rep('ab', N // 2)",
               "local r = s:gsub('a.-b', '')", per_step("gsub"));
  proportional("collectgarbage",
               "keep = {} for i = 1, N do keep[i] = {} end",
               "collectgarbage()", 0.01);
}

/* lpeg.match, loaded through require and package.cpath. */
static void test_lpeg(void **state) {
  (void)state;
  proportional("lpeg.match",
               "local lpeg = require 'lpeg' local p = lpeg.P'a'^0 * lpeg.P'b' "
               "local s = string.rep('a', N)",
               "local r = lpeg.match(p, s)",
               (double)nat_find("lpeg", "match")->per_k / 1024.0);
  proportional("pattern:match",
               "local lpeg = require 'lpeg' local p = lpeg.P'a'^0 * lpeg.P'b' "
               "local s = string.rep('a', N)",
               "local r = p:match(s)",
               (double)nat_find("lpeg", "match")->per_k / 1024.0);
  /* another lpeg function: the default per-call charge (lpeg.type
     builds no pattern: no steps of the metered LPeg) */
  assert_int_equal(charge_of("local lpeg = require 'lpeg'",
                             "local r = lpeg.type(lpeg)", 1),
                   LRAF_NATIVE_CALL_DEFAULT);
}

/* ---- host functions ---- */

static int host_work(lua_State *L) {
  lua_Integer n = luaL_checkinteger(L, 1), i;
  for (i = 0; i < n; i += 1000) lraf_charge(L, 1000);
  lua_pushinteger(L, n);
  return 1;
}

static int host_plain(lua_State *L) {
  lua_pushinteger(L, lua_gettop(L));
  return 1;
}

static int64_t by_arg(lua_State *L, void *ud) {
  (void)ud;
  return 3 * (int64_t)lua_tointeger(L, 1);
}

static int64_t host_run(lraf_state *S, const char *call) {
  char src[256];
  lraf_error err;
  lua_State *L = lraf_lua(S);
  int64_t r;
  snprintf(src, sizeof src,
           "local lraf = require 'lraf' local c0 = lraf.count() %s "
           "RESULT = lraf.count() - c0", call);
  if (tutil_rt_run(S, src, &err) != LRAF_OK)
    fail_msg("%s: %s", call, err.message);
  lua_getglobal(L, "RESULT");
  r = (int64_t)lua_tointeger(L, -1);
  lua_pop(L, 1);
  return r;
}

static void test_host_costs(void **state) {
  lraf_state *S = new_state(0);
  lua_State *L = lraf_lua(S);
  lraf_error err;
  int64_t base;
  (void)state;
  lua_pushcfunction(L, host_plain);
  lua_setglobal(L, "plain");
  base = host_run(S, "local r = plain(7)");
  lua_pushcfunction(L, host_plain);
  assert_int_equal(lraf_native_wrap(S, L, -1, 50, by_arg, NULL, &err),
                   LRAF_OK);
  lua_setglobal(L, "costly");
  assert_int_equal(host_run(S, "local r = costly(7)") - base, 50 + 21);
  assert_int_equal(host_run(S, "local r = costly(1000)") - base, 50 + 3000);
  lua_pushcfunction(L, host_work);
  lua_setglobal(L, "work");
  assert_int_equal(host_run(S, "local r = work(20000)") - base, 20000);
  lua_pushinteger(L, 1);
  assert_int_equal(lraf_native_wrap(S, L, -1, 1, NULL, NULL, &err),
                   LRAF_EARG);
  lua_pop(L, 1);
  tutil_rt_close(S);
}

/* A host function that charges as it runs is stopped by a quota. */
static void test_host_quota(void **state) {
  lraf_options opt;
  lraf_state *S;
  lraf_error err;
  lraf_manager *m = lraf_limit_new(100000);
  (void)state;
  lraf_default_options(&opt);
  opt.manager = m;
  S = tutil_rt_new(&opt);
  lua_pushcfunction(lraf_lua(S), host_work);
  lua_setglobal(lraf_lua(S), "work");
  assert_int_equal(tutil_rt_run(S, "pcall(work, 1e12) escaped = true", &err),
                   LRAF_EQUOTA);
  assert_true(lraf_manager_total(m) <= 101001);
  lua_getglobal(lraf_lua(S), "escaped");
  assert_true(lua_isnil(lraf_lua(S), -1));
  lua_pop(lraf_lua(S), 1);
  tutil_rt_close(S);
  lraf_manager_release(m);
}

/* The cost-model id names the native table; without native it is the
   rewriter's id alone. */
static void test_model_id(void **state) {
  lraf_state *a = new_state(0), *b = new_state(1);
  char want[64];
  (void)state;
  snprintf(want, sizeof want, TUTIL_VM "/original/native-%08x",
           (unsigned)nat_hash());
  assert_string_equal(lraf_model(a), TUTIL_VM "/original");
  assert_string_equal(lraf_model(b), want);
  tutil_rt_close(a);
  tutil_rt_close(b);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_exact_models),
    cmocka_unit_test(test_patterns_proportional),
    cmocka_unit_test(test_lpeg),
    cmocka_unit_test(test_host_costs),
    cmocka_unit_test(test_host_quota),
    cmocka_unit_test(test_model_id),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
