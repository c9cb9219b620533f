/*
** rt_thread.c - one record per Lua thread: its account, found through
** the thread's extra space.  A coroutine's record is a full userdata
** that a weak-keyed registry table ties to the thread; its __gc retires
** the account when the thread is collected.
*/
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>

#include "rt.h"

_Static_assert(LUA_EXTRASPACE >= sizeof(void *),
               "lraf keeps a pointer in each thread's extra space");

static const char threads_key = 'T';  /* thread -> record box */
static const char box_meta_key = 'M';

static rt_thread **extra(lua_State *L) {
  return (rt_thread **)lua_getextraspace(L);
}

lraf_state *rt_state(lua_State *L) {
  return (*extra(L))->S;
}

static void retire(lraf_state *S, lraf_account *a) {
  if (S->ndead < (size_t)S->keep_accounts) {
    if (S->ndead == S->capdead) {
      size_t cap = S->capdead ? S->capdead * 2 : 16;
      lraf_account **d;
      if (cap > (size_t)S->keep_accounts) cap = (size_t)S->keep_accounts;
      d = realloc(S->dead, cap * sizeof *d);
      if (d != NULL) {
        S->dead = d;
        S->capdead = cap;
      }
    }
    if (S->ndead < S->capdead) {
      S->dead[S->ndead++] = a;
      return;
    }
  }
  S->retired_sum += lraf_account_flushed(a);
  S->retired_count++;
  lraf_account_release(a);
}

static int box_gc(lua_State *L) {
  rt_thread *t = lua_touserdata(L, 1);
  lraf_state *S;
  size_t i;
  if (t == NULL || t->acct == NULL) return 0;
  S = t->S;
  rt_settle(S);  /* its deferred count, before the account is retired */
  if (S->cur == t) S->cur = &S->main;  /* only when the host let go of a
                                          thread it was resuming */
  i = t->slot;
  if (i < S->nlive && S->live[i].t == t) {
    S->live[i] = S->live[--S->nlive];
    if (i < S->nlive) S->live[i].t->slot = i;
  }
  retire(S, t->acct);
  t->acct = NULL;
  return 0;
}

void rt_threads_init(lua_State *L, lraf_state *S) {
  lua_newtable(L);
  lua_newtable(L);
  lua_pushliteral(L, "k");
  lua_setfield(L, -2, "__mode");
  lua_setmetatable(L, -2);
  lua_rawsetp(L, LUA_REGISTRYINDEX, &threads_key);
  lua_newtable(L);
  lua_pushcfunction(L, box_gc);
  lua_setfield(L, -2, "__gc");
  lua_pushboolean(L, 0);
  lua_setfield(L, -2, "__metatable");
  lua_rawsetp(L, LUA_REGISTRYINDEX, &box_meta_key);
  (void)S;
}

static lraf_manager *current_manager(lraf_state *S) {
  rt_thread *c = S->cur;
  if (c != NULL && c->acct != NULL) return c->acct->manager;
  return S->main.acct->manager;
}

static void need_live_slot(lua_State *L, lraf_state *S) {
  if (S->nlive == S->caplive) {
    size_t cap = S->caplive ? S->caplive * 2 : 16;
    struct rt_live *n = realloc(S->live, cap * sizeof *n);
    if (n == NULL) luaL_error(L, "not enough memory");
    S->live = n;
    S->caplive = cap;
  }
}

/* Give t a fresh account bound to m. */
static void attach(lua_State *L, lraf_state *S, rt_thread *t,
                   lraf_manager *m) {
  lraf_account *a;
  need_live_slot(L, S);
  a = acct_new(S->next_id, m);
  if (a == NULL) luaL_error(L, "not enough memory");
  S->next_id++;
  t->acct = a;
  t->slot = S->nlive;
  S->live[S->nlive].t = t;
  S->live[S->nlive].a = a;
  S->nlive++;
}

/* A coroutine starts with its creator's debug hook, as in Lua (the
   script's hook function itself is not inherited: rt_debug.c). */
static void inherit_hook(lua_State *L, lua_State *co, rt_thread *t) {
  rt_thread *from = *extra(L);
  int own = co != L && from != NULL && from->L == L;
  t->hookmask = own ? from->hookmask : 0;
  t->hookcount = own ? from->hookcount : 0;
  t->hooknext = 0;
  t->hookarmed = 0;
  t->followed = own ? from->followed : 0;
}

rt_thread *rt_thread_new(lua_State *L, lua_State *co, lraf_manager *m) {
  lraf_state *S = rt_state(L);
  rt_thread *t;
  luaL_checkstack(L, 4, "too many nested calls");
  if (co != L && !lua_checkstack(co, 1))
    luaL_error(L, "too many arguments to resume");
  t = lua_newuserdatauv(L, sizeof *t, 0);
  t->L = co;
  t->S = S;
  t->acct = NULL;
  t->host = 0;
  t->slot = 0;
  t->deferred = 0;
  t->dnext = NULL;
  t->dlisted = 0;
  inherit_hook(L, co, t);
  lua_rawgetp(L, LUA_REGISTRYINDEX, &box_meta_key);
  lua_setmetatable(L, -2);
  attach(L, S, t, m);
  lua_rawgetp(L, LUA_REGISTRYINDEX, &threads_key);
  if (co == L) {
    lua_pushthread(L);
  } else {
    lua_pushthread(co);
    lua_xmove(co, L, 1);
  }
  lua_pushvalue(L, -3);
  lua_rawset(L, -3);
  lua_pop(L, 2);
  *extra(co) = t;
  return t;
}

/* co's record, created (inheriting the current manager) when missing. */
static rt_thread *record(lua_State *L, lua_State *co) {
  rt_thread *t = *extra(co);
  lraf_state *S = t->S;
  if (t->L == co) {
    if (t->acct == NULL) {
      if (S->closing) return &S->main;
      attach(L, S, t, current_manager(S));  /* resurrected thread */
    }
    return t;
  }
  return rt_thread_new(L, co, current_manager(S));
}

rt_thread *rt_thread_other(lua_State *L, lua_State *co) {
  return record(L, co);
}

rt_thread *rt_thread_of(lua_State *L) {
  return record(L, L);
}

void rt_threads_free(lraf_state *S) {
  size_t i;
  for (i = 0; i < S->nlive; i++)
    lraf_account_release(S->live[i].a);
  for (i = 0; i < S->ndead; i++)
    lraf_account_release(S->dead[i]);
  lraf_account_release(S->main.acct);
  free(S->live);
  free(S->dead);
  S->live = NULL;
  S->dead = NULL;
  S->nlive = S->ndead = 0;
  S->main.acct = NULL;
}
