/*
** test_nat_lpeg.c - lraf's metered LPeg (runtime/native/nat_lpeg.c): with
** native charging on, require "lpeg" loads it (its loader data says
** "lraf:metered"), with native charging off Debian's lpeg.so; a grammar
** that backtracks is charged by its matcher's steps (the charge grows
** with the steps, not with the subject), the instructions stay the count
** hook's; a match whose steps follow from its pattern and subject is
** charged exactly the documented units (the linear model plus 512 per
** 1024 steps), the same in a full, a deterministic and a sandboxed
** state, and a longer subject exactly its extra steps' units more; and a
** quota stops an endless loop of such matches within one slice of 4096
** steps, pcall or not.  Building a pattern is charged exactly its
** nodes' steps, and a script that builds and compiles patterns of
** several sizes is charged the same in every fresh state, one after
** another in a thread between other states' builds, in two threads at
** once, through `lraf run` ($LRAF), and in every request of the request
** pool's worker threads.  A call that raises an error inside another
** one (in a match-time capture or a grammar's __index, in a pcall or
** in a coroutine that dies and is collected) leaves the outer call's
** count as it was: the script is charged exactly what it is when the
** failing call runs before the outer one instead, through the C API and
** through `lraf run`.  Skipped, with the reason, in a
** build without the metered LPeg (runtime/native/lpeg/fetch.sh failed).
*/
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lua.h>

#include "tutil_pool.h"
#include "tutil_rt.h"
#include "tutil_run.h"
#include "tutil_sh.h"

/* runtime/native/nat_lpeg.c's rate: units per 1024 steps */
#define STEP_RATE 512

/* lpeg.match's documented charge (docs/cost-model.md, "Charged
   operations" and "LPeg: the metered build"): its linear model
   (runtime/native/nat_cost.c's table: 4 + size x 85 / 1024, rounded up,
   size = (#s - init + 2) x (1 + the pattern's userdata bytes / 64)),
   and the steps of LPeg's matcher at STEP_RATE per 1024, charged 4096
   steps at a time as it goes and the rest when the match ends, each
   charge rounded up. */
#define MODEL_CALL 4
#define MODEL_PER_K 85
#define SLICE_STEPS 4096

static int64_t per_1024(int64_t n, int64_t rate) {
  return (n * rate + 1023) / 1024;
}

static int64_t documented_charge(size_t pattern_bytes, int64_t len,
                                 int64_t init, int64_t steps) {
  double factor = 1 + (double)pattern_bytes / 64.0;
  int64_t size = (int64_t)((double)(len - init + 2) * factor);
  return MODEL_CALL + per_1024(size, MODEL_PER_K) +
         steps / SLICE_STEPS * per_1024(SLICE_STEPS, STEP_RATE) +
         per_1024(steps % SLICE_STEPS, STEP_RATE);
}

/* a grammar that tries every split of a run of a's: about 2^n steps */
#define GRAMMAR "local lpeg = require 'lpeg'\n" \
  "local V = lpeg.V\n" \
  "local g = lpeg.P{'S', S = 'a' * V'S' * 'x' + 'a' * V'S' + lpeg.P(true)}\n"

/* What require "lpeg" says it loaded, in a state with native on/off. */
static void loaded_from(int native, char *buf, size_t size) {
  static const char src[] = "print((select(2, require 'lpeg')))";
  lraf_options opt;
  lraf_state *S;
  lraf_error err;
  size_t len;
  const char *out;
  lraf_default_options(&opt);
  opt.native = native;
  S = tutil_rt_new(&opt);
  if (tutil_rt_run(S, src, &err) != LRAF_OK) fail_msg("%s", err.message);
  out = tutil_rt_output(S, &len);
  snprintf(buf, size, "%.*s", (int)strcspn(out, "\n"), out);
  tutil_rt_close(S);
}

static void need_metered(void) {
  char where[256];
  loaded_from(1, where, sizeof where);
  if (strcmp(where, "lraf:metered") != 0) {
    printf("  SKIP: require 'lpeg' with native charging loads %s: built "
           "without the metered LPeg (runtime/native/lpeg/fetch.sh)\n", where);
    skip();
  }
}

static void test_which_lpeg(void **state) {
  char where[256];
  (void)state;
  need_metered();
  loaded_from(0, where, sizeof where);
  printf("  native off: %s\n", where);
  assert_true(strstr(where, "lpeg") != NULL);
  assert_string_not_equal(where, "lraf:metered");
}

