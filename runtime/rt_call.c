/*
** rt_call.c - entering a state from the host: calls, resumes, and
** turning Lua errors into lraf_status + message.
**
** Every entry point counts its nesting in S->depth.  When the outermost
** one returns, the live counter is flushed to the managers (so their
** totals are exact between calls) and the pending quota error is
** cleared: it has reached the host.
*/
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>

#include "rt.h"

void rt_leave(lraf_state *S) {
  if (S->depth > 0) return;
  S->running = S->L;
  if (S->cur != &S->main) rt_switch(S, S->L, &S->main, 0);
  rt_flush(S, S->L, 0, 0);
  S->quota = 0;
  S->memerr = 0;
  S->mem_refused = 0;
  S->paused = 0;
}

static void keep_message(lraf_state *S, const char *msg) {
  size_t n = strlen(msg);
  char *p = realloc(S->last_error, n + 1);
  if (p == NULL) return;
  memcpy(p, msg, n + 1);
  S->last_error = p;
}

static int tostring_any(lua_State *L) {
  luaL_tolstring(L, 1, NULL);
  return 1;
}

lraf_status rt_error(lraf_state *S, lua_State *L, int status,
                     lraf_error *err) {
  lraf_error local;
  const char *msg;
  lraf_status code;
  if (err == NULL) err = &local;
  if (S->memerr || (status == LUA_ERRMEM && S->mem_refused)) {
    lua_pop(L, 1);
    rt_stop_limit(S, NULL, 1);
    keep_message(S, "memory limit exceeded");
    return vm_fail(err, LRAF_EMEMLIMIT, "memory limit exceeded");
  }
  if (S->quota || rt_is_quota(L, -1)) {
    lua_pop(L, 1);
    keep_message(S, "instruction quota exceeded");
    return vm_fail(err, LRAF_EQUOTA, "instruction quota exceeded");
  }
  code = status == LUA_ERRMEM ? LRAF_EMEM
         : status == LUA_ERRSYNTAX ? LRAF_ESYNTAX
         : status == LUA_ERRFILE ? LRAF_EIO : LRAF_ERUN;
  if (lua_type(L, -1) != LUA_TSTRING && lua_type(L, -1) != LUA_TNUMBER) {
    /* __tostring may run Lua code: in protected mode, and counted */
    int st;
    lua_pushcfunction(L, tostring_any);
    lua_insert(L, -2);
    S->depth++;
    st = lua_pcall(L, 1, 1, 0);
    S->depth--;
    if (S->quota || rt_is_quota(L, -1)) {
      lua_pop(L, 1);
      keep_message(S, "instruction quota exceeded");
      return vm_fail(err, LRAF_EQUOTA, "instruction quota exceeded");
    }
    if (st != LUA_OK || lua_type(L, -1) != LUA_TSTRING) {
      lua_pop(L, 1);
      lua_pushliteral(L, "(error object is not a string)");
    }
  }
  msg = lua_tostring(L, -1);
  keep_message(S, msg);
  vm_fail(err, code, "%s", msg);
  lua_pop(L, 1);
  return code;
}

/* The message handler of lraf_call: the error as a string, with a
   traceback when asked for, as lua.c does it (an error object with
   __tostring gives its string and no traceback); the quota error
   passes unchanged. */
static int handler(lua_State *L) {
  lraf_state *S = rt_state(L);
  const char *msg;
  if (S->quota || rt_is_quota(L, 1)) return 1;
  rt_stop_error(L);
  msg = lua_tostring(L, 1);
  if (msg == NULL) {
    if (luaL_callmeta(L, 1, "__tostring") && lua_type(L, -1) == LUA_TSTRING)
      return 1;
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
    return vm_fail(err, LRAF_EARG, "lraf_call: no function to call");
  L = S->L;
  if (!lua_checkstack(L, 4))
    return vm_fail(err, LRAF_EMEM, "lraf_call: stack overflow");
  if (S->depth == 0 && S->cur != &S->main)  /* a coroutine was resumed */
    rt_switch(S, L, &S->main, 0);             /* behind lraf's back */
  if (S->depth == 0) rt_stop_clear(S);
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

lraf_status rt_protected(lraf_state *S, lua_CFunction f, void *ud,
                         int nresults, lraf_error *err) {
  lua_State *L = S->L;
  int st;
  if (!lua_checkstack(L, 4))
    return vm_fail(err, LRAF_EMEM, "lraf: stack overflow");
  lua_pushcfunction(L, f);
  lua_pushlightuserdata(L, ud);
  S->depth++;
  st = lua_pcall(L, 1, nresults, 0);
  S->depth--;
  if (st != LUA_OK) return rt_error(S, L, st, err);
  return LRAF_OK;
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
    return vm_fail(err, LRAF_EARG, "lraf_resume: not a thread of this state");
  L = S->running;
  if (!lua_checkstack(L, 6))
    return vm_fail(err, LRAF_EMEM, "lraf_resume: stack overflow");
  t = *(rt_thread **)lua_getextraspace(co);
  if (t->L != co || t->acct == NULL) {
    t = lraf_thread_account(S, co) ? *(rt_thread **)lua_getextraspace(co)
                                   : NULL;
    if (t == NULL)
      return vm_fail(err, LRAF_EMEM, "lraf_resume: out of memory");
  }
  if (S->depth == 0) rt_stop_clear(S);
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

lraf_status lraf_run_string(lraf_state *S, const char *src, const char *name,
                            lraf_error *err) {
  lraf_status st;
  if (src == NULL) return vm_fail(err, LRAF_EARG, "lraf_run_string: no source");
  st = lraf_load_string(S, src, strlen(src), name ? name : src, err);
  return st == LRAF_OK ? lraf_call(S, 0, 0, err) : st;
}

lraf_status lraf_run_file(lraf_state *S, const char *path, lraf_error *err) {
  lraf_status st = lraf_load_file(S, path, err);
  return st == LRAF_OK ? lraf_call(S, 0, 0, err) : st;
}

const char *lraf_last_error(const lraf_state *S) {
  return S && S->last_error ? S->last_error : "";
}
