/*
** test_rt_counter.c - the shared counter and consume (rt_counter.c):
** consume runs when the counter reaches zero, charges what ran and
** restarts the counter at the manager's granularity (a manager that
** hears every charge sees each one the size of its grant, their sum the
** hook's count); a small native charge waits apart, a larger one joins
** the counter while the grant lasts, one past it reaches the manager at
** once, and one that a limit cannot grant is
** recorded to one unit past the quota; flushing leaves nothing live;
** rt_own_upvalues tells lraf's functions from others on the stock
** target.
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
#include "tutil_run.h"

typedef struct heard {
  int64_t grant;   /* what granularity returns */
  int64_t sum;
  int calls;       /* charges other than 0 */
  int64_t max;     /* the largest charge */
  int64_t over;    /* charges above grant + slack */
} heard;

/* What one block of the loop below can charge past a zero check. */
#define SLACK 16

static lraf_verdict hear(void *ud, lraf_account *a, int64_t n, int p) {
  heard *h = ud;
  (void)a;
  (void)p;
  if (n == 0) return LRAF_CONTINUE;  /* a flush with nothing to say */
  h->sum += n;
  h->calls++;
  if (n > h->max) h->max = n;
  if (n > h->grant + SLACK) h->over++;
  return LRAF_CONTINUE;
}

static int64_t grant(void *ud, lraf_account *a, int64_t dflt) {
  (void)a;
  (void)dflt;
  return ((heard *)ud)->grant;
}

/* Every consume charges about the grant; all of them the hook's count. */
static void test_consume_at_zero(void **state) {
  static const char src[] = "local s = 0\n"
                            "for i = 1, 20000 do s = s + i % 3 end\n";
  static const int64_t grants[] = {1, 50, 999, 100000000};
  static const lraf_manager_ops ops = {hear, grant, NULL};
  tutil_run hook;
  size_t i;
  (void)state;
  tutil_run_hook(src, strlen(src), "=t", &hook);
  for (i = 0; i < sizeof grants / sizeof grants[0]; i++) {
    heard h = {grants[i], 0, 0, 0, 0};
    lraf_options opt;
    lraf_state *S;
    lraf_error err;
    lraf_default_options(&opt);
    opt.manager = lraf_manager_new(&ops, &h);
    S = tutil_rt_new(&opt);
    assert_int_equal(lraf_load_string(S, src, strlen(src), "=t", &err),
                     LRAF_OK);
    assert_int_equal(lraf_call(S, 0, 0, &err), LRAF_OK);
    assert_int_equal(h.sum, hook.count);
    assert_int_equal(h.over, 0);
    /* a consume at every grant's end, and the flush at the return */
    if (grants[i] < hook.count)
      assert_true(h.calls >= hook.count / (grants[i] + SLACK));
    else
      assert_int_equal(h.calls, 1);
    tutil_rt_close(S);
    lraf_manager_release(opt.manager);
  }
  tutil_run_free(&hook);
}

/* charge(n): rt_charge, then what waits in the counter's pending part
   and whether the manager heard of it. */
static int charge(lua_State *L) {
  lraf_state *S = rt_state(L);
  lraf_manager *m = lraf_account_manager(S->main.acct);
  int64_t before = lraf_manager_total(m);
  rt_charge(L, luaL_checkinteger(L, 1));
  lua_pushinteger(L, (lua_Integer)S->pending);
  lua_pushboolean(L, lraf_manager_total(m) != before);
  return 2;
}

static lraf_state *with_charge(lraf_manager *m) {
  lraf_options opt;
  lraf_state *S;
  lraf_default_options(&opt);
  opt.manager = m;
  opt.native = 0;
  S = tutil_rt_new(&opt);
  lua_pushcfunction(lraf_lua(S), charge);
  lua_setglobal(lraf_lua(S), "charge");
  return S;
}

/* Small charges wait apart, larger ones join the counter while the
   grant lasts, and one past the grant goes to the manager at once; the
   native units and the total have them all. */
