/*
** tutil_rt.c - output capture for lraf states, per-account counts, the
** per-thread count-hook oracle and a pausing manager (see tutil_rt.h).
*/
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>

#include "tutil_capture.h"
#include "tutil_rt.h"

typedef struct sink {
  char *data;
  size_t len;
} sink;

static const char sink_key = 'S';

static sink *get_sink(lua_State *L) {
  sink *s;
  lua_rawgetp(L, LUA_REGISTRYINDEX, &sink_key);
  s = lua_touserdata(L, -1);
  lua_pop(L, 1);
  return s;
}

/* Capture print and io.write into s, and keep s in the registry for
   get_sink. */
static void capture(lua_State *L, sink *s) {
  lua_pushlightuserdata(L, s);
  lua_rawsetp(L, LUA_REGISTRYINDEX, &sink_key);
  tutil_capture(L, &s->data, &s->len);
}

lraf_state *tutil_rt_new(const lraf_options *opt) {
  lraf_state *S = NULL;
  lraf_error err;
  sink *s = calloc(1, sizeof *s);
  lraf_status st;
  assert_non_null(s);
  st = lraf_new(opt, &S, &err);
  if (st != LRAF_OK) fail_msg("lraf_new: %s", err.message);
  capture(lraf_lua(S), s);
  return S;
}

const char *tutil_rt_output(lraf_state *S, size_t *len) {
  sink *s = get_sink(lraf_lua(S));
  if (len != NULL) *len = s->len;
  return s->data ? s->data : "";
}

void tutil_rt_close(lraf_state *S) {
  sink *s;
  if (S == NULL) return;
  s = get_sink(lraf_lua(S));
  lraf_close(S);
  free(s->data);
  free(s);
}

typedef struct counts {
  tutil_threads *t;
  int64_t total;
} counts;

static void each(lraf_account *a, int64_t n, int alive, void *ud) {
  counts *c = ud;
  int64_t id = lraf_account_id(a);
  (void)alive;
  c->total += n;
  if (c->t == NULL) return;
  if (id >= c->t->n) {
    long long *p = realloc(c->t->count, (size_t)(id + 1) * sizeof *p);
    if (p == NULL) return;
    memset(p + c->t->n, 0, (size_t)(id + 1 - c->t->n) * sizeof *p);
    c->t->count = p;
    c->t->n = (int)id + 1;
  }
  c->t->count[id] = n;
}

int64_t tutil_rt_total(lraf_state *S) {
  counts c = {NULL, 0};
  lraf_foreach_account(S, each, &c);
  return c.total + lraf_retired(S, NULL);
}

void tutil_rt_counts(lraf_state *S, tutil_threads *t) {
  counts c = {t, 0};
  memset(t, 0, sizeof *t);
  lraf_foreach_account(S, each, &c);
}

lraf_status tutil_rt_run(lraf_state *S, const char *src, lraf_error *err) {
  lraf_status st = lraf_load_string(S, src, strlen(src), "=test", err);
  if (st != LRAF_OK) return st;
  return lraf_call(S, 0, 0, err);
}

lraf_status tutil_rt_once(const lraf_options *opt, const char *src,
                          lraf_error *err, char **out) {
  lraf_state *S = tutil_rt_new(opt);
  lraf_status st = tutil_rt_run(S, src, err);
  size_t len;
  const char *o = tutil_rt_output(S, &len);
  *out = malloc(len + 1);
  assert_non_null(*out);
  memcpy(*out, o, len);
  (*out)[len] = '\0';
  tutil_rt_close(S);
  return st;
}

