/*
** test_rt_load.c - every way code enters a state goes through the
** rewriter and is counted: load (string and reader), loadfile, dofile,
** require; binary chunks are refused everywhere with a clear message
** (except, in the full environment, the exact bytes of this state's
** string.dump, which tests/system/test_sec_dump.c covers);
** offline-rewritten chunks load only through lraf_load_rewritten, only
** where the host allows unsigned ones, and only for the cost model they
** were made for; C modules still load.
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

#include <lauxlib.h>
#include <lua.h>

#include "tutil_rt.h"
#include "tutil_run.h"
#include "tutil_vm.h"

static char dir[64];

static void write_file(const char *name, const void *data, size_t len) {
  char path[128];
  FILE *f;
  snprintf(path, sizeof path, "%s/%s", dir, name);
  f = fopen(path, "wb");
  assert_non_null(f);
  assert_int_equal(fwrite(data, 1, len, f), len);
  fclose(f);
}

static void write_text(const char *name, const char *text) {
  write_file(name, text, strlen(text));
}

static int setup(void **state) {
  tutil_vm_buf bin;
  char msg[128];
  (void)state;
  snprintf(dir, sizeof dir, "/tmp/lraf-load-XXXXXX");
  assert_non_null(mkdtemp(dir));
  write_text("mod.lua",
             "local M = {}\nfunction M.f(n) local s = 0 for i = 1, n do "
             "s = s + i end return s end\nreturn M\n");
  write_text("chunk.lua", "#!/usr/bin/env lua\nlocal t = {}\n"
             "for i = 1, 30 do t[i] = i * i end\nreturn #t + t[3]\n");
  write_text("spin.lua", "while true do end\n");
  assert_true(tutil_vm_dump("return 1", 8, "=bin", 0, &bin, msg, sizeof msg));
  write_file("bin.luac", bin.data, bin.size);
  write_file("binmod.lua", bin.data, bin.size);
  free(bin.data);
  return 0;
}

static int teardown(void **state) {
  static const char *const files[] = {"mod.lua", "chunk.lua", "spin.lua",
                                      "bin.luac", "binmod.lua"};
  char path[128];
  size_t i;
  (void)state;
  for (i = 0; i < sizeof files / sizeof files[0]; i++) {
    snprintf(path, sizeof path, "%s/%s", dir, files[i]);
    unlink(path);
  }
  rmdir(dir);
  return 0;
}

static lraf_state *exact_state(lraf_manager *m) {
  lraf_options opt;
  lraf_default_options(&opt);
  opt.exact = 1;
  opt.manager = m;
  return tutil_rt_new(&opt);
}

/* The same script unmodified under the hook and through lraf. */
static void test_everything_counted(void **state) {
  char src[1200];
  tutil_run hook;
  lraf_state *S = exact_state(NULL);
  lraf_error err;
  size_t outlen;
  const char *out;
  (void)state;
  snprintf(src, sizeof src,
           "local dir = '%s'\n"
           "package.path = dir .. '/?.lua'\n"
           "local m = require 'mod'\n"
           "local s = m.f(100) + require('mod').f(3)\n"
           "s = s + load('local t = {} for i = 1, 50 do t[i] = i end return #t')()\n"
           "local parts, i = {'return ', '1', ' + ', '2'}, 0\n"
           "s = s + load(function() i = i + 1 return parts[i] end)()\n"
           "s = s + loadfile(dir .. '/chunk.lua')()\n"
           "s = s + dofile(dir .. '/chunk.lua')\n"
           "s = s + load('return x * 2', 'env', 't', {x = 21})()\n"
           "print(s)\n", dir);
  tutil_run_hook(src, strlen(src), "=script", &hook);
  assert_true(hook.ok);
  assert_int_equal(lraf_load_string(S, src, strlen(src), "=script", &err),
                   LRAF_OK);
  assert_int_equal(lraf_call(S, 0, 0, &err), LRAF_OK);
  out = tutil_rt_output(S, &outlen);
  assert_string_equal(out, hook.output);
  printf("  output %s  hook %lld, lraf %lld\n", strtok((char *)hook.output, "\n"),
         hook.count, (long long)tutil_rt_total(S));
  assert_int_equal(tutil_rt_total(S), hook.count);
  tutil_run_free(&hook);
  tutil_rt_close(S);
}

