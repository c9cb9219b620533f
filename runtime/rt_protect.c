/*
** rt_protect.c - the quota error and the protected calls Lua code can
** make.
**
** The quota error is one full userdata per state whose metatable Lua
** cannot reach or change (__metatable is false) and whose __tostring is
** C, so no Lua code runs when it is converted.  While it propagates
** (S->quota), pcall and xpcall raise it again instead of returning it;
** the coroutine and load wrappers do the same.
**
** Exceeding the memory limit stops the script the same way, with a
** second such userdata ("memory limit exceeded"): the first LUA_ERRMEM
** that a protected call or resume sees while the allocator has refused
** a block sets S->memerr and S->quota (rt_stopping).
**
** os.exit raises the stop again while one propagates: a __close or
** __gc handler (debug.setmetatable(0, {__close = os.exit})) must not
** turn a stop into a successful exit.
*/
#include <lauxlib.h>

#include "rt.h"


#define QUOTA_MESSAGE "instruction quota exceeded"
#define MEMORY_MESSAGE "memory limit exceeded"

static int quota_tostring(lua_State *L) {
  lua_pushliteral(L, QUOTA_MESSAGE);
  return 1;
}

static int memory_tostring(lua_State *L) {
  lua_pushliteral(L, MEMORY_MESSAGE);
  return 1;
}

static void make_stop(lua_State *L, const char *key, lua_CFunction str,
                      const char *name) {
  lua_newuserdatauv(L, 0, 0);
  lua_createtable(L, 0, 3);
  lua_pushcfunction(L, str);
  lua_setfield(L, -2, "__tostring");
  lua_pushstring(L, name);
  lua_setfield(L, -2, "__name");
  lua_pushboolean(L, 0);
  lua_setfield(L, -2, "__metatable");
  lua_setmetatable(L, -2);
  lua_rawsetp(L, LUA_REGISTRYINDEX, key);
}

void rt_protect_init(lua_State *L) {
  make_stop(L, &rt_quota_key, quota_tostring, "lraf.quota");
  make_stop(L, &rt_memory_key, memory_tostring, "lraf.memory");
}

int rt_is_quota(lua_State *L, int idx) {
  int same;
  idx = lua_absindex(L, idx);
  lua_rawgetp(L, LUA_REGISTRYINDEX, &rt_quota_key);
  same = lua_rawequal(L, idx, -1);
  lua_pop(L, 1);
  if (same) return 1;
  lua_rawgetp(L, LUA_REGISTRYINDEX, &rt_memory_key);
  same = lua_rawequal(L, idx, -1);
  lua_pop(L, 1);
  return same;
}

int rt_stopping(lua_State *L, int status) {
  lraf_state *S = rt_state(L);
  if (status == LUA_ERRMEM && S->mem_refused) {
    S->memerr = 1;
    S->quota = 1;
  }
  return S->quota;
}

/* An error message caught: Lua built it (an argument error copies the
   __name of the value it names); with native charging a long one
   (256 bytes or more) is charged its bytes as print's are. */
#define CAUGHT_MIN 256
#define CAUGHT_PER_K 700

static void charge_caught(lua_State *L) {
  size_t n;
  if (!rt_state(L)->native || lua_type(L, -1) != LUA_TSTRING) return;
  n = lua_rawlen(L, -1);
  if (n >= CAUGHT_MIN)
    rt_charge(L, (int64_t)((n * CAUGHT_PER_K + 1023) / 1024));
}

/* Results of pcall/xpcall: everything above the first `extra` slots, or
   false plus the error. */
static int finish(lua_State *L, int status, lua_KContext extra) {
  if (status != LUA_OK && status != LUA_YIELD) {
    if (rt_stopping(L, status)) return rt_raise_quota(L);
    charge_caught(L);
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

lraf_status lraf_stopping(lraf_state *S) {
  if (S == NULL || S->L == NULL) return LRAF_OK;
  if (!rt_stopping(S->L, LUA_ERRMEM)) return LRAF_OK;
  return S->memerr ? LRAF_EMEMLIMIT : LRAF_EQUOTA;
}

/* os.exit: Lua's (in this frame, so that its messages name os.exit),
   unless a stop propagates. */
static int rt_exit(lua_State *L) {
  if (rt_stopping(L, LUA_ERRMEM)) return rt_raise_quota(L);
  return rt_state(L)->os_exit(L);
}

/* pcall and xpcall in the table on the top; os.exit when there is one. */
void rt_protect_open(lua_State *L) {
  lua_pushcfunction(L, rt_pcall);
  lua_setfield(L, -2, "pcall");
  lua_pushcfunction(L, rt_xpcall);
  lua_setfield(L, -2, "xpcall");
  if (lua_getfield(L, -1, "os") != LUA_TTABLE) {
    lua_pop(L, 1);
    return;
  }
  if (lua_getfield(L, -1, "exit") == LUA_TFUNCTION &&
      (rt_state(L)->os_exit = lua_tocfunction(L, -1)) != NULL) {
    lua_pushcfunction(L, rt_exit);
    lua_setfield(L, -3, "exit");
  }
  lua_pop(L, 2);
}