void tutil_rt_agree(const lraf_options *opt, const char *src, size_t len,
                    const char *name) {
  tutil_threads oracle, api;
  lraf_options o;
  lraf_state *S;
  lraf_error err;
  lraf_status st;
  int i;
  if (opt != NULL) o = *opt;
  else lraf_default_options(&o);
  o.exact = 1;
  o.keep_accounts = 100000;
  tutil_rt_oracle(src, len, name, &oracle);
  if (!oracle.ok) fail_msg("%s: oracle failed: %s", name, oracle.error);
  S = tutil_rt_new(&o);
  st = lraf_load_string(S, src, len, name, &err);
  if (st == LRAF_OK) st = lraf_call(S, 0, 0, &err);
  if (st != LRAF_OK) fail_msg("%s: %s", name, err.message);
  tutil_rt_counts(S, &api);
  if (api.n != oracle.n)
    fail_msg("%s: %d accounts, the oracle saw %d threads", name, api.n,
             oracle.n);
  for (i = 0; i < api.n; i++)
    if (api.count[i] != oracle.count[i])
      fail_msg("%s: thread %d: account %lld, hook %lld", name, i,
               api.count[i], oracle.count[i]);
  tutil_threads_free(&oracle);
  tutil_threads_free(&api);
  tutil_rt_close(S);
}

/* ---------------------------------------------------------------- */
/* The per-thread oracle                                             */
/* ---------------------------------------------------------------- */

typedef struct oracle {
  lua_State **thread;  /* thread of each index (latest holder) */
  tutil_threads *t;
  int cap;
  lua_State *last;     /* cache */
  int last_i;
} oracle;

static oracle *the_oracle;

static void hook(lua_State *L, lua_Debug *ar) {
  oracle *o = the_oracle;
  int i;
  (void)ar;
  if (L == o->last) {
    o->t->count[o->last_i]++;
    return;
  }
  for (i = o->t->n - 1; i >= 0; i--)
    if (o->thread[i] == L) break;
  if (i < 0) i = 0;
  o->last = L;
  o->last_i = i;
  o->t->count[i]++;
}

static void record(lua_State *co) {
  oracle *o = the_oracle;
  int i;
  for (i = 0; i < o->t->n; i++)
    if (o->thread[i] == co) o->thread[i] = NULL;  /* address reused */
  if (o->t->n == o->cap) {
    int cap = o->cap * 2;
    o->thread = realloc(o->thread, (size_t)cap * sizeof *o->thread);
    o->t->count = realloc(o->t->count, (size_t)cap * sizeof *o->t->count);
    assert_non_null(o->thread);
    assert_non_null(o->t->count);
    o->cap = cap;
  }
  o->thread[o->t->n] = co;
  o->t->count[o->t->n] = 0;
  o->t->n++;
  o->last = NULL;
}

static int o_create(lua_State *L) {
  lua_pushvalue(L, lua_upvalueindex(1));
  lua_insert(L, 1);
  lua_call(L, lua_gettop(L) - 1, 1);
  record(lua_tothread(L, -1));
  return 1;
}

static int o_wrap(lua_State *L) {
  lua_pushvalue(L, lua_upvalueindex(1));
  lua_insert(L, 1);
  lua_call(L, lua_gettop(L) - 1, 1);
  lua_getupvalue(L, -1, 1);
  record(lua_tothread(L, -1));
  lua_pop(L, 1);
  return 1;
}

void tutil_rt_oracle(const char *src, size_t len, const char *name,
                     tutil_threads *t) {
  oracle o;
  sink s = {NULL, 0};
  lua_State *L = luaL_newstate();
  int st;
  memset(t, 0, sizeof *t);
  memset(&o, 0, sizeof o);
  o.t = t;
  o.cap = 16;
  o.thread = calloc((size_t)o.cap, sizeof *o.thread);
  t->count = calloc((size_t)o.cap, sizeof *t->count);
  assert_non_null(o.thread);
  assert_non_null(t->count);
  the_oracle = &o;
  luaL_openlibs(L);
  capture(L, &s);
  lua_getglobal(L, "coroutine");
  lua_getfield(L, -1, "create");
  lua_pushcclosure(L, o_create, 1);
  lua_setfield(L, -2, "create");
  lua_getfield(L, -1, "wrap");
  lua_pushcclosure(L, o_wrap, 1);
  lua_setfield(L, -2, "wrap");
  lua_pop(L, 1);
  o.thread[0] = L;
  t->n = 1;
  st = luaL_loadbuffer(L, src, len, name);
  if (st == LUA_OK) {
    lua_sethook(L, hook, LUA_MASKCOUNT, 1);
    st = lua_pcall(L, 0, 0, 0);
    lua_sethook(L, NULL, 0, 0);
  }
  t->ok = st == LUA_OK;
  if (!t->ok) {
    const char *m = lua_tostring(L, -1);
    snprintf(t->error, sizeof t->error, "%s", m ? m : "(not a string)");
  }
  lua_close(L);
  free(o.thread);
  the_oracle = NULL;
  t->output = s.data;
  t->outlen = s.len;
}

