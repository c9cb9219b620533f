/*
** test_cli_bench_baseline.c - lraf bench as a CI gate: --save-baseline then
** --baseline on the unchanged tree passes every time (and saves the
** same bytes); a one-line change in one function exits 5 and names
** the benchmark; halving a function's work passes as an improvement,
** and fails with --fail-on change; a baseline of another cost model
** exits 7 unless --allow-mismatch; suite files and their errors; hard
** limits (--max-count, a suite's max=) exit 5; the Markdown table, the JSON summary and the baseline against their
** schemas (docs/bench-*.schema.json, tests/system/bench/check.py); wall time
** with --runs, --warmup and the hyperfine-shaped exports; and one count
** from every door: the baseline's, lraf run --report's and the C API's
** lraf_total.  Runs $LRAF.
*/
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <lua.h>

#include "lraf.h"
#include "tutil_run.h"
#include "tutil_sh.h"

static tutil_sh sh;
static char lraf[PATH_MAX], check[PATH_MAX], docs[PATH_MAX];

/* A benchmark of three functions; the edits below change one each. */
static const char work_lua[] =
    "-- a small benchmark: fill, insertion sort, checksum\n"
    "local function fill(n)\n"
    "  local a = {}\n"
    "  for i = 1, n do a[i] = (i * 7919) % 1009 end\n"
    "  return a\n"
    "end\n"
    "local function isort(a)\n"
    "  for i = 2, #a do\n"
    "    local v, j = a[i], i - 1\n"
    "    while j >= 1 and a[j] > v do a[j + 1] = a[j]; j = j - 1 end\n"
    "    a[j + 1] = v\n"
    "  end\n"
    "end\n"
    "local function checksum(a, reps)\n"
    "  local s = 0\n"
    "  for r = 1, reps do\n"
    "    for i = 1, #a do s = (s + a[i] * r) % 65521 end\n"
    "  end\n"
    "  return s\n"
    "end\n"
    "local a = fill(tonumber(arg and arg[1]) or 200)\n"
    "isort(a)\n"
    "print(checksum(a, 40))\n";

/* Put work.lua back, with from replaced by to (NULL: unchanged). */
static void write_work(const char *from, const char *to) {
  char text[sizeof work_lua + 256];
  const char *p;
  if (from == NULL) {
    assert_int_equal(tutil_sh_write(&sh, "work.lua", work_lua), 0);
    return;
  }
  p = strstr(work_lua, from);
  assert_non_null(p);
  snprintf(text, sizeof text, "%.*s%s%s", (int)(p - work_lua), work_lua, to,
           p + strlen(from));
  assert_int_equal(tutil_sh_write(&sh, "work.lua", text), 0);
}

static char *slurp_in(const char *name) {
  char path[PATH_MAX];
  size_t len;
  char *s;
  snprintf(path, sizeof path, "%s/%s", sh.dir, name);
  s = tutil_run_slurp(path, &len);
  if (s == NULL) fail_msg("cannot read %s", path);
  return s;
}

static char *out(void) {
  size_t len;
  char *s = tutil_run_slurp(sh.out, &len);
  assert_non_null(s);
  return s;
}

static char *err(void) {
  size_t len;
  char *s = tutil_run_slurp(sh.err, &len);
  assert_non_null(s);
  return s;
}

static void contains(char *text, const char *want) {
  if (strstr(text, want) == NULL)
    fail_msg("expected '%s' in:\n%s", want, text);
}

static int bench(const char *args) {
  /* braces: a redirection in args is the command's, not the test's */
  return tutil_sh_run(&sh, "cd '%s' && { '%s' bench %s; }", sh.dir, lraf,
                      args);
}

/* The number after key in text. */
static long long number_after(const char *text, const char *key) {
  const char *p = strstr(text, key);
  if (p == NULL) fail_msg("no '%s' in:\n%s", key, text);
  return atoll(p + strlen(key));
}

