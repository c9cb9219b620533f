/*
** test_rw_sync.c - increments that reuse the scratch register (no
** GETUPVAL) stay exact when something between them does run other
** code: an arithmetic metamethod (through its stub), a finalizer run by
** a GC step of NEWTABLE or CLOSURE, a coroutine switch, a consume()
** call, string coercion in arithmetic.  Each program is checked against
** the count hook in the default, exact and overhead modes, at a
** granularity small enough that consume() runs inside the loops.
*/
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "tutil_oracle.h"
#include "tutil_run.h"

typedef struct program {
  const char *name;
  const char *src;
} program;

static const program programs[] = {
  {"pure arithmetic loop",
   "local s, x = 0, 1.5\n"
   "for i = 1, 2000 do s = s + i * 3 - (i // 7); x = x * 1.0001 end\n"
   "local n = 0\nwhile n < 500 do n = n + 1; if n % 3 == 0 then s = s ~ n "
   "end end\nprint(s, n, string.format('%.6f', x))\n"},
  {"metamethods between synced increments",
   "local mt = {}\n"
   "mt.__add = function(a, b) local s = 0 for j = 1, 5 do s = s + j end\n"
   "  return setmetatable({v = a.v + b + s}, mt) end\n"
   "mt.__unm = function(a) return setmetatable({v = -a.v}, mt) end\n"
   "local o = setmetatable({v = 0}, mt)\n"
   "for i = 1, 300 do o = o + i; if i % 50 == 0 then o = -o end end\n"
   "print(o.v)\n"},
  {"finalizers run by GC steps",
   "local fin = 0\n"
   "local mt = {__gc = function(o) fin = fin + 1 end}\n"
   "collectgarbage('incremental')\ncollectgarbage('setpause', 100)\n"
   "collectgarbage('setstepmul', 400)\n"
   "local keep\nfor i = 1, 3000 do\n"
   "  keep = setmetatable({i}, mt)\n  local t = {i, i + 1}\n"
   "  local f = function() return i end\n  keep[2] = t[1] + f()\nend\n"
   "collectgarbage()\nprint(fin, keep[2])\n"},
  {"coroutine switches in a loop",
   "local co = coroutine.wrap(function()\n"
   "  local s = 0\n  for i = 1, 400 do s = s + i; coroutine.yield(s) end\n"
   "  return -1 end)\n"
   "local t = 0\nfor i = 1, 401 do t = t + co(); t = t % 1000003 end\n"
   "print(t)\n"},
  {"string coercion in arithmetic",
   "local s = 0\nfor i = 1, 300 do s = s + ('1' .. i % 10) * 2 end\n"
   "print(s)\n"},
  {"loop exits that reload the counter",
   "local function big(x) return x > 250 end\n"
   "local n, m = 0, 0\n"
   "for i = 1, 1000 do\n  n = n + i\n  if n > 40000 then break end\n"
   "  if big(i) then break end\nend\n"
   "local k = 0\n::top:: k = k + 1; m = m + k * 2\n"
   "if k % 5 == 0 then m = m - tostring(k):len() end\n"
   "if k < 200 then goto top end\n"
   "repeat m = m - 3 until m < 1000 or big(m)\n"
   "while true do m = m + 1; if m % 17 == 0 then break end end\n"
   "print(n, m, k)\n"},
  {"error from quiet code after lazy increments",
   "local s, errs = 0, 0\n"
   "for i = 1, 300 do\n  local d = i % 7 - 3\n"
   "  local ok, v = pcall(function()\n    local a = 0\n"
   "    for j = 1, 5 do a = a + j * d end\n"
   "    if i % 3 == 0 then a = a // d else a = a % (d + 1) end\n"
   "    if i % 11 == 0 then a = a | 0.5 end\n"
   "    if i % 17 == 0 then a = a // 0 end\n"
   "    if i % 13 == 0 then for k = 1, d > 0 and 2 or {} do a = a + k end end\n"
   "    return a end)\n"
   "  if ok then s = s + v else errs = errs + 1 end\nend\n"
   "print(s, errs)\n"},
  {"error from the slow path of a synced block",
   "local s = 0\nfor i = 1, 200 do\n"
   "  local ok = pcall(function() local x = i; x = x + (i % 50 == 0 "
   "and {} or 1); s = s + x end)\n"
   "  if not ok then s = s + 1000 end\nend\nprint(s)\n"},
};

enum { NPROGRAMS = sizeof programs / sizeof programs[0] };

/* Lua runs finalizers with hooks off, so the hook misses them while
   lraf counts them: 4 instructions per call of that __gc (GETUPVAL,
   ADDI, SETUPVAL, RETURN0; the MMBINI is skipped).  The program prints
   the number of calls first.  (In overhead mode a finalizer also runs
   accounting code and, at a small granularity, consume(), so there the
   test only asks for more than the hook.) */
static long long finalizer_work(const program *p, const tutil_run *r,
                                int per_call) {
  long long calls = 0;
  if (strstr(p->name, "finalizers") == NULL) return 0;
  assert_int_equal(sscanf(r->output, "%lld", &calls), 1);
  assert_true(calls > 100);
  return calls * per_call;
}

