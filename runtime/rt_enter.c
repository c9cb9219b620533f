/*
** rt_enter.c - entering and leaving a state, below the host API:
** protected calls on the main thread, turning Lua errors into
** lraf_status + message, and what happens when the outermost entry
** point returns.
**
** Every entry point counts its nesting in S->depth.  When the outermost
** one returns, the live counter is flushed to the managers (so their
** totals are exact between calls) and the pending quota error is
** cleared: it has reached the host.
*/
#include <stdio.h>
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
  S->mem_thrash = 0;
  S->mem_refused_at = 0;
  S->paused = 0;
}

static void keep_message(lraf_state *S, const char *msg) {
  size_t n = strlen(msg);
  char *p = realloc(S->last_error, n + 1);
  if (p == NULL) return;
  memcpy(p, msg, n + 1);
  S->last_error = p;
}

/* The stop's message with what the command line says too: the limit,
   where the code was, and the native units (lraf_last_error keeps it;
   the Lua-side error object still says the bare words). */
lraf_status rt_stop_fail(lraf_state *S, int memory, lraf_error *err) {
  char msg[sizeof S->where + 200];
  const char *where = lraf_last_where(S);
  const char *at = *where ? " at " : "";
  if (memory) {
    snprintf(msg, sizeof msg, "memory limit exceeded (limit %zu bytes)%s%s",
             S->mem_limit, at, where);
  } else {
    int64_t quota = acct_budget_quota(lraf_account_manager(S->main.acct));
    const char *unit = S->native ? "units"
                     : S->opt.mode == RW_WEIGHTED ? "weighted units"
                     : "instructions";
    char limit[64] = "";
    char native[64] = "; native charging was off";
    if (quota >= 0)
      snprintf(limit, sizeof limit, " (limit %lld %s)", (long long)quota,
               unit);
    if (S->native)
      snprintf(native, sizeof native, "; native charging added %lld units",
               (long long)lraf_native_units(S));
    snprintf(msg, sizeof msg, "instruction quota exceeded%s%s%s%s", limit,
             at, where, native);
  }
  keep_message(S, msg);
  return err_fail(err, memory ? LRAF_EMEMLIMIT : LRAF_EQUOTA, "%s", msg);
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
    return rt_stop_fail(S, 1, err);
  }
  if (S->quota || rt_is_quota(L, -1)) {
    lua_pop(L, 1);
    return rt_stop_fail(S, 0, err);
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
      return rt_stop_fail(S, 0, err);
    }
    if (st != LUA_OK || lua_type(L, -1) != LUA_TSTRING) {
      lua_pop(L, 1);
      lua_pushliteral(L, "(error object is not a string)");
    }
  }
  msg = lua_tostring(L, -1);
  keep_message(S, msg);
  err_fail(err, code, "%s", msg);
  lua_pop(L, 1);
  return code;
}

lraf_status rt_protected(lraf_state *S, lua_CFunction f, void *ud,
                         int nresults, lraf_error *err) {
  lua_State *L = S->L;
  int st;
  if (!lua_checkstack(L, 4))
    return err_fail(err, LRAF_EMEM, "lraf: stack overflow");
  lua_pushcfunction(L, f);
  lua_pushlightuserdata(L, ud);
  S->depth++;
  st = lua_pcall(L, 1, nresults, 0);
  S->depth--;
  if (st != LUA_OK) return rt_error(S, L, st, err);
  return LRAF_OK;
}