static int setup(void **state) {
  char cwd[PATH_MAX - 64];
  (void)state;
  if (getcwd(cwd, sizeof cwd) == NULL) return -1;
  if (tutil_sh_lraf()[0] == '/')
    snprintf(lraf, sizeof lraf, "%s", tutil_sh_lraf());
  else
    snprintf(lraf, sizeof lraf, "%s/%s", cwd, tutil_sh_lraf());
  snprintf(check, sizeof check, "%s/tests/system/bench/check.py", cwd);
  snprintf(docs, sizeof docs, "%s/docs", cwd);
  return tutil_sh_init(&sh, "benchbase");
}

static int teardown(void **state) {
  (void)state;
  return tutil_sh_cleanup(&sh);
}

/* file (in sh.dir) is valid against docs/SCHEMA. */
static void valid(const char *file, const char *schema) {
  if (tutil_sh_run(&sh, "python3 '%s' schema '%s/%s' '%s/%s'", check, sh.dir,
                   file, docs, schema) != 0) {
    char *e = err();
    fail_msg("%s is not valid against %s: %s", file, schema, e);
  }
}

/* The unchanged tree passes, run after run, and saving again writes
   the same bytes. */
static void test_unchanged_passes(void **state) {
  char *first, *again, *o;
  int i;
  (void)state;
  write_work(NULL, NULL);
  assert_int_equal(bench("-n 2 --save-baseline main work.lua"), 0);
  first = slurp_in(".lraf/baselines/main.json");
  for (i = 0; i < 4; i++) {
    assert_int_equal(bench("-n 2 --baseline main work.lua"), 0);
    o = out();
    contains(o, "result: pass (0 regressed, 0 improved, 0 new)");
    free(o);
  }
  assert_int_equal(bench("-n 3 --save-baseline main work.lua"), 0);
  again = slurp_in(".lraf/baselines/main.json");
  assert_string_equal(first, again);
  free(first);
  free(again);
  /* --baseline-dir, and both at once: compare, then save */
  assert_int_equal(bench("-n 1 --baseline-dir ci/base --save-baseline pr "
                         "work.lua"), 0);
  assert_int_equal(bench("-n 1 --baseline-dir ci/base --baseline pr "
                         "--save-baseline pr work.lua"), 0);
  assert_int_equal(tutil_sh_run(&sh, "test -f '%s/ci/base/pr.json'", sh.dir),
                   0);
}

/* One changed line in one function: status 5, the benchmark named. */
static void test_regression(void **state) {
  char *o, *e;
  (void)state;
  write_work(NULL, NULL);
  assert_int_equal(bench("-n 2 --save-baseline reg work.lua"), 0);
  write_work("  for i = 1, n do a[i] = (i * 7919) % 1009 end\n",
             "  for i = 1, n do a[i] = (i * 7919) % 1009 + 0 * i end\n");
  assert_int_equal(bench("-n 2 --baseline reg work.lua"), 5);
  o = out();
  e = err();
  contains(o, "regression   work.lua");
  contains(o, "result: regression (1 regressed");
  contains(e, "lraf bench: regression: work.lua +");
  free(o);
  free(e);
  /* a gate wide enough lets it pass */
  assert_int_equal(bench("-n 1 --baseline reg --threshold 50 work.lua"), 0);
  assert_int_equal(bench("-n 1 --baseline reg --min-change 100000 "
                         "work.lua"), 0);
  write_work(NULL, NULL);
}

/* Half the checksum's work: an improvement, which passes unless
   --fail-on change. */
static void test_improvement(void **state) {
  char *o;
  (void)state;
  write_work(NULL, NULL);
  assert_int_equal(bench("-n 2 --save-baseline imp work.lua"), 0);
  write_work("print(checksum(a, 40))", "print(checksum(a, 20))");
  assert_int_equal(bench("-n 2 --baseline imp work.lua"), 0);
  o = out();
  contains(o, "improvement  work.lua");
  contains(o, "result: pass (0 regressed, 1 improved");
  free(o);
  assert_int_equal(bench("-n 1 --baseline imp --fail-on change work.lua"), 5);
  o = out();
  contains(o, "result: change");
  free(o);
  write_work(NULL, NULL);
}

