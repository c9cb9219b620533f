/*
** test_pf_profile_oracle.c - lraf_profile_* and lraf profile against an
** independent oracle: a count hook of 1 on the unmodified program in a
** plain lua_State that attributes every instruction to the running
** function (short source, line defined) and to its current line.  On
** every corpus program the self counts sum to the state's count and
** equal the oracle's per function, and on the lraf VM build (the stock
** target has no per-line counts) per line; two runs give byte-identical
** outputs; callgrind_annotate and xmllint read the outputs; coroutines
** hang where they were made.
*/
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>

#include <cmocka.h>
#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>

#include "lraf.h"
#include "tutil_corpus.h"
#include "tutil_pf.h"
#include "tutil_rt.h"
#include "tutil_run.h"

static const char *const loads_binary[] = {"loadkx.lua", NULL};
/* Under LRAF_QUICK (sanitizers, valgrind) only these small ones. */
static const char *const quick_set[] = {"coroutines.lua", "errors.lua",
  "closures.lua", "recursion.lua", "copipe.lua", "pcallnest.lua", NULL};

/* ---- profiling through the API ---- */

static lraf_profile *profile_file(const char *path, int exact, int native,
                                  int64_t *counted) {
  lraf_options opt;
  lraf_state *S;
  lraf_error err;
  lraf_profile *P;
  lraf_status st;
  int saved;
  lraf_default_options(&opt);
  opt.exact = exact;
  opt.native = native;
  opt.keep_accounts = 100000;
  S = tutil_rt_new(&opt);
  assert_int_equal(lraf_profile_start(S, &err), LRAF_OK);
  saved = tutil_pf_quiet();
  st = lraf_load_file(S, path, &err);
  if (st == LRAF_OK) st = lraf_call(S, 0, 0, &err);
  tutil_pf_loud(saved);
  if (st != LRAF_OK) fail_msg("%s: %s", path, err.message);
  if (lraf_profile_stop(S, &P, &err) != LRAF_OK)
    fail_msg("%s: %s", path, err.message);
  *counted = tutil_rt_total(S);
  tutil_rt_close(S);
  return P;
}

/* One corpus file in one mode against the oracle's run of it. */
static void check_mode(const char *path, const char *name, int exact) {
  int64_t counted;
  lraf_profile *P = profile_file(path, exact, 0, &counted);
  /* the default mode's counts may differ from the hook's where blocks
     are abandoned, and finalizers are counted at close */
  int strict = !tutil_corpus_listed(tutil_corpus_has_finalizers, name) &&
               (exact ||
                !tutil_corpus_listed(tutil_corpus_abandons_blocks, name));
  /* the profile holds exactly what the state counted */
  if (lraf_profile_total(P) != counted || tutil_pf_self_sum(P) != counted)
    fail_msg("%s: profile total %lld, self sum %lld, state %lld", path,
             (long long)lraf_profile_total(P),
             (long long)tutil_pf_self_sum(P), (long long)counted);
  if (strict) {
    if (counted != tutil_pf_oracle_total())
      fail_msg("%s: state %lld, oracle %lld", path, (long long)counted,
               tutil_pf_oracle_total());
    if (tutil_pf_compare_functions(P, name, 1) != 0)
      fail_msg("%s (%s): per-function self counts differ from the oracle",
               path, exact ? "exact" : "default");
  }
  /* per-line counts: the lraf VM's collector has them, exact; the stock
     target's does not (docs/profiling.md) */
  {
    int with_lines,
        bad = tutil_pf_compare_lines(P, name, strict, &with_lines);
    if (bad != 0)
      fail_msg("%s (%s): %d per-line counts differ", path,
               exact ? "exact" : "default", bad);
    if (lraf_vm_builtin() ? with_lines == 0 : with_lines != 0)
      fail_msg("%s: %d functions with per-line counts", path, with_lines);
  }
  print_message("  %-18s %-7s total %10lld  functions %3d%s\n", name,
                exact ? "exact" : "default", (long long)counted,
                lraf_profile_functions(P), strict ? "  = oracle" : "");
  lraf_profile_free(P);
}

static void test_corpus(void **state) {
  tutil_corpus_file all[128];
  int n = tutil_corpus_list(all, 128), i, files = 0;
  (void)state;
  for (i = 0; i < n; i++) {
    const char *name = all[i].name, *path = all[i].path;
    if (tutil_corpus_listed(loads_binary, name)) continue;
    if (tutil_corpus_quick() && !tutil_corpus_listed(quick_set, name))
      continue;
    tutil_pf_oracle_file(path);
    check_mode(path, name, 1);
    check_mode(path, name, 0);
    files++;
  }
  assert_true(files >= 6);
  tutil_pf_oracle_release();
}

/* ---- outputs ---- */

