/*
** test_rt_cli.c - `lraf run`: behaves like lua5.4 SCRIPT ARGS (arg
** table, ..., output), exit statuses 0/1/2/3, one line on a quota, the
** JSON report and the summary, os.exit, --sandbox; `lraf rewrite`.
** Runs the command named by $LRAF (the Makefile sets it).
*/
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tutil_run.h"

static char dir[64];
static char out_path[128], err_path[128], json_path[128];

static const char *lraf(void) {
  const char *p = getenv("LRAF");
  return p ? p : "build/lraf";
}

static void write_script(const char *name, const char *text) {
  char path[128];
  FILE *f;
  snprintf(path, sizeof path, "%s/%s", dir, name);
  f = fopen(path, "w");
  assert_non_null(f);
  fputs(text, f);
  fclose(f);
}

/* Run `lraf ARGS`; returns the exit status; stdout/stderr in files. */
static int run(const char *args) {
  char cmd[1024];
  int st;
  snprintf(cmd, sizeof cmd, "cd %s && %s%s %s > %s 2> %s", dir,
           lraf()[0] == '/' ? "" : "\"$OLDPWD\"/", lraf(), args, out_path,
           err_path);
  st = system(cmd);
  assert_true(WIFEXITED(st));
  return WEXITSTATUS(st);
}

static char *slurp(const char *path) {
  size_t len;
  char *s = tutil_run_slurp(path, &len);
  assert_non_null(s);
  return s;
}

static int count_lines(const char *s) {
  int n = 0;
  for (; *s; s++) n += *s == '\n';
  return n;
}

static int setup(void **state) {
  (void)state;
  snprintf(dir, sizeof dir, "/tmp/lraf-cli-XXXXXX");
  assert_non_null(mkdtemp(dir));
  snprintf(out_path, sizeof out_path, "%s/out.txt", dir);
  snprintf(err_path, sizeof err_path, "%s/err.txt", dir);
  snprintf(json_path, sizeof json_path, "%s/report.json", dir);
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
  char cmd[128];
  (void)state;
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  return system(cmd) == 0 ? 0 : -1;
}

static void test_like_lua(void **state) {
  char *out;
  (void)state;
  assert_int_equal(run("run args.lua a b"), 0);
  out = slurp(out_path);
  assert_string_equal(out, "args.lua\ta\tb\t2\t2\ta\tb\ntrue\n");
  free(out);
  assert_int_equal(run("run --exact -- args.lua"), 0);
  out = slurp(out_path);
  assert_string_equal(out, "args.lua\tnil\tnil\t0\t0\ntrue\n");
  free(out);
}

static void test_exit_statuses(void **state) {
  char *err;
  (void)state;
  assert_int_equal(run("run fail.lua"), 1);
  err = slurp(err_path);
  assert_non_null(strstr(err, "fail.lua:1: failed here"));
  assert_non_null(strstr(err, "stack traceback:"));
  free(err);
  assert_int_equal(run("run syntax.lua"), 1);
  assert_int_equal(run("run missing.lua"), 2);
  assert_int_equal(run("run"), 2);
  assert_int_equal(run("run --frobnicate x.lua"), 2);
  assert_int_equal(run("run --limit x spin.lua"), 2);
  assert_int_equal(run("run --mode weighted spin.lua"), 2);
  assert_int_equal(run("run --limit 100000 spin.lua"), 3);
  err = slurp(err_path);
  assert_int_equal(count_lines(err), 1);
  assert_string_equal(err, "lraf: instruction quota exceeded (limit 100000)\n");
  free(err);
  assert_int_equal(run("run exit.lua"), 5);
}

