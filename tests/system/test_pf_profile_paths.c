/*
** test_pf_profile_paths.c - the profiler on the paths where frames start
** and end other than by a plain call and return: tail calls (to Lua and
** to C), errors caught by pcall and xpcall, coroutines (yields across
** pcall, a coroutine dying of an error, coroutine.close), __close
** handlers (also those a C function's buffer runs after it returned),
** metamethods and their MMBIN charges, deep recursion, and C functions
** with native units.  Each program is checked against the oracle (a
** count hook of 1 on the unmodified program) per function and, on the
** lraf VM build, per line; in every cost model the self counts sum to
** the state's count and each function's lines to its self count; two
** runs give byte-identical JSON.  Then generated programs
** (tests/gen/gen.lua, the differential generator) the same way.
*/
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>

#include "lraf.h"
#include "tutil_gen.h"
#include "tutil_pf.h"
#include "tutil_rt.h"

#define GEN TUTIL_GEN

typedef struct prog {
  const char *name;
  const char *src;
  int abandons;  /* an error abandons a charged block: the default mode
                    may count more than the hook there */
} prog;

static const prog progs[] = {
  {"tailcalls",
   "local function count(n, acc) if n == 0 then return acc end\n"
   "  return count(n - 1, acc + 1) end\n"
   "local function viac(...) return select('#', ...) end\n"
   "local function tailc(t) return table.concat(t, ',') end\n"
   "local s = 0\n"
   "for i = 1, 50 do\n"
   "  s = s + count(i, 0) + viac(i, i)\n"
   "  s = s + #tailc({i, i + 1})\n"
   "end\n"
   "print(s)\n", 0},
  {"errors",
   "local function deep(n) if n == 0 then error('bottom') end\n"
   "  local x = n * 2\n"
   "  return deep(n - 1) + x end\n"
   "local function handler(m) return 'h:' .. tostring(m) end\n"
   "local mt = {__add = function(a, b) error({code = 1}) end}\n"
   "local caught = 0\n"
   "for i = 1, 30 do\n"
   "  if not pcall(deep, i % 7) then caught = caught + 1 end\n"
   "  local ok, m = xpcall(deep, handler, 3)\n"
   "  if not ok then caught = caught + #m end\n"
   "  if not pcall(function() return setmetatable({}, mt) + 1 end) then\n"
   "    caught = caught + 1 end\n"
   "  pcall(error)\n"
   "end\n"
   "print(caught)\n", 1},
  {"coroutines",
   "local function gen(n)\n"
   "  return coroutine.wrap(function()\n"
   "    for i = 1, n do\n"
   "      local ok = pcall(function() coroutine.yield(i) end)\n"
   "      assert(ok)\n"
   "    end\n"
   "  end)\n"
   "end\n"
   "local function dies() local x = 1\n"
   "  coroutine.yield(x)\n"
   "  error('dead') end\n"
   "local total = 0\n"
   "for r = 1, 20 do\n"
   "  for v in gen(5) do total = total + v end\n"
   "  local co = coroutine.create(dies)\n"
   "  coroutine.resume(co)\n"
   "  local ok = coroutine.resume(co)\n"
   "  if not ok then total = total + 1 end\n"
   "  local c2 = coroutine.create(function() coroutine.yield(1) end)\n"
   "  coroutine.resume(c2)\n"
   "  coroutine.close(c2)\n"
   "end\n"
   "print(total)\n", 1},
  {"closing",
   "local closed = 0\n"
   "local mt = {__close = function(o) closed = closed + o.n end}\n"
   "local function use(n)\n"
   "  local h <close> = setmetatable({n = n}, mt)\n"
   "  return n * 2\n"
   "end\n"
   "local big = string.rep('a b ', 2000)\n"
   "local words = 0\n"
   "for i = 1, 40 do\n"
   "  closed = closed + use(i)\n"
   "  local r = string.gsub(big, 'b', function(x) words = words + 1\n"
   "    return 'cc' end)\n"
   "  words = words + #r\n"
   "end\n"
   "print(closed, words)\n", 0},
  {"metamethods",
   "local V = {}\n"
   "V.__index = V\n"
   "V.__add = function(a, b) return setmetatable({x = a.x + b.x}, V) end\n"
   "V.__mul = function(a, k) return setmetatable({x = a.x * k}, V) end\n"
   "V.__len = function(a) return a.x end\n"
   "V.__call = function(self, y) return self.x + y end\n"
   "local v = setmetatable({x = 1}, V)\n"
   "local s = 0\n"
   "for i = 1, 200 do\n"
   "  v = v + setmetatable({x = 1}, V)\n"
   "  local w = v * 2\n"
   "  s = s + #w + v(i)\n"
   "end\n"
   "print(s)\n", 0},
  {"recursion",
   "local function down(n) if n == 0 then return 0 end\n"
   "  return 1 + down(n - 1) end\n"
   "local function fib(n) if n < 2 then return n end\n"
   "  return fib(n - 1) + fib(n - 2) end\n"
   "print(down(5000), fib(18))\n", 0},
  {NULL, NULL, 0}
};

