/*
** nat_wrap.c - charging native work: the wrapper that charges a C
** function's cost to the calling thread and then runs it with the same
** stack.  Its cost is a model's units for the size of the call (the
** model's run function, when it has one, runs in place of the stock
** function, which it may call), a per-call charge, or what a host's
** cost function says (lraf_native_wrap).  nat_open.c installs wrappers
** over the built-ins and C modules; the functions that built-ins return
** are wrapped by their model (nat_wrap_model).
**
** A wrapper's first upvalue is a box (full userdata) with the cost and
** the original C function; a wrapped function that has upvalues of its
** own is kept as the second upvalue and called with lua_callk instead.
** Calling the original directly keeps its error messages: Lua names
** the function from the calling instruction, which is the same.
*/
#include <lauxlib.h>

#include "rt.h"
#include "nat_wrap.h"

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

int nat_wrap_at(lua_State *L, int idx, const nat_model *model,
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
  return nat_wrap_at(L, idx, m, 0, NULL, NULL);
}

int nat_wrap_original(lua_State *L, int idx) {
  const wrap *w;
  if (lua_tocfunction(L, idx) != wrapper) return 0;
  if (lua_getupvalue(L, idx, 2) != NULL) return 1;  /* the original */
  lua_getupvalue(L, idx, 1);
  w = lua_touserdata(L, -1);
  lua_pop(L, 1);
  lua_pushcfunction(L, w->fn);  /* a C function without upvalues */
  return 1;
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
  nat_wrap_at(L, 1, NULL, r->per_call, r->cost, r->ud);
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
