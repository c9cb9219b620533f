/*
** nat_wrap.c - charging native work: wrappers that charge a C
** function's cost to the calling thread and then run it with the same
** stack, installed over the modelled built-ins (nat_cost.c), over
** the functions of C modules that require loads (lpeg.match by its
** model, the others by a per-call default), over functions that
** built-ins return (utf8.codes's iterator, nat_wrap_model) and over host
** functions (lraf_native_wrap).  A model's run function, when it has one, runs
** in place of the stock function (which it may call).
**
** A wrapper's first upvalue is a box (full userdata) with the cost and
** the original C function; a wrapped function that has upvalues of its
** own is kept as the second upvalue and called with lua_callk instead.
** Calling the original directly keeps its error messages: Lua names
** the function from the calling instruction, which is the same.
*/
#include <string.h>

#include <lauxlib.h>
#include <lualib.h>

#include "rt.h"
#include "nat_cost.h"

typedef struct wrap {
  lua_CFunction fn;  /* NULL: call upvalue 2 */
  const nat_model *model;
  int64_t per_call;
  lraf_native_cost cost;
  void *ud;
} wrap;

static int wrapped_done(lua_State *L, int status, lua_KContext ctx) {
  (void)status;
  (void)ctx;
  return lua_gettop(L);
}

static int wrapper(lua_State *L) {
  const wrap *w = lua_touserdata(L, lua_upvalueindex(1));
  const nat_model *m = w->model;
  int64_t n = w->per_call;
  if (m != NULL)
    n += nat_units(m, m->size != NULL ? m->size(L, m) : 0);
  if (w->cost != NULL) {
    int64_t c = w->cost(L, w->ud);
    if (c > 0) n += c < RT_CHARGE_MAX ? c : RT_CHARGE_MAX;
  }
  if (n > 0) rt_charge(L, n);
  if (w->fn != NULL)
    return m != NULL && m->run != NULL ? m->run(L, w->fn, m) : w->fn(L);
  lua_pushvalue(L, lua_upvalueindex(2));
  lua_insert(L, 1);
  lua_callk(L, lua_gettop(L) - 1, LUA_MULTRET, 0, wrapped_done);
  return lua_gettop(L);
}

int rt_is_wrapper(lua_State *L, int idx) {
  return lua_tocfunction(L, idx) == wrapper;
}

/* Replace the function at idx by a wrapper; 0 when it is not a
   function. */
static int wrap_at(lua_State *L, int idx, const nat_model *model,
                   int64_t per_call, lraf_native_cost cost, void *ud) {
  wrap *w;
  idx = lua_absindex(L, idx);
  if (!lua_isfunction(L, idx)) return 0;
  luaL_checkstack(L, 3, "too many nested wrappers");
  w = lua_newuserdatauv(L, sizeof *w, 0);
  w->fn = NULL;
  if (lua_iscfunction(L, idx) && lua_getupvalue(L, idx, 1) == NULL)
    w->fn = lua_tocfunction(L, idx);
  else if (lua_iscfunction(L, idx))
    lua_pop(L, 1);
  w->model = model;
  w->per_call = per_call;
  w->cost = cost;
  w->ud = ud;
  lua_pushvalue(L, idx);
  lua_pushcclosure(L, wrapper, 2);
  lua_replace(L, idx);
  return 1;
}

int nat_wrap_model(lua_State *L, int idx, const nat_model *m) {
  return wrap_at(L, idx, m, 0, NULL, NULL);
}

/* Wrap lib[name] in the table at t by its model. */
static void wrap_field(lua_State *L, int t, const nat_model *m) {
  t = lua_absindex(L, t);
  if (lua_getfield(L, t, m->name) == LUA_TFUNCTION &&
      !rt_is_wrapper(L, -1) && wrap_at(L, -1, m, 0, NULL, NULL))
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
        wrap_at(L, -1, m, m ? 0 : per_call, NULL, NULL);
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
  if (f == wrapper) {
    const wrap *w;
    if (lua_getupvalue(L, idx, 2) != NULL) return 1;  /* the original */
    lua_getupvalue(L, idx, 1);
    w = lua_touserdata(L, -1);
    lua_pop(L, 1);
    lua_pushcfunction(L, w->fn);  /* a C function without upvalues */
    return 1;
  }
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

/* ---- the host's API ---- */

typedef struct wrap_req {
  int64_t per_call;
  lraf_native_cost cost;
  void *ud;
} wrap_req;

/* Arguments: the function, the request; result: the wrapper. */
static int do_wrap(lua_State *L) {
  wrap_req *r = lua_touserdata(L, 2);
  lua_settop(L, 1);
  wrap_at(L, 1, NULL, r->per_call, r->cost, r->ud);
  return 1;
}

lraf_status lraf_native_wrap(lraf_state *S, struct lua_State *L, int idx,
                             int64_t per_call, lraf_native_cost cost,
                             void *ud, lraf_error *err) {
  wrap_req r;
  if (S == NULL || L == NULL || rt_state(L) != S)
    return err_fail(err, LRAF_EARG,
                    "lraf_native_wrap: not a thread of this state");
  if (!lua_isfunction(L, idx))
    return err_fail(err, LRAF_EARG,
                    "lraf_native_wrap: value %d is not a function", idx);
  idx = lua_absindex(L, idx);
  r.per_call = per_call > 0 ? per_call : 0;
  r.cost = cost;
  r.ud = ud;
  if (!lua_checkstack(L, 4))
    return err_fail(err, LRAF_EMEM, "lraf_native_wrap: stack overflow");
  lua_pushcfunction(L, do_wrap);
  lua_pushvalue(L, idx);
  lua_pushlightuserdata(L, &r);
  if (lua_pcall(L, 2, 1, 0) != LUA_OK) {
    lua_pop(L, 1);
    return err_fail(err, LRAF_EMEM, "lraf_native_wrap: out of memory");
  }
  lua_replace(L, idx);
  return LRAF_OK;
}

void lraf_charge(struct lua_State *L, int64_t n) {
  if (L != NULL && n > 0) rt_charge(L, n < RT_CHARGE_MAX ? n : RT_CHARGE_MAX);
}