/* A profile of src in a fresh state; *counted gets the state's count. */
static lraf_profile *profile_src(const char *src, size_t len,
                                 const char *name, const lraf_options *opt,
                                 int64_t *counted) {
  lraf_state *S = tutil_rt_new(opt);
  lraf_error err;
  lraf_profile *P;
  lraf_status st;
  assert_int_equal(lraf_profile_start(S, &err), LRAF_OK);
  st = lraf_load_string(S, src, len, name, &err);
  if (st == LRAF_OK) st = lraf_call(S, 0, 0, &err);
  if (st != LRAF_OK) fail_msg("%s: %s", name, err.message);
  if (lraf_profile_stop(S, &P, &err) != LRAF_OK)
    fail_msg("%s: %s", name, err.message);
  *counted = tutil_rt_total(S);
  tutil_rt_close(S);
  return P;
}

/* src in the default or exact mode against the oracle's run of it (made
   before); returns the number of differences, reported. */
static int check_oracle(const char *src, size_t len, const char *name,
                        int exact, int strict) {
  lraf_options opt;
  int64_t counted;
  lraf_profile *P;
  int bad = 0, with_lines;
  lraf_default_options(&opt);
  opt.exact = exact;
  P = profile_src(src, len, name, &opt, &counted);
  if (tutil_pf_self_sum(P) != counted || lraf_profile_total(P) != counted) {
    print_message("  %s: self sum %lld, state %lld\n", name,
                  (long long)tutil_pf_self_sum(P), (long long)counted);
    bad++;
  }
  if (strict && counted != tutil_pf_oracle_total()) {
    print_message("  %s (%s): state %lld, oracle %lld\n", name,
                  exact ? "exact" : "default", (long long)counted,
                  tutil_pf_oracle_total());
    bad++;
  }
  if (strict) bad += tutil_pf_compare_functions(P, name, 1);
  bad += tutil_pf_compare_lines(P, name, strict, &with_lines);
  if (lraf_vm_builtin() ? with_lines == 0 : with_lines != 0) {
    print_message("  %s: %d functions with lines\n", name, with_lines);
    bad++;
  }
  lraf_profile_free(P);
  return bad;
}

static void test_paths(void **state) {
  int i, bad = 0;
  (void)state;
  for (i = 0; progs[i].name != NULL; i++) {
    size_t len = strlen(progs[i].src);
    tutil_pf_oracle_src(progs[i].src, len, progs[i].name);
    bad += check_oracle(progs[i].src, len, progs[i].name, 1, 1);
    bad += check_oracle(progs[i].src, len, progs[i].name, 0,
                        !progs[i].abandons);
  }
  tutil_pf_oracle_release();
  if (bad != 0) fail_msg("%d differences (above)", bad);
}

/* Every cost model: self counts sum to the state's count, lines to the
   self counts (checked by tutil_pf_compare_lines), and two runs give
   the same bytes. */
static void test_cost_models(void **state) {
  static uint32_t weights[LRAF_NUM_OPCODES];
  int i, m, bad = 0;
  (void)state;
  for (i = 0; i < LRAF_NUM_OPCODES; i++) weights[i] = 1 + (uint32_t)i % 5;
  for (m = 0; m < 3; m++)
    for (i = 0; progs[i].name != NULL; i++) {
      lraf_options opt;
      int64_t c1, c2;
      lraf_profile *a, *b;
      size_t la, lb, len = strlen(progs[i].src);
      char *ja, *jb;
      int with_lines;
      lraf_default_options(&opt);
      opt.mode = m == 0 ? LRAF_MODE_ORIGINAL : m == 1 ? LRAF_MODE_OVERHEAD
                                                     : LRAF_MODE_WEIGHTED;
      opt.weights = m == 2 ? weights : NULL;
      opt.exact = i % 2;
      a = profile_src(progs[i].src, len, progs[i].name, &opt, &c1);
      b = profile_src(progs[i].src, len, progs[i].name, &opt, &c2);
      if (tutil_pf_self_sum(a) != c1 || c1 != c2) {
        print_message("  %s, model %d: self sum %lld, state %lld, %lld\n",
                      progs[i].name, m, (long long)tutil_pf_self_sum(a),
                      (long long)c1, (long long)c2);
        bad++;
      }
      bad += tutil_pf_compare_lines(a, progs[i].name, 0, &with_lines);
      ja = tutil_pf_write(a, "json", &la);
      jb = tutil_pf_write(b, "json", &lb);
      if (la != lb || memcmp(ja, jb, la) != 0) {
        print_message("  %s, model %d: two runs differ\n", progs[i].name, m);
        bad++;
      }
      free(ja);
      free(jb);
      lraf_profile_free(a);
      lraf_profile_free(b);
    }
  if (bad != 0) fail_msg("%d differences (above)", bad);
}