/* A baseline of another cost model is not compared: status 7, unless
   --allow-mismatch. */
static void test_mismatch(void **state) {
  char *e;
  (void)state;
  write_work(NULL, NULL);
  assert_int_equal(bench("-n 1 --mode overhead --save-baseline ovh "
                         "work.lua"), 0);
  assert_int_equal(bench("-n 1 --baseline ovh work.lua"), 7);
  e = err();
  contains(e, "was made with another cost model");
  contains(e, "--allow-mismatch");
  free(e);
  /* compared anyway: the overhead model counted more */
  assert_int_equal(bench("-n 1 --baseline ovh --allow-mismatch work.lua"), 0);
  e = err();
  contains(e, "compared anyway");
  free(e);
  /* another lraf version */
  assert_int_equal(bench("-n 1 --save-baseline ver work.lua"), 0);
  assert_int_equal(tutil_sh_run(&sh, "cd '%s' && sed -i 's/\"lraf_version\": "
                   "\"[^\"]*\"/\"lraf_version\": \"0.0.1\"/' "
                   ".lraf/baselines/ver.json", sh.dir), 0);
  assert_int_equal(bench("-n 1 --baseline ver work.lua"), 7);
  e = err();
  contains(e, "another lraf version (lraf 0.0.1, now " LRAF_VERSION ")");
  free(e);
}

/* Bad baselines and names: status 2 with the file and what. */
static void test_bad_input(void **state) {
  char *e;
  (void)state;
  write_work(NULL, NULL);
  assert_int_equal(bench("--baseline none work.lua"), 2);
  e = err();
  contains(e, "no baseline 'none'");
  free(e);
  assert_int_equal(bench("--baseline ../x work.lua"), 2);
  assert_int_equal(bench("--save-baseline 'a b' work.lua"), 2);
  assert_int_equal(bench("--threshold 3 work.lua"), 2);
  assert_int_equal(bench("--baseline x --format yaml work.lua"), 2);
  assert_int_equal(tutil_sh_write(&sh, ".lraf/baselines/t.json",
                   "{\"format\": \"lraf-baseline\", \"version\": 1, "
                   "\"name\": \"t\", \"benchmarks\": [{\"name\": \"w\", "
                   "\"count\": -1}]}"), 0);
  assert_int_equal(bench("--baseline t work.lua"), 2);
  e = err();
  contains(e, ".lraf/baselines/t.json: benchmarks[0].\"script\"");
  free(e);
  assert_int_equal(tutil_sh_write(&sh, ".lraf/baselines/t.json",
                   "{\"format\": ["), 0);
  assert_int_equal(bench("--baseline t work.lua"), 2);
  e = err();
  contains(e, ".lraf/baselines/t.json: byte 12: ");
  free(e);
}

/* A suite file: scripts, arguments, per-benchmark limits; errors name
   FILE:LINE. */
static void test_suite(void **state) {
  char *o, *e;
  (void)state;
  write_work(NULL, NULL);
  assert_int_equal(tutil_sh_write(&sh, "suite.txt",
                   "# the benchmarks of this test\n"
                   "work.lua -- 100\n"
                   "\n"
                   "work.lua name=big threshold=10 -- 300\n"), 0);
  assert_int_equal(bench("-n 1 --suite suite.txt --save-baseline su"), 0);
  o = slurp_in(".lraf/baselines/su.json");
  contains(o, "\"name\": \"work.lua 100\", \"script\": \"work.lua\", "
              "\"args\": [\"100\"]");
  contains(o, "\"name\": \"big\"");
  free(o);
  /* +0 * i per element: a few percent more; only big's 10% lets it by */
  write_work("  for i = 1, n do a[i] = (i * 7919) % 1009 end\n",
             "  for i = 1, n do a[i] = (i * 7919) % 1009 + 0 * i end\n");
  assert_int_equal(bench("-n 1 --suite suite.txt --baseline su"), 5);
  o = out();
  contains(o, "regression   work.lua 100");
  contains(o, "same         big");
  free(o);
  write_work(NULL, NULL);
  assert_int_equal(tutil_sh_write(&sh, "bad.txt",
                   "work.lua\n# fine so far\nwork.lua min-change=ten\n"), 0);
  assert_int_equal(bench("--suite bad.txt"), 2);
  e = err();
  contains(e, "bad.txt:3: min-change= needs");
  free(e);
  assert_int_equal(tutil_sh_write(&sh, "bad.txt", "work.lua\nwork.lua\n"), 0);
  assert_int_equal(bench("--suite bad.txt"), 2);
  e = err();
  contains(e, "bad.txt:2: benchmark 'work.lua' is already on line 1");
  free(e);
  assert_int_equal(bench("--suite suite.txt work.lua"), 2);
  assert_int_equal(bench("--suite missing.txt"), 2);
}

