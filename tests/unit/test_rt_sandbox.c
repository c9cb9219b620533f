/*
** test_rt_sandbox.c - the two environments: what the sandbox contains
** (no debug, no io, os.clock/time/date only, no package.loadlib, no
** binary loading, string.dump harmless), that the counter and consume
** function cannot be reached from Lua, that C modules load only from
** the package.cpath the state started with, and that the full
** environment has the whole standard library.
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

#include <lua.h>

#include "tutil_rt.h"
#include "tutil_run.h"

/* TUTIL_VM as a Lua pattern */
#ifdef LRAF_VM
#define BC_PATTERN "lraf%-vm5%.4"
#else
#define BC_PATTERN "lua5%.4"
#endif

static lraf_state *env_state(lraf_env env) {
  lraf_options opt;
  lraf_default_options(&opt);
  opt.env = env;
  return tutil_rt_new(&opt);
}

static void run_ok(lraf_state *S, const char *src) {
  lraf_error err;
  if (tutil_rt_run(S, src, &err) != LRAF_OK)
    fail_msg("%s\n-> %s", src, err.message);
}

static void test_sandbox_contents(void **state) {
  lraf_state *S = env_state(LRAF_ENV_SANDBOX);
  (void)state;
  run_ok(S,
    "assert(debug == nil and io == nil)\n"
    "local names = {}\n"
    "for k in pairs(os) do names[#names + 1] = k end\n"
    "table.sort(names)\n"
    "assert(table.concat(names, ',') == 'clock,date,time', table.concat(names, ','))\n"
    "assert(package.loadlib == nil)\n"
    "for k in pairs(package.loaded) do\n"
    "  assert(({_G=1, package=1, coroutine=1, table=1, string=1, math=1,\n"
    "           utf8=1, os=1})[k], 'loaded: ' .. k) end\n"
    "assert(not pcall(require, 'io') and not pcall(require, 'debug'))\n"
    "assert(package.loaded.os == os and os.execute == nil and os.exit == nil)\n"
    "for _, k in ipairs{'print', 'pcall', 'xpcall', 'load', 'require', 'select',\n"
    "    'setmetatable', 'tostring', 'coroutine', 'string', 'table', 'math', 'utf8'} do\n"
    "  assert(_G[k] ~= nil, k) end\n"
    "assert(type(os.clock()) == 'number' and type(os.time()) == 'number'\n"
    "       and type(os.date('%Y')) == 'string')\n"
    "local d = string.dump(function() return 1 end)\n"
    "assert(type(d) == 'string' and load(d) == nil)\n"
    "assert(require('lraf').model():match('^" BC_PATTERN "/original/native%-%x+$'))\n"
    "local ok = load('return 1 + 1') ; assert(ok() == 2)\n");
  tutil_rt_close(S);
}

static void test_full_contents(void **state) {
  lraf_state *S = env_state(LRAF_ENV_FULL);
  (void)state;
  run_ok(S,
    "assert(debug and io and os.execute and package.loadlib)\n"
    "assert(type(debug.getupvalue) == 'function')\n"
    "assert(package.loaded.io == io and package.loaded.debug == debug)\n");
  tutil_rt_close(S);
}

/* Everything Lua can reach without the debug library, walked from the
   globals, must not contain the consume function. */
static int reaches(lua_State *L, int seen, int target, int depth) {
  int found = 0;
  int t = lua_gettop(L);
  if (lua_rawequal(L, t, target)) return 1;
  if (depth > 12) return 0;
  if (lua_getmetatable(L, t)) {
    found = reaches(L, seen, target, depth + 1);
    lua_pop(L, 1);
    if (found) return 1;
  }
  if (!lua_istable(L, t)) return 0;
  lua_pushvalue(L, t);
  if (lua_rawget(L, seen) != LUA_TNIL) {
    lua_pop(L, 1);
    return 0;
  }
  lua_pop(L, 1);
  lua_pushvalue(L, t);
  lua_pushboolean(L, 1);
  lua_rawset(L, seen);
  lua_pushnil(L);
  while (!found && lua_next(L, t)) {
    lua_pushvalue(L, -2);
    found = reaches(L, seen, target, depth + 1);
    lua_pop(L, 1);
    if (!found) found = reaches(L, seen, target, depth + 1);
    lua_pop(L, 1);
  }
  if (found) lua_pop(L, 1);
  return found;
}

