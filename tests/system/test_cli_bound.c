/*
** test_cli_bound.c - lraf bound and lraf run --contract, run as a user runs
** them ($LRAF, default build/lraf): no run of a corpus script or of a
** generated program (tests/gen/gen.lua) exceeds a proven bound (per call,
** through a contract of every bounded global function, and on average
** per call in the profile for every function); the bounds of loop-free
** functions and constant loops are reached (a contract one below stops
** the call); reasons for unbounded functions; a contract kept leaves
** the count unchanged, one broken stops the script with status 6, as
** soon as the call passes its declaration.
*/
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tutil_gen.h"
#include "tutil_run.h"
#include "tutil_sh.h"

#define CORPUS "tests/corpus"

static tutil_sh sh;

static int lraf(const char *fmt, ...) {
  char args[2048];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(args, sizeof args, fmt, ap);
  va_end(ap);
  return tutil_sh_run(&sh, "%s %s", tutil_sh_lraf(), args);
}

static char *in_dir(char *buf, size_t size, const char *name) {
  snprintf(buf, size, "%s/%s", sh.dir, name);
  return buf;
}

/* The integer after key in s (up to the end of its line), or -1. */
static long long field(const char *s, const char *key) {
  const char *p = strstr(s, key), *eol = strchr(s, '\n');
  if (p == NULL || (eol != NULL && p > eol)) return -1;
  return strtoll(p + strlen(key), NULL, 10);
}

/* How many functions of a bound or profile JSON start at line. */
static int at_line(const char *json, int line) {
  char key[48];
  const char *p = json;
  int n = 0;
  snprintf(key, sizeof key, "\"line\": %d,", line);
  while ((p = strstr(p, key)) != NULL) { n++; p++; }
  return n;
}

/* Every function bounded in bound.json (at a line no other function
   shares) runs at most its bound per call, on average, in prof.json.
   mm: the script sets metatables, so a bound that assumes no metamethod
   runs Lua code is checked only for a function that ran no Lua function
   (a metamethod would be one). */
static int check_profile(const char *bjson, const char *pjson,
                         const char *what, int mm) {
  const char *p = bjson;
  int checked = 0;
  while ((p = strstr(p, "{\"name\": ")) != NULL) {
    long long line = field(p, "\"line\": "), bound;
    int assumes;
    const char *q;
    char key[48];
    p++;
    if (strstr(p, "\"bounded\": true") == NULL ||
        strstr(p, "\"bounded\": true") > strchr(p, '\n'))
      continue;
    bound = field(p, "\"bound\": ");
    assumes = strstr(p, "\"assumes_no_lua_metamethods\": true") <
              strchr(p, '\n');
    if (at_line(bjson, (int)line) != 1 || at_line(pjson, (int)line) != 1)
      continue;
    snprintf(key, sizeof key, "\"line\": %lld, \"c\": false", line);
    if ((q = strstr(pjson, key)) == NULL) continue;  /* never called */
    {
      long long calls = field(q, "\"calls\": ");
      long long incl = field(q, "\"inclusive\": ");
      /* where metamethods may run Lua code, only calls that ran no Lua
         function (inclusive = self) are held to the bound */
      if (mm && assumes && incl != field(q, "\"self\": ")) continue;
      if (calls > 0 && incl > calls * bound)
        fail_msg("%s: function at line %lld ran %lld instructions in %lld "
                 "calls, above its bound %lld per call", what, line, incl,
                 calls, bound);
      checked++;
    }
  }
  return checked;
}

/* A contract of the bounded global functions of bound JSON that assume
   nothing of metamethods, into the file path. */
static void write_strict_contract(const char *bjson, const char *path) {
  FILE *f = fopen(path, "w");
  const char *p = bjson;
  assert_non_null(f);
  while ((p = strstr(p, "{\"name\": \"")) != NULL) {
    const char *eol = strchr(p, '\n'), *q;
    p += 10;
    q = strstr(p, "\"assumes_no_lua_metamethods\": false");
    if (q == NULL || q > eol || strstr(p, "\"global\": true") > eol) continue;
    fprintf(f, "%.*s %lld\n", (int)(strchr(p, '"') - p), p,
            field(p, "\"bound\": "));
  }
  fclose(f);
}

/* Bound script (a path), then run it under the contract and profile
   it: no call above its bound.  Returns the functions checked. */
static int check_script(const char *script, const char *what) {
  char contract[128], pj[128];
  char *bjson, *pjson, *src = tutil_sh_read(script);
  int rc, n, mm = strstr(src, "setmetatable") != NULL;
  free(src);
  in_dir(contract, sizeof contract, "c.txt");
  in_dir(pj, sizeof pj, "p.json");
  rc = lraf("bound --format json --write-contract %s %s", contract, script);
  if (rc != 0) fail_msg("%s: lraf bound exited %d: %s", what, rc,
                        tutil_sh_read(sh.err));
  bjson = tutil_sh_read(sh.out);
  if (mm) write_strict_contract(bjson, contract);
  rc = lraf("run --contract %s %s", contract, script);
  if (rc == 6) fail_msg("%s: %s", what, tutil_sh_read(sh.err));
  rc = lraf("profile --format json -o %s %s", pj, script);
  pjson = tutil_sh_read(pj);
  n = rc == 0 ? check_profile(bjson, pjson, what, mm) : 0;
  free(bjson);
  free(pjson);
  return n;
}

