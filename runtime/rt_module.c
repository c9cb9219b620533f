/*
** rt_module.c - require "lraf": what a script may know about its own
** consumption (J-RAF2 Fig. 4).  count() reads the running thread's exact
** count; measure(f, ...) runs f under a fresh child of the thread's
** manager, so that everything f and the coroutines it creates run is
** both counted for the result and still charged to the old manager.
*/
#include <lauxlib.h>

#include "rt.h"

static int m_count(lua_State *L) {
  rt_thread *t = rt_thread_of(L);
  lraf_state *S = t->S;
  if (S->cur != t) rt_switch(S, L, t, 0);
  rt_settle(S);
  lua_pushinteger(L, (lua_Integer)(lraf_account_flushed(t->acct) +
                                   rt_live_run(S, L)));
  return 1;
}

static int m_model(lua_State *L) {
  lua_pushstring(L, rt_state(L)->model);
  return 1;
}

static int m_measure(lua_State *L) {
  rt_thread *t = rt_thread_of(L);
  lraf_state *S = t->S;
  lraf_manager *old, *child;
  int status, nres;
  int64_t used;
  luaL_checktype(L, 1, LUA_TFUNCTION);
  if (S->cur != t) rt_switch(S, L, t, 0);
  old = lraf_manager_retain(t->acct->manager);
  child = lraf_hier_new(old, -1);
  if (child == NULL) {
    lraf_manager_release(old);
    return luaL_error(L, "not enough memory");
  }
  rt_flush(S, L, 0, 0);
  if (S->quota) {
    lraf_manager_release(child);
    lraf_manager_release(old);
    return rt_raise_quota(L);
  }
  acct_set_manager(t->acct, child);
  rt_regranulate(S, L);
  status = lua_pcall(L, lua_gettop(L) - 1, LUA_MULTRET, 0);
  rt_stopping(L, status);
  rt_flush(S, L, 0, 0);
  if (t->acct->manager == child) {
    acct_set_manager(t->acct, old);
    rt_regranulate(S, L);
  }
  used = lraf_manager_total(child);
  lraf_manager_release(child);
  lraf_manager_release(old);
  if (S->quota) return rt_raise_quota(L);
  if (status != LUA_OK) return lua_error(L);
  nres = lua_gettop(L);
  lua_pushinteger(L, (lua_Integer)used);
  lua_insert(L, 1);
  return nres + 1;
}

static const luaL_Reg funcs[] = {
  {"count", m_count},
  {"measure", m_measure},
  {"model", m_model},
  {NULL, NULL}
};

int rt_open_module(lua_State *L) {
  luaL_newlib(L, funcs);
  return 1;
}
