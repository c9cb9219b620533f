/*
** test_rw_cfg_fold.c - branch folding (rw_cfg.c): a test charges one of
** its branches ahead and the other branch takes the charge back.
** Programs full of while loops, if-else chains, early returns, breaks,
** metamethods and errors inside tests must count what the count hook
** counts (default and exact modes, small and large granularities); the
** folds must happen and save accounting instructions; through the
** runtime, a limit equal to a program's count must never stop it, and
** when a refund reaches a manager the sum stays exact.  Also the
** documented difference of yields inside comparison metamethods.
*/
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tutil_oracle.h"
#include "tutil_rt.h"
#include "tutil_run.h"

typedef struct program {
  const char *name;
  const char *src;
} program;

static const program programs[] = {
  {"while loops on every kind of test",
   "local function flips(work, k)\n"
   "  local n = 0\n"
   "  while k ~= 1 do\n"
   "    local i, j = 1, k\n"
   "    while i < j do\n"
   "      work[i], work[j] = work[j], work[i]\n"
   "      i = i + 1; j = j - 1\n"
   "    end\n"
   "    n = n + 1\n"
   "    k = work[1]\n"
   "  end\n"
   "  return n\n"
   "end\n"
   "local node = nil\n"
   "for i = 1, 50 do node = {v = i, next = node} end\n"
   "local s = 0\n"
   "while node do s = s + node.v; node = node.next end\n"
   "local w, total = {}, 0\n"
   "for r = 1, 200 do\n"
   "  for i = 1, 8 do w[i] = (i * r + r // 3) % 8 + 1 end\n"
   "  local seen, ok = {}, true\n"
   "  for i = 1, 8 do if seen[w[i]] then ok = false end seen[w[i]] = true end\n"
   "  if ok then total = total + flips(w, w[1]) end\n"
   "end\n"
   "print(s, total)\n"},
  {"branches in loops, either side dearer",
   "local a, b = 0, 0\n"
   "for i = 1, 300 do\n"
   "  if i % 3 == 0 then a = a + i; a = a * 2 % 1000; a = a - 1\n"
   "  else b = b + 1 end\n"
   "  if i % 5 ~= 0 then b = b + i\n"
   "  else a = a + 1; b = b * 3 % 777; a = a ~ b; b = b + a % 5 end\n"
   "end\n"
   "local function find(t, x)\n"
   "  local i = 1\n"
   "  while t[i] do\n"
   "    if t[i] == x then return i end\n"
   "    i = i + 1\n"
   "  end\n"
   "  return nil\n"
   "end\n"
   "local t = {}\n"
   "for i = 1, 40 do t[i] = i * 7 % 41 end\n"
   "local found = 0\n"
   "for x = 1, 60 do if find(t, x) then found = found + 1 end end\n"
   "local function sign(x) if x then return 1 else return -1 end end\n"
   "print(a, b, found, sign(nil), sign(0))\n"},
  {"loops left by break and goto",
   "local n, i = 0, 0\n"
   "while true do\n"
   "  i = i + 1\n"
   "  if i > 100 then break end\n"
   "  if i % 2 == 0 then n = n + i else n = n - 1 end\n"
   "end\n"
   "local k = 0\n"
   "::again::\n"
   "k = k + 1\n"
   "if k < 50 then n = n + k; goto again end\n"
   "repeat n = n - 1 until n % 7 == 0\n"
   "local function r(j) repeat j = j + 1 until j >= 10 return j end\n"
   "local function g(t) ::top:: if t.n > 0 then t.n = t.n - 1 goto top end\n"
   "  return t.n end\n"
   "print(n, i, k, r(0), r(20), g({n = 12}))\n"},
  {"a loop that ends the chunk",
   "local i, s = 0, 0\n"
   "while i < 100 do\n"
   "  i = i + 1; s = s + i * 2; s = s % 1013; s = s ~ i; s = s - 3\n"
   "  s = s * 5 % 4099; s = s + (s >> 3); s = s & 0xffff\n"
   "end\n"
   "print(s)\n"},
  {"metamethods in tests",
   "local mt = {}\n"
   "mt.__lt = function(a, b) local s = 0 for j = 1, 3 do s = s + j end\n"
   "  return a.v < b.v end\n"
   "mt.__index = function(t, k) local s = 0 for j = 1, 4 do s = s + j end\n"
   "  return k < 30 and s or nil end\n"
   "local lo, hi = setmetatable({v = 0}, mt), setmetatable({v = 200}, mt)\n"
   "local c = 0\n"
   "while lo < hi do\n"
   "  rawset(lo, 'v', lo.v + 3); c = c + 1\n"
   "  if c % 7 == 0 then rawset(hi, 'v', hi.v - 1) end\n"
   "end\n"
   "local p = setmetatable({}, mt)\n"
   "local q = 1\n"
   "while p[q] do q = q + 1 end\n"
   "print(c, rawget(lo, 'v'), rawget(hi, 'v'), q)\n"},
  {"a test that yields through its metamethod",
   "local more = setmetatable({}, {__index = function(t, k)\n"
   "  return coroutine.yield(k) end})\n"
   "local co = coroutine.wrap(function()\n"
   "  local s, i = 0, 1\n"
   "  while more.go do\n"
   "    s = s + i; s = s * 3 % 1001; s = s - 7; s = s ~ 5; i = i + 1\n"
   "  end\n"
   "  return s\n"
   "end)\n"
   "co()\n"
   "for i = 1, 30 do co(true) end\n"
   "print(co(false))\n"},
  {"a recursive test that yields through its metamethod",
   "local more = setmetatable({}, {__index = function(t, k)\n"
   "  return coroutine.yield(k) end})\n"
   "local function step(s, i)\n"
   "  if not more.go then return s end\n"
   "  s = s + i; s = s * 3 % 1001; s = s - 7; s = s ~ 5\n"
   "  return step(s, i + 1)\n"
   "end\n"
   "local co = coroutine.wrap(function() return step(0, 1) end)\n"
   "co()\n"
   "for i = 1, 30 do co(true) end\n"
   "print(co(false))\n"},
  {"errors in tests",
   "local errs, s = 0, 0\n"
   "for i = 1, 200 do\n"
   "  local ok = pcall(function()\n"
   "    local x = (i % 9 == 0) and {} or i\n"
   "    local j = 0\n"
   "    while j < x do j = j + 1; s = s + j % 3; s = s * 2 % 1009 end\n"
   "  end)\n"
   "  if not ok then errs = errs + 1 end\n"
   "end\n"
   "print(errs, s)\n"},
};

