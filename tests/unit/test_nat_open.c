/*
** test_nat_open.c - the installing of native charging (nat_open.c):
** with native charging on, every modelled built-in of the table of
** models (io's file methods and strings' arithmetic too) is a charging
** wrapper that stands for a stock C function, the C searchers stand for
** their originals, a C module that require loads gets charged functions,
** nat_wrap_lib wraps the modelled functions of a library table only, and
** pairs hands out the charged next; with it off, nothing is wrapped.
*/
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>

#include "rt.h"
#include "nat_cost.h"
#include "tutil_rt.h"

/* A state as lraf_new makes it (tutil_rt_new would replace print). */
static lraf_state *open_state(int native) {
  lraf_options opt;
  lraf_state *S = NULL;
  lraf_error err;
  lraf_default_options(&opt);
  opt.native = native;
  if (lraf_new(&opt, &S, &err) != LRAF_OK)
    fail_msg("lraf_new: %s", err.message);
  return S;
}

/* Push the table that holds m's function, or return 0. */
static int push_holder(lua_State *L, const nat_model *m) {
  if (strcmp(m->lib, "file") == 0) {
    if (luaL_getmetatable(L, LUA_FILEHANDLE) != LUA_TTABLE) return 0;
    lua_getfield(L, -1, "__index");
    lua_remove(L, -2);
  } else if (strcmp(m->lib, "stringmeta") == 0) {
    lua_pushliteral(L, "");
    if (!lua_getmetatable(L, -1)) return 0;
    lua_remove(L, -2);
  } else if (strcmp(m->lib, "_G") == 0) {
    lua_pushglobaltable(L);
  } else {
    lua_getglobal(L, m->lib);
  }
  if (lua_istable(L, -1)) return 1;
  lua_pop(L, 1);
  return 0;
}

/* How many modelled built-ins of L are wrappers that stand for a stock
   C function (failing on one that is not, when native); *present
   counts those found. */
static int wrapped_models(lua_State *L, int native, int *present) {
  const nat_model *m;
  int n = 0;
  *present = 0;
  for (m = nat_models; m->lib != NULL; m++) {
    if (!push_holder(L, m)) continue;
    if (lua_getfield(L, -1, m->name) == LUA_TFUNCTION) {
      ++*present;
      if (rt_is_wrapper(L, -1)) {
        n++;
        assert_true(nat_wrapped(L, -1));
        assert_true(lua_iscfunction(L, -1));
        assert_false(rt_is_wrapper(L, -1));
        lua_pop(L, 1);
      } else if (native) {
        fail_msg("%s.%s is not charged", m->lib, m->name);
      }
    }
    lua_pop(L, 2);
  }
  return n;
}

static void test_builtins(void **state) {
  int native, present;
  (void)state;
  for (native = 0; native <= 1; native++) {
    lraf_state *S = open_state(native);
    int n = wrapped_models(lraf_lua(S), native, &present);
    assert_true(present > 40);  /* the libraries' functions are there */
    assert_int_equal(n, native ? present : 0);
    lraf_close(S);
  }
}

static void test_searchers(void **state) {
  int native, i;
  (void)state;
  for (native = 0; native <= 1; native++) {
    lraf_state *S = open_state(native);
    lua_State *L = lraf_lua(S);
    lua_getglobal(L, "package");
    lua_getfield(L, -1, "searchers");
    for (i = 3; i <= 4; i++) {
      int top = lua_gettop(L);
      assert_int_equal(lua_rawgeti(L, -1, i), LUA_TFUNCTION);
      assert_int_equal(nat_wrapped(L, -1), native);
      if (native) {  /* the original is none of native charging's */
        assert_true(lua_iscfunction(L, -1));
        assert_false(nat_wrapped(L, -1));
      }
      lua_settop(L, top);
    }
    lua_pop(L, 2);
    lraf_close(S);
  }
}

/* A C module loaded by require: its modelled function by its model, the
   others by the per-call default. */
static void test_module(void **state) {
  static const char *const names[] = {"match", "type", "P"};
  int native;
  size_t i;
  (void)state;
  for (native = 0; native <= 1; native++) {
    lraf_state *S = open_state(native);
    lua_State *L = lraf_lua(S);
    lraf_error err;
    if (tutil_rt_run(S, "lpeg = require 'lpeg'", &err) != LRAF_OK)
      fail_msg("%s", err.message);
    lua_getglobal(L, "lpeg");
    assert_true(lua_istable(L, -1));
    for (i = 0; i < sizeof names / sizeof *names; i++) {
      lua_getfield(L, -1, names[i]);
      if (rt_is_wrapper(L, -1) != native)
        fail_msg("lpeg.%s: wrapper %d with native %d", names[i],
                 rt_is_wrapper(L, -1), native);
      lua_pop(L, 1);
    }
    lua_pop(L, 1);
    lraf_close(S);
  }
}

/* nat_wrap_lib: the modelled names of the table only. */
static void test_wrap_lib(void **state) {
  int native;
  (void)state;
  for (native = 0; native <= 1; native++) {
    lraf_state *S = open_state(native);
    lua_State *L = lraf_lua(S);
    lua_newtable(L);
    lua_pushcfunction(L, luaopen_string);  /* any C function */
    lua_setfield(L, -2, "rep");
    lua_pushcfunction(L, luaopen_string);
    lua_setfield(L, -2, "nomodel");
    nat_wrap_lib(L, -1, "string");
    lua_getfield(L, -1, "rep");
    assert_int_equal(rt_is_wrapper(L, -1), native);
    lua_getfield(L, -2, "nomodel");
    assert_false(rt_is_wrapper(L, -1));
    lua_pop(L, 3);
    lraf_close(S);
  }
}

/* pairs hands out the charged next: the global one. */
static void test_next(void **state) {
  int native;
  (void)state;
  for (native = 0; native <= 1; native++) {
    lraf_state *S = open_state(native);
    lraf_error err;
    if (tutil_rt_run(S, "assert(pairs({}) == next)", &err) != LRAF_OK)
      fail_msg("native %d: %s", native, err.message);
    lua_getglobal(lraf_lua(S), "next");
    assert_int_equal(rt_is_wrapper(lraf_lua(S), -1), native);
    lua_pop(lraf_lua(S), 1);
    lraf_close(S);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_builtins),
    cmocka_unit_test(test_searchers),
    cmocka_unit_test(test_module),
    cmocka_unit_test(test_wrap_lib),
    cmocka_unit_test(test_next),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
