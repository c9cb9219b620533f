/*
** rt_call.c - the host's calls into a state: lraf_call, lraf_resume
** and lraf_last_error, over the entering and leaving of rt_enter.c.
*/
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>

#include "rt.h"

/* The message handler of lraf_call: the error as a string (its
   __tostring, like lua.c), with a traceback when asked for; the quota
   error passes unchanged. */
static int handler(lua_State *L) {
  lraf_state *S = rt_state(L);
  const char *msg;
  if (S->quota || rt_is_quota(L, 1)) return 1;
  msg = lua_tostring(L, 1);
  if (msg == NULL) {
    if (luaL_callmeta(L, 1, "__tostring") && lua_type(L, -1) == LUA_TSTRING)
      msg = lua_tostring(L, -1);
    else
      msg = lua_pushfstring(L, "(error object is a %s value)",
                            luaL_typename(L, 1));
  }
  if (S->traceback)
    luaL_traceback(L, L, msg, 1);
  else
    lua_pushstring(L, msg);
  return 1;
}

lraf_status lraf_call(lraf_state *S, int nargs, int nresults,
                      lraf_error *err) {
  lua_State *L;
  int base, st;
  lraf_status code = LRAF_OK;
  if (S == NULL || nargs < 0 || lua_gettop(S->L) < nargs + 1)
    return err_fail(err, LRAF_EARG, "lraf_call: no function to call");
  L = S->L;
  if (!lua_checkstack(L, 4))
    return err_fail(err, LRAF_EMEM, "lraf_call: stack overflow");
  if (S->depth == 0 && S->cur != &S->main)  /* a coroutine was resumed */
    rt_switch(S, L, &S->main, 0);             /* behind lraf's back */
  base = lua_gettop(L) - nargs;
  lua_pushcfunction(L, handler);
  lua_insert(L, base);
  S->depth++;
  st = lua_pcall(L, nargs, nresults, base);
  S->depth--;
  lua_remove(L, base);
  if (st != LUA_OK) code = rt_error(S, L, st, err);
  rt_leave(S);
  return code;
}

lraf_status lraf_resume(lraf_state *S, lua_State *co, int nargs,
                        int *nresults, lraf_costatus *costatus,
                        lraf_error *err) {
  lua_State *L;
  rt_thread *t, *from;
  int st, n = 0;
  lraf_status code = LRAF_OK;
  if (nresults != NULL) *nresults = 0;
  if (costatus != NULL) *costatus = LRAF_CO_DONE;
  if (S == NULL || co == NULL || rt_state(co) != S || nargs < 0 ||
      lua_gettop(co) < nargs)
    return err_fail(err, LRAF_EARG, "lraf_resume: not a thread of this state");
  L = S->running;
  if (!lua_checkstack(L, 6))
    return err_fail(err, LRAF_EMEM, "lraf_resume: stack overflow");
  t = *(rt_thread **)lua_getextraspace(co);
  if (t->L != co || t->acct == NULL) {
    t = lraf_thread_account(S, co) ? *(rt_thread **)lua_getextraspace(co)
                                   : NULL;
    if (t == NULL)
      return err_fail(err, LRAF_EMEM, "lraf_resume: out of memory");
  }
  from = S->cur;
  rt_switch(S, L, t, 0);
  t->host = 1;
  S->paused = 0;
  S->depth++;
  st = lua_resume(co, S->depth > 1 ? L : NULL, nargs, &n);
  S->depth--;
  t->host = 0;
  rt_switch(S, L, from, 1);
  if (st == LUA_YIELD) {
    if (costatus != NULL)
      *costatus = S->paused ? LRAF_CO_PAUSED : LRAF_CO_YIELDED;
    if (nresults != NULL) *nresults = n;
  } else if (st == LUA_OK) {
    if (nresults != NULL) *nresults = n;
  } else {
    /* a copy of the error object, converted on the resumer's stack */
    lua_pushvalue(co, -1);
    lua_xmove(co, L, 1);
    if (S->traceback && lua_type(L, -1) == LUA_TSTRING) {
      luaL_traceback(L, co, lua_tostring(L, -1), 0);
      lua_remove(L, -2);
    }
    code = rt_error(S, L, st, err);
  }
  S->paused = 0;
  rt_leave(S);
  return code;
}

const char *lraf_last_error(const lraf_state *S) {
  return S && S->last_error ? S->last_error : "";
}