static void to_file(const char *path, const char *data, size_t len) {
  FILE *f = fopen(path, "wb");
  assert_non_null(f);
  assert_int_equal(fwrite(data, 1, len, f), len);
  assert_int_equal(fclose(f), 0);
}

static const char *const formats[] = {"table", "folded", "callgrind", "svg",
                                      "json", NULL};

static void test_byte_identical(void **state) {
  static const char *const progs[] = {TUTIL_CORPUS "/richards.lua",
    TUTIL_CORPUS "/coro_sched.lua", TUTIL_CORPUS "/errors.lua",
    TUTIL_CORPUS "/recursion.lua", NULL};
  int i, k;
  (void)state;
  for (i = 0; progs[i] != NULL; i++) {
    int64_t c1, c2;
    lraf_profile *a = profile_file(progs[i], 0, 1, &c1);
    lraf_profile *b = profile_file(progs[i], 0, 1, &c2);
    assert_int_equal(c1, c2);
    for (k = 0; formats[k] != NULL; k++) {
      size_t la, lb;
      char *x = tutil_pf_write(a, formats[k], &la), *y = tutil_pf_write(b, formats[k],
                                                            &lb);
      if (la != lb || memcmp(x, y, la) != 0) {
        to_file("/tmp/lraf_bi_a", x, la);
        to_file("/tmp/lraf_bi_b", y, lb);
        fail_msg("%s: two runs give different %s output", progs[i],
                 formats[k]);
      }
      assert_true(la > 0);
      free(x);
      free(y);
    }
    lraf_profile_free(a);
    lraf_profile_free(b);
  }
}

/* Run a shell command; its standard output (malloc'ed). */
static char *command(const char *cmd) {
  FILE *p = popen(cmd, "r");
  char *buf = malloc(1 << 20);
  size_t n = 0, r;
  assert_non_null(p);
  assert_non_null(buf);
  while ((r = fread(buf + n, 1, (1 << 20) - 1 - n, p)) > 0) n += r;
  buf[n] = '\0';
  if (pclose(p) != 0) fail_msg("'%s' failed:\n%s", cmd, buf);
  return buf;
}

static void test_callgrind_annotate(void **state) {
  char dir[] = "/tmp/lraf_profile_XXXXXX", path[128], cmd[300], *out, *p;
  size_t len;
  int64_t counted;
  long long total = -1;
  lraf_profile *P = profile_file(TUTIL_CORPUS "/richards.lua", 0, 0, &counted);
  char *cg = tutil_pf_write(P, "callgrind", &len);
  (void)state;
  assert_non_null(mkdtemp(dir));
  snprintf(path, sizeof path, "%s/callgrind.out", dir);
  to_file(path, cg, len);
  snprintf(cmd, sizeof cmd, "callgrind_annotate %s 2>&1", path);
  out = command(cmd);
  /* "<N> (100.0%)  PROGRAM TOTALS", N with thousands separators */
  p = strstr(out, "PROGRAM TOTALS");
  if (p == NULL) fail_msg("no PROGRAM TOTALS in:\n%s", out);
  while (p > out && p[-1] != '\n') p--;
  {
    char digits[64];
    int n = 0;
    for (; *p && *p != ' ' && n < 63; p++)
      if (*p >= '0' && *p <= '9') digits[n++] = *p;
    digits[n] = '\0';
    total = atoll(digits);
  }
  if (total != (long long)counted)
    fail_msg("callgrind_annotate says %lld, lraf %lld", total,
             (long long)counted);
  remove(path);
  rmdir(dir);
  free(out);
  free(cg);
  lraf_profile_free(P);
}

static void test_svg_xmllint(void **state) {
  char dir[] = "/tmp/lraf_profile_XXXXXX", path[128], cmd[300], *out;
  size_t len;
  int64_t counted;
  lraf_profile *P =
      profile_file(TUTIL_CORPUS "/coro_sched.lua", 0, 1, &counted);
  char *svg = tutil_pf_write(P, "svg", &len);
  (void)state;
  assert_non_null(mkdtemp(dir));
  snprintf(path, sizeof path, "%s/flame.svg", dir);
  to_file(path, svg, len);
  snprintf(cmd, sizeof cmd, "xmllint --noout %s 2>&1", path);
  out = command(cmd);
  assert_string_equal(out, "");
  assert_non_null(strstr(svg, "<svg"));
  remove(path);
  rmdir(dir);
  free(out);
  free(svg);
  lraf_profile_free(P);
}

/* Folded stacks: "frame;frame;... N", N > 0, frames not empty, summing
   to the total. */