/* Hard limits: --max-count N and a suite's max=N fail a count above
   them with status 5, with or without a baseline; at the count itself
   they pass. */
static void test_hard_limit(void **state) {
  char *o, *e, suite[160];
  long long count;
  (void)state;
  write_work(NULL, NULL);
  assert_int_equal(bench("-n 1 work.lua -- 100"), 0);
  o = out();
  count = number_after(o, "instructions  ");
  free(o);
  assert_true(count > 0);
  snprintf(suite, sizeof suite, "-n 1 --max-count %lld work.lua -- 100",
           count);
  assert_int_equal(bench(suite), 0);
  snprintf(suite, sizeof suite, "-n 1 --max-count %lld work.lua -- 100",
           count - 1);
  assert_int_equal(bench(suite), 5);
  e = err();
  contains(e, "above its hard limit");
  contains(e, "(--max-count)");
  free(e);
  /* the suite's max= is the benchmark's own, over --max-count */
  snprintf(suite, sizeof suite, "work.lua max=%lld -- 100\n"
           "work.lua name=big -- 300\n", count - 1);
  assert_int_equal(tutil_sh_write(&sh, "hard.txt", suite), 0);
  assert_int_equal(bench("-n 1 --suite hard.txt --max-count 1G"), 5);
  e = err();
  contains(e, "work.lua 100: ");
  contains(e, "(the suite's max=)");
  assert_null(strstr(e, "big:"));
  free(e);
  /* and with a baseline, on an unchanged tree, the limit still fails */
  assert_int_equal(bench("-n 1 --suite hard.txt --save-baseline hl"), 5);
  assert_int_equal(tutil_sh_write(&sh, "bad.txt", "work.lua max=1.5\n"), 0);
  assert_int_equal(bench("--suite bad.txt"), 2);
  e = err();
  contains(e, "bad.txt:1: max= needs");
  free(e);
}

/* --format markdown and json; the JSON files against their schemas. */
static void test_formats(void **state) {
  char *o;
  (void)state;
  write_work(NULL, NULL);
  assert_int_equal(bench("-n 2 --save-baseline fmt work.lua -- 150"), 0);
  valid(".lraf/baselines/fmt.json", "bench-baseline.schema.json");
  write_work("print(checksum(a, 40))", "print(checksum(a, 41))");
  assert_int_equal(bench("-n 2 --baseline fmt --format markdown "
                         "work.lua -- 150"), 5);
  o = out();
  assert_true(strncmp(o, "### lraf bench: baseline fmt\n", 29) == 0);
  contains(o, "**regression**");
  contains(o, "| benchmark | baseline | now | change | % | wall time "
              "(mean ± σ) | verdict |\n|---|");
  contains(o, "| work.lua 150 | ");
  contains(o, " | :x: regression |\n");
  free(o);
  assert_int_equal(bench("-n 2 --baseline fmt --format json "
                         "work.lua -- 150 > s.json"), 5);
  valid("s.json", "bench-summary.schema.json");
  o = slurp_in("s.json");
  contains(o, "\"result\": \"regression\"");
  contains(o, "\"verdict\": \"regression\"");
  free(o);
  /* without a baseline */
  assert_int_equal(bench("-n 2 --format json work.lua > n.json"), 0);
  valid("n.json", "bench-summary.schema.json");
  o = slurp_in("n.json");
  contains(o, "\"result\": \"no baseline\"");
  free(o);
  write_work(NULL, NULL);
}

