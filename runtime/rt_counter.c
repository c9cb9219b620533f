/*
** rt_counter.c - the shared counter cell and the consume function.
**
** All rewritten functions of a state share one counter cell, reached
** through the anchor closure's upvalue.  The counter counts for the
** current thread's account (S->cur); it is charged to that account and
** reset to the account manager's next granularity at every consume and
** every switch to a thread of another manager, so each instruction is
** charged to the thread that ran it.  At a switch between threads of
** the same manager the count waits (rt_defer.c) until the next charge,
** which settles it first, so managers hear everything in order.
*/
#include <lauxlib.h>

#include "rt.h"


/* The registry keys of the two stop values (rt_protect.c makes them). */
const char rt_quota_key = 'Q';
const char rt_memory_key = 'M';

int rt_raise_quota(lua_State *L) {
  lraf_state *S = rt_state(L);
  S->quota = 1;
  rt_stop_limit(S, L, 0);
  lua_rawgetp(L, LUA_REGISTRYINDEX, S->memerr ? &rt_memory_key
                                              : &rt_quota_key);
  return lua_error(L);
}
int64_t rt_counter_cell(lraf_state *S, lua_State *L) {
  lua_Integer v;
  lua_rawgeti(L, LUA_REGISTRYINDEX, S->anchor_ref);
  lua_getupvalue(L, -1, S->counter_up);
  v = lua_tointeger(L, -1);
  lua_pop(L, 2);
  return (int64_t)v;
}

void rt_counter_set_cell(lraf_state *S, lua_State *L, int64_t v) {
  lua_rawgeti(L, LUA_REGISTRYINDEX, S->anchor_ref);
  lua_pushinteger(L, (lua_Integer)v);
  lua_setupvalue(L, -2, S->counter_up);
  lua_pop(L, 1);
}

static inline int64_t counter(lraf_state *S, lua_State *L) {
  return S->vmcounter != NULL ? (int64_t)*S->vmcounter
                              : rt_counter_cell(S, L);
}

static void set(lraf_state *S, lua_State *L, int64_t v) {
  if (S->opt.target == RW_LRAVM)
    *rt_vm_counter(L) = (lua_Integer)v;
  else
    rt_counter_set_cell(S, L, v);
}

static void reset(lraf_state *S, lua_State *L, int64_t g) {
  S->base = -g;
  S->pending = 0;
  set(S, L, -g);
}

int64_t rt_live(lraf_state *S, lua_State *L) {
  return counter(S, L) - S->base + S->pending;
}

int64_t rt_live_run(lraf_state *S, lua_State *L) {
  int64_t n = rt_live(S, L);
  if (S->opt.target == RW_LRAVM && S->opt.exact) n -= rt_vm_ahead(L);
  return n;
}

int64_t rt_total_run(lraf_state *S, lua_State *L) {
  return S->charged + rt_live_run(S, L);
}

int64_t rt_total(lraf_state *S, lua_State *L) {
  return S->charged + rt_live(S, L);
}

static int64_t next_granularity(lraf_state *S, rt_thread *t) {
  if (S->quota || t->acct == NULL) return 0;
  return acct_granularity(t->acct, S->granularity);
}

void rt_regranulate(lraf_state *S, lua_State *L) {
  rt_settle(S);
  reset(S, L, next_granularity(S, S->cur));
}

/* Charge n to the current account, after what waits. */
static lraf_verdict charge_n(lraf_state *S, int64_t n, int can_pause) {
  rt_thread *t = S->cur;
  lraf_verdict v;
  rt_settle(S);
  if (t->acct == NULL) t = &S->main;
  S->charged += n;
  v = acct_charge(t->acct, n, can_pause);
  if (v == LRAF_STOP) S->quota = 1;
  return v;
}

lraf_verdict rt_flush(lraf_state *S, lua_State *L, int64_t extra,
                      int can_pause) {
  lraf_verdict v = charge_n(S, rt_live(S, L) + extra, can_pause);
  rt_regranulate(S, L);
  return v;
}

/* At a switch the leaving thread's count goes to its manager.  When
   both threads answer to the same manager the count may wait for the
   next settle (rt_defer), and the counter keeps running (that manager
   granted what is left of it); otherwise it restarts at the entering
   thread's granularity.  rt_switch_fast (rt_switch.h) is the lraf VM's
   deferred case inline. */
