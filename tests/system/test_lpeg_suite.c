/*
** test_lpeg_suite.c - LPeg's own test suite under lraf.  test.lua of
** the installed LPeg's release (1.0.2 or 1.1.0), from Debian's lua-lpeg
** source package, is fetched into build/lpeg-src by tests/lpeg/fetch.sh
** (never committed) and run with
** test.lua and the re.lua it requires both rewritten, over Debian's
** lpeg.so.  It must finish without an error and print what plain Lua
** prints (ending in "OK"); in exact mode lraf must count exactly what a
** count hook of 1 counts on the same program under plain Lua.  In the
** default mode lraf counts at least that much: the suite catches errors
** raised in the middle of Lua functions (checkerr with a Lua closure,
** re.compile), and the rest of a block abandoned by an error was already
** charged (README, "When a block is charged").
**
** The harness drives test.lua unchanged.  lraf loads it with
** lraf_load_file, which like lua5.4 (luaL_loadfile) skips its first line
** "#!/usr/bin/env lua" but keeps the line count; the plain run gets the
** text with that line blanked, which compiles to the same bytecode with
** the same line numbers.  LUA_PATH_5_4 makes both states find re.lua in
** build/lpeg-src only (luaL_openlibs reads it when it creates
** package.path).  Both capture print, which the suite calls and also
** passes to lpeg as a value.  Without the sources (no network) the tests
** are skipped with the reason, never passed.
**
** With native charging on, require "lpeg" loads lraf's metered LPeg
** (runtime/native/nat_lpeg.c, the same LPeg with a step count) where the
** library was built with it: the suite must print the same there, and
** in exact mode the instructions (total less the native units) are
** still exactly the hook's count.  Skipped in a build without it.
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

#include <lauxlib.h>
#include <lua.h>

#include "tutil_rt.h"
#include "tutil_run.h"

#define SRC_DIR "build/lpeg-src"
#define FETCH "tests/lpeg/fetch.sh " SRC_DIR
#define TEST_LUA SRC_DIR "/test.lua"
#define RE_PATH SRC_DIR "/?.lua"

/* The plain run, shared by the tests; NULL when the sources could not
   be fetched. */
static tutil_run *plain;

/* Fetch the sources and run test.lua under plain Lua with the hook. */
static int setup(void **state) {
  static tutil_run run;
  static const char ok[] = "\nOK\n";
  size_t len;
  char *src;
  int rc = system(FETCH);
  rc = rc != -1 && WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
  (void)state;
  src = rc == 0 ? tutil_run_slurp(TEST_LUA, &len) : NULL;
  if (src == NULL) {
    printf("  SKIP: '%s' failed (exit status %d): LPeg's test.lua is not "
           "available, so the suite does not run\n", FETCH, rc);
    return 0;
  }
  if (src[0] == '#') {  /* as luaL_loadfile: skip the line, keep its \n */
    size_t eol = strcspn(src, "\n");
    memset(src, ' ', eol);
  }
  tutil_run_hook(src, len, "@" TEST_LUA, &run);
  free(src);
  plain = &run;
  if (!run.ok) {
    printf("plain Lua: LPeg's test.lua failed: %s\n", run.error);
    return -1;
  }
  if (run.outlen < sizeof ok - 1 ||
      memcmp(run.output + run.outlen - (sizeof ok - 1), ok, sizeof ok - 1)) {
    printf("plain Lua: LPeg's test.lua did not print OK last:\n%s\n",
           run.output ? run.output : "");
    return -1;
  }
  return 0;
}

static int teardown(void **state) {
  (void)state;
  if (plain != NULL) tutil_run_free(plain);
  return 0;
}

/* Run test.lua through the API; returns what lraf counted (with
   native charging: the instructions, and *native the native units). */
