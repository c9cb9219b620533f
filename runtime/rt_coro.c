/*
** rt_coro.c - coroutine.create/wrap/resume/close with attribution.
**
** Around every switch into or out of a coroutine the counter is charged
** to the thread that ran it (rt_switch), so each coroutine's account
** gets exactly its own instructions, including the __close handlers
** that closing it runs.  create and wrap give the new coroutine an
** account bound to its creator's manager.  A quota error raised in a
** coroutine, or at a switch, is raised again in the resumer: resume
** and wrap cannot return it as a value.
*/
#include <lauxlib.h>
#include <lualib.h>

#include "rt.h"
#include "rt_switch.h"

static lua_State *getco(lua_State *L) {
  lua_State *co = lua_tothread(L, 1);
  luaL_argexpected(L, co, 1, "thread");
  return co;
}

/* The lraf VM in exact mode: while another thread runs, what L's frames
   charged ahead is given back (not flushed to L's account), and charged
   again when L runs on, as the VM does for a coroutine that yields; so
   the counts read in the other thread (lraf.count, the profiler's) are
   what ran. */
static int64_t give_back(lraf_state *S, lua_State *L) {
  int64_t a = 0;
  if (S->opt.target == RW_LRAVM && S->opt.exact &&
      (a = rt_vm_ahead(L)) != 0)
    *rt_vm_counter(L) -= (lua_Integer)a;
  return a;
}

static void charge_again(lua_State *L, int64_t a) {
  if (a != 0) *rt_vm_counter(L) += (lua_Integer)a;
}

/* Entering was refused for the quota: back to self, and raise it. */
static void refused(lua_State *L, rt_thread *self, int64_t a) {
  rt_switch_fast(self->S, L, self, 0);
  charge_again(L, a);
  rt_raise_quota(L);
}

/* enter with L's frames' charge given back while co runs (inline: it
   runs at every resume) */
static inline int64_t enter_from(lua_State *L, rt_thread *self,
                                 rt_thread *to) {
  lraf_state *S = to->S;
  int64_t a = give_back(S, L);
  rt_switch_fast(S, L, to, 0);
  if (S->quota) refused(L, self, a);
  return a;
}

/* Resume co with narg arguments from L; the number of results, or -1
   with the error on L's top. */
static int resume(lua_State *L, lua_State *co, int narg) {
  rt_thread *self, *to;
  int status, nres;
  int64_t ahead;
  if (!lua_checkstack(co, narg)) {
    lua_pushliteral(L, "too many arguments to resume");
    return -1;
  }
  self = rt_switch_thread(L, L);
  to = rt_switch_thread(L, co);
  ahead = enter_from(L, self, to);
  lua_xmove(L, co, narg);
  status = lua_resume(co, L, narg, &nres);
  rt_switch_fast(self->S, L, self, 0);
  charge_again(L, ahead);
  if ((self->S->quota || status == LUA_ERRMEM) && rt_stopping(L, status)) {
    if (status == LUA_OK || status == LUA_YIELD) lua_pop(co, nres);
    rt_raise_quota(L);
  }
  if (status == LUA_OK || status == LUA_YIELD) {
    if (!lua_checkstack(L, nres + 1)) {
      lua_pop(co, nres);
      lua_pushliteral(L, "too many results to resume");
      return -1;
    }
    lua_xmove(co, L, nres);
    return nres;
  }
  lua_xmove(co, L, 1);
  return -1;
}

/* lua_resetthread(co), its __close handlers charged to co. */
static int reset(lua_State *L, lua_State *co) {
  rt_thread *self = rt_switch_thread(L, L);
  int status;
  int64_t ahead = enter_from(L, self, rt_switch_thread(L, co));
  status = lua_resetthread(co);
  rt_stopping(L, status);
  rt_switch_fast(self->S, L, self, 0);
  charge_again(L, ahead);
  if (self->S->quota) rt_raise_quota(L);
  return status;
}

static int co_resume(lua_State *L) {
  lua_State *co = getco(L);
  int r = resume(L, co, lua_gettop(L) - 1);
  if (r < 0) {
    lua_pushboolean(L, 0);
    lua_insert(L, -2);
    return 2;
  }
  lua_pushboolean(L, 1);
  lua_insert(L, -(r + 1));
  return r + 1;
}

static int co_wrapped(lua_State *L) {
  lua_State *co = lua_tothread(L, lua_upvalueindex(1));
  int r = resume(L, co, lua_gettop(L));
  if (r < 0) {
    int stat = lua_status(co);
    if (stat != LUA_OK && stat != LUA_YIELD) {
      stat = reset(L, co);
      lua_xmove(co, L, 1);
    }
    if (stat != LUA_ERRMEM && lua_type(L, -1) == LUA_TSTRING) {
      luaL_where(L, 1);
      lua_insert(L, -2);
      lua_concat(L, 2);
    }
    return lua_error(L);
  }
  return r;
}

static int co_create(lua_State *L) {
  lua_State *co;
  luaL_checktype(L, 1, LUA_TFUNCTION);
  co = lua_newthread(L);
  lua_pushvalue(L, 1);
  lua_xmove(L, co, 1);
  rt_thread_new(L, co, rt_switch_thread(L, L)->acct->manager);
  return 1;
}

static int co_wrap(lua_State *L) {
  co_create(L);
  lua_pushcclosure(L, co_wrapped, 1);
  return 1;
}

/* Status of co seen from L, as coroutine.status names it. */
static const char *status_name(lua_State *L, lua_State *co) {
  lua_Debug ar;
  if (L == co) return "running";
  switch (lua_status(co)) {
    case LUA_YIELD: return "suspended";
    case LUA_OK:
      if (lua_getstack(co, 0, &ar)) return "normal";
      return lua_gettop(co) == 0 ? "dead" : "suspended";
    default: return "dead";
  }
}

static int co_close(lua_State *L) {
  lua_State *co = getco(L);
  const char *st = status_name(L, co);
  int status;
  if (st[0] != 'd' && st[0] != 's')
    return luaL_error(L, "cannot close a %s coroutine", st);
  status = reset(L, co);
  if (status == LUA_OK) {
    lua_pushboolean(L, 1);
    return 1;
  }
  lua_pushboolean(L, 0);
  lua_xmove(co, L, 1);
  return 2;
}

static const luaL_Reg co_funcs[] = {
  {"create", co_create}, {"wrap", co_wrap}, {"resume", co_resume},
  {"close", co_close}, {NULL, NULL}
};

void rt_coro_open(lua_State *L) {
  lua_getfield(L, LUA_REGISTRYINDEX, LUA_LOADED_TABLE);
  lua_getfield(L, -1, LUA_COLIBNAME);
  luaL_setfuncs(L, co_funcs, 0);
  lua_pop(L, 2);
}