/* Native units and instructions of one match of n a's. */
static void run_match(int n, int64_t *native, int64_t *instr,
                      long long *hook) {
  char src[512];
  lraf_options opt;
  lraf_state *S;
  lraf_error err;
  tutil_run h;
  snprintf(src, sizeof src, GRAMMAR "local s = string.rep('a', %d)\n"
           "print(lpeg.match(g, s))\n", n);
  lraf_default_options(&opt);
  opt.native = 1;
  S = tutil_rt_new(&opt);
  if (tutil_rt_run(S, src, &err) != LRAF_OK) fail_msg("%s", err.message);
  *native = lraf_native_units(S);
  *instr = tutil_rt_total(S) - *native;
  tutil_rt_close(S);
  tutil_run_hook(src, strlen(src), "=test", &h);
  assert_true(h.ok);
  *hook = h.count;
  tutil_run_free(&h);
}

/* Two more bytes of subject: about 4 times the steps, so about 4 times
   the charge (the linear model alone would add 2 units). */
static void test_charged_by_steps(void **state) {
  int64_t n12, n14, i12, i14;
  long long h12, h14;
  (void)state;
  need_metered();
  run_match(12, &n12, &i12, &h12);
  run_match(14, &n14, &i14, &h14);
  printf("  12 a's: %lld native units, 14 a's: %lld; instructions %lld "
         "and %lld, hook %lld and %lld\n", (long long)n12, (long long)n14,
         (long long)i12, (long long)i14, h12, h14);
  assert_true(n12 > 4 * STEP_RATE);  /* thousands of steps */
  assert_true(n14 > 3 * n12);
  assert_int_equal(i12, h12);
  assert_int_equal(i14, h14);
}

/* The ways into a state with native charging that must charge the same:
   full environment, deterministic, and the sandbox (native charging
   and determinism on by default). */
enum { DOOR_FULL, DOOR_DETERMINISTIC, DOOR_SANDBOX, DOORS };
static const char *const door_name[DOORS] = {
  "full", "deterministic", "sandbox"
};

/* The native units of r = lpeg.match(p, s, init) alone, in a state of
   door d where p = patt and s = subject (both built, and p compiled by
   a first match, beforehand); the pattern's bytes and the result (-1:
   no match) go to *bytes and *result. */
static int64_t match_charge(int d, const char *patt, const char *subject,
                            long long init, size_t *bytes,
                            long long *result) {
  char setup[512], stmt[128];
  lraf_options opt;
  lraf_state *S;
  lraf_error err;
  lua_State *L;
  int64_t before;
  lraf_default_options(&opt);
  opt.native = 1;
  if (d == DOOR_DETERMINISTIC) opt.deterministic = 1;
  if (d == DOOR_SANDBOX) {
    opt.env = LRAF_ENV_SANDBOX;
    opt.native = LRAF_NATIVE_AUTO;
  }
  S = tutil_rt_new(&opt);
  snprintf(setup, sizeof setup, "lpeg = require 'lpeg'\np = %s\ns = %s\n"
           "lpeg.match(p, s)\n", patt, subject);
  snprintf(stmt, sizeof stmt, "r = lpeg.match(p, s, %lld)", init);
  if (tutil_rt_run(S, setup, &err) != LRAF_OK) fail_msg("%s", err.message);
  L = lraf_lua(S);
  assert_int_equal(lua_getglobal(L, "p"), LUA_TUSERDATA);
  *bytes = lua_rawlen(L, -1);
  lua_pop(L, 1);
  before = lraf_native_units(S);
  if (tutil_rt_run(S, stmt, &err) != LRAF_OK) fail_msg("%s", err.message);
  before = lraf_native_units(S) - before;
  lua_getglobal(L, "r");
  *result = lua_isinteger(L, -1) ? (long long)lua_tointeger(L, -1) : -1;
  lua_pop(L, 1);
  tutil_rt_close(S);
  return before;
}

/* Matches whose steps follow from the pattern and the subject: LPeg
   compiles a string of k bytes (or lpeg.P(k)) to k instructions and an
   end, so a match takes k + 1 steps; a mismatch at the first byte takes
   2 (the failing instruction, then the give-up it backtracks to); a
   repetition of a two-byte string takes a test and a choice, 3 steps a
   time round (two bytes and a partial commit), and the failing byte and
   the end after the last: 3n + 4 for n times round. */