static void test_binary_is_bad_input(void **state) {
  (void)state;
  if (system("command -v luac5.4 > /dev/null") != 0) skip();
  {
    char cmd[256];
    snprintf(cmd, sizeof cmd, "luac5.4 -o %s/b.luac %s/co.lua", dir, dir);
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
  json = slurp(json_path);
  assert_int_equal(json_int(json, "instructions"), hook.count);
  assert_non_null(strstr(json, "\"status\": \"ok\""));
  assert_non_null(strstr(json, "\"model\": \"lua5.4/original\""));
  assert_non_null(strstr(json, "\"wall_seconds\": "));
  assert_non_null(strstr(json, "\"cpu_seconds\": "));
  assert_non_null(strstr(json, "\"instructions_per_cpu_second\": "));
  assert_non_null(strstr(json, "{\"id\": 0, \"instructions\": "));
  assert_non_null(strstr(json, "{\"id\": 1, \"instructions\": "));
  free(json);
  tutil_run_free(&hook);
  snprintf(args, sizeof args, "run --limit 5000 --report %s spin.lua", json_path);
  assert_int_equal(run(args), 3);
  json = slurp(json_path);
  assert_non_null(strstr(json, "\"status\": \"quota\""));
  assert_true(json_int(json, "instructions") > 5000);
  free(json);
  snprintf(args, sizeof args, "run --report %s fail.lua", json_path);
  assert_int_equal(run(args), 1);
  json = slurp(json_path);
  assert_non_null(strstr(json, "\"status\": \"error\""));
  free(json);
  snprintf(args, sizeof args, "run --report %s exit.lua", json_path);
  assert_int_equal(run(args), 5);
  json = slurp(json_path);
  assert_non_null(strstr(json, "\"exit_code\": 5"));
  free(json);
  assert_int_equal(run("run --report - co.lua"), 0);
  err = slurp(err_path);
  assert_non_null(strstr(err, "instructions (lua5.4/original), status ok"));
  assert_non_null(strstr(err, "instructions per cpu second"));
  free(err);
}

static void test_sandbox_and_modes(void **state) {
  char *out;
  (void)state;
  assert_int_equal(run("run --sandbox sandbox.lua"), 0);
  out = slurp(out_path);
  assert_string_equal(out, "true\ttrue\ttrue\n");
  free(out);
  assert_int_equal(run("run sandbox.lua"), 0);
  out = slurp(out_path);
  assert_string_equal(out, "false\tfalse\tfalse\n");
  free(out);
  write_script("w.txt", "ADD 10\nFORLOOP 3\n");
  assert_int_equal(run("run --weights w.txt --granularity 7 co.lua"), 0);
  assert_int_equal(run("run --mode overhead --report - co.lua"), 0);
  out = slurp(err_path);
  assert_non_null(strstr(out, "lua5.4/overhead"));
  free(out);
}

/* `lraf rewrite` makes chunks only lraf runs, for one cost model. */
static void test_rewrite(void **state) {
  char *out;
  (void)state;
  write_script("table.lua", "#!/usr/bin/env lua\nlocal t = {}\n"
               "for i = 1, 10 do t[i] = i end\nprint(#t, ...)\n");
  assert_int_equal(run("rewrite table.lua -o table.luac"), 0);
  assert_int_equal(run("run table.luac x"), 0);
  out = slurp(out_path);
  assert_string_equal(out, "10\tx\n");
  free(out);
  assert_int_equal(run("run --mode overhead table.luac"), 2);
  out = slurp(err_path);
  assert_non_null(strstr(out, "cost model"));
  free(out);
  assert_int_equal(run("rewrite --mode overhead table.lua -o t2.luac"), 0);
  assert_int_equal(run("run --mode overhead t2.luac"), 0);
  assert_int_equal(run("rewrite missing.lua -o x.luac"), 2);
  assert_int_equal(run("rewrite table.lua"), 2);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_like_lua),
    cmocka_unit_test(test_exit_statuses),
    cmocka_unit_test(test_binary_is_bad_input),
    cmocka_unit_test(test_report),
    cmocka_unit_test(test_sandbox_and_modes),
    cmocka_unit_test(test_rewrite),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