/* Code from each entry point is rewritten: a quota stops it. */
static void test_every_entry_point_is_rewritten(void **state) {
  const char *const fmt[] = {
    "load('while true do end')()",
    "load(coroutine.wrap(function() coroutine.yield('while true ')"
    " coroutine.yield('do end') end))()",
    "loadfile('%s/spin.lua')()",
    "dofile('%s/spin.lua')",
    "package.path = '%s/?.lua' require 'spin'",
  };
  size_t i;
  (void)state;
  for (i = 0; i < sizeof fmt / sizeof fmt[0]; i++) {
    char src[256];
    lraf_manager *m = lraf_limit_new(100000);
    lraf_state *S = exact_state(m);
    lraf_error err;
    snprintf(src, sizeof src, fmt[i], dir);
    if (tutil_rt_run(S, src, &err) != LRAF_EQUOTA)
      fail_msg("not stopped: %s (%s)", src, err.message);
    tutil_rt_close(S);
    lraf_manager_release(m);
  }
}

static void test_binary_refused(void **state) {
  const char *const fmt[] = {
    "local d = string.dump(function() end) local f, e = load(d .. ' ') "
    "return f == nil and e",
    "local d = string.dump(function() end) local f, e = load(function() "
    "local r = d d = nil return r end) return f == nil and e",
    "local f = io.open('%s/bin.luac', 'rb') local d = f:read('a') f:close() "
    "local f, e = load(d, 'x', 'b') return f == nil and e",
    "local f, e = loadfile('%s/bin.luac') return f == nil and e",
    "local ok, e = pcall(dofile, '%s/bin.luac') return not ok and e",
    "package.path = '%s/?.lua' local ok, e = pcall(require, 'binmod') return not ok and e",
  };
  size_t i;
  lraf_state *S = exact_state(NULL);
  lua_State *L = lraf_lua(S);
  lraf_error err;
  tutil_vm_buf bin;
  char msg[128], path[128];
  (void)state;
  for (i = 0; i < sizeof fmt / sizeof fmt[0]; i++) {
    char src[512];
    const char *e;
    snprintf(src, sizeof src, fmt[i], dir);
    assert_int_equal(lraf_load_string(S, src, strlen(src), "=t", &err), LRAF_OK);
    assert_int_equal(lraf_call(S, 0, 1, &err), LRAF_OK);
    e = lua_tostring(L, -1);
    if (e == NULL || strstr(e, "binary chunk") == NULL)
      fail_msg("not refused: %s -> %s", src, e ? e : "(loaded)");
    if (i == 0) printf("  refused as expected: %s\n", e);
    lua_pop(L, 1);
  }
  /* Lua's mode argument keeps its meaning */
  assert_int_equal(tutil_rt_run(S,
      "local f, e = load(string.dump(function() end), 'x', 't')"
      " assert(e == \"attempt to load a binary chunk (mode is 't')\", e)"
      " f, e = load('return 1', 'x', 'b')"
      " assert(e == \"attempt to load a text chunk (mode is 'b')\", e)", &err),
      LRAF_OK);
  /* and the host's entry points */
  assert_true(tutil_vm_dump("return 1", 8, "=bin", 0, &bin, msg, sizeof msg));
  assert_int_equal(lraf_load_string(S, (const char *)bin.data, bin.size, "=b",
                                    &err), LRAF_EFORMAT);
  assert_non_null(strstr(err.message, "binary"));
  snprintf(path, sizeof path, "%s/bin.luac", dir);
  assert_int_equal(lraf_load_file(S, path, &err), LRAF_EFORMAT);
  assert_int_equal(lraf_load_rewritten(S, bin.data, bin.size, &err),
                   LRAF_EFORMAT);
  assert_non_null(strstr(err.message, "lraf rewrite"));
  assert_int_equal(lua_gettop(L), 0);
  free(bin.data);
  tutil_rt_close(S);
}