static const struct {
  const char *patt, *subject;
  int64_t len, init, steps, result;
} match_rows[] = {
  {"lpeg.P(string.rep('a', 100))", "string.rep('a', 300)", 300, 1, 101, 101},
  {"lpeg.P(string.rep('a', 100))", "string.rep('a', 300)", 300, 150, 101,
   250},
  {"lpeg.P('b' .. string.rep('a', 99))", "string.rep('a', 300)", 300, 1, 2,
   -1},
  {"lpeg.P'ab'^0", "string.rep('ab', 10)", 20, 1, 3 * 10 + 4, 21},
  {"lpeg.P'ab'^0", "string.rep('ab', 5000)", 10000, 1, 3 * 5000 + 4,
   10001},
  {"lpeg.P(10000)", "string.rep('x', 12000)", 12000, 1, 10001, 10001},
  {"lpeg.P(10000)", "string.rep('x', 12000)", 12000, 1001, 10001, 11001},
};

/* Each match is charged exactly the documented units, the same through
   every door. */
static void test_documented_charge(void **state) {
  size_t k, bytes;
  int d;
  long long result;
  (void)state;
  need_metered();
  for (k = 0; k < sizeof match_rows / sizeof match_rows[0]; k++) {
    for (d = 0; d < DOORS; d++) {
      int64_t got = match_charge(d, match_rows[k].patt, match_rows[k].subject,
                                 match_rows[k].init, &bytes, &result);
      int64_t want = documented_charge(bytes, match_rows[k].len,
                                       match_rows[k].init,
                                       match_rows[k].steps);
      if (d == 0)
        printf("  %s on %s from %lld: %lld units\n", match_rows[k].patt,
               match_rows[k].subject, (long long)match_rows[k].init,
               (long long)got);
      assert_int_equal(result, match_rows[k].result);
      if (got != want)
        fail_msg("%s on %s from %lld (%s): %lld units, documented %lld "
                 "(%lld steps)", match_rows[k].patt, match_rows[k].subject,
                 (long long)match_rows[k].init, door_name[d], (long long)got,
                 (long long)want, (long long)match_rows[k].steps);
    }
  }
}

/* The same repetition on subjects of n and 4n pairs: besides its model,
   the longer one pays for exactly 3 x 3n more steps (n even: every step
   count even, no rounding). */
static void test_charge_by_length(void **state) {
  static const int64_t n[] = {20, 700, 2000};
  size_t k, bytes;
  long long result;
  (void)state;
  need_metered();
  for (k = 0; k < sizeof n / sizeof n[0]; k++) {
    char subject[2][64];
    int64_t got[2], model[2];
    int j;
    for (j = 0; j < 2; j++) {
      int64_t pairs = n[k] * (j ? 4 : 1);
      snprintf(subject[j], sizeof subject[j], "string.rep('ab', %lld)",
               (long long)pairs);
      got[j] = match_charge(DOOR_FULL, "lpeg.P'ab'^0", subject[j], 1,
                            &bytes, &result);
      assert_int_equal(result, 2 * pairs + 1);
      model[j] = documented_charge(bytes, 2 * pairs, 1, 0);
    }
    printf("  %lld and %lld pairs: %lld and %lld units\n",
           (long long)n[k], (long long)(4 * n[k]), (long long)got[0],
           (long long)got[1]);
    assert_int_equal((got[1] - model[1]) - (got[0] - model[0]),
                     9 * n[k] * STEP_RATE / 1024);
  }
}

/* An endless loop of matches on 30 a's (about 10^9 steps each) under a
   quota, each in a pcall: stopped within one slice of steps. */
static void test_quota_stops_the_match(void **state) {
  static const char src[] = GRAMMAR
    "local s = string.rep('a', 30)\n"
    "while true do pcall(lpeg.match, g, s) end\n";
  const int64_t quota = 1000000, slice = 4096 * STEP_RATE / 1024;
  int64_t total;
  (void)state;
  need_metered();
  total = tutil_rt_native_quota(src, quota);
  printf("  quota %lld: %lld units charged (a slice: %lld)\n",
         (long long)quota, (long long)total, (long long)slice);
  assert_true(total >= quota && total <= quota + slice + 1000);
}

/* The documented charge of n steps of building or walking trees, all in
   one call: STEP_RATE per 1024, 4096 steps at a time as they go and the
   rest when the call returns, each charge rounded up. */
static int64_t build_charge(int64_t steps) {
  return steps / SLICE_STEPS * per_1024(SLICE_STEPS, STEP_RATE) +
         per_1024(steps % SLICE_STEPS, STEP_RATE);
}

