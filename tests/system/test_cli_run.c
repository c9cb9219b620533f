/*
** test_cli_run.c - `lraf run`: behaves like lua5.4 SCRIPT ARGS (arg
** table, ..., output), exit statuses 0/1/2/3, one line on a quota, the
** JSON report and the summary, os.exit, --sandbox;
** `lraf run` against lua5.4 itself on the corpus (stdout byte for byte
** and exit status) and on the arg table; `lraf bench`.
** Runs the command named by $LRAF (the Makefile sets it).
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
#include <sys/wait.h>
#include <unistd.h>

#include "tutil_run.h"
#include "tutil_sh.h"

static tutil_sh shell;
static char json_path[128];

static void write_script(const char *name, const char *text) {
  assert_int_equal(tutil_sh_write(&shell, name, text), 0);
}

/* Run `lraf ARGS` in shell.dir; returns the exit status; stdout/stderr in
   files. */
static int run(const char *args) {
  int st = tutil_sh_lraf_run(&shell, "%s", args);
  assert_true(st >= 0);
  return st;
}

/* Run a shell command from the repository root with stdout/stderr in
   the given files; returns the exit status. */
static int sh(const char *cmd, const char *out, const char *err) {
  int st = tutil_sh_exec(cmd, out, err);
  assert_true(st >= 0);
  return st;
}

static int count_lines(const char *s) {
  int n = 0;
  for (; *s; s++) n += *s == '\n';
  return n;
}

static int setup(void **state) {
  (void)state;
  assert_int_equal(tutil_sh_init(&shell, "cli"), 0);
  snprintf(json_path, sizeof json_path, "%s/report.json", shell.dir);
  write_script("args.lua",
               "print(arg[0], arg[1], arg[2], #arg, select('#', ...), ...)\n"
               "print(arg[-1] ~= nil)\n");
  write_script("fail.lua", "local function f() error('failed here') end\nf()\n");
  write_script("syntax.lua", "x = = 1\n");
  write_script("spin.lua", "local n = 0\nwhile true do n = n + 1 end\n");
  write_script("exit.lua", "print('bye')\nos.exit(5)\n");
  write_script("sandbox.lua", "print(io == nil, debug == nil, os.exit == nil)\n");
  write_script("co.lua",
               "local w = coroutine.wrap(function() for i = 1, 3 do "
               "coroutine.yield(i) end end)\nprint(w() + w() + w())\n");
  return 0;
}

static int teardown(void **state) {
  (void)state;
  return tutil_sh_cleanup(&shell);
}

/* Run `lraf ARGS`, which must exit 0 having printed want. */
static void expect_stdout(const char *args, const char *want) {
  char *out;
  assert_int_equal(run(args), 0);
  out = tutil_sh_read(shell.out);
  assert_string_equal(out, want);
  free(out);
}

/* A command line and the exit status it must end with. */
typedef struct status_case {
  const char *args;
  int status;
} status_case;

/* Bad input (1) and usage errors (2) of lraf run and lraf bench. */
static const status_case bad_runs[] = {
  {"run syntax.lua", 1}, {"run missing.lua", 2}, {"run", 2},
  {"run --frobnicate x.lua", 2}, {"run --limit x spin.lua", 2},
  {"run --mode weighted spin.lua", 2},
};
static const status_case bad_benches[] = {
  {"bench syntax.lua", 1}, {"bench missing.lua", 2}, {"bench", 2},
  {"bench -n 0 sum.lua", 2}, {"bench -n x sum.lua", 2},
  {"bench sum.lua sum.lua sum.lua", 2}, {"bench --frobnicate sum.lua", 2},
  {"bench --mode weighted sum.lua", 2}, {"bench --granularity 0 sum.lua", 2},
  {"bench -- ", 2},
};

/* Run each of the n cases, which must end with its status. */
static void expect_statuses(const status_case *cases, size_t n) {
  size_t i;
  for (i = 0; i < n; i++) {
    int st = run(cases[i].args);
    if (st != cases[i].status)
      fail_msg("lraf %s: status %d, not %d", cases[i].args, st,
               cases[i].status);
  }
}

static void test_like_lua(void **state) {
  (void)state;
  expect_stdout("run args.lua a b", "args.lua\ta\tb\t2\t2\ta\tb\ntrue\n");
  expect_stdout("run --exact -- args.lua", "args.lua\tnil\tnil\t0\t0\ntrue\n");
}