static void test_corpus(void **state) {
  DIR *d = opendir(CORPUS);
  struct dirent *e;
  int files = 0, checked = 0;
  (void)state;
  assert_non_null(d);
  while ((e = readdir(d)) != NULL) {
    char path[512];
    size_t len = strlen(e->d_name);
    if (len < 5 || strcmp(e->d_name + len - 4, ".lua") != 0) continue;
    snprintf(path, sizeof path, "%s/%s", CORPUS, e->d_name);
    checked += check_script(path, e->d_name);
    files++;
  }
  closedir(d);
  print_message("corpus: %d scripts, %d bounded functions checked\n", files,
                checked);
  assert_true(files > 20);
  assert_true(checked > 20);
}

static void test_generated(void **state) {
  long seed;
  int checked = 0;
  (void)state;
  for (seed = 1; seed <= 40; seed++) {
    char err[256], path[128], what[32];
    size_t len;
    char *prog = tutil_gen_program(seed, &len, err, sizeof err);
    if (prog == NULL) fail_msg("gen.lua seed %ld: %s", seed, err);
    assert_int_equal(tutil_sh_write(&sh, "gen.lua", prog), 0);
    free(prog);
    snprintf(what, sizeof what, "seed %ld", seed);
    checked += check_script(in_dir(path, sizeof path, "gen.lua"), what);
  }
  print_message("generated: 40 programs, %d bounded functions checked\n",
                checked);
  assert_true(checked > 0);
}

/* The bound of the function named name in script's table output. */
static long long bound_of(const char *script, const char *name) {
  char *out, *p, key[80];
  long long b;
  assert_int_equal(lraf("bound %s/%s", sh.dir, script), 0);
  out = tutil_sh_read(sh.out);
  snprintf(key, sizeof key, "\n%s ", name);
  p = strstr(out, key);
  if (p == NULL) fail_msg("no %s in:\n%s", name, out);
  if (sscanf(p + strlen(key), " %*d %lld", &b) != 1)
    fail_msg("%s is not bounded:\n%s", name, out);
  free(out);
  return b;
}

/* The bound of f in src is reached: a contract of bound - 1 stops it,
   one of bound does not. */
static void reached(const char *src, const char *name) {
  long long b;
  char text[128], script[128];
  tutil_sh_write(&sh, "r.lua", src);
  b = bound_of("r.lua", name);
  assert_true(b > 0);
  snprintf(text, sizeof text, "%s %lld\n", name, b);
  tutil_sh_write(&sh, "ok.txt", text);
  snprintf(text, sizeof text, "%s %lld\n", name, b - 1);
  tutil_sh_write(&sh, "tight.txt", text);
  in_dir(script, sizeof script, "r.lua");
  assert_int_equal(lraf("run --contract %s/ok.txt %s", sh.dir, script), 0);
  if (lraf("run --contract %s/tight.txt %s", sh.dir, script) != 6)
    fail_msg("the bound %lld of %s is not reached:\n%s", b, name, src);
}

static void test_reached(void **state) {
  (void)state;
  reached("function f(t, k)\n"
          "  local v = t[k]\n"
          "  if v then t.n = v; return v end\n"
          "  return nil\n"
          "end\n"
          "f({}, 'a'); f({a = 1}, 'a')\n", "f");
  reached("local function h(x) if x then return x .. 'y' end end\n"
          "function g(a, b) if a == b then return h(a) else return 0 end end\n"
          "g('x', 'x')\n", "g");
  reached("function c(a, b) return a + b * 2 end\n"
          "c(1, 2); c('1', '2')\n", "c");
  reached("function s()\n"
          "  local a = 0\n"
          "  for i = 1, 10 do\n"
          "    for j = 3, 1, -1 do if i then a = j end end\n"
          "  end\n"
          "  print(a)\n"
          "  return a\n"
          "end\n"
          "s()\n", "s");
}