static void check(const program *p, const rw_options *opt, int overhead,
                  long long granularity) {
  tutil_run hook, rw;
  size_t len = strlen(p->src);
  if (overhead) {
    tutil_run_rewritten(p->src, len, p->name, opt, granularity, 1, &hook);
    tutil_run_rewritten(p->src, len, p->name, opt, granularity, 0, &rw);
  } else {
    tutil_run_hook(p->src, len, p->name, &hook);
    tutil_run_rewritten(p->src, len, p->name, opt, granularity, 0, &rw);
  }
  tutil_oracle_check(p->name, &hook, &rw);
  printf("  %-40s %-8s g=%-4lld hook %8lld lraf %8lld consumes %lld "
         "synced %ld\n", p->name,
         overhead ? "overhead" : opt->exact ? "exact" : "default",
         granularity, hook.count, rw.count, rw.consumes, rw.stats.synced);
  if (overhead && strstr(p->name, "finalizers") != NULL &&
      opt->target == RW_LRAVM)  /* ACCT and consume cost no instruction */
    assert_int_equal(rw.count, hook.count + finalizer_work(p, &rw, 4));
  else if (overhead && strstr(p->name, "finalizers") != NULL)
    assert_true(rw.count > hook.count + finalizer_work(p, &rw, 4));
  else if (!opt->exact && strstr(p->name, "error from") != NULL)
    /* the default mode charges a block when it starts, so the block an
       error abandons is charged whole; exact mode must be exact */
    assert_true(rw.count > hook.count);
  else
    assert_int_equal(rw.count, hook.count + finalizer_work(p, &rw, 4));
  if (granularity < 100) assert_true(rw.consumes > 10);
  tutil_run_free(&hook);
  tutil_run_free(&rw);
}

/* Every program, every mode, a granularity that makes consume() run
   often and one that makes it rare. */
static void test_exact_around_disturbances(void **state) {
  static const long long grans[] = {7, 100000};
  int i, g;
  (void)state;
  for (i = 0; i < NPROGRAMS; i++)
    for (g = 0; g < 2; g++) {
      rw_options opt;
      rw_default_options(&opt);
      check(&programs[i], &opt, 0, grans[g]);
      opt.exact = 1;
      check(&programs[i], &opt, 0, grans[g]);
      opt.exact = 0;
      opt.mode = RW_OVERHEAD;
      check(&programs[i], &opt, 1, grans[g]);
    }
}

/* The pure loops' increments reuse the register: the rewriter reports
   synced accounting code, and the program runs fewer accounting
   instructions than it would with a GETUPVAL before each increment. */
static void test_pure_loop_is_synced(void **state) {
  const program *p = &programs[0];
  tutil_run plain, over;
  rw_options opt;
  size_t len = strlen(p->src);
  (void)state;
  rw_default_options(&opt);
  opt.target = RW_STOCK;  /* the register r exists only there */
  tutil_run_hook(p->src, len, p->name, &plain);
  opt.mode = RW_OVERHEAD;
  tutil_run_rewritten(p->src, len, p->name, &opt, 100000, 0, &over);
  assert_true(plain.ok && over.ok);
  /* the for body, the while header and its if-branch find r synced */
  assert_true(over.stats.synced >= 3);
  /* a for iteration runs 6 original instructions and ADDI + SETUPVAL +
     LTI at the header (4 with a GETUPVAL first: 0.67 per instruction) */
  printf("  original %lld, with accounting %lld (%.2f per instruction)\n",
         plain.count, over.count,
         (double)(over.count - plain.count) / (double)plain.count);
  assert_true((over.count - plain.count) * 100 < plain.count * 64);
  tutil_run_free(&plain);
  tutil_run_free(&over);
}

/* In the default mode the pure for loop's increment is lazy: r runs
   ahead of the cell through the loop and is written back after it, so an
   iteration runs only ADDI + LTI of accounting code.  (The while loop
   compares with LT, which may call __lt, so it writes back; its body is
   charged by its test, see test_rw_cfg_fold.)  A hook on the rewritten code
   counts what really runs. */
static void test_pure_loop_is_lazy(void **state) {
  const program *p = &programs[0];
  tutil_run plain, lazy;
  rw_options opt;
  size_t len = strlen(p->src);
  (void)state;
  rw_default_options(&opt);
  opt.target = RW_STOCK;  /* the register r exists only there */
  tutil_run_hook(p->src, len, p->name, &plain);
  tutil_run_rewritten(p->src, len, p->name, &opt, 100000, 1, &lazy);
  assert_true(plain.ok && lazy.ok);
  printf("  original %lld, rewritten %lld (%.2f per instruction), "
         "%ld lazy increments, %ld bare write-backs\n",
         plain.count, lazy.count,
         (double)(lazy.count - plain.count) / (double)plain.count,
         lazy.stats.lazy, lazy.stats.flushes);
  assert_true(lazy.stats.lazy >= 1);
  /* 0.44; with a SETUPVAL after each increment it is 0.63 */
  assert_true((lazy.count - plain.count) * 100 < plain.count * 50);
  tutil_run_free(&plain);
  tutil_run_free(&lazy);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_exact_around_disturbances),
    cmocka_unit_test(test_pure_loop_is_synced),
    cmocka_unit_test(test_pure_loop_is_lazy),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