static void test_exit_statuses(void **state) {
  char *err;
  (void)state;
  assert_int_equal(run("run fail.lua"), 1);
  err = tutil_sh_read(shell.err);
  assert_non_null(strstr(err, "fail.lua:1: failed here"));
  assert_non_null(strstr(err, "stack traceback:"));
  free(err);
  expect_statuses(bad_runs, sizeof bad_runs / sizeof bad_runs[0]);
  assert_int_equal(run("run --limit 100000 spin.lua"), 3);
  err = tutil_sh_read(shell.err);
  assert_int_equal(count_lines(err), 1);
  assert_string_equal(err, "lraf: quota exceeded (limit 100000 units) "
                      "at spin.lua:2: in main chunk; native charging was on "
                      "(--limit, --memory-limit and --sandbox turn it on; "
                      "--no-native turns it off) and added 0 units\n");
  free(err);
  assert_int_equal(run("run exit.lua"), 5);
}

static void test_binary_is_bad_input(void **state) {
  (void)state;
  if (system("command -v luac5.4 > /dev/null") != 0) skip();
  {
    char cmd[256];
    snprintf(cmd, sizeof cmd, "luac5.4 -o %s/b.luac %s/co.lua", shell.dir, shell.dir);
    assert_int_equal(system(cmd), 0);
  }
  assert_int_equal(run("run b.luac"), 2);
}

static long json_int(const char *json, const char *key) {
  char pat[64];
  const char *p;
  snprintf(pat, sizeof pat, "\"%s\": ", key);
  p = strstr(json, pat);
  assert_non_null(p);
  return strtol(p + strlen(pat), NULL, 10);
}

static void test_report(void **state) {
  char args[256], *json, *err;
  const char *co = "local w = coroutine.wrap(function() for i = 1, 3 do "
                   "coroutine.yield(i) end end)\nprint(w() + w() + w())\n";
  tutil_run hook;
  (void)state;
  tutil_run_hook(co, strlen(co), "=co", &hook);
  snprintf(args, sizeof args, "run --exact --report %s co.lua", json_path);
  assert_int_equal(run(args), 0);
  json = tutil_sh_read(json_path);
  assert_int_equal(json_int(json, "count"), hook.count);
  assert_non_null(strstr(json, "\"units\": \"instructions\""));
  assert_non_null(strstr(json, "\"status\": \"ok\""));
  assert_non_null(strstr(json, "\"model\": \"" TUTIL_VM "/original/exact\""));
  assert_non_null(strstr(json, "\"wall_seconds\": "));
  assert_non_null(strstr(json, "\"cpu_seconds\": "));
  assert_non_null(strstr(json, "\"count_per_cpu_second\": "));
  assert_non_null(strstr(json, "{\"id\": 0, \"count\": "));
  assert_non_null(strstr(json, "{\"id\": 1, \"count\": "));
  free(json);
  tutil_run_free(&hook);
  snprintf(args, sizeof args, "run --limit 5000 --report %s spin.lua", json_path);
  assert_int_equal(run(args), 3);
  json = tutil_sh_read(json_path);
  assert_non_null(strstr(json, "\"status\": \"quota\""));
  assert_true(json_int(json, "count") > 5000);
  free(json);
  snprintf(args, sizeof args, "run --report %s fail.lua", json_path);
  assert_int_equal(run(args), 1);
  json = tutil_sh_read(json_path);
  assert_non_null(strstr(json, "\"status\": \"error\""));
  free(json);
  snprintf(args, sizeof args, "run --report %s exit.lua", json_path);
  assert_int_equal(run(args), 5);
  json = tutil_sh_read(json_path);
  assert_non_null(strstr(json, "\"exit_code\": 5"));
  free(json);
  assert_int_equal(run("run --report - co.lua"), 0);
  err = tutil_sh_read(shell.err);
  assert_non_null(strstr(err, "instructions (" TUTIL_VM "/original), status ok"));
  assert_non_null(strstr(err, "instructions per cpu second"));
  free(err);
}

static void test_sandbox_and_modes(void **state) {
  char *out;
  (void)state;
  expect_stdout("run --sandbox sandbox.lua", "true\ttrue\ttrue\n");
  expect_stdout("run sandbox.lua", "false\tfalse\tfalse\n");
  write_script("w.txt", "ADD 10\nFORLOOP 3\n");
  assert_int_equal(run("run --weights w.txt --granularity 7 co.lua"), 0);
  assert_int_equal(run("run --mode overhead --report - co.lua"), 0);
  out = tutil_sh_read(shell.err);
  assert_non_null(strstr(out, TUTIL_VM "/overhead"));
  free(out);
}