static void test_folded_format(void **state) {
  size_t len;
  int64_t counted, sum = 0;
  lraf_profile *P = profile_file(TUTIL_CORPUS "/deltablue.lua", 0, 0, &counted);
  char *text = tutil_pf_write(P, "folded", &len), *line, *save = NULL;
  int lines = 0;
  (void)state;
  for (line = strtok_r(text, "\n", &save); line != NULL;
       line = strtok_r(NULL, "\n", &save)) {
    char *sp = strrchr(line, ' '), *f, *s2 = NULL, *end;
    long long n;
    assert_non_null(sp);
    n = strtoll(sp + 1, &end, 10);
    assert_true(*end == '\0' && n > 0 && end > sp + 1);
    *sp = '\0';
    assert_true(strncmp(line, "main chunk (", 12) == 0);
    for (f = strtok_r(line, ";", &s2); f != NULL; f = strtok_r(NULL, ";",
                                                               &s2))
      assert_true(strlen(f) > 0);
    sum += n;
    lines++;
  }
  assert_true(lines > 5);
  assert_int_equal(sum, counted);
  free(text);
  lraf_profile_free(P);
}

/* ---- contexts, coroutines and C frames ---- */

static lraf_profile *profile_src(const char *src, int native) {
  lraf_options opt;
  lraf_state *S;
  lraf_error err;
  lraf_profile *P;
  lraf_default_options(&opt);
  opt.native = native;
  S = tutil_rt_new(&opt);
  assert_int_equal(lraf_profile_start(S, &err), LRAF_OK);
  if (lraf_load_string(S, src, strlen(src), "=t", &err) != LRAF_OK ||
      lraf_call(S, 0, 0, &err) != LRAF_OK)
    fail_msg("%s", err.message);
  assert_int_equal(lraf_profile_stop(S, &P, &err), LRAF_OK);
  tutil_rt_close(S);
  return P;
}

/* Frames get the best name Lua can give: global and module names,
   methods of global and local tables (Class:method when the first
   parameter is self), local functions, the name a function was called
   by, else "function <source:line>"; C functions by their library
   name; the root's first frame is the main chunk. */
static void test_names(void **state) {
  static const char src[] =
    "Scheduler = {}\n"
    "function Scheduler:schedule(n) return n + 1 end\n"
    "local Queue = {}\n"
    "function Queue.push(q, v) q[#q + 1] = v end\n"
    "function helper(x) return x * 2 end\n"
    "local function twice(f, x) return f(f(x)) end\n"
    "local t = {run = function(x) return x end}\n"
    "local function outer()\n"
    "  local inner = function(x) return x + 3 end\n"
    "  return inner(1) + t.run(2)\n"
    "end\n"
    "Scheduler:schedule(1) Queue.push({}, 1) helper(2)\n"
    "twice(function(x) return x end, 4) outer()\n"
    "table.sort({3, 1, 2}, function(a, b) return a < b end)\n"
    "local s = string.gsub('abc', 'b', 'x')\n";
  static const char *const frames[] = {
    "main chunk (t:0)", "Scheduler:schedule (t:2)", "Queue.push (t:4)",
    "helper (t:5)", "twice (t:6)", "t.run (t:7)", "outer (t:8)",
    "inner (t:9)", "f (t:13)", "[C] table.sort",
    "function <t:14> (t:14)", "[C] string.gsub", NULL};
  lraf_profile *P = profile_src(src, 0);
  size_t len;
  char *folded = tutil_pf_write(P, "folded", &len);
  char *table = tutil_pf_write(P, "table", &len);
  int i;
  (void)state;
  for (i = 0; frames[i] != NULL; i++)
    if (strstr(table, frames[i]) == NULL)
      fail_msg("no frame %s in\n%s", frames[i], table);
  if (strstr(table, "[C] ?") != NULL || strncmp(folded, "main chunk", 10))
    fail_msg("the root is not the main chunk:\n%s", folded);
  free(folded);
  free(table);
  lraf_profile_free(P);
}

