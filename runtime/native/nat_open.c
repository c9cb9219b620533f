/*
** nat_open.c - installing native charging: wrappers (nat_wrap.c) over
** the modelled built-ins of the table of models (nat_cost.c) at open,
** over the functions of C modules that require loads (lpeg.match by its
** model, the others by a per-call default: the C searchers are wrapped
** so that the loaders they find are), and over lraf's own versions of
** a library (nat_wrap_lib); then next's scan cache (nat_next.c).
*/
#include <string.h>

#include <lauxlib.h>
#include <lualib.h>

#include "rt.h"
#include "nat_cost.h"
#include "nat_next.h"
#include "nat_wrap.h"

/* Wrap lib[name] in the table at t by its model. */
static void wrap_field(lua_State *L, int t, const nat_model *m) {
  t = lua_absindex(L, t);
  if (lua_getfield(L, t, m->name) == LUA_TFUNCTION &&
      !rt_is_wrapper(L, -1) && nat_wrap_at(L, -1, m, 0, NULL, NULL))
    lua_setfield(L, t, m->name);
  else
    lua_pop(L, 1);
}

/* Wrap the C functions of the module table at t: modelled ones by their
   model, the others by the default per-call charge. */
static void wrap_module(lua_State *L, int t, const char *lib,
                        int64_t per_call) {
  t = lua_absindex(L, t);
  luaL_checkstack(L, 4, "cannot wrap a module");
  lua_pushnil(L);
  while (lua_next(L, t) != 0) {
    if (lua_type(L, -2) == LUA_TSTRING && lua_iscfunction(L, -1) &&
        !rt_is_wrapper(L, -1)) {
      const nat_model *m = nat_find(lib, lua_tostring(L, -2));
      if (m != NULL || per_call > 0) {
        nat_wrap_at(L, -1, m, m ? 0 : per_call, NULL, NULL);
        lua_pushvalue(L, -2);
        lua_insert(L, -2);
        lua_rawset(L, t);
        continue;
      }
    }
    lua_pop(L, 1);
  }
}

/* A C module's loader, wrapped: the module it returns gets charged
   functions (upvalue 1: the loader, 2: the module name). */
static int module_loader(lua_State *L) {
  int n = lua_gettop(L);
  lraf_state *S = rt_state(L);
  lua_pushvalue(L, lua_upvalueindex(1));
  lua_insert(L, 1);
  lua_call(L, n, 1);
  if (lua_type(L, -1) == LUA_TTABLE)
    wrap_module(L, -1, lua_tostring(L, lua_upvalueindex(2)), S->native_call);
  return 1;
}

/* A searcher for C modules, wrapped so that the loaders it finds are
   (upvalue 1: the searcher). */
static int module_searcher(lua_State *L) {
  int n = lua_gettop(L), i;
  luaL_checkstack(L, n + 3, "too many arguments");
  if (!nat_lpeg_search(L)) {  /* lraf's metered LPeg first */
    lua_pushvalue(L, lua_upvalueindex(1));
    for (i = 1; i <= n; i++) lua_pushvalue(L, i);
    lua_call(L, n, 2);
  }
  if (lua_iscfunction(L, -2)) {
    lua_pushvalue(L, -2);
    lua_pushvalue(L, 1);  /* the module name */
    lua_pushcclosure(L, module_loader, 2);
    lua_replace(L, -3);
  }
  return 2;
}

int nat_wrapped(lua_State *L, int idx) {
  lua_CFunction f = lua_tocfunction(L, idx);
  if (nat_wrap_original(L, idx)) return 1;
  if (f == module_searcher || f == module_loader) {
    lua_getupvalue(L, idx, 1);
    return 1;
  }
  return 0;
}

static void wrap_searchers(lua_State *L) {
  int i;
  lua_getfield(L, LUA_REGISTRYINDEX, LUA_LOADED_TABLE);
  lua_getfield(L, -1, LUA_LOADLIBNAME);
  lua_getfield(L, -1, "searchers");
  for (i = 3; i <= 4; i++) {
    if (lua_rawgeti(L, -1, i) == LUA_TFUNCTION) {
      lua_pushcclosure(L, module_searcher, 1);
      lua_rawseti(L, -2, i);
    } else {
      lua_pop(L, 1);
    }
  }
  lua_pop(L, 3);
}

void nat_open(lua_State *L, lraf_state *S) {
  const nat_model *m;
  if (!S->native) return;
  lua_getfield(L, LUA_REGISTRYINDEX, LUA_LOADED_TABLE);
  for (m = nat_models; m->lib != NULL; m++) {
    if (strcmp(m->lib, "file") == 0) {  /* methods of io's files */
      if (luaL_getmetatable(L, LUA_FILEHANDLE) == LUA_TTABLE &&
          lua_getfield(L, -1, "__index") == LUA_TTABLE)
        wrap_field(L, -1, m);
      lua_pop(L, lua_istable(L, -1) ? 2 : 1);
      continue;
    }
    if (strcmp(m->lib, "stringmeta") == 0) {  /* arithmetic on strings */
      lua_pushliteral(L, "");
      if (lua_getmetatable(L, -1)) {
        wrap_field(L, -1, m);
        lua_pop(L, 1);
      }
      lua_pop(L, 1);
      continue;
    }
    if (lua_getfield(L, -1, m->lib) == LUA_TTABLE) wrap_field(L, -1, m);
    lua_pop(L, 1);
  }
  lua_pop(L, 1);
  /* the string metatable's __index is the string table: s:rep() is
     charged too.  Globals are the _G table itself. */
  wrap_searchers(L);
  nat_next_open(L);
}

/* Wrap the modelled functions of the library table at t: lraf's own
   versions of a library, installed after nat_open. */
void nat_wrap_lib(lua_State *L, int t, const char *lib) {
  if (rt_state(L)->native) wrap_module(L, t, lib, 0);
}