/* Both files hold the same bytes. */
static int same_file(const char *a, const char *b) {
  size_t la, lb;
  char *x = tutil_run_slurp(a, &la), *y = tutil_run_slurp(b, &lb);
  int same;
  assert_non_null(x);
  assert_non_null(y);
  same = la == lb && memcmp(x, y, la) == 0;
  free(x);
  free(y);
  return same;
}

/* The arg table and ... as lua5.4 gives them: the script at 0, its
   arguments (empty and spaced ones too) at 1.., the command line before
   the script at negative indices; stdin as "-". */
static void test_arg_like_lua(void **state) {
  char cmd[1024], lua_out[160], lua_err[160];
  const char *show =
    "local n = 0\nwhile arg[n - 1] ~= nil do n = n - 1 end\n"
    "print(arg[0], #arg, select('#', ...), n < 0)\n"
    "for i = 1, #arg do io.write('[', arg[i], ']') end\n"
    "print(...)\nprint(#arg == 0 or arg[#arg] == select(select('#', ...), ...))\n";
  (void)state;
  if (system("command -v lua5.4 > /dev/null") != 0) skip();
  write_script("show.lua", show);
  snprintf(lua_out, sizeof lua_out, "%s/lua-out.txt", shell.dir);
  snprintf(lua_err, sizeof lua_err, "%s/lua-err.txt", shell.dir);
  snprintf(cmd, sizeof cmd, "cd %s && lua5.4 show.lua a 'b c' '' -x --y",
           shell.dir);
  assert_int_equal(sh(cmd, lua_out, lua_err), 0);
  assert_int_equal(run("run show.lua a 'b c' '' -x --y"), 0);
  assert_true(same_file(shell.out, lua_out));
  assert_int_equal(run("run --exact --limit 1000000 show.lua a 'b c' '' -x --y"),
                   0);
  assert_true(same_file(shell.out, lua_out));
  /* no arguments */
  snprintf(cmd, sizeof cmd, "cd %s && lua5.4 show.lua", shell.dir);
  assert_int_equal(sh(cmd, lua_out, lua_err), 0);
  assert_int_equal(run("run show.lua"), 0);
  assert_true(same_file(shell.out, lua_out));
  /* the script from stdin */
  snprintf(cmd, sizeof cmd, "cd %s && lua5.4 - p q < show.lua", shell.dir);
  assert_int_equal(sh(cmd, lua_out, lua_err), 0);
  assert_int_equal(run("run - p q < show.lua"), 0);
  assert_true(same_file(shell.out, lua_out));
  /* negative indices: lraf's own command line, down to its name */
  write_script("neg.lua", "local n = 0\nwhile arg[n - 1] ~= nil do n = n - 1 "
               "end\nprint(n, arg[n + 1], arg[-1])\n");
  assert_int_equal(run("run --exact neg.lua z"), 0);
  {
    char *out = tutil_sh_read(shell.out);
    assert_non_null(strstr(out, "-3\trun\t--exact\n"));
    free(out);
  }
}

/* More exit statuses, each as lua5.4 gives it where lua5.4 has one:
   error objects that are not strings, os.exit(true/false), a runtime
   error after output (the output is kept), --report on each. */