void tutil_threads_free(tutil_threads *t) {
  free(t->count);
  free(t->output);
  memset(t, 0, sizeof *t);
}

static lraf_verdict pause_always(void *ud, lraf_account *a, int64_t n,
                                 int can_pause) {
  (void)a;
  (void)n;
  if (can_pause) (*(int *)ud)++;
  return can_pause ? LRAF_PAUSE : LRAF_CONTINUE;
}

lraf_manager *tutil_pausing_manager(int *pauses) {
  static const lraf_manager_ops ops = {pause_always, NULL, NULL};
  lraf_manager *m = lraf_manager_new(&ops, pauses);
  assert_non_null(m);
  return m;
}

void tutil_rt_resume_all(lraf_state *S, const char *src, const char *name,
                         int n, double *results) {
  lua_State *L = lraf_lua(S), *co;
  lraf_error err;
  lraf_costatus cs;
  int got, k;
  assert_int_equal(lraf_load_string(S, src, strlen(src), name, &err),
                   LRAF_OK);
  co = lua_newthread(L);
  lua_pushvalue(L, -2);
  lua_xmove(L, co, 1);
  do {
    assert_int_equal(lraf_resume(S, co, 0, &got, &cs, &err), LRAF_OK);
  } while (cs == LRAF_CO_PAUSED);
  assert_int_equal(cs, LRAF_CO_DONE);
  assert_int_equal(got, n);
  for (k = 0; k < n; k++) results[k] = lua_tonumber(co, k - n);
  lua_pop(co, n);
  lua_pop(L, 2);  /* the thread and the chunk */
}

int64_t tutil_rt_native_quota(const char *src, int64_t quota) {
  lraf_manager *m = lraf_limit_new(quota);
  lraf_options opt;
  lraf_state *S;
  lraf_error err;
  int64_t total;
  lraf_default_options(&opt);
  opt.native = 1;
  opt.manager = m;
  S = tutil_rt_new(&opt);
  assert_int_equal(tutil_rt_run(S, src, &err), LRAF_EQUOTA);
  total = lraf_manager_total(m);
  tutil_rt_close(S);
  lraf_manager_release(m);
  return total;
}

int64_t tutil_rt_native_charge(const char *setup, const char *stmt,
                               long long n) {
  char src[4096];
  lraf_options opt;
  lraf_state *S;
  lraf_error err;
  lua_State *L;
  int64_t r[2];
  int native;
  for (native = 0; native < 2; native++) {
    lraf_default_options(&opt);
    opt.native = native;
    S = tutil_rt_new(&opt);
    L = lraf_lua(S);
    snprintf(src, sizeof src,
             "local N = %lld\n%s\nlocal lraf = require 'lraf'\n"
             "local c0 = lraf.count()\n%s\nRESULT = lraf.count() - c0\n",
             n, setup, stmt);
    if (tutil_rt_run(S, src, &err) != LRAF_OK)
      fail_msg("%s: %s", stmt, err.message);
    lua_getglobal(L, "RESULT");
    r[native] = (int64_t)lua_tointeger(L, -1);
    lua_pop(L, 1);
    tutil_rt_close(S);
  }
  return r[1] - r[0];
}
