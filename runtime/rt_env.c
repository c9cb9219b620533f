/*
** rt_env.c - the two environments.  full: the whole standard library.
** sandbox: base (its load, loadfile and dofile are lraf's), package
** without loadlib and with C modules only from the package.cpath the
** state started with, coroutine, table, string, math, utf8, and os with
** only clock, time and date; no io, no debug.  Both get lraf's load
** functions, protected calls, coroutine wrappers and require "lraf".
** string.dump stays: lraf refuses every binary chunk, so its output
** cannot be loaded back.
*/
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>
#include <lualib.h>

#include "rt.h"
#include "nat_next.h"

static const luaL_Reg sandbox_libs[] = {
  {LUA_GNAME, luaopen_base},
  {LUA_LOADLIBNAME, luaopen_package},
  {LUA_COLIBNAME, luaopen_coroutine},
  {LUA_TABLIBNAME, luaopen_table},
  {LUA_STRLIBNAME, luaopen_string},
  {LUA_MATHLIBNAME, luaopen_math},
  {LUA_UTF8LIBNAME, luaopen_utf8},
  {LUA_OSLIBNAME, luaopen_os},
  {NULL, NULL}
};

static const char *const sandbox_os[] = {"clock", "time", "date", NULL};

static void open_sandbox(lua_State *L, lraf_state *S) {
  const luaL_Reg *lib;
  const char *cpath;
  int i;
  for (lib = sandbox_libs; lib->func != NULL; lib++) {
    luaL_requiref(L, lib->name, lib->func, 1);
    lua_pop(L, 1);
  }
  /* os: a new table with the harmless functions only */
  lua_getglobal(L, LUA_OSLIBNAME);
  lua_newtable(L);
  for (i = 0; sandbox_os[i] != NULL; i++) {
    lua_getfield(L, -2, sandbox_os[i]);
    lua_setfield(L, -2, sandbox_os[i]);
  }
  lua_pushvalue(L, -1);
  lua_setglobal(L, LUA_OSLIBNAME);
  lua_getfield(L, LUA_REGISTRYINDEX, LUA_LOADED_TABLE);
  lua_insert(L, -2);
  lua_setfield(L, -2, LUA_OSLIBNAME);
  lua_pop(L, 2);
  /* remember package.cpath for the sandbox's C searcher */
  lua_getglobal(L, LUA_LOADLIBNAME);
  lua_getfield(L, -1, "cpath");
  cpath = lua_tostring(L, -1);
  if (cpath != NULL) {
    S->cpath = malloc(strlen(cpath) + 1);
    if (S->cpath == NULL) luaL_error(L, "not enough memory");
    strcpy(S->cpath, cpath);
  }
  lua_pop(L, 2);
}

static void drop_loadlib(lua_State *L) {
  lua_getglobal(L, LUA_LOADLIBNAME);
  lua_pushnil(L);
  lua_setfield(L, -2, "loadlib");
  lua_pop(L, 1);
}

/* A deterministic state: math.random starts from a fixed seed (the
   stock randomseed, before native charging wraps it: not counted). */
static const char seed_key = 's';  /* the stock randomseed */

static void seed_random(lua_State *L) {
  if (lua_getglobal(L, LUA_MATHLIBNAME) == LUA_TTABLE &&
      lua_getfield(L, -1, "randomseed") == LUA_TFUNCTION) {
    lua_pushvalue(L, -1);
    lua_rawsetp(L, LUA_REGISTRYINDEX, &seed_key);
    lua_pushinteger(L, 0);
    lua_call(L, 1, 0);
  } else {
    lua_pop(L, 1);
  }
  lua_pop(L, 1);
}

/* math.randomseed(0) again, uncounted (lraf_deterministic_restart). */
static int reseed(lua_State *L) {
  if (lua_rawgetp(L, LUA_REGISTRYINDEX, &seed_key) == LUA_TFUNCTION) {
    lua_pushinteger(L, 0);
    lua_call(L, 1, 0);
  }
  return 0;
}

void lraf_deterministic_restart(lraf_state *S) {
  lua_State *L;
  if (S == NULL || !S->det || (L = S->L) == NULL) return;
  lua_pushcfunction(L, reseed);
  (void)lua_pcall(L, 0, 0, 0);  /* randomseed raises no error */
#ifdef LRAF_VM
  if (!S->det_marked) S->det_cid = lua_detcid(L, 0, 0);
  S->det_marked = 1;
  (void)lua_detcid(L, 1, S->det_cid);
#endif
  nat_next_forget(S);
}

void rt_env_open(lua_State *L, lraf_state *S) {
  if (S->env == LRAF_ENV_SANDBOX)
    open_sandbox(L, S);
  else
    luaL_openlibs(L);
  if (S->det) seed_random(L);
#ifndef LRAF_VM
  if (S->det) rt_sort_open(L);  /* a fixed pivot (the lraf VM has one) */
#endif
  lua_pushglobaltable(L);
  rt_protect_open(L);
  lua_pop(L, 1);
  rt_coro_open(L);
  rt_loadlib_open(L, S);
  if (S->env == LRAF_ENV_SANDBOX) {
    drop_loadlib(L);
    rt_sandbox_open(L);
  }
  luaL_getsubtable(L, LUA_REGISTRYINDEX, LUA_PRELOAD_TABLE);
  lua_pushcfunction(L, rt_open_module);
  lua_setfield(L, -2, "lraf");
  lua_pop(L, 1);
  rt_dump_open(L);  /* first: native charging wraps its string.dump */
  nat_open(L, S);
  if (S->env == LRAF_ENV_FULL) rt_debug_open(L);
}