static void test_exit_statuses_like_lua(void **state) {
  static const struct {
    const char *name, *src;
  } cases[] = {
    {"ok.lua", "print('fine')\n"},
    {"tbl.lua", "print('before')\nerror({})\n"},
    {"nilerr.lua", "error()\n"},
    {"exit_true.lua", "io.write('x')\nos.exit(true)\n"},
    {"exit_false.lua", "os.exit(false)\n"},
    {"exit_n.lua", "os.exit(42)\n"},
    {"arith.lua", "local t = {}\nprint(1)\nreturn t.x + 1\n"},
  };
  char cmd[512], lua_out[160], lua_err[160], args[256];
  size_t i;
  (void)state;
  if (system("command -v lua5.4 > /dev/null") != 0) skip();
  snprintf(lua_out, sizeof lua_out, "%s/lua-out.txt", shell.dir);
  snprintf(lua_err, sizeof lua_err, "%s/lua-err.txt", shell.dir);
  for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    int want;
    write_script(cases[i].name, cases[i].src);
    snprintf(cmd, sizeof cmd, "cd %s && lua5.4 %s", shell.dir, cases[i].name);
    want = sh(cmd, lua_out, lua_err);
    snprintf(args, sizeof args, "run --report %s %s", json_path,
             cases[i].name);
    assert_int_equal(run(args), want);
    assert_true(same_file(shell.out, lua_out));
  }
  /* the status names in the report */
  assert_int_equal(run("run --limit 10 --report - spin.lua"), 3);
  {
    char *err = tutil_sh_read(shell.err);
    assert_non_null(strstr(err, "status quota"));
    free(err);
  }
  /* bad input: a directory, a weights file that does not parse, an
     empty script name, a bad granularity */
  assert_int_equal(run("run ."), 2);
  write_script("bad-weights.txt", "NOSUCHOP 3\n");
  assert_int_equal(run("run --weights bad-weights.txt ok.lua"), 2);
  assert_int_equal(run("run --granularity 0 ok.lua"), 2);
  assert_int_equal(run("run --rate -5 ok.lua"), 2);
  assert_int_equal(run("run --mode fast ok.lua"), 2);
  assert_int_equal(run("run --report"), 2);
}

/* require finds Lua modules on package.path (./?.lua from the working
   directory) and C modules on package.cpath (Debian's lua-lpeg) as
   lua5.4 does; the sandbox keeps the C modules of the cpath it started
   with that the host allowed (lpeg), and reads Lua files only from the
   directories it allowed (--allow-dir; tests/system/test_rt_sandbox_contained.c
   has the rest). */
static void test_require_like_lua(void **state) {
  char cmd[512], lua_out[160], lua_err[160];
  (void)state;
  if (system("command -v lua5.4 > /dev/null") != 0) skip();
  if (system("lua5.4 -e 'require \"lpeg\"' 2> /dev/null") != 0) skip();
  write_script("mymod.lua", "local M = {}\nfunction M.twice(x) return 2 * x end\n"
               "return M\n");
  write_script("req.lua",
               "local m = require 'mymod'\nlocal lpeg = require 'lpeg'\n"
               "local digits = lpeg.C(lpeg.R'09'^1) / tonumber\n"
               "print(m.twice(digits:match('21abc')), package.loaded.mymod == m)\n"
               "print(pcall(require, 'no_such_module_here'))\n");
  snprintf(lua_out, sizeof lua_out, "%s/lua-out.txt", shell.dir);
  snprintf(lua_err, sizeof lua_err, "%s/lua-err.txt", shell.dir);
  snprintf(cmd, sizeof cmd, "cd %s && lua5.4 req.lua", shell.dir);
  assert_int_equal(sh(cmd, lua_out, lua_err), 0);
  assert_int_equal(run("run req.lua"), 0);
  assert_true(same_file(shell.out, lua_out));
  assert_int_equal(run("run --sandbox req.lua"), 1);
  assert_int_equal(run("run --sandbox --allow-dir . req.lua"), 0);
  {
    char *out = tutil_sh_read(shell.out);
    assert_memory_equal(out, "42\ttrue\nfalse\t", 14);
    free(out);
  }
}

static int quick(void) {
  return getenv("LRAF_QUICK") != NULL;
}

/* Every corpus program (the benchmark programs among them) prints the
   same bytes on stdout under lraf run as under lua5.4, and exits the
   same way. */
static void test_corpus_like_lua(void **state) {
  static const char *const quick_set[] = {"towers.lua", "varargs.lua",
                                          "errors.lua", "strings.lua", NULL};
  char cmd[1024], o1[160], e1[160], o2[160], e2[160];
  DIR *d;
  struct dirent *e;
  int compared = 0;
  (void)state;
  if (system("command -v lua5.4 > /dev/null") != 0) skip();
  snprintf(o1, sizeof o1, "%s/c-lua-out.txt", shell.dir);
  snprintf(e1, sizeof e1, "%s/c-lua-err.txt", shell.dir);
  snprintf(o2, sizeof o2, "%s/c-lraf-out.txt", shell.dir);
  snprintf(e2, sizeof e2, "%s/c-lraf-err.txt", shell.dir);
  d = opendir("tests/corpus");
  assert_non_null(d);
  while ((e = readdir(d)) != NULL) {
    size_t len = strlen(e->d_name);
    int want, got;
    if (len < 5 || strcmp(e->d_name + len - 4, ".lua") != 0) continue;
    if (quick()) {
      const char *const *q = quick_set;
      while (*q != NULL && strcmp(*q, e->d_name) != 0) q++;
      if (*q == NULL) continue;
    }
    snprintf(cmd, sizeof cmd, "lua5.4 tests/corpus/%s", e->d_name);
    want = sh(cmd, o1, e1);
    snprintf(cmd, sizeof cmd, "%s run tests/corpus/%s", tutil_sh_lraf(),
             e->d_name);
    got = sh(cmd, o2, e2);
    if (got != want || !same_file(o1, o2))
      fail_msg("lraf run tests/corpus/%s: exit %d (lua5.4: %d), stdout %s",
               e->d_name, got, want, same_file(o1, o2) ? "same" : "differs");
    compared++;
  }
  closedir(d);
  assert_true(compared >= (quick() ? 4 : 20));
}