lraf_verdict rt_switch(lraf_state *S, lua_State *L, rt_thread *to,
                       int can_pause) {
  lraf_verdict v = LRAF_CONTINUE;
  rt_thread *from = S->cur;
  if (to != from) {
    int64_t c = counter(S, L), n = c - S->base + S->pending;
    int same = from->acct != NULL && to->acct != NULL &&
               from->acct->manager == to->acct->manager;
    S->pending = 0;
    if (n != 0 && !(same && !S->quota && rt_defer(S, from, n)))
      v = charge_n(S, n, can_pause);
    S->cur = to;
    if (same && !S->quota)
      S->base = c;
    else
      rt_regranulate(S, L);
  }
  S->running = to->L;
  return v;
}

int rt_consume(lua_State *L) {
  rt_thread *t = rt_thread_of(L);
  lraf_state *S = t->S;
  int64_t extra = S->opt.mode == RW_OVERHEAD ? rw_consume_overhead(&S->opt)
                                             : 0;
  int can_pause;
  lraf_verdict v;
  if (S->cur != t) rt_switch(S, L, t, 0);  /* resumed behind lraf's back */
  can_pause = t->host && lua_isyieldable(L);
  v = rt_flush(S, L, extra, can_pause);
  if (S->quota) return rt_raise_quota(L);
  if (v == LRAF_PAUSE && can_pause) {
    S->paused = 1;
    return lua_yield(L, 0);
  }
  return 0;
}

/* A native charge: added to the counter when it fits in what the manager
   granted (the counter stays below 0), flushed to the manager first
   otherwise, so that a limit stops the thread before the work. */
void rt_charge(lua_State *L, int64_t n) {
  rt_thread *t;
  lraf_state *S;
  int64_t waiting = 0;  /* earlier small charges joining this one */
  if (n <= 0) return;
  t = rt_thread_of(L);
  S = t->S;
  if (S->cur == t && !S->quota && S->pending + n < RT_PENDING_MAX) {
    S->pending += n;  /* small charges wait for the next large one or
                         the next flush or switch */
    S->native_units += n;
    return;
  }
  if (!lua_checkstack(L, 3)) luaL_error(L, "stack overflow");
  if (S->cur != t) rt_switch(S, L, t, 0);
  if (!S->quota) {
    int64_t c;
    waiting = S->pending;
    n += S->pending;
    S->pending = 0;
    c = counter(S, L);
    if (c < 0 && n < -c) {
      set(S, L, c + n);
      S->native_units += n - waiting;
      return;
    }
  }
  rt_settle(S);  /* the manager's total, before it is read */
  {
    /* a charge that a limit cannot grant is recorded only up to one
       unit past the quota: the work it stands for is never done.  The
       small charges waiting with it stand for work done already (the
       running total showed them): they stay whole. */
    rt_thread *c = S->cur->acct != NULL ? S->cur : &S->main;
    int64_t left = acct_budget_left(c->acct->manager) - rt_live(S, L) -
                   waiting;
    if (left < n - waiting) n = waiting + (left > 0 ? left : 0) + 1;
  }
  S->native_units += n - waiting;
  rt_flush(S, L, n, 0);
  if (S->quota) rt_raise_quota(L);
}

/* The number of upvalues the unmodified function at idx has, or -1
   when it does not carry lraf's two (its last two upvalues are not the
   anchor's counter and consume cells). */
int rt_own_upvalues(lua_State *L, int idx) {
  lraf_state *S = rt_state(L);
  lua_Debug ar;
  void *counter, *consume;
  int n;
  idx = lua_absindex(L, idx);
  if (lua_type(L, idx) != LUA_TFUNCTION || lua_iscfunction(L, idx))
    return -1;
  lua_pushvalue(L, idx);
  lua_getinfo(L, ">u", &ar);
  n = ar.nups;
  if (n < 2) return -1;
  lua_rawgeti(L, LUA_REGISTRYINDEX, S->anchor_ref);
  counter = lua_upvalueid(L, -1, S->counter_up);
  consume = lua_upvalueid(L, -1, S->counter_up + 1);
  lua_pop(L, 1);
  if (lua_upvalueid(L, idx, n - 1) != counter ||
      lua_upvalueid(L, idx, n) != consume)
    return -1;
  return n - 2;
}
