/*
** test_rt_loadlib.c - load, loadfile, dofile and require's Lua
** searcher (rt_loadlib.c): each behaves as lua5.4's (same results,
** same messages: strings and reader functions, chunk names, modes,
** environments, files, modules found on package.path and the message
** for one not found) while the code it loads is rewritten and counted;
** a quota error raised in a reader passes through load; with native
** charging, compiling is charged by the bytes compiled.
*/
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lraf.h"
#include "tutil_rt.h"
#include "tutil_run.h"

static char dir[64];

static void put(const char *name, const char *text) {
  char path[128];
  FILE *f;
  snprintf(path, sizeof path, "%s/%s", dir, name);
  f = fopen(path, "w");
  assert_non_null(f);
  fputs(text, f);
  fclose(f);
}

static int setup(void **state) {
  (void)state;
  strcpy(dir, "/tmp/lraf-loadlib-XXXXXX");
  if (mkdtemp(dir) == NULL) return -1;
  put("mod.lua", "local name = ...\n"
                 "local s = 0 for i = 1, 100 do s = s + i end\n"
                 "return {name = name, sum = s}\n");
  put("file.lua", "return 'from file', ...\n");
  put("broken.lua", "return = 1\n");
  return 0;
}

static int teardown(void **state) {
  char cmd[96];
  (void)state;
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  return system(cmd);
}

static const char *const cases[] = {
  "print(load('return 1 + 1')())",
  "print(load('syntax error here', '=named'))",
  "print(load('return x', 'c', 't', {x = 'env'})())",
  "print(load('return 1', 'c', 'b'))",
  "local parts, i = {'return ', '2 ', '* 21'}, 0\n"
  "print(load(function() i = i + 1 return parts[i] end)())",
  "print(pcall(load, function() return {} end))",
  "print(load(function() error('in reader') end))",
  "print(loadfile(DIR .. '/file.lua')('arg'))",
  "print(loadfile(DIR .. '/broken.lua'))",
  "print(loadfile(DIR .. '/none.lua'))",
  "print(dofile(DIR .. '/file.lua'))",
  "print(pcall(dofile, DIR .. '/broken.lua'))",
  "package.path = DIR .. '/?.lua'\n"
  "local m = require 'mod' print(m.name, m.sum, package.loaded.mod == m)",
  "package.path = DIR .. '/?.lua' package.cpath = ''\n"
  "print(pcall(require, 'nowhere'))",
};

/* Each case prints what plain Lua prints. */
static void test_like_lua(void **state) {
  size_t i;
  (void)state;
  for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char src[1024];
    tutil_run lua;
    lraf_error err;
    char *out;
    snprintf(src, sizeof src, "local DIR = '%s'\n%s\n", dir, cases[i]);
    tutil_run_hook(src, strlen(src), "=test", &lua);
    assert_true(lua.ok);
    if (tutil_rt_once(NULL, src, &err, &out) != LRAF_OK)
      fail_msg("case %zu: %s", i, err.message);
    if (strcmp(out, lua.output) != 0)
      fail_msg("case %zu:\nlraf: %slua:  %s", i, out, lua.output);
    free(out);
    tutil_run_free(&lua);
  }
}

/* What each way loads is counted: the module's loop (200 or more) in
   every case. */
static void test_counted(void **state) {
  static const char *const ways[] = {
    "load(SRC)()", "loadfile(DIR .. '/mod.lua')()",
    "dofile(DIR .. '/mod.lua')", "require 'mod'",
  };
  size_t i;
  (void)state;
  for (i = 0; i < sizeof ways / sizeof ways[0]; i++) {
    char src[1024];
    lraf_error err;
    char *out;
    snprintf(src, sizeof src,
             "local DIR = '%s' package.path = DIR .. '/?.lua'\n"
             "local SRC = 'local s = 0 for i = 1, 100 do s = s + i end'\n"
             "local lraf = require 'lraf'\n"
             "print((lraf.measure(function() %s end)))\n", dir, ways[i]);
    if (tutil_rt_once(NULL, src, &err, &out) != LRAF_OK)
      fail_msg("%s", err.message);
    if (atoll(out) < 200) fail_msg("%s: %s", ways[i], out);
    free(out);
  }
}

/* A stop inside a reader is no load error. */
static void test_quota_in_reader(void **state) {
  lraf_options opt;
  lraf_error err;
  char *out;
  (void)state;
  lraf_default_options(&opt);
  opt.manager = lraf_limit_new(50000);
  assert_int_equal(tutil_rt_once(&opt, "print(load(function() "
                                 "while true do end end))", &err, &out),
                   LRAF_EQUOTA);
  assert_string_equal(out, "");
  free(out);
  lraf_manager_release(opt.manager);
}

/* Native charging: compiling more bytes costs more units. */
static void test_charged_by_bytes(void **state) {
  static const int sizes[] = {1000, 100000};
  int64_t units[2];
  size_t i;
  (void)state;
  for (i = 0; i < 2; i++) {
    lraf_options opt;
    lraf_state *S;
    lraf_error err;
    char src[256];
    int64_t before;
    lraf_default_options(&opt);
    opt.native = 1;
    S = tutil_rt_new(&opt);
    snprintf(src, sizeof src, "BIG = 'return ' .. ('1 + '):rep(%d) .. '1'",
             sizes[i] / 4);
    assert_int_equal(tutil_rt_run(S, src, &err), LRAF_OK);
    before = lraf_native_units(S);
    assert_int_equal(tutil_rt_run(S, "assert(load(BIG))", &err), LRAF_OK);
    units[i] = lraf_native_units(S) - before;
    tutil_rt_close(S);
  }
  assert_true(units[0] > 0);
  assert_true(units[1] > 10 * units[0]);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_like_lua),
    cmocka_unit_test(test_counted),
    cmocka_unit_test(test_quota_in_reader),
    cmocka_unit_test(test_charged_by_bytes),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