static int64_t run_suite(int exact, int native, int64_t *native_units) {
  const char *mode = native ? "metered" : exact ? "exact" : "default";
  lraf_options opt;
  lraf_state *S;
  lraf_error err;
  lraf_status st;
  const char *out, *path;
  size_t outlen;
  int64_t total;
  lua_State *L;
  if (plain == NULL) skip();
  lraf_default_options(&opt);
  opt.exact = exact;
  opt.native = native;
  S = tutil_rt_new(&opt);
  L = lraf_lua(S);
  if (native) {  /* the metered LPeg, if this build has it */
    static const char probe[] = "return (select(2, require 'lpeg'))";
    const char *where;
    if (luaL_loadstring(L, probe) != LUA_OK ||
        lua_pcall(L, 0, 1, 0) != LUA_OK)
      fail_msg("require 'lpeg': %s", lua_tostring(L, -1));
    where = lua_tostring(L, -1);
    if (where == NULL || strcmp(where, "lraf:metered") != 0) {
      printf("  SKIP: require 'lpeg' loads %s: built without the metered "
             "LPeg (runtime/native/lpeg/fetch.sh)\n", where ? where : "?");
      lua_pop(L, 1);
      tutil_rt_close(S);
      skip();
    }
    lua_pop(L, 1);
  }
  lua_getglobal(L, "package");
  lua_getfield(L, -1, "path");
  path = lua_tostring(L, -1);
  assert_non_null(path);
  assert_string_equal(path, RE_PATH);
  lua_pop(L, 2);
  st = lraf_load_file(S, TEST_LUA, &err);
  if (st == LRAF_OK) st = lraf_call(S, 0, 0, &err);
  if (st != LRAF_OK)
    fail_msg("%s mode: LPeg's test.lua failed under lraf: %s: %s", mode,
             lraf_status_name(st), lraf_last_error(S));
  /* re came from build/lpeg-src through require, whose Lua searcher
     rewrites what it loads */
  lua_getglobal(L, "package");
  lua_getfield(L, -1, "loaded");
  lua_getfield(L, -1, "re");
  assert_int_equal(lua_type(L, -1), LUA_TTABLE);
  lua_pop(L, 3);
  out = tutil_rt_output(S, &outlen);
  if (outlen != plain->outlen || memcmp(out, plain->output, outlen) != 0)
    fail_msg("%s mode: the output differs from plain Lua's:\n%s---\n%s",
             mode, out, plain->output);
  total = tutil_rt_total(S);
  *native_units = lraf_native_units(S);
  printf("  LPeg test.lua, %-7s mode: hook %lld, lraf %lld (native "
         "%lld)\n", mode, plain->count, (long long)total,
         (long long)*native_units);
  tutil_rt_close(S);
  return total - *native_units;
}

static void test_lpeg_suite_exact(void **state) {
  int64_t total, native;
  (void)state;
  total = run_suite(1, 0, &native);
  if (total != plain->count)
    fail_msg("exact mode: lraf counted %lld, the hook %lld",
             (long long)total, plain->count);
}

static void test_lpeg_suite_default(void **state) {
  int64_t total, native;
  (void)state;
  total = run_suite(0, 0, &native);
  if (total < plain->count)
    fail_msg("default mode: lraf counted %lld, less than the hook's %lld",
             (long long)total, plain->count);
}

/* The metered LPeg passes the suite, charges its steps as native units,
   and leaves the instruction count exact. */
static void test_lpeg_suite_metered(void **state) {
  int64_t total, native;
  (void)state;
  total = run_suite(1, 1, &native);
  if (total != plain->count)
    fail_msg("metered, exact mode: lraf counted %lld instructions, the "
             "hook %lld", (long long)total, plain->count);
  assert_true(native > 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_lpeg_suite_exact),
    cmocka_unit_test(test_lpeg_suite_default),
    cmocka_unit_test(test_lpeg_suite_metered),
  };
  /* before any state exists: luaL_openlibs builds package.path from it */
  if (setenv("LUA_PATH_5_4", RE_PATH, 1) != 0) return 1;
  return cmocka_run_group_tests(tests, setup, teardown);
}