static void test_reasons(void **state) {
  char *out;
  (void)state;
  tutil_sh_write(&sh, "u.lua",
                 "function w(n) while n > 0 do n = n - 1 end end\n"
                 "function r(n) if n > 0 then return r(n - 1) end end\n"
                 "function s(t) table.sort(t, function(a, b) return a > b end) end\n"
                 "function v(n) local x = 0 for i = 1, n do x = i end end\n"
                 "function u(f) return f() end\n"
                 "function it(t) for k in pairs(t) do end end\n"
                 "function pa(a) a(); a = function() end end\n");
  assert_int_equal(lraf("bound %s/u.lua", sh.dir), 0);
  out = tutil_sh_read(sh.out);
  assert_non_null(strstr(out, "unbounded: loop (while, repeat or goto) at "
                         "line 1"));
  assert_non_null(strstr(out, "unbounded: recursion (calls r, line 2) at "
                         "line 2"));
  assert_non_null(strstr(out, "unbounded: calls table.sort (not a known "
                         "function) at line 3"));
  assert_non_null(strstr(out, "unbounded: for loop whose bounds are not "
                         "constants at line 4"));
  assert_non_null(strstr(out, "line 5"));
  assert_non_null(strstr(out, "unbounded: generic for loop at line 6"));
  /* a parameter holds the argument before the closure assigned to it */
  assert_non_null(strstr(out, "unbounded: calls a function value it cannot "
                         "name at line 7"));
  free(out);
  /* the original cost model only */
  assert_int_equal(lraf("bound --mode overhead %s/u.lua", sh.dir), 2);
  out = tutil_sh_read(sh.err);
  assert_non_null(strstr(out, "original cost model only"));
  free(out);
}

/* The instructions lraf run --report - says the run counted. */
static long long counted(void) {
  char *err = tutil_sh_read(sh.err), *p = strstr(err, "lraf: ");
  long long n = p ? strtoll(p + 6, NULL, 10) : -1;
  free(err);
  return n;
}

static void test_contract(void **state) {
  long long plain, kept;
  char *err;
  (void)state;
  tutil_sh_write(&sh, "k.lua",
                 "function h(n) local s = 0 for i = 1, n do s = s + i end "
                 "return s end\n"
                 "print(h(3), pcall(h, 100))\n"
                 "print('after')\n");
  tutil_sh_write(&sh, "keep.txt", "# kept\nh 1000\n\nnobody 1\n");
  tutil_sh_write(&sh, "break.txt", "h 30\n");
  tutil_sh_write(&sh, "bad.txt", "h thirty\n");
  assert_int_equal(lraf("run --report - %s/k.lua", sh.dir), 0);
  plain = counted();
  assert_int_equal(lraf("run --report - --contract %s/keep.txt %s/k.lua",
                        sh.dir, sh.dir), 0);
  kept = counted();
  assert_true(plain > 0);
  assert_int_equal(kept, plain);  /* same count with the contract */
  /* broken: pcall does not catch it, the script stops, status 6 */
  assert_int_equal(lraf("run --contract %s/break.txt %s/k.lua", sh.dir,
                        sh.dir), 6);
  err = tutil_sh_read(sh.err);
  assert_non_null(strstr(err, "contract violation: one call of h ran"));
  assert_null(strstr(err, "quota"));
  free(err);
  err = tutil_sh_read(sh.out);
  assert_null(strstr(err, "after"));
  free(err);
  assert_int_equal(lraf("run --contract %s/bad.txt %s/k.lua", sh.dir,
                        sh.dir), 2);
  err = tutil_sh_read(sh.err);
  assert_non_null(strstr(err, "bad.txt:1:"));
  free(err);
}

/* A call that would never return is stopped when it passes its
   declaration, not by a limit: without --limit the run ends at once,
   status 6; a coroutine the call resumes is not the call's, and other
   threads run on after a contracted call returns. */
static void test_contract_stops_in_flight(void **state) {
  long long n;
  char *err;
  (void)state;
  tutil_sh_write(&sh, "spin.lua",
                 "function spin() while true do end end\n"
                 "function calm(n) local s = 0 for i = 1, n do s = s + i "
                 "end return s end\n"
                 "local co = coroutine.wrap(function() "
                 "for i = 1, 3 do coroutine.yield(calm(100)) end end)\n"
                 "print(calm(10), co(), co())\n"
                 "print(pcall(spin))\n"
                 "print('after')\n");
  tutil_sh_write(&sh, "spin.txt", "spin 5000\ncalm 2000\n");
  assert_int_equal(lraf("run --contract %s/spin.txt %s/spin.lua", sh.dir,
                        sh.dir), 6);
  err = tutil_sh_read(sh.err);
  if (strstr(err, "contract violation: one call of spin ran ") == NULL)
    fail_msg("expected spin's violation, got:\n%s", err);
  n = atoll(strstr(err, " ran ") + 5);
  assert_true(n > 5000 && n < 5100);  /* stopped as it passed 5000 */
  free(err);
  err = tutil_sh_read(sh.out);
  assert_non_null(strstr(err, "55\t5050\t5050"));
  assert_null(strstr(err, "after"));
  free(err);
}

static int setup(void **state) {
  (void)state;
  return tutil_sh_init(&sh, "bound");
}

static int teardown(void **state) {
  (void)state;
  return tutil_sh_cleanup(&sh);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_reasons),
    cmocka_unit_test(test_reached),
    cmocka_unit_test(test_contract),
    cmocka_unit_test(test_contract_stops_in_flight),
    cmocka_unit_test(test_corpus),
    cmocka_unit_test(test_generated),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
