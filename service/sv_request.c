/*
** sv_request.c - running one request on a worker: the request's
** manager, the req table, the handler's results, the functions it
** deferred, and the clean-up that keeps counts from moving between
** requests (see "The rule of reuse" in lraf.h).
*/
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <lauxlib.h>

#include "sv.h"

/* What the protected parts of a request share with the worker. */
typedef struct sv_call {
  const lraf_request *rq;
  lraf_response *res;
  lraf_state *S;
  int defer_ref;          /* registry reference to the deferred list */
  lraf_status dcode;      /* the first failure of a deferred function */
  char dmsg[256];
} sv_call;

static void set_body(lraf_response *res, const char *s, size_t n) {
  char *p = malloc(n + 1);
  free(res->body);
  res->body = p;
  res->body_len = p != NULL ? n : 0;
  if (p != NULL) {
    memcpy(p, s, n);
    p[n] = '\0';
  }
}

static void push_pairs(lua_State *L, const char *const *kv) {
  lua_newtable(L);
  for (; kv != NULL && kv[0] != NULL; kv += 2) {
    lua_pushstring(L, kv[1] != NULL ? kv[1] : "");
    lua_setfield(L, -2, kv[0]);
  }
}

/* req.defer(f): keep f to run after the handler. */
static int req_defer(lua_State *L) {
  luaL_checktype(L, 1, LUA_TFUNCTION);
  lua_settop(L, 1);
  lua_pushvalue(L, lua_upvalueindex(1));
  lua_insert(L, 1);
  lua_seti(L, 1, (lua_Integer)luaL_len(L, 1) + 1);
  return 0;
}

static int header_ok(const char *s, size_t n, int name) {
  size_t i;
  if (n == 0 && name) return 0;
  for (i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    if (name ? (c <= ' ' || c >= 127 || strchr("()<>@,;:\\\"/[]?={}", c))
             : (c == '\r' || c == '\n' || c == '\0'))
      return 0;
  }
  return 1;
}

/* Copy the headers table at idx into res->headers: a first pass checks
   every pair and sums the size, so that nothing raises once the copy
   is allocated. */
static void take_headers(lua_State *L, int idx, lraf_response *res) {
  size_t total = 1, kn, vn;
  const char *k, *v;
  char *p;
  lua_pushnil(L);
  while (lua_next(L, idx) != 0) {
    if (lua_type(L, -2) != LUA_TSTRING || lua_type(L, -1) != LUA_TSTRING)
      luaL_error(L, "handler returned a header that is not a string");
    k = lua_tolstring(L, -2, &kn);
    v = lua_tolstring(L, -1, &vn);
    if (!header_ok(k, kn, 1) || !header_ok(v, vn, 0))
      luaL_error(L, "handler returned a malformed header");
    total += kn + vn + 3;
    lua_pop(L, 1);
  }
  p = res->headers = malloc(total);
  if (p == NULL) luaL_error(L, "not enough memory");
  lua_pushnil(L);
  while (lua_next(L, idx) != 0) {
    k = lua_tolstring(L, -2, &kn);
    v = lua_tolstring(L, -1, &vn);
    memcpy(p, k, kn);
    p += kn;
    *p++ = ':';
    *p++ = ' ';
    memcpy(p, v, vn);
    p += vn;
    *p++ = '\n';
    lua_pop(L, 1);
  }
  *p = '\0';
}

/* In protected mode on the main thread: build req, call the handler,
   check and copy its results. */
static int call_handler(lua_State *L) {
  sv_call *c = lua_touserdata(L, 1);
  const lraf_request *rq = c->rq;
  lraf_response *res = c->res;
  lua_Integer status;
  int top;
  lua_settop(L, 2);                        /* ud, handler */
  lua_createtable(L, 0, 6);                /* req */
  lua_pushstring(L, rq->method ? rq->method : "GET");
  lua_setfield(L, -2, "method");
  lua_pushstring(L, rq->path ? rq->path : "/");
  lua_setfield(L, -2, "path");
  push_pairs(L, rq->query);
  lua_setfield(L, -2, "query");
  push_pairs(L, rq->headers);
  lua_setfield(L, -2, "headers");
  lua_pushlstring(L, rq->body ? rq->body : "", rq->body ? rq->body_len : 0);
  lua_setfield(L, -2, "body");
  lua_newtable(L);
  lua_pushvalue(L, -1);
  c->defer_ref = luaL_ref(L, LUA_REGISTRYINDEX);
  lua_pushcclosure(L, req_defer, 1);
  lua_setfield(L, -2, "defer");
  lua_call(L, 1, 3);                       /* ud, status, body, headers */
  status = lua_isinteger(L, 2) ? lua_tointeger(L, 2) : 0;
  if (status < 100 || status > 599)
    return luaL_error(L, "handler returned no status (an integer "
                      "100..599)");
  if (!lua_isnil(L, 3) && lua_type(L, 3) != LUA_TSTRING)
    return luaL_error(L, "handler returned a body that is not a string");
  top = lua_gettop(L);
  if (!lua_isnil(L, 4)) {
    if (!lua_istable(L, 4))
      return luaL_error(L, "handler returned headers that are not a table");
    take_headers(L, 4, res);
  }
  lua_settop(L, top);
  res->status = (int)status;
  if (lua_isstring(L, 3)) {
    size_t n;
    const char *b = lua_tolstring(L, 3, &n);
    set_body(res, b, n);
  } else {
    set_body(res, "", 0);
  }
  return 0;
}