enum { NPROGRAMS = sizeof programs / sizeof programs[0] };

static int abandons_blocks(const program *p) {
  return strstr(p->name, "errors") != NULL;
}

static void check(const program *p, const rw_options *opt,
                  long long granularity) {
  tutil_run hook, rw;
  tutil_oracle_both(p->src, p->name, opt, granularity, &hook, &rw);
  printf("  %-42s %-7s g=%-6lld hook %7lld lraf %7lld branch folds %ld\n",
         p->name, opt->exact ? "exact" : "default", granularity, hook.count,
         rw.count, rw.stats.branch_folds);
  if (!opt->exact && abandons_blocks(p))
    /* an error in a test abandons the branch charged ahead with it; on
       the lraf VM the loop's body pays at its jump back instead (and an
       error there charges what ran of it): never under the hook */
    assert_true(opt->target == RW_LRAVM ? rw.count >= hook.count
                                        : rw.count > hook.count);
  else
    assert_int_equal(rw.count, hook.count);
  tutil_run_free(&hook);
  tutil_run_free(&rw);
}

static void test_exact_with_branch_folds(void **state) {
  static const long long grans[] = {7, 100000};
  int i, g;
  (void)state;
  for (i = 0; i < NPROGRAMS; i++)
    for (g = 0; g < 2; g++) {
      rw_options opt;
      rw_default_options(&opt);
      check(&programs[i], &opt, grans[g]);
      opt.exact = 1;
      check(&programs[i], &opt, grans[g]);
    }
}