/* A number after "label" in text. */
static long long number_after(const char *text, const char *label) {
  const char *p = strstr(text, label);
  assert_non_null(p);
  return strtoll(p + strlen(label), NULL, 10);
}

/* lraf bench: the count equals the count-hook oracle and is the same
   in every run; output of the script is not shown; a count that varies
   is reported loudly; two scripts are compared; errors and usage. */
static void test_bench(void **state) {
  const char *sum = "local s = 0\nfor i = 1, 3000 do s = s + i % 7 end\n"
                    "print('sum', s)\n";
  const char *sum2 = "local s = 0\nfor i = 1, 6000 do s = s + i % 7 end\n"
                     "print('sum', s)\n";
  const char *vary = "local s = 0\nfor i = 1, 10 + math.floor(os.clock() "
                     "* 1e7) % 100000 do s = s + i end\n";
  tutil_run hook, hook2;
  char *out, *err, want[128];
  (void)state;
  write_script("sum.lua", sum);
  write_script("sum2.lua", sum2);
  write_script("vary.lua", vary);
  tutil_run_hook(sum, strlen(sum), "=sum", &hook);
  tutil_run_hook(sum2, strlen(sum2), "=sum2", &hook2);
  assert_true(hook.ok && hook2.ok);
  assert_int_equal(run("bench -n 3 sum.lua"), 0);
  out = tutil_sh_read(shell.out);
  assert_null(strstr(out, "sum\t"));  /* the script's print is muted */
  assert_non_null(strstr(out, "3 runs each, model " TUTIL_VM "/original"));
  snprintf(want, sizeof want, "instructions  %lld (the same in all 3 runs)",
           hook.count);
  assert_non_null(strstr(out, want));
  assert_non_null(strstr(out, "wall seconds  mean "));
  assert_non_null(strstr(out, " ± "));
  assert_non_null(strstr(out, " min "));
  assert_non_null(strstr(out, " median "));
  assert_non_null(strstr(out, " max "));
  free(out);
  /* two scripts: the ratio of the counts */
  assert_int_equal(run("bench -n 2 sum2.lua sum.lua"), 0);
  out = tutil_sh_read(shell.out);
  assert_int_equal(number_after(out, "sum2.lua\n  instructions  "),
                   hook2.count);
  snprintf(want, sizeof want, "sum2.lua / sum.lua = %.4f",
           (double)hook2.count / (double)hook.count);
  assert_non_null(strstr(out, want));
  free(out);
  /* --mode overhead counts more than the original (on the stock target:
     the hook never sees the lraf VM's accounting) */
  assert_int_equal(run("bench -n 1 --mode overhead --vm stock sum.lua"), 0);
  out = tutil_sh_read(shell.out);
  assert_non_null(strstr(out, "model lua5.4/overhead"));
  assert_true(number_after(out, "instructions  ") > hook.count);
  free(out);
  /* a count that depends on the clock: a failure, loud on stdout and
     stderr with the reason (10 runs make equal counts by chance very
     unlikely) */
  assert_int_equal(run("bench -n 10 vary.lua"), 1);
  out = tutil_sh_read(shell.out);
  err = tutil_sh_read(shell.err);
  assert_non_null(strstr(out, "THE COUNT DIFFERS BETWEEN RUNS"));
  assert_non_null(strstr(err, "differs between runs"));
  assert_non_null(strstr(err, "reads the clock"));
  free(out);
  free(err);
  /* errors and usage */
  assert_int_equal(run("bench fail.lua"), 1);
  err = tutil_sh_read(shell.err);
  assert_non_null(strstr(err, "failed here"));
  free(err);
  expect_statuses(bad_benches, sizeof bad_benches / sizeof bad_benches[0]);
  tutil_run_free(&hook);
  tutil_run_free(&hook2);
}