/* Sleep until a paused coroutine's wake time (the rate manager's clock
   is the monotonic one). */
static void sleep_until(double wake) {
  double d = wake - sv_mono();
  if (d > 0) {
    struct timespec ts;
    ts.tv_sec = (time_t)d;
    ts.tv_nsec = (long)((d - (double)ts.tv_sec) * 1e9);
    nanosleep(&ts, NULL);
  }
}

/* In protected mode: run each deferred function as a host-scheduled
   coroutine until it returns; the first failure stops the rest. */
static int run_deferred(lua_State *L) {
  sv_call *c = lua_touserdata(L, 1);
  lua_Integer i, n;
  lua_rawgeti(L, LUA_REGISTRYINDEX, c->defer_ref);
  n = (lua_Integer)luaL_len(L, -1);
  for (i = 1; i <= n && c->dcode == LRAF_OK; i++) {
    lua_State *co = lua_newthread(L);
    lraf_costatus cs = LRAF_CO_YIELDED;
    lraf_error err;
    int nres;
    lua_geti(L, -2, i);
    lua_xmove(L, co, 1);
    while (cs != LRAF_CO_DONE) {
      if (lraf_resume(c->S, co, 0, &nres, &cs, &err) != LRAF_OK) {
        c->dcode = err.code;
        snprintf(c->dmsg, sizeof c->dmsg, "deferred: %.200s", err.message);
        break;
      }
      if (cs == LRAF_CO_PAUSED)
        sleep_until(lraf_account_wake_time(lraf_thread_account(c->S, co)));
      lua_settop(co, 0);
    }
    lua_pop(L, 1);
  }
  return 0;
}

/* In protected mode: a full collection (the finalizers run). */
static int collect(lua_State *L) {
  lua_gc(L, LUA_GCCOLLECT, 0);
  return 0;
}

static void fail(lraf_response *res, lraf_status code, const char *msg) {
  char reason[300];
  res->code = code;
  res->status = code == LRAF_EQUOTA ? 429 : code == LRAF_EMEMLIMIT ? 507 : 500;
  res->outcome = code == LRAF_EQUOTA      ? LRAF_OUTCOME_QUOTA
               : code == LRAF_EMEMLIMIT ? LRAF_OUTCOME_MEMORY
                                        : LRAF_OUTCOME_ERROR;
  free(res->headers);
  res->headers = NULL;
  if (code == LRAF_EQUOTA)
    snprintf(reason, sizeof reason, "quota exceeded\n");
  else if (code == LRAF_EMEMLIMIT)
    snprintf(reason, sizeof reason, "memory limit exceeded\n");
  else
    snprintf(reason, sizeof reason, "handler failed: %.200s\n", msg);
  set_body(res, reason, strlen(reason));
}

/* Call the handler at the top of L with c: call_handler's arguments. */
static void push_call(lua_State *L, sv_call *c) {
  lua_pushcfunction(L, call_handler);
  lua_insert(L, -2);
  lua_pushlightuserdata(L, c);
  lua_insert(L, -2);
}

/* The plain (unmetered) run of a benchmark's baseline. */
static void run_plain(sv_state *st, sv_call *c) {
  lua_State *L = st->L;
  push_call(L, c);
  if (lua_pcall(L, 2, 0, 0) != LUA_OK) {
    fail(c->res, LRAF_ERUN, lua_tostring(L, -1));
    lua_pop(L, 1);
  }
  if (c->defer_ref != LUA_NOREF)
    luaL_unref(L, LUA_REGISTRYINDEX, c->defer_ref);
  lua_settop(L, 0);
  st->gc->on = 0;
  lua_gc(L, LUA_GCCOLLECT, 0);
  st->gc->on = 1;
  sv_gc_rebase(st->gc);
}

/* The metered run: the request's manager, the handler, the deferred
   functions, then the clean-up of the rule of reuse. */