/* lpeg.P(n) and lpeg.P of a string of n bytes build trees of 2n - 1
   nodes, a step each: their charges differ from that of a one-node
   pattern (the same call, charged alike) by exactly those steps'. */
static void test_build_charge(void **state) {
  static const char *const stmts[] = {"local p = lpeg.P(N)",
                                      "local p = lpeg.P(s)"};
  static const char setup[] =
      "local lpeg = require 'lpeg'\nlocal s = string.rep('a', N)";
  static const long long n[] = {2, 700, 2048, 2049, 3000, 10000};
  size_t k, j;
  (void)state;
  need_metered();
  for (j = 0; j < sizeof stmts / sizeof stmts[0]; j++) {
    int64_t one = tutil_rt_native_charge(setup, stmts[j], 1);
    for (k = 0; k < sizeof n / sizeof n[0]; k++) {
      int64_t got = tutil_rt_native_charge(setup, stmts[j], n[k]) - one;
      int64_t want = build_charge(2 * n[k] - 1) - build_charge(1);
      printf("  %s, N = %lld: %lld units more than N = 1\n", stmts[j], n[k],
             (long long)got);
      if (got != want)
        fail_msg("%s, N = %lld: %lld units more than N = 1, documented %lld",
                 stmts[j], n[k], (long long)got, (long long)want);
    }
  }
}

/* Patterns of several sizes built, combined, made into a grammar and
   compiled by a match each; a match-time capture builds patterns while
   its match runs. */
#define BUILDS_BODY "local n = 0\n" \
  "for _, k in ipairs{1, 37, 700, 2500, 9000} do\n" \
  "  local p = lpeg.P(string.rep('a', k))\n" \
  "  local q = lpeg.P(k) * p + lpeg.S'xyz'^1\n" \
  "  local g = lpeg.P{'S', S = lpeg.V'A' * lpeg.V'S' + lpeg.P(k % 50 + 1),\n" \
  "                   A = p + 'b'}\n" \
  "  local c = lpeg.Cmt(p, function(_, i) return lpeg.P(i) * q ~= nil end)\n" \
  "  n = n + (q:match(string.rep('a', 2 * k)) or 0) + (g:match('b') or 0)\n" \
  "  n = n + c:match(string.rep('a', k))\n" \
  "end\n"
#define BUILDS "local lpeg = require 'lpeg'\n" BUILDS_BODY "print(n)\n"

/* Other work for a state between two of BUILDS: k patterns of
   different sizes. */
#define OTHER "local lpeg = require 'lpeg'\n" \
  "for i = 1, %d do local p = lpeg.P(i * 13) * 'x' end\n"

/* The native units of src in a fresh state with native charging. */
static int64_t native_units(const char *src) {
  lraf_options opt;
  lraf_state *S;
  lraf_error err;
  int64_t n;
  lraf_default_options(&opt);
  opt.native = 1;
  S = tutil_rt_new(&opt);
  if (tutil_rt_run(S, src, &err) != LRAF_OK) fail_msg("%s", err.message);
  n = lraf_native_units(S);
  tutil_rt_close(S);
  return n;
}

#define RUNS 6

/* A thread's run: BUILDS in RUNS fresh states, each after a state that
   builds other patterns (first + i of them). */
typedef struct builds_run {
  int first;
  int64_t units[RUNS];
} builds_run;

static void *run_builds(void *arg) {
  builds_run *r = arg;
  char other[256];
  int i;
  for (i = 0; i < RUNS; i++) {
    snprintf(other, sizeof other, OTHER, r->first + i);
    (void)native_units(other);
    r->units[i] = native_units(BUILDS);
  }
  return NULL;
}

static void expect_same(const builds_run *r, int64_t want, const char *how) {
  int i;
  for (i = 0; i < RUNS; i++)
    if (r->units[i] != want)
      fail_msg("%s: run %d charged %lld native units, run 0 of one thread "
               "%lld", how, i, (long long)r->units[i], (long long)want);
}

/* The same charge in every fresh state: one after another in a thread,
   then in two threads at once, whatever the states before built. */
static void test_build_same_everywhere(void **state) {
  builds_run one = {1, {0}}, two[2] = {{3, {0}}, {40, {0}}};
  pthread_t t[2];
  int i;
  (void)state;
  need_metered();
  run_builds(&one);
  printf("  one thread: %lld", (long long)one.units[0]);
  for (i = 1; i < RUNS; i++) printf(", %lld", (long long)one.units[i]);
  printf(" native units\n");
  expect_same(&one, one.units[0], "one thread");
  for (i = 0; i < 2; i++)
    assert_int_equal(pthread_create(&t[i], NULL, run_builds, &two[i]), 0);
  for (i = 0; i < 2; i++) assert_int_equal(pthread_join(t[i], NULL), 0);
  expect_same(&two[0], one.units[0], "thread 1 of 2");
  expect_same(&two[1], one.units[0], "thread 2 of 2");
}