static void test_contexts(void **state) {
  static const char src[] =
    "local function leaf(n) local s = 0 for i = 1, n do s = s + i end "
    "return s end\n"
    "local function a() return leaf(10) + 1 end\n"
    "local function b() return (leaf(20)) end\n"
    "local function body() for i = 1, 3 do coroutine.yield(leaf(5)) end end\n"
    "local function maker() return coroutine.create(body) end\n"
    "a() b() b()\n"
    "local co = maker()\n"
    "while coroutine.resume(co) do end\n"
    "local s = string.rep('x', 1000)\n"
    "pcall(function() error('x') end)\n"
    "a()\n";
  lraf_profile *P = profile_src(src, 1);
  size_t len;
  char *folded = tutil_pf_write(P, "folded", &len);
  lraf_profile_func f;
  int i, seen = 0;
  (void)state;
  /* leaf under a and under b: two contexts */
  assert_non_null(strstr(folded, "main chunk (t:0);a (t:2);leaf (t:1) "));
  assert_non_null(strstr(folded, "main chunk (t:0);b (t:3);leaf (t:1) "));
  /* the coroutine hangs under the create call in maker */
  assert_non_null(strstr(folded, "main chunk (t:0);maker (t:5);"
                         "[C] coroutine.create;function <t:4> (t:4);"
                         "leaf (t:1) "));
  /* native units of string.rep are its self count */
  assert_non_null(strstr(folded, "main chunk (t:0);[C] string.rep "));
  /* the frames an error unwound are left: a() again under main */
  for (i = 0; lraf_profile_function(P, i, &f); i++) {
    if (strcmp(f.name, "a") == 0) {
      assert_int_equal(f.calls, 2);
      seen++;
    }
    if (strcmp(f.name, "leaf") == 0) {
      assert_int_equal(f.calls, 7);
      assert_int_equal(f.self, f.inclusive);
      seen++;
    }
    if (f.is_c && strcmp(f.name, "string.rep") == 0) {
      assert_true(f.self > 0);
      seen++;
    }
    assert_true(strcmp(f.name, "consume") != 0);
  }
  assert_int_equal(seen, 3);
  free(folded);
  lraf_profile_free(P);
}

/* Deep recursion: frames past PF_MAX_DEPTH (256) merge, counts stay. */
static void test_deep_recursion(void **state) {
  static const char src[] =
    "local function down(n) if n == 0 then return 0 end "
    "return 1 + down(n - 1) end\n"
    "assert(down(20000) == 20000)\n"
    "local function other(n) if n > 0 then return other(n - 1) end end\n"
    "other(100)\n";
  lraf_profile *P = profile_src(src, 0);
  size_t len;
  char *folded = tutil_pf_write(P, "folded", &len), *line, *save = NULL;
  lraf_profile_func f;
  int i, lines = 0, maxdepth = 0;
  (void)state;
  for (i = 0; lraf_profile_function(P, i, &f); i++)
    if (strcmp(f.name, "down") == 0) {
      assert_int_equal(f.calls, 20001);
      assert_int_equal(f.self, f.inclusive);
    }
  for (line = strtok_r(folded, "\n", &save); line != NULL;
       line = strtok_r(NULL, "\n", &save)) {
    int depth = 1;
    char *p;
    for (p = line; *p; p++) depth += *p == ';';
    if (depth > maxdepth) maxdepth = depth;
    lines++;
  }
  assert_true(maxdepth >= 250 && maxdepth <= 258);
  assert_true(lines < 400);
  assert_true(len < 20u * 1000 * 1000);
  free(folded);
  lraf_profile_free(P);
}

static void test_api_errors(void **state) {
  lraf_state *S = tutil_rt_new(NULL);
  lraf_error err;
  lraf_profile *P = NULL;
  (void)state;
  assert_int_equal(lraf_profile_stop(S, &P, &err), LRAF_EARG);
  assert_null(P);
  assert_int_equal(lraf_profile_start(S, &err), LRAF_OK);
  assert_int_equal(lraf_profile_start(S, &err), LRAF_EARG);
  assert_non_null(strstr(err.message, "already"));
  assert_int_equal(lraf_profile_stop(S, &P, &err), LRAF_OK);
  assert_int_equal(lraf_profile_write(P, "xml", 0, stderr, &err), LRAF_EARG);
  assert_non_null(strstr(err.message, "xml"));
  assert_int_equal(lraf_profile_total(P), 0);
  lraf_profile_free(P);
  tutil_rt_close(S);
  /* a profile never stopped goes with its state (ASan checks the
     leak), and a coroutine hooked by a stopped profile unhooks itself */
  S = tutil_rt_new(NULL);
  assert_int_equal(lraf_profile_start(S, &err), LRAF_OK);
  assert_int_equal(tutil_rt_run(S, "co = coroutine.wrap(function() "
                                "for i = 1, 3 do coroutine.yield(i) end end) "
                                "co()", &err), LRAF_OK);
  assert_int_equal(lraf_profile_stop(S, &P, &err), LRAF_OK);
  lraf_profile_free(P);
  assert_int_equal(tutil_rt_run(S, "co() co()", &err), LRAF_OK);
  assert_int_equal(lraf_profile_start(S, &err), LRAF_OK);
  assert_int_equal(tutil_rt_run(S, "local x = 0 for i = 1, 10 do x = x + i "
                                "end", &err), LRAF_OK);
  tutil_rt_close(S);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_corpus),
    cmocka_unit_test(test_byte_identical),
    cmocka_unit_test(test_callgrind_annotate),
    cmocka_unit_test(test_svg_xmllint),
    cmocka_unit_test(test_folded_format),
    cmocka_unit_test(test_contexts),
    cmocka_unit_test(test_names),
    cmocka_unit_test(test_deep_recursion),
    cmocka_unit_test(test_api_errors),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
