/*
** rt_accounts.c - the host's view of a state's accounts: which account
** belongs to which thread, exact consumption (flushed + live counter),
** explicit flushes, re-binding managers, and listing accounts.
*/
#include <lauxlib.h>

#include "rt.h"

lraf_account *lraf_main_account(lraf_state *S) {
  return S ? S->main.acct : NULL;
}

lraf_account *lraf_current_account(lraf_state *S) {
  return S && S->cur ? S->cur->acct : NULL;
}

static int adopt(lua_State *L) {
  lua_State *co = lua_touserdata(L, 1);
  rt_thread_other(L, co);
  return 0;
}

lraf_account *lraf_thread_account(lraf_state *S, struct lua_State *co) {
  rt_thread *t;
  if (S == NULL || co == NULL || rt_state(co) != S) return NULL;
  t = *(rt_thread **)lua_getextraspace(co);
  if (t->L == co && t->acct != NULL) return t->acct;
  {
    lua_State *L = S->running;  /* the thread that may call Lua now */
    if (!lua_checkstack(L, 2)) return NULL;
    lua_pushcfunction(L, adopt);
    lua_pushlightuserdata(L, co);
    if (lua_pcall(L, 1, 0, 0) != LUA_OK) {
      lua_pop(L, 1);
      return NULL;
    }
  }
  t = *(rt_thread **)lua_getextraspace(co);
  return t->L == co ? t->acct : NULL;
}

int64_t lraf_consumed(lraf_state *S, const lraf_account *a) {
  int64_t n;
  if (S == NULL || a == NULL) return 0;
  rt_settle(S);
  n = lraf_account_flushed(a);
  if (S->cur != NULL && S->cur->acct == a) n += rt_live_run(S, S->running);
  return n;
}

/* The pending quota error is the host's once an entry point returns. */
static lraf_status stopped(lraf_state *S, lraf_verdict v, lraf_error *err) {
  int q = S->quota || v == LRAF_STOP;
  if (S->depth == 0) S->quota = S->memerr = 0;
  if (q) return rt_stop_fail(S, 0, err);
  return LRAF_OK;
}

lraf_status lraf_flush(lraf_state *S, lraf_error *err) {
  if (S == NULL) return err_fail(err, LRAF_EARG, "lraf_flush: no state");
  return stopped(S, rt_flush(S, S->running, 0, 0), err);
}

lraf_status lraf_set_manager(lraf_state *S, lraf_account *a,
                             lraf_manager *m, lraf_error *err) {
  lraf_verdict v = LRAF_CONTINUE;
  int current;
  if (S == NULL || a == NULL || m == NULL)
    return err_fail(err, LRAF_EARG, "lraf_set_manager: missing argument");
  current = S->cur != NULL && S->cur->acct == a;
  rt_settle(S);  /* counts deferred under a's old manager */
  if (current) v = rt_flush(S, S->running, 0, 0);
  acct_set_manager(a, m);
  if (current) rt_regranulate(S, S->running);
  (void)v;
  if (S->depth == 0) S->quota = 0;
  return LRAF_OK;
}

void lraf_foreach_account(lraf_state *S,
                          void (*fn)(lraf_account *a, int64_t consumed,
                                     int alive, void *ud),
                          void *ud) {
  size_t i;
  if (S == NULL || fn == NULL) return;
  rt_settle(S);
  fn(S->main.acct, lraf_consumed(S, S->main.acct), 1, ud);
  for (i = 0; i < S->nlive; i++)
    fn(S->live[i].a, lraf_consumed(S, S->live[i].a), 1, ud);
  for (i = 0; i < S->ndead; i++)
    fn(S->dead[i], lraf_account_flushed(S->dead[i]), 0, ud);
}

int64_t lraf_retired(const lraf_state *S, int64_t *count) {
  if (count != NULL) *count = S ? S->retired_count : 0;
  return S ? S->retired_sum : 0;
}

static void add_consumed(lraf_account *a, int64_t n, int alive, void *ud) {
  (void)a;
  (void)alive;
  *(int64_t *)ud += n;
}

int64_t lraf_total(lraf_state *S) {
  int64_t n = 0;
  if (S == NULL) return 0;
  lraf_foreach_account(S, add_consumed, &n);
  return n + S->retired_sum;
}