/* Run an lraf bench command that must succeed, check that its output
   contains expect (when not NULL), and return the count it printed. */
static long long bench_count(const char *cmd, const char *expect) {
  char *out;
  long long n;
  assert_int_equal(run(cmd), 0);
  out = tutil_sh_read(shell.out);
  if (expect != NULL) assert_non_null(strstr(out, expect));
  n = strstr(out, "  units  ") ? number_after(out, "  units  ")
                                : number_after(out, "instructions  ");
  free(out);
  return n;
}

/* lraf bench: arguments after "--" reach arg[1..] and `...` of every
   run (the count grows with the argument exactly as the hook says), and
   --sandbox, --native and --granularity reach the state. */
static void test_bench_options(void **state) {
  const char *args = "local n = tonumber(arg[1])\n"
                     "assert(select('#', ...) == 2 and ... == arg[1])\n"
                     "assert(arg[2] == 'y' and arg[0] == 'args.lua')\n"
                     "local s = 0\nfor i = 1, n do s = s + i % 7 end\n";
  const char *sum1 = "local s = 0\nfor i = 1, 1000 do s = s + i % 7 end\n";
  const char *sum2 = "local s = 0\nfor i = 1, 2500 do s = s + i % 7 end\n";
  const char *noio = "if io then error('io in the sandbox') end\n"
                     "local s = ('x'):rep(1000000)\n";
  tutil_run h1, h2;
  long long c1, c2, plain, native;
  (void)state;
  write_script("args.lua", args);
  write_script("noio.lua", noio);
  tutil_run_hook(sum1, strlen(sum1), "=sum1", &h1);
  tutil_run_hook(sum2, strlen(sum2), "=sum2", &h2);
  assert_true(h1.ok && h2.ok);
  c1 = bench_count("bench -n 2 args.lua -- 1000 y",
                   "(the same in all 2 runs)");
  c2 = bench_count("bench -n 2 args.lua args.lua -- 2500 y",
                   "args.lua / args.lua = 1.0000");
  assert_int_equal(c2 - c1, h2.count - h1.count);
  assert_int_equal(run("bench -n 1 args.lua"), 1);  /* no arguments */
  /* the sandbox has no io; native charging counts string.rep's work */
  assert_int_equal(run("bench -n 1 noio.lua"), 1);
  /* native charging is on in the sandbox */
  native = bench_count("bench -n 1 --sandbox noio.lua", "/native-");
  write_script("noio.lua", noio + strlen("if io then error('io in the "
                                         "sandbox') end\n"));
  plain = bench_count("bench -n 1 noio.lua", NULL);
  assert_true(bench_count("bench -n 1 --native --granularity 50 noio.lua",
                          NULL) > plain + 10000);
  assert_true(native > plain + 10000);
  tutil_run_free(&h1);
  tutil_run_free(&h2);
}

/* --help lists every command; --version; unknown commands. */
static void test_help(void **state) {
  char *out;
  (void)state;
  assert_int_equal(run("--help"), 0);
  out = tutil_sh_read(shell.out);
  assert_non_null(strstr(out, "  run "));
  assert_non_null(strstr(out, "  bench "));
  assert_non_null(strstr(out, "  rewrite "));
  assert_non_null(strstr(out, "  disasm "));
  free(out);
  assert_int_equal(run("--version"), 0);
  out = tutil_sh_read(shell.out);
  assert_non_null(strstr(out, "lraf 0."));
  free(out);
  assert_int_equal(run("frobnicate"), 2);
  assert_int_equal(run(""), 2);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_like_lua),
    cmocka_unit_test(test_exit_statuses),
    cmocka_unit_test(test_binary_is_bad_input),
    cmocka_unit_test(test_report),
    cmocka_unit_test(test_sandbox_and_modes),
    cmocka_unit_test(test_arg_like_lua),
    cmocka_unit_test(test_exit_statuses_like_lua),
    cmocka_unit_test(test_require_like_lua),
    cmocka_unit_test(test_corpus_like_lua),
    cmocka_unit_test(test_bench),
    cmocka_unit_test(test_bench_options),
    cmocka_unit_test(test_help),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