static double ratio_of(const program *p, const rw_options *opt,
                       rw_stats *stats) {
  double ratio = tutil_run_accounting_ratio(p->src, strlen(p->src), p->name,
                                            opt, stats);
  assert_true(ratio >= 0);  /* both runs succeeded */
  return ratio;
}

/* The while bodies and the dearer if-branches run no accounting code of
   their own: the first two programs fold at least the branches counted
   here, and run fewer accounting instructions than with each block
   paying for itself (no folding at all) by a clear margin.  Exact mode
   folds only tests that can neither run other code nor raise an error
   (TEST, EQK, EQI, ...), which it splits from what precedes them. */
static void test_folds_save_accounting(void **state) {
  static const long min_folds[2][2] = {{3, 4}, {2, 3}};
  static const double max_share[2] = {0.85, 1.0};
  int i, exact;
  (void)state;
  for (exact = 0; exact <= 1; exact++)
    for (i = 0; i < 2; i++) {
      rw_options opt;
      rw_stats folded, unfolded;
      double with, without;
      rw_default_options(&opt);
      opt.target = RW_STOCK;  /* the hook never sees the lraf VM's ACCT */
      opt.exact = exact;
      with = ratio_of(&programs[i], &opt, &folded);
      opt.fold = 0;
      without = ratio_of(&programs[i], &opt, &unfolded);
      printf("  %-42s %-7s %ld branch folds, %.2f accounting instructions "
             "per instruction (%.2f unfolded)\n", programs[i].name,
             exact ? "exact" : "default", folded.branch_folds, with, without);
      assert_true(folded.branch_folds >= min_folds[exact][i]);
      assert_int_equal(unfolded.branch_folds, 0);
      assert_true(with < without * max_share[exact]);
    }
}

/* Through the runtime: a limit of exactly a program's count lets it
   finish (a check that saw a branch charged ahead would stop it early);
   half of it stops it.  Not for the program whose test yields: a flush
   in the test's own metamethod is the one place where the charge ahead
   shows (see test_refund_keeps_sum_exact). */
static void test_limit_of_exact_count_is_enough(void **state) {
  int i;
  (void)state;
  for (i = 0; i < NPROGRAMS; i++) {
    const program *p = &programs[i];
    lraf_options opt;
    lraf_state *S;
    lraf_manager *m;
    lraf_error err;
    int64_t total;
    int half;
    if (abandons_blocks(p) || strstr(p->name, "yields") != NULL) continue;
    lraf_default_options(&opt);
    S = tutil_rt_new(&opt);
    assert_int_equal(tutil_rt_run(S, p->src, &err), LRAF_OK);
    total = tutil_rt_total(S);
    tutil_rt_close(S);
    for (half = 0; half <= 1; half++) {
      lraf_status st;
      int64_t limit = half ? total / 2 : total;
      m = lraf_limit_new(limit);
      opt.manager = m;
      S = tutil_rt_new(&opt);
      st = tutil_rt_run(S, p->src, &err);
      tutil_rt_close(S);
      lraf_manager_release(m);
      printf("  %-42s limit %lld: %s\n", p->name, (long long)limit,
             lraf_status_name(st));
      assert_int_equal(st, half ? LRAF_EQUOTA : LRAF_OK);
    }
  }
}

typedef struct recorder {
  int64_t sum, min;
} recorder;

static lraf_verdict record(void *ud, lraf_account *a, int64_t n,
                           int can_pause) {
  recorder *r = ud;
  (void)a;
  (void)can_pause;
  r->sum += n;
  if (n < r->min) r->min = n;
  return LRAF_CONTINUE;
}