/* Native units: a C function's are its self count; Lua functions keep
   their lines. */
static void test_native_units(void **state) {
  static const char src[] =
    "local s = 0\n"
    "for i = 1, 20 do s = s + #string.rep('x', 5000) end\n"
    "local t = {} for i = 1, 3000 do t[i] = 3000 - i end\n"
    "table.sort(t, function(a, b) return a < b end)\n"
    "print(s, t[1])\n";
  lraf_options opt;
  lraf_profile_func f;
  int64_t counted;
  lraf_profile *P;
  int i, rep = 0, sort = 0, with_lines;
  (void)state;
  lraf_default_options(&opt);
  opt.native = 1;
  P = profile_src(src, sizeof src - 1, "=native", &opt, &counted);
  assert_int_equal(tutil_pf_self_sum(P), counted);
  for (i = 0; lraf_profile_function(P, i, &f); i++) {
    if (f.is_c && strcmp(f.name, "string.rep") == 0) {
      assert_true(f.self >= 20);
      rep = 1;
    }
    if (f.is_c && strcmp(f.name, "table.sort") == 0) {
      assert_true(f.inclusive > f.self && f.self > 0);
      sort = 1;
    }
  }
  assert_true(rep && sort);
  assert_int_equal(tutil_pf_compare_lines(P, "native", 0, &with_lines), 0);
  lraf_profile_free(P);
}

/* The lraf VM charges a long-string comparison's bytes (native
   charging) to the function that compares, on no line: the callgrind
   output puts them on its definition line, so its cost lines still sum
   to the total. */
static void test_native_no_line(void **state) {
  static const char src[] =
    "local a = string.rep('x', 5000)\n"
    "local b = string.rep('x', 4999) .. 'y'\n"
    "local function cmp(n) local k = 0\n"
    "  for i = 1, n do if a < b then k = k + 1 end end\n"
    "  return k end\n"
    "print(cmp(50))\n";
  lraf_options opt;
  int64_t counted, sum = 0;
  lraf_profile *P;
  size_t len;
  char *cg, *line, *save = NULL;
  int after_calls = 0;
  (void)state;
  lraf_default_options(&opt);
  opt.native = 1;
  P = profile_src(src, sizeof src - 1, "=cmp", &opt, &counted);
  cg = tutil_pf_write(P, "callgrind", &len);
  for (line = strtok_r(cg, "\n", &save); line != NULL;
       line = strtok_r(NULL, "\n", &save)) {
    long long pos, n;
    if (!after_calls && sscanf(line, "%lld %lld", &pos, &n) == 2) sum += n;
    after_calls = strncmp(line, "calls=", 6) == 0;
  }
  assert_int_equal(sum, counted);
  assert_int_equal(tutil_pf_self_sum(P), counted);
  free(cg);
  lraf_profile_free(P);
}

/* ---- generated programs ---- */

/* The program tests/gen/gen.lua writes for seed (malloc'ed). */
static char *generate(long seed, size_t *len) {
  char err[512], *src = tutil_gen_program(seed, len, err, sizeof err);
  if (src == NULL) fail_msg("gen.lua %ld: %s", seed, err);
  return src;
}

static void test_generated(void **state) {
  long seeds = getenv("LRAF_QUICK") ? 20 : 150, seed;
  int bad = 0;
  (void)state;
  for (seed = 1; seed <= seeds; seed++) {
    size_t len;
    char name[32], *src = generate(seed, &len);
    int abandons = strstr(src, "\n-- abandons: no") == NULL, b;
    snprintf(name, sizeof name, "=gen_%ld", seed);
    tutil_pf_oracle_src(src, len, name);
    b = check_oracle(src, len, name, 1, 1) +
        check_oracle(src, len, name, 0, !abandons);
    if (b != 0)
      print_message("  seed %ld: %d differences; reproduce: lua5.4 " GEN
                    " %ld > /tmp/gen.lua\n", seed, b, seed);
    bad += b;
    free(src);
  }
  tutil_pf_oracle_release();
  if (bad != 0) fail_msg("%d differences (above)", bad);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_paths),
    cmocka_unit_test(test_cost_models),
    cmocka_unit_test(test_native_units),
    cmocka_unit_test(test_native_no_line),
    cmocka_unit_test(test_generated),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