static void run_metered(sv_worker *w, sv_state *st, sv_call *c) {
  const lraf_request *rq = c->rq;
  lraf_response *res = c->res;
  lraf_state *S = st->S;
  lua_State *L = st->L;
  lraf_manager *rmgr = lraf_hier_new(st->tenant_mgr, rq->limit), *after;
  lraf_error err;
  lraf_status code;
  size_t base, peak;
  int64_t native0 = lraf_native_units(S);
  if (rmgr == NULL) {
    lua_settop(L, 0);
    fail(res, LRAF_EMEM, "out of memory");
    return;
  }
  /* every account of the state, left-over coroutines included, now
     charges the request */
  sv_state_aim(st, rmgr);
  lraf_deterministic_restart(S);  /* each request as in a fresh state */
  lraf_memory_reset_peak(S);
  lraf_memory(S, &base, NULL);
  push_call(L, c);
  code = lraf_call(S, 2, 0, &err);
  if (code == LRAF_OK && c->defer_ref != LUA_NOREF) {
    lua_pushcfunction(L, run_deferred);
    lua_pushlightuserdata(L, c);
    code = lraf_call(S, 1, 0, &err);
    if (code == LRAF_OK && c->dcode != LRAF_OK) {
      code = c->dcode;
      snprintf(err.message, sizeof err.message, "%s", c->dmsg);
    }
  }
  if (code != LRAF_OK) fail(res, code, err.message);
  lraf_memory(S, NULL, &peak);
  /* what runs from here on is the clean-up: the tenant's, bounded */
  after = sv_state_cleanup(w, st);
  sv_state_aim(st, after != NULL ? after : rmgr);
  res->instructions = lraf_manager_total(rmgr);
  res->native = lraf_native_units(S) - native0;
  res->memory_peak = (int64_t)(peak - base);
  if (code == LRAF_EQUOTA || code == LRAF_EMEMLIMIT) {
    /* say which limit stopped it */
    char why[200];
    if (code == LRAF_EMEMLIMIT)
      snprintf(why, sizeof why, "memory limit exceeded: a state may hold "
               "%zu bytes\n", w->opt->state.memory_limit);
    else if (rq->limit >= 0 && res->instructions > rq->limit) {
      snprintf(why, sizeof why, "request limit exceeded: %" PRId64
               " instructions per request\n", rq->limit);
      res->outcome = LRAF_OUTCOME_REQUEST_LIMIT;
    }
    else
      snprintf(why, sizeof why, "tenant quota exceeded\n");
    set_body(res, why, strlen(why));
  }
  lraf_manager_release(rmgr);
  if (c->defer_ref != LUA_NOREF)
    luaL_unref(L, LUA_REGISTRYINDEX, c->defer_ref);
  lua_settop(L, 0);
  if (after == NULL || code == LRAF_EQUOTA || code == LRAF_EMEMLIMIT ||
      code == LRAF_EMEM) {
    sv_state_drop(w, st);   /* the tenant's next request gets a new one */
  } else {
    st->gc->on = 0;
    lua_pushcfunction(L, collect);
    if (lraf_call(S, 0, 0, NULL) != LRAF_OK) {
      sv_state_drop(w, st);
    } else {
      st->gc->on = 1;
      sv_gc_rebase(st->gc);
    }
  }
  lraf_manager_release(after);
}

void sv_request_run(sv_worker *w, const lraf_request *rq,
                    lraf_response *res) {
  double wall0 = sv_mono(), cpu0 = sv_cpu();
  lraf_error err;
  sv_state *st;
  sv_call c;
  lraf_status code;
  memset(res, 0, sizeof *res);
  memset(&c, 0, sizeof c);
  c.rq = rq;
  c.res = res;
  c.defer_ref = LUA_NOREF;
  res->started = sv_now();
  atomic_fetch_add(&w->requests, 1);
  snprintf(res->model, sizeof res->model, "%s", w->model);
  if (rq->tenant == NULL || rq->tenant_manager == NULL ||
      rq->handler == NULL || rq->source == NULL) {
    fail(res, LRAF_EARG, "lraf_pool_run: a request needs a tenant, its "
         "manager, a handler name and its source");
  } else if (lraf_manager_consume(rq->tenant_manager, NULL, 0, 0) ==
             LRAF_STOP) {
    /* a tenant whose quota is spent is refused before anything runs */
    fail(res, LRAF_EQUOTA, "");
    {
      static const char spent[] = "tenant quota spent: refused before "
                                  "running\n";
      set_body(res, spent, sizeof spent - 1);
    }
  } else if ((st = sv_state_for(w, rq, &err)) == NULL) {
    fail(res, err.code, err.message);
  } else if ((code = sv_handler_push(w, st, rq, &err)) != LRAF_OK) {
    /* the chunk's own run is not the request's: a stop there is the
       handler's failure (500), and the state is replaced */
    fail(res, code == LRAF_EQUOTA || code == LRAF_EMEMLIMIT ? LRAF_ERUN
                                                             : code,
         err.message);
    if (code == LRAF_EQUOTA || code == LRAF_EMEMLIMIT || code == LRAF_EMEM)
      sv_state_drop(w, st);
    else
      lua_settop(st->L, 0);
  } else {
    c.S = st->S;
    if (st->S == NULL) run_plain(st, &c);
    else run_metered(w, st, &c);
  }
  res->wall = sv_mono() - wall0;
  res->cpu = sv_cpu() - cpu0;
  res->ended = sv_now();
}