/* The rare refund: the coroutine yields from its loop test's __index
   after the test charged the loop body; resumed for the last time, the test
   takes the exit branch, whose increment takes the body's charge back,
   and the coroutine ends before doing as much work again.  The manager
   hears a negative n, and the sum of what it heard is the hook's count
   over all threads.  (The test is a function's, not a while loop's: on
   the lraf VM a while loop's body pays at its jump back instead.) */
static void test_refund_keeps_sum_exact(void **state) {
  static const lraf_manager_ops ops = {record, NULL, NULL};
  const program *p = &programs[6];
  recorder rec = {0, 0};
  lraf_manager *m = lraf_manager_new(&ops, &rec);
  lraf_options opt;
  lraf_state *S;
  lraf_error err;
  tutil_threads oracle;
  long long expect = 0;
  int i;
  (void)state;
  assert_non_null(m);
  lraf_default_options(&opt);
  opt.manager = m;
  S = tutil_rt_new(&opt);
  assert_int_equal(tutil_rt_run(S, p->src, &err), LRAF_OK);
  assert_int_equal(lraf_flush(S, &err), LRAF_OK);
  tutil_rt_close(S);
  tutil_rt_oracle(p->src, strlen(p->src), p->name, &oracle);
  assert_true(oracle.ok);
  for (i = 0; i < oracle.n; i++) expect += oracle.count[i];
  tutil_threads_free(&oracle);
  printf("  refund: manager heard %lld in all (hook %lld), smallest n %lld\n",
         (long long)rec.sum, expect, (long long)rec.min);
  assert_int_equal(rec.sum, expect);
  assert_int_equal(lraf_manager_total(m), expect);
  assert_true(rec.min < 0);
  lraf_manager_release(m);
}

/* The documented difference of yields in comparisons: after a resume
   Lua finishes the comparison outside its loop and then fetches the JMP
   after it, which the hook counts when the jump is taken.  Here one of
   31 resumes leaves the loop by that jump: on stock Lua the hook counts
   1 more than lraf, in both modes; the lraf VM charges that fetch
   (lua_setacctfetched), and counts what the hook counts. */
static void test_yield_in_comparison_difference(void **state) {
  const char *src =
    "local mt = {__lt = function(a, b) return coroutine.yield(a.v) end}\n"
    "local co = coroutine.wrap(function()\n"
    "  local a, s = setmetatable({v = 1}, mt), 0\n"
    "  while a < a do s = s + a.v; s = s * 3 % 1001; a.v = a.v + 1 end\n"
    "  return s\n"
    "end)\n"
    "co()\n"
    "for i = 1, 30 do co(true) end\n"
    "print(co(false))\n";
  int exact;
  (void)state;
  for (exact = 0; exact <= 1; exact++) {
    tutil_run hook, rw;
    rw_options opt;
    rw_default_options(&opt);
    opt.exact = exact;
    tutil_run_hook(src, strlen(src), "yield in __lt", &hook);
    tutil_run_rewritten(src, strlen(src), "yield in __lt", &opt, 100000, 0,
                        &rw);
    assert_true(hook.ok && rw.ok);
    printf("  yield in __lt, %s: hook %lld, lraf %lld\n",
           exact ? "exact" : "default", hook.count, rw.count);
#ifdef LRAF_VM
    assert_int_equal(hook.count, rw.count);
#else
    assert_int_equal(hook.count, rw.count + 1);
#endif
    tutil_run_free(&hook);
    tutil_run_free(&rw);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_exact_with_branch_folds),
    cmocka_unit_test(test_folds_save_accounting),
    cmocka_unit_test(test_limit_of_exact_count_is_enough),
    cmocka_unit_test(test_refund_keeps_sum_exact),
    cmocka_unit_test(test_yield_in_comparison_difference),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