/* The native units of src through `lraf run --native` (which must
   succeed). */
static int64_t lraf_run_units(const char *src) {
  tutil_sh sh;
  char path[128], *report, *at;
  int64_t run;
  assert_int_equal(tutil_sh_init(&sh, "lpeg"), 0);
  tutil_sh_put(&sh, "script.lua", src);
  assert_int_equal(tutil_sh_lraf_run(&sh, "run --native --report r.json "
                                     "script.lua"), 0);
  snprintf(path, sizeof path, "%s/r.json", sh.dir);
  report = tutil_sh_read(path);
  at = strstr(report, "\"native_units\": ");
  assert_non_null(at);
  run = strtoll(at + strlen("\"native_units\": "), NULL, 10);
  free(report);
  assert_int_equal(tutil_sh_cleanup(&sh), 0);
  return run;
}

/* `lraf run --native` charges BUILDS what the C API does. */
static void test_build_same_in_lraf_run(void **state) {
  int64_t api, run;
  (void)state;
  need_metered();
  api = native_units(BUILDS);
  run = lraf_run_units(BUILDS);
  printf("  C API %lld, lraf run %lld native units\n", (long long)api,
         (long long)run);
  assert_int_equal(run, api);
}

/* LPeg calls that raise errors, in a coroutine that dies and in a
   pcall: inner() runs them inside the outer call when NESTED, before
   the outer call otherwise; drop() lets the dead coroutine go and, when
   COLLECT, collects it, inside the outer call (the collector is stopped
   otherwise). */
#define INNER "collectgarbage('stop')\n" \
  "local lpeg = require 'lpeg'\n" \
  "local P, V = lpeg.P, lpeg.V\n" \
  "local co\n" \
  "local function inner()\n" \
  "  assert(not pcall(lpeg.S, {}))\n" \
  "  co = coroutine.create(function() return lpeg.R('abc') end)\n" \
  "  assert(not coroutine.resume(co))\n" \
  "end\n" \
  "local function drop() co = nil; if COLLECT then collectgarbage() end end\n" \
  "if not NESTED then inner() end\n"

/* Outer calls that count many steps after their Lua code ran inner() and
   collected the dead coroutine: building a grammar of 200 rules (its
   initial rule comes from __index), and matching a match-time capture
   (its pattern compiled before the capture runs). */
static const struct {
  const char *what, *outer;
} nested_rows[] = {
  {"a grammar's __index",
   "local g = {'S'}\n"
   "for i = 1, 199 do\n"
   "  g['r' .. i] = P'abcdefghij' * V('r' .. (i + 1)) + P'klmnopqrst'\n"
   "end\n"
   "g.r200 = P'u'\n"
   "setmetatable(g, {__index = function(_, k)\n"
   "  if NESTED then inner() end\n"
   "  drop()\n"
   "  return V'r1'\n"
   "end})\n"
   "print(lpeg.match(P(g), string.rep('abcdefghij', 199) .. 'u'))\n"},
  {"a match-time capture",
   "local big = P(string.rep('a', 700))\n"
   "local c = lpeg.Cmt(big, function(_, i)\n"
   "  if NESTED then inner() end\n"
   "  drop()\n"
   "  return i\n"
   "end)\n"
   "print(lpeg.match(c, string.rep('a', 700)))\n"},
};

/* An error inside an outer call leaves its count as it was: the script
   is charged the same whether the failing calls run inside the outer
   call or before it, through the C API and through `lraf run`.  With
   the dead coroutine collected inside the outer call, both doors run to
   the end (under ASan: no use of the collected coroutine); those runs
   are not compared, since collectgarbage is charged by the heap, whose
   garbage differs with where the failing calls ran. */