static void test_host_load_errors(void **state) {
  lraf_state *S = exact_state(NULL);
  lraf_error err;
  char path[128];
  (void)state;
  assert_int_equal(lraf_load_string(S, "x = = 1", 7, "=bad", &err),
                   LRAF_ESYNTAX);
  assert_non_null(strstr(err.message, "bad:1:"));
  assert_int_equal(lraf_load_file(S, "/nonexistent/x.lua", &err), LRAF_EIO);
  assert_non_null(strstr(err.message, "cannot open"));
  snprintf(path, sizeof path, "%s/chunk.lua", dir);
  assert_int_equal(lraf_load_file(S, path, &err), LRAF_OK);
  assert_int_equal(lraf_call(S, 0, 1, &err), LRAF_OK);
  assert_int_equal(lua_tointeger(lraf_lua(S), -1), 39);
  lua_pop(lraf_lua(S), 1);
  assert_int_equal(lua_gettop(lraf_lua(S)), 0);
  tutil_rt_close(S);
}

static void test_offline(void **state) {
  const char *src = "local t = {} for i = 1, 1000 do t[i] = i end return #t";
  const char *arith = "local s = 0 for i = 1, 1000 do s = s + i end return s";
  lraf_options opt;
  lraf_state *S = exact_state(NULL), *S2;
  lua_State *L = lraf_lua(S), *plain;
  lraf_error err;
  void *data, *other;
  size_t size, osize;
  int64_t n1, n2;
  tutil_vm_buf bin;
  char msg[128];
  unsigned char *forged;
  (void)state;
  lraf_default_options(&opt);
  opt.exact = 1;
  assert_int_equal(lraf_rewrite(&opt, src, strlen(src), "=off", &data, &size,
                                &err), LRAF_OK);
  assert_memory_equal(data, LRAF_OFFLINE_MAGIC, LRAF_OFFLINE_MAGIC_LEN);
  /* unsigned: refused unless the state allows it */
  assert_int_equal(lraf_load_rewritten(S, data, size, &err), LRAF_EFORMAT);
  assert_non_null(strstr(err.message, "allow_offline"));
  assert_int_equal(lua_gettop(L), 0);
  tutil_rt_close(S);
  opt.allow_offline = 1;
  S = tutil_rt_new(&opt);
  L = lraf_lua(S);
  /* loads through lraf and counts like source */
  assert_int_equal(lraf_load_rewritten(S, data, size, &err), LRAF_OK);
  assert_int_equal(lraf_call(S, 0, 1, &err), LRAF_OK);
  assert_int_equal(lua_tointeger(L, -1), 1000);
  lua_pop(L, 1);
  n1 = tutil_rt_total(S);
  assert_int_equal(lraf_load_string(S, src, strlen(src), "=off", &err), LRAF_OK);
  assert_int_equal(lraf_call(S, 0, 1, &err), LRAF_OK);
  lua_pop(L, 1);
  n2 = tutil_rt_total(S) - n1;
  assert_int_equal(n1, n2);
  /* plain Lua and lraf's source entry points refuse it */
  plain = luaL_newstate();
  assert_int_not_equal(luaL_loadbuffer(plain, data, size, "=x"), LUA_OK);
  lua_close(plain);
  assert_int_equal(lraf_load_string(S, data, size, "=x", &err), LRAF_EFORMAT);
  /* truncated, or made for another cost model */
  assert_int_not_equal(lraf_load_rewritten(S, data, size - 7, &err), LRAF_OK);
  opt.mode = LRAF_MODE_OVERHEAD;
  assert_int_equal(lraf_rewrite(&opt, src, strlen(src), "=off", &other,
                                &osize, &err), LRAF_OK);
  assert_int_equal(lraf_load_rewritten(S, other, osize, &err), LRAF_EFORMAT);
  assert_non_null(strstr(err.message, "overhead"));
  /* a state of that model takes it */
  S2 = tutil_rt_new(&opt);
  assert_int_equal(lraf_load_rewritten(S2, other, osize, &err), LRAF_OK);
  tutil_rt_close(S2);
  free(other);
  /* a plain chunk behind a forged marker fails verification */
  assert_true(tutil_vm_dump(src, strlen(src), "=f", 0, &bin, msg, sizeof msg));
  forged = malloc(size + bin.size);
  assert_non_null(forged);
  osize = LRAF_OFFLINE_MAGIC_LEN + 1 + ((unsigned char *)data)[LRAF_OFFLINE_MAGIC_LEN];
  memcpy(forged, data, osize);
  memcpy(forged + osize, bin.data, bin.size);
  assert_int_not_equal(lraf_load_rewritten(S, forged, osize + bin.size, &err),
                       LRAF_OK);
  printf("  forged marker refused as expected (%s): %s\n",
         lraf_status_name(err.code), err.message);
  /* offline rewriting of a trusted binary chunk */
  opt.mode = LRAF_MODE_ORIGINAL;
  assert_int_equal(lraf_rewrite(&opt, (const char *)bin.data, bin.size, "=b",
                                &other, &osize, &err), LRAF_OK);
  assert_int_equal(lraf_load_rewritten(S, other, osize, &err), LRAF_OK);
  assert_int_equal(lraf_call(S, 0, 1, &err), LRAF_OK);
  assert_int_equal(lua_tointeger(L, -1), 1000);
  lua_pop(L, 1);
  free(other);
  /* code with metamethod stubs (arithmetic op + JMP) reads back, runs
     and counts like the same source */
  assert_int_equal(lraf_rewrite(&opt, arith, strlen(arith), "=a", &other,
                                &osize, &err), LRAF_OK);
  n1 = tutil_rt_total(S);
  assert_int_equal(lraf_load_rewritten(S, other, osize, &err), LRAF_OK);
  assert_int_equal(lraf_call(S, 0, 1, &err), LRAF_OK);
  assert_int_equal(lua_tointeger(L, -1), 500500);
  lua_pop(L, 1);
  n2 = tutil_rt_total(S);
  assert_int_equal(lraf_load_string(S, arith, strlen(arith), "=a", &err),
                   LRAF_OK);
  assert_int_equal(lraf_call(S, 0, 1, &err), LRAF_OK);
  lua_pop(L, 1);
  assert_int_equal(n2 - n1, tutil_rt_total(S) - n2);
  free(other);
  free(forged);
  free(bin.data);
  free(data);
  assert_int_equal(lua_gettop(L), 0);
  tutil_rt_close(S);
}

static void test_c_modules(void **state) {
  lraf_state *S = exact_state(NULL);
  lraf_error err;
  (void)state;
  if (access("/usr/lib/x86_64-linux-gnu/lua/5.4/lpeg.so", R_OK) != 0 &&
      access("/usr/lib/lua/5.4/lpeg.so", R_OK) != 0) {
    tutil_rt_close(S);
    skip();
  }
  assert_int_equal(tutil_rt_run(S,
      "local lpeg = require 'lpeg' local p = lpeg.C(lpeg.R('az')^1)"
      " assert(p:match('hello world') == 'hello')", &err), LRAF_OK);
  tutil_rt_close(S);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_everything_counted),
    cmocka_unit_test(test_every_entry_point_is_rewritten),
    cmocka_unit_test(test_binary_refused),
    cmocka_unit_test(test_host_load_errors),
    cmocka_unit_test(test_offline),
    cmocka_unit_test(test_c_modules),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