static void test_native_charges(void **state) {
  static const struct {
    int64_t grant, n;
    int pending, reaches;
  } cases[] = {
    {1000000, 1, 1, 0},
    {1000000, RT_PENDING_MAX - 1, RT_PENDING_MAX - 1, 0},
    {1000000, RT_PENDING_MAX, 0, 0},
    {1000000, 500000, 0, 0},
    {1000, 50000, 0, 1},
  };
  static const lraf_manager_ops ops = {hear, grant, NULL};
  size_t i;
  (void)state;
  for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    heard h = {cases[i].grant, 0, 0, 0, 0};
    lraf_manager *m = lraf_manager_new(&ops, &h);
    lraf_state *S = with_charge(m);
    lraf_error err;
    char src[128], want[64];
    int64_t before;
    snprintf(src, sizeof src, "print(charge(%lld))", (long long)cases[i].n);
    snprintf(want, sizeof want, "%d\t%s\n", cases[i].pending,
             cases[i].reaches ? "true" : "false");
    assert_int_equal(tutil_rt_run(S, "local x = 1", &err), LRAF_OK);
    before = lraf_total(S);
    assert_int_equal(tutil_rt_run(S, src, &err), LRAF_OK);
    assert_string_equal(tutil_rt_output(S, NULL), want);
    assert_int_equal(lraf_native_units(S), cases[i].n);
    assert_true(lraf_total(S) - before >= cases[i].n);
    assert_int_equal(h.sum, lraf_total(S));
    tutil_rt_close(S);
    lraf_manager_release(m);
  }
}

/* A charge a limit cannot grant: the stop, recorded one unit past the
   quota, and pcall does not catch it. */
static void test_charge_past_limit(void **state) {
  lraf_manager *m = lraf_limit_new(10000);
  lraf_state *S = with_charge(m);
  lraf_error err;
  (void)state;
  assert_int_equal(tutil_rt_run(S, "pcall(charge, 1000000) print('after')",
                                &err), LRAF_EQUOTA);
  assert_int_equal(lraf_manager_total(m), 10001);
  assert_true(lraf_native_units(S) < 10001);
  assert_string_equal(tutil_rt_output(S, NULL), "");
  tutil_rt_close(S);
  lraf_manager_release(m);
}

/* rt_flush from C mid-run: everything live goes to the manager. */
static int flush(lua_State *L) {
  lraf_state *S = rt_state(L);
  rt_flush(S, L, 0, 0);
  lua_pushinteger(L, (lua_Integer)rt_live(S, L));
  lua_pushinteger(L, (lua_Integer)lraf_manager_total(
                         lraf_account_manager(S->main.acct)));
  lua_pushinteger(L, (lua_Integer)rt_total(S, L));
  return 3;
}

static void test_flush(void **state) {
  lraf_state *S = tutil_rt_new(NULL);
  lraf_error err;
  long long live, total, all;
  (void)state;
  lua_pushcfunction(lraf_lua(S), flush);
  lua_setglobal(lraf_lua(S), "flush");
  assert_int_equal(tutil_rt_run(S, "local s = 0 for i = 1, 3000 do "
                                   "s = s + i end print(flush())", &err),
                   LRAF_OK);
  assert_int_equal(sscanf(tutil_rt_output(S, NULL), "%lld %lld %lld", &live,
                          &total, &all), 3);
  assert_int_equal(live, 0);
  assert_true(total >= 6000);
  assert_int_equal(total, all);
  tutil_rt_close(S);
}

/* The stock target's functions carry two upvalues more: rt_own_upvalues
   says how many are the function's own, -1 for any other function. */
static void test_own_upvalues(void **state) {
  static const struct {
    const char *src;  /* returns the function */
    int rewritten;    /* loaded through lraf */
    int want;
  } cases[] = {
    {"local a, b = 1, 2 return function() return a + b end", 1, 2},
    {"return function() return 1 end", 1, 0},
    {"return function() return print end", 1, 1},
    {"local a = 1 return function() return a end", 0, -1},
    {"return print", 1, -1},
    {"return 42", 1, -1},
  };
  size_t i;
  (void)state;
  for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    lraf_options opt;
    lraf_state *S;
    lraf_error err;
    lua_State *L;
    lraf_default_options(&opt);
    opt.vm = LRAF_VM_STOCK;
    S = tutil_rt_new(&opt);
    L = lraf_lua(S);
    if (cases[i].rewritten) {
      assert_int_equal(lraf_load_string(S, cases[i].src,
                                        strlen(cases[i].src), "=u", &err),
                       LRAF_OK);
      assert_int_equal(lraf_call(S, 0, 1, &err), LRAF_OK);
    } else {
      assert_int_equal(luaL_dostring(L, cases[i].src), LUA_OK);
    }
    if (rt_own_upvalues(L, -1) != cases[i].want)
      fail_msg("case %zu: %d", i, rt_own_upvalues(L, -1));
    tutil_rt_close(S);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_consume_at_zero),
    cmocka_unit_test(test_native_charges),
    cmocka_unit_test(test_charge_past_limit),
    cmocka_unit_test(test_flush),
    cmocka_unit_test(test_own_upvalues),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
