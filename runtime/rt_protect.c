/*
** rt_protect.c - the quota error and the protected calls Lua code can
** make.
**
** The quota error is one full userdata per state whose metatable Lua
** cannot reach or change (__metatable is false) and whose __tostring is
** C, so no Lua code runs when it is converted.  While it propagates
** (S->quota), pcall and xpcall raise it again instead of returning it;
** the coroutine and load wrappers do the same.
*/
#include <lauxlib.h>

#include "rt.h"

static const char quota_key = 'Q';

#define QUOTA_MESSAGE "instruction quota exceeded"

static int quota_tostring(lua_State *L) {
  lua_pushliteral(L, QUOTA_MESSAGE);
  return 1;
}

void rt_protect_init(lua_State *L) {
  lua_newuserdatauv(L, 0, 0);
  lua_createtable(L, 0, 3);
  lua_pushcfunction(L, quota_tostring);
  lua_setfield(L, -2, "__tostring");
  lua_pushliteral(L, "lraf.quota");
  lua_setfield(L, -2, "__name");
  lua_pushboolean(L, 0);
  lua_setfield(L, -2, "__metatable");
  lua_setmetatable(L, -2);
  lua_rawsetp(L, LUA_REGISTRYINDEX, &quota_key);
}

int rt_raise_quota(lua_State *L) {
  rt_state(L)->quota = 1;
  lua_rawgetp(L, LUA_REGISTRYINDEX, &quota_key);
  return lua_error(L);
}

int rt_is_quota(lua_State *L, int idx) {
  int same;
  idx = lua_absindex(L, idx);
  lua_rawgetp(L, LUA_REGISTRYINDEX, &quota_key);
  same = lua_rawequal(L, idx, -1);
  lua_pop(L, 1);
  return same;
}

/* Results of pcall/xpcall: everything above the first `extra` slots, or
   false plus the error. */
static int finish(lua_State *L, int status, lua_KContext extra) {
  if (status != LUA_OK && status != LUA_YIELD) {
    if (rt_state(L)->quota) return rt_raise_quota(L);
    lua_pushboolean(L, 0);
    lua_pushvalue(L, -2);
    return 2;
  }
  return lua_gettop(L) - (int)extra;
}

static int rt_pcall(lua_State *L) {
  int status;
  luaL_checkany(L, 1);
  lua_pushboolean(L, 1);
  lua_insert(L, 1);
  status = lua_pcallk(L, lua_gettop(L) - 2, LUA_MULTRET, 0, 0, finish);
  return finish(L, status, 0);
}

/* Stack: f, handler, args... becomes f, handler, true, f, args... */
static int rt_xpcall(lua_State *L) {
  int status, n = lua_gettop(L);
  luaL_checktype(L, 2, LUA_TFUNCTION);
  lua_pushboolean(L, 1);
  lua_pushvalue(L, 1);
  lua_rotate(L, 3, 2);
  status = lua_pcallk(L, n - 2, LUA_MULTRET, 2, 2, finish);
  return finish(L, status, 2);
}

void rt_protect_open(lua_State *L) {
  lua_pushcfunction(L, rt_pcall);
  lua_setfield(L, -2, "pcall");
  lua_pushcfunction(L, rt_xpcall);
  lua_setfield(L, -2, "xpcall");
}
