/*
** test_rt_env.c - the two environments (rt_env.c): the full one has
** every name plain Lua 5.4 opens, library by library; the sandbox has
** only its list (no io, no debug, no package.loadlib, os with clock,
** time and date).  Both get lraf's load, pcall, coroutine wrappers and
** require "lraf"; a deterministic state starts math.random from a fixed
** seed and lraf_deterministic_restart starts it there again.
*/
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "lraf.h"
#include "tutil_rt.h"
#include "tutil_run.h"

/* Prints "lib.name" for every function of every library table in _G
   and "name" for every other global, sorted. */
static const char names_src[] =
  "local out = {}\n"
  "for k, v in pairs(_G) do\n"
  "  if type(v) == 'table' and k ~= '_G' and k ~= 'package' then\n"
  "    for f in pairs(v) do out[#out + 1] = k .. '.' .. f end\n"
  "  else out[#out + 1] = k end\n"
  "end\n"
  "for f in pairs(package) do out[#out + 1] = 'package.' .. f end\n"
  "table.sort(out)\n"
  "print(table.concat(out, ' '))\n";

static char *names(lraf_env env) {
  lraf_options opt;
  lraf_error err;
  char *out;
  lraf_default_options(&opt);
  opt.env = env;
  if (tutil_rt_once(&opt, names_src, &err, &out) != LRAF_OK)
    fail_msg("%s", err.message);
  return out;
}

/* The full environment: the same names as plain Lua, library by
   library. */
static void test_full_is_lua(void **state) {
  tutil_run lua;
  char *full = names(LRAF_ENV_FULL);
  (void)state;
  tutil_run_hook(names_src, strlen(names_src), "=names", &lua);
  assert_true(lua.ok);
  assert_string_equal(full, lua.output);
  tutil_run_free(&lua);
  free(full);
}

/* Whether a name is in the space-separated list. */
static int has(const char *list, const char *name) {
  size_t n = strlen(name);
  const char *p = list;
  while ((p = strstr(p, name)) != NULL) {
    if ((p == list || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\n'))
      return 1;
    p += n;
  }
  return 0;
}

static const struct {
  const char *name;
  int full, sandbox;
} present[] = {
  {"io.open", 1, 0}, {"debug.getinfo", 1, 0},
  {"package.loadlib", 1, 0}, {"os.execute", 1, 0}, {"os.getenv", 1, 0},
  {"os.remove", 1, 0}, {"os.exit", 1, 0}, {"os.clock", 1, 1},
  {"os.time", 1, 1}, {"os.date", 1, 1}, {"load", 1, 1},
  {"loadfile", 1, 1}, {"dofile", 1, 1}, {"require", 1, 1},
  {"pcall", 1, 1}, {"xpcall", 1, 1}, {"coroutine.wrap", 1, 1},
  {"string.dump", 1, 1}, {"table.sort", 1, 1}, {"math.random", 1, 1},
  {"utf8.char", 1, 1}, {"package.searchers", 1, 1},
  {"collectgarbage", 1, 1},
};

static void test_sandbox_names(void **state) {
  char *full = names(LRAF_ENV_FULL), *sandbox = names(LRAF_ENV_SANDBOX);
  size_t i;
  (void)state;
  for (i = 0; i < sizeof present / sizeof present[0]; i++) {
    if (has(full, present[i].name) != present[i].full)
      fail_msg("full: %s", present[i].name);
    if (has(sandbox, present[i].name) != present[i].sandbox)
      fail_msg("sandbox: %s", present[i].name);
  }
  /* the sandbox's os has exactly three functions */
  assert_non_null(strstr(sandbox, "os.clock os.date os.time "));
  assert_null(strstr(sandbox, "os.difftime"));
  free(full);
  free(sandbox);
}

/* lraf's own functions in both: require "lraf", load through the
   rewriter (a loaded chunk counts), pcall that cannot catch a stop. */
static const char lraf_src[] =
  "local lraf = require 'lraf'\n"
  "local f = load('local s = 0 for i = 1, 1000 do s = s + i end return s')\n"
  "local before = lraf.count()\n"
  "assert(f() == 500500)\n"
  "print(type(lraf.measure), lraf.count() - before >= 2000)\n"
  "print(pcall(load, string.dump(function() end)))\n";

static void test_lraf_functions(void **state) {
  static const lraf_env envs[] = {LRAF_ENV_FULL, LRAF_ENV_SANDBOX};
  size_t i;
  (void)state;
  for (i = 0; i < 2; i++) {
    lraf_options opt;
    lraf_error err;
    char *out;
    lraf_default_options(&opt);
    opt.env = envs[i];
    if (tutil_rt_once(&opt, lraf_src, &err, &out) != LRAF_OK)
      fail_msg("%s", err.message);
    assert_true(strncmp(out, "function\ttrue\n", 14) == 0);
    /* the full environment loads its own dumps; the sandbox none */
    if (envs[i] == LRAF_ENV_FULL)
      assert_true(strncmp(out + 14, "true\tfunction", 13) == 0);
    else
      assert_non_null(strstr(out + 14, "true\tnil\t"));
    free(out);
  }
}

/* A deterministic state: the same random numbers in every state, and
   again after lraf_deterministic_restart. */
static void test_deterministic_random(void **state) {
  static const char src[] = "print(math.random(1, 1000000), "
                            "math.random(1, 1000000))";
  char first[64] = "", out[3][64];
  int i;
  (void)state;
  for (i = 0; i < 2; i++) {
    lraf_options opt;
    lraf_error err;
    lraf_state *S;
    const char *o;
    lraf_default_options(&opt);
    opt.deterministic = 1;
    S = tutil_rt_new(&opt);
    assert_int_equal(lraf_deterministic(S), 1);
    assert_int_equal(tutil_rt_run(S, src, &err), LRAF_OK);
    lraf_deterministic_restart(S);
    assert_int_equal(tutil_rt_run(S, src, &err), LRAF_OK);
    o = tutil_rt_output(S, NULL);
    assert_true(strlen(o) < sizeof out[0]);
    strcpy(out[i], o);
    /* the second run after the restart printed the first's numbers */
    assert_true(strlen(o) % 2 == 0);
    assert_memory_equal(o, o + strlen(o) / 2, strlen(o) / 2);
    tutil_rt_close(S);
  }
  strcpy(first, out[0]);
  assert_string_equal(first, out[1]);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_full_is_lua),
    cmocka_unit_test(test_sandbox_names),
    cmocka_unit_test(test_lraf_functions),
    cmocka_unit_test(test_deterministic_random),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