/* Wall time: mean ± σ over --runs after --warmup, and the exports. */
static void test_wall_time(void **state) {
  char *o;
  (void)state;
  write_work(NULL, NULL);
  assert_int_equal(bench("--runs 4 --warmup 2 --export-json e.json "
                         "--export-markdown e.md work.lua"), 0);
  o = out();
  contains(o, "4 runs each after warm-up");
  contains(o, "(the same in all 4 runs)");
  contains(o, "wall seconds  mean ");
  contains(o, " ± ");
  contains(o, "(after 2 warm-up)");
  free(o);
  assert_int_equal(tutil_sh_run(&sh, "python3 '%s' hyperfine '%s/e.json'",
                                check, sh.dir), 0);
  o = out();
  contains(o, "work.lua 4 ");
  free(o);
  o = slurp_in("e.md");
  assert_true(strncmp(o, "| Command | Count [instructions] | Mean [", 40) ==
              0);
  contains(o, "| `work.lua` | ");
  free(o);
  assert_int_equal(bench("--warmup x work.lua"), 2);
  assert_int_equal(bench("--export-json /nonexistent/e.json work.lua"), 2);
}

static int quiet(lua_State *L) {
  (void)L;
  return 0;
}

/* One count from every door: the baseline's, lraf run --report's and
   the C API's lraf_total. */
static void test_one_count(void **state) {
  char *b, *r, path[PATH_MAX];
  long long base, run;
  lraf_options o;
  lraf_state *S;
  lraf_error e;
  (void)state;
  write_work(NULL, NULL);
  assert_int_equal(bench("-n 3 --save-baseline one work.lua"), 0);
  b = slurp_in(".lraf/baselines/one.json");
  base = number_after(b, "\"count\": ");
  assert_true(base > 0);
  assert_int_equal(tutil_sh_run(&sh, "cd '%s' && '%s' run --report r.json "
                                "work.lua", sh.dir, lraf), 0);
  r = slurp_in("r.json");
  run = number_after(r, "\"count\": ");
  assert_int_equal(run, base);
  /* the C API, when it is the same target as $LRAF */
  lraf_default_options(&o);
  o.deterministic = 1;
  assert_int_equal(lraf_new(&o, &S, &e), LRAF_OK);
  if (strstr(b, lraf_model(S)) != NULL) {
    snprintf(path, sizeof path, "%s/work.lua", sh.dir);
    lua_State *L = lraf_lua(S);
    lua_pushcfunction(L, quiet);
    lua_setglobal(L, "print");
    lua_createtable(L, 0, 1);  /* arg as lraf run and bench give it */
    lua_pushstring(L, "work.lua");
    lua_rawseti(L, -2, 0);
    lua_setglobal(L, "arg");
    assert_int_equal(lraf_load_file(S, path, &e), LRAF_OK);
    assert_int_equal(lraf_call(S, 0, 0, &e), LRAF_OK);
    assert_int_equal(lraf_total(S), base);
  } else {
    print_message("the C API is %s, $LRAF another target: not compared\n",
                  lraf_model(S));
  }
  lraf_close(S);
  free(b);
  free(r);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_unchanged_passes),
      cmocka_unit_test(test_regression),
      cmocka_unit_test(test_improvement),
      cmocka_unit_test(test_mismatch),
      cmocka_unit_test(test_bad_input),
      cmocka_unit_test(test_suite),
      cmocka_unit_test(test_hard_limit),
      cmocka_unit_test(test_formats),
      cmocka_unit_test(test_wall_time),
      cmocka_unit_test(test_one_count),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