static void test_error_inside_a_call(void **state) {
  size_t k;
  (void)state;
  need_metered();
  for (k = 0; k < sizeof nested_rows / sizeof nested_rows[0]; k++) {
    char src[2][2048];
    int64_t api[2], run[2];
    int j;
    for (j = 0; j < 2; j++) {
      snprintf(src[j], sizeof src[j], "local NESTED, COLLECT = %s, false\n"
               INNER "%s", j ? "true" : "false", nested_rows[k].outer);
      api[j] = native_units(src[j]);
      run[j] = lraf_run_units(src[j]);
    }
    printf("  %s: %lld native units before, %lld inside (lraf run %lld "
           "and %lld)\n", nested_rows[k].what, (long long)api[0],
           (long long)api[1], (long long)run[0], (long long)run[1]);
    if (api[1] != api[0] || run[1] != run[0])
      fail_msg("%s: errors inside the call charged %lld (lraf run %lld), "
               "before it %lld (%lld)", nested_rows[k].what,
               (long long)api[1], (long long)run[1], (long long)api[0],
               (long long)run[0]);
    snprintf(src[1], sizeof src[1], "local NESTED, COLLECT = true, true\n"
             INNER "%s", nested_rows[k].outer);
    assert_true(native_units(src[1]) > api[1]);
    assert_true(lraf_run_units(src[1]) > run[1]);
  }
}

/* BUILDS as a handler of lraf serve's request pool */
#define HANDLER "local lpeg = require 'lpeg'\n" \
  "return function(req)\n" BUILDS_BODY "return 200, tostring(n)\nend\n"

typedef struct pool_run {
  int first;
  lraf_pool *pool;
  lraf_manager *tenant;
  int64_t native[RUNS];
  int worker[RUNS];
} pool_run;

/* A handler that builds k patterns of other sizes */
#define OTHER_HANDLER "local lpeg = require 'lpeg'\n" \
  "return function(req)\n" \
  "  for i = 1, %d do local p = lpeg.P(i * 13) * 'x' end\n" \
  "  return 200, 'other'\n" \
  "end\n"

/* RUNS requests of HANDLER, each after one of OTHER_HANDLER (first + i
   patterns). */
static void *run_requests(void *arg) {
  pool_run *r = arg;
  lraf_response res;
  char other[256], name[32];
  int i;
  for (i = 0; i < RUNS; i++) {
    snprintf(other, sizeof other, OTHER_HANDLER, r->first + i);
    snprintf(name, sizeof name, "other%d", r->first + i);
    tutil_pool_run(r->pool, r->tenant, "t", name, other, -1, NULL, &res);
    lraf_response_free(&res);
    tutil_pool_run(r->pool, r->tenant, "t", "builds", HANDLER, -1, NULL,
                   &res);
    if (res.status != 200) fail_msg("status %d: %s", res.status, res.body);
    r->native[i] = res.native;
    r->worker[i] = res.worker;
    lraf_response_free(&res);
  }
  return NULL;
}

/* The request pool's worker threads charge every request the same,
   whatever their states ran before (the rule of reuse: each request as
   in a fresh state), two clients at once. */
static void test_build_same_in_pool(void **state) {
  pool_run r[2];
  pthread_t t[2];
  lraf_manager *tenant = lraf_total_new();
  lraf_pool *pool = tutil_pool_new(2, 1, 0);
  int i, j;
  (void)state;
  need_metered();
  assert_non_null(pool);
  for (i = 0; i < 2; i++) {
    r[i].first = 1 + 40 * i;
    r[i].pool = pool;
    r[i].tenant = tenant;
    assert_int_equal(pthread_create(&t[i], NULL, run_requests, &r[i]), 0);
  }
  for (i = 0; i < 2; i++) assert_int_equal(pthread_join(t[i], NULL), 0);
  lraf_pool_close(pool);
  lraf_manager_release(tenant);
  printf("  pool: %lld native units a request\n", (long long)r[0].native[0]);
  assert_true(r[0].native[0] > 0);
  for (i = 0; i < 2; i++)
    for (j = 0; j < RUNS; j++)
      if (r[i].native[j] != r[0].native[0])
        fail_msg("client %d, request %d (worker %d): %lld native units, "
                 "the first %lld", i, j, r[i].worker[j],
                 (long long)r[i].native[j], (long long)r[0].native[0]);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_which_lpeg),
    cmocka_unit_test(test_charged_by_steps),
    cmocka_unit_test(test_documented_charge),
    cmocka_unit_test(test_charge_by_length),
    cmocka_unit_test(test_quota_stops_the_match),
    cmocka_unit_test(test_build_charge),
    cmocka_unit_test(test_build_same_everywhere),
    cmocka_unit_test(test_build_same_in_lraf_run),
    cmocka_unit_test(test_error_inside_a_call),
    cmocka_unit_test(test_build_same_in_pool),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