static void test_counter_unreachable(void **state) {
  lraf_state *S = env_state(LRAF_ENV_SANDBOX);
  lua_State *L = lraf_lua(S);
  lraf_error err;
  const char *name;
  int consume, seen;
  (void)state;
  assert_int_equal(lraf_load_string(S, "return 1", 8, "=x", &err), LRAF_OK);
  if (lraf_vm_builtin()) {
    /* the lraf VM's counter is in the Lua state: main has only _ENV */
    assert_non_null(lua_getupvalue(L, -1, 1));
    assert_null(lua_getupvalue(L, -2, 2));
    lua_settop(L, 0);
    tutil_rt_close(S);
    return;
  }
  /* main has _ENV, then the counter and consume */
  name = lua_getupvalue(L, -1, 2);
  assert_non_null(name);
  assert_true(lua_isinteger(L, -1));
  lua_pop(L, 1);
  name = lua_getupvalue(L, -1, 3);
  assert_non_null(name);
  assert_true(lua_iscfunction(L, -1));
  consume = lua_gettop(L);
  lua_newtable(L);
  seen = lua_gettop(L);
  lua_pushglobaltable(L);
  assert_false(reaches(L, seen, consume, 0));
  lua_pop(L, 1);
  lua_pushliteral(L, "");
  assert_false(reaches(L, seen, consume, 0));  /* the string metatable */
  lua_pop(L, 1);
  /* the walk does find what is reachable */
  lua_getglobal(L, "string");
  lua_getfield(L, -1, "format");
  lua_newtable(L);
  lua_pushglobaltable(L);
  assert_true(reaches(L, lua_gettop(L) - 1, lua_gettop(L) - 2, 0));
  lua_settop(L, 0);
  tutil_rt_close(S);
}

/* The sandbox loads C modules only from the package.cpath it started
   with; the full environment follows package.cpath. */
static void test_cpath_frozen(void **state) {
  const char *lpeg = "/usr/lib/x86_64-linux-gnu/lua/5.4/lpeg.so";
  char dir[64], copy[128], src[512];
  FILE *in, *out;
  char buf[4096];
  size_t n;
  lraf_state *S;
  (void)state;
  if (access(lpeg, R_OK) != 0) skip();
  snprintf(dir, sizeof dir, "/tmp/lraf-cpath-XXXXXX");
  assert_non_null(mkdtemp(dir));
  snprintf(copy, sizeof copy, "%s/evil-lpeg.so", dir);
  in = fopen(lpeg, "rb");
  out = fopen(copy, "wb");
  assert_non_null(in);
  assert_non_null(out);
  while ((n = fread(buf, 1, sizeof buf, in)) > 0) fwrite(buf, 1, n, out);
  fclose(in);
  fclose(out);
  snprintf(src, sizeof src,
           "assert(require('lpeg').version)\n"
           "package.cpath = '%s/?.so'\n"
           "local ok, e = pcall(require, 'evil-lpeg')\n"
           "assert(ok == FULL, tostring(e))\n", dir);
  S = env_state(LRAF_ENV_FULL);
  lua_pushboolean(lraf_lua(S), 1);
  lua_setglobal(lraf_lua(S), "FULL");
  run_ok(S, src);
  tutil_rt_close(S);
  S = env_state(LRAF_ENV_SANDBOX);
  lua_pushboolean(lraf_lua(S), 0);
  lua_setglobal(lraf_lua(S), "FULL");
  run_ok(S, src);
  tutil_rt_close(S);
  unlink(copy);
  rmdir(dir);
}

/* The sandbox counts like the full environment. */
/* Without native charging the sandbox counts like the hook; by default
   it also charges the C built-ins (table.unpack here), and only them. */
static void test_sandbox_counts(void **state) {
  const char *src = "local t = {} for i = 1, 100 do t[#t + 1] = i * 2 end"
                    " print(#t, select('#', table.unpack(t)))";
  lraf_options opt;
  lraf_state *S;
  tutil_run hook;
  int64_t plain;
  (void)state;
  tutil_run_hook(src, strlen(src), "=test", &hook);
  lraf_default_options(&opt);
  opt.env = LRAF_ENV_SANDBOX;
  opt.native = 0;
  S = tutil_rt_new(&opt);
  run_ok(S, src);
  plain = tutil_rt_total(S);
  assert_int_equal(plain, hook.count);
  assert_string_equal(tutil_rt_output(S, NULL), hook.output);
  tutil_rt_close(S);
  S = env_state(LRAF_ENV_SANDBOX);
  run_ok(S, src);
  printf("  sandbox: %lld instructions, %lld with native charging\n",
         (long long)plain, (long long)tutil_rt_total(S));
  assert_true(tutil_rt_total(S) > plain);
  assert_string_equal(tutil_rt_output(S, NULL), hook.output);
  tutil_rt_close(S);
  S = env_state(LRAF_ENV_FULL);  /* full: off by default */
  run_ok(S, src);
  assert_int_equal(tutil_rt_total(S), hook.count);
  tutil_rt_close(S);
  tutil_run_free(&hook);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_sandbox_contents),
    cmocka_unit_test(test_full_contents),
    cmocka_unit_test(test_counter_unreachable),
    cmocka_unit_test(test_cpath_frozen),
    cmocka_unit_test(test_sandbox_counts),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
