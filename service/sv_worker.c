/*
** sv_worker.c - what a worker keeps between requests: one state per
** tenant it served lately (the least recently used closed first), the
** handler functions each state loaded, and the handler chunks the
** worker rewrote, keyed by source hash (so a state that is replaced
** loads them again without rewriting; the cost model is the pool's),
** and the forwarding manager every account of a state is bound to.
*/
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>
#include <lualib.h>

#include "sv.h"

/* ---- the forwarding manager (see sv_state in sv.h) ---- */

typedef struct sv_fwd {
  lraf_manager *to;  /* retained */
} sv_fwd;

static lraf_verdict fwd_consume(void *ud, lraf_account *a, int64_t n,
                                int can_pause) {
  sv_fwd *f = ud;
  return lraf_manager_consume(f->to, a, n, can_pause);
}

static int64_t fwd_granularity(void *ud, lraf_account *a, int64_t dflt) {
  sv_fwd *f = ud;
  return lraf_manager_granularity(f->to, a, dflt);
}

static void fwd_release(void *ud) {
  sv_fwd *f = ud;
  lraf_manager_release(f->to);
  free(f);
}

static const lraf_manager_ops fwd_ops = {fwd_consume, fwd_granularity,
                                         fwd_release};

static lraf_manager *fwd_new(lraf_manager *to) {
  sv_fwd *f = calloc(1, sizeof *f);
  lraf_manager *m;
  if (f == NULL) return NULL;
  f->to = lraf_manager_retain(to);
  m = lraf_manager_new(&fwd_ops, f);
  if (m == NULL) fwd_release(f);
  return m;
}

void sv_state_aim(sv_state *st, lraf_manager *m) {
  lraf_account *main = lraf_main_account(st->S);
  sv_fwd *f = lraf_manager_userdata(st->fwd);
  /* settles what waits and flushes the running count to the old aim */
  lraf_set_manager(st->S, main, st->fwd, NULL);
  lraf_manager_retain(m);
  lraf_manager_release(f->to);
  f->to = m;
  /* the next count starts at the new aim's granularity */
  lraf_set_manager(st->S, main, st->fwd, NULL);
}

lraf_manager *sv_state_cleanup(sv_worker *w, sv_state *st) {
  return lraf_hier_new(st->tenant_mgr, w->opt->cleanup_limit);
}

static void close_state(sv_worker *w, sv_state *st) {
  sv_handler *h, *next;
  if (st->gc != NULL) st->gc->on = 0;
  if (st->S != NULL) {
    /* finalizers that run now are the tenant's, within a bound */
    if (st->fwd != NULL) {
      lraf_manager *m = sv_state_cleanup(w, st);
      if (m != NULL) {
        sv_state_aim(st, m);
        lraf_manager_release(m);
      }
    }
    lraf_close(st->S);
  } else if (st->L != NULL) {
    lua_close(st->L);
  }
  free(st->gc);
  lraf_manager_release(st->fwd);
  for (h = st->handlers; h != NULL; h = next) {
    next = h->next;
    free(h->name);
    free(h);
  }
  lraf_manager_release(st->tenant_mgr);
  free(st->tenant);
  free(st);
}

void sv_state_drop(sv_worker *w, sv_state *st) {
  int i;
  atomic_fetch_add(&w->drops, 1);
  for (i = 0; i < w->nstates; i++)
    if (w->states[i] == st) {
      w->states[i] = w->states[--w->nstates];
      break;
    }
  close_state(w, st);
}

static sv_state *new_state(sv_worker *w, const lraf_request *rq,
                           lraf_error *err) {
  const lraf_pool_options *o = w->opt;
  sv_state *st = calloc(1, sizeof *st);
  if (st == NULL || (st->tenant = sv_strdup(rq->tenant)) == NULL) {
    free(st);
    sv_fail(err, LRAF_EMEM, "out of memory");
    return NULL;
  }
  st->tenant_mgr = lraf_manager_retain(rq->tenant_manager);
  if (o->plain) {
    st->L = luaL_newstate();
    if (st->L != NULL) luaL_openlibs(st->L);
    else sv_fail(err, LRAF_EMEM, "out of memory");
  } else {
    lraf_options opt = o->state;
    /* aimed at a bounded clean-up manager until the first request */
    lraf_manager *m = sv_state_cleanup(w, st);
    st->fwd = m != NULL ? fwd_new(m) : NULL;
    lraf_manager_release(m);
    if (st->fwd == NULL) {
      close_state(w, st);
      sv_fail(err, LRAF_EMEM, "out of memory");
      return NULL;
    }
    opt.manager = st->fwd;
    /* the cached chunks are this worker's own lraf_rewrite output, made
       in this process from the handler's source: the state may load
       them (it refuses unsigned offline chunks from anywhere else) */
    opt.allow_offline = 1;
    if (lraf_new(&opt, &st->S, err) == LRAF_OK) st->L = lraf_lua(st->S);
  }
  if (st->L == NULL) {
    close_state(w, st);
    return NULL;
  }
  /* the incremental collector runs between requests only; during one,
     sv_gc's emergency collections free garbage (see lraf.h) */
  lua_gc(st->L, LUA_GCSTOP, 0);
  st->gc = sv_gc_install(st->L);
  if (st->gc == NULL) {
    close_state(w, st);
    sv_fail(err, LRAF_EMEM, "out of memory");
    return NULL;
  }
  return st;
}

sv_state *sv_state_for(sv_worker *w, const lraf_request *rq,
                       lraf_error *err) {
  const lraf_pool_options *o = w->opt;
  sv_state *st;
  int i, lru = 0;
  w->clock++;
  for (i = 0; i < w->nstates; i++) {
    st = w->states[i];
    if (strcmp(st->tenant, rq->tenant) == 0) {
      if (st->tenant_mgr != rq->tenant_manager) {  /* the host's new one */
        lraf_manager_release(st->tenant_mgr);
        st->tenant_mgr = lraf_manager_retain(rq->tenant_manager);
      }
      st->used = w->clock;
      return st;
    }
    if (st->used < w->states[lru]->used) lru = i;
  }
  if (w->states == NULL) {
    w->states = calloc((size_t)o->states_per_worker, sizeof *w->states);
    if (w->states == NULL) {
      sv_fail(err, LRAF_EMEM, "out of memory");
      return NULL;
    }
  }
  if (w->nstates == o->states_per_worker) sv_state_drop(w, w->states[lru]);
  st = new_state(w, rq, err);
  if (st == NULL) return NULL;
  atomic_fetch_add(&w->made, 1);
  st->used = w->clock;
  w->states[w->nstates++] = st;
  return st;
}

/* The source's key: its bytes and the handler's name (which appears in
   error messages). */
static uint64_t key_of(const lraf_request *rq) {
  uint64_t h = sv_hash(rq->source, rq->source_len);
  size_t i;
  for (i = 0; rq->handler[i] != '\0'; i++) {
    h ^= (unsigned char)rq->handler[i];
    h *= 1099511628211u;
  }
  return h;
}

/* Whether the states rewrite for the lraf VM.  They then load the
   handler's source, rewritten in memory, instead of a cached offline
   chunk: that code carries the table with which the VM charges a block
   that pays at its end when an error or a yield leaves it before (the
   dump format has no room for it), so it counts as `lraf run` does. */
static int in_memory(const lraf_pool_options *o) {
  return o->state.vm == LRAF_VM_LRAF ||
         (o->state.vm == LRAF_VM_DEFAULT && lraf_vm_builtin());
}

static lraf_status rewritten(sv_worker *w, const lraf_request *rq,
                             uint64_t key, sv_chunk **out, lraf_error *err) {
  sv_chunk *c;
  char name[128];
  lraf_status st;
  for (c = w->chunks; c != NULL; c = c->next)
    if (c->hash == key && c->len == rq->source_len) {
      *out = c;
      return LRAF_OK;
    }
  c = calloc(1, sizeof *c);
  if (c == NULL) return sv_fail(err, LRAF_EMEM, "out of memory");
  snprintf(name, sizeof name, "=%s", rq->handler);
  st = lraf_rewrite(&w->opt->state, rq->source,
                    rq->source_len, name, &c->data, &c->size, err);
  if (st != LRAF_OK) {
    free(c);
    return st;
  }
  c->hash = key;
  c->len = rq->source_len;
  atomic_fetch_add(&w->rewrites, 1);
  if (w->nchunks == SV_MAX_CHUNKS) {   /* drop the oldest */
    sv_chunk **last = &w->chunks;
    while ((*last)->next != NULL) last = &(*last)->next;
    free((*last)->data);
    free(*last);
    *last = NULL;
    w->nchunks--;
  }
  c->next = w->chunks;
  w->chunks = c;
  w->nchunks++;
  *out = c;
  return LRAF_OK;
}

/* Run the chunk at the top (charged to the worker, within the request's
   limit) for its handler. */
static lraf_status run_chunk(sv_worker *w, sv_state *st,
                             const lraf_request *rq, lraf_error *err) {
  lraf_status code;
  if (st->S == NULL) {
    if (lua_pcall(st->L, 0, 1, 0) != LUA_OK) {
      code = sv_fail(err, LRAF_ERUN, "%s", lua_tostring(st->L, -1));
      lua_pop(st->L, 1);
      return code;
    }
  } else {
    /* charged to the worker, under the request's limit (a chunk that
       runs away at its top level stops like a handler) */
    lraf_manager *m = lraf_hier_new(w->system, rq->limit);
    if (m == NULL) {
      lua_pop(st->L, 1);
      return sv_fail(err, LRAF_EMEM, "out of memory");
    }
    sv_state_aim(st, m);
    lraf_manager_release(m);
    code = lraf_call(st->S, 0, 1, err);
    if (code != LRAF_OK) return code;
  }
  if (lua_type(st->L, -1) != LUA_TFUNCTION) {
    lua_pop(st->L, 1);
    return sv_fail(err, LRAF_ERUN, "%s.lua returned no handler function",
                   rq->handler);
  }
  return LRAF_OK;
}

/* A registry reference to the function at the top (left there), made in
   protected mode: the registry may grow, and the state may be at its
   memory limit. */
static int ref_top(lua_State *L) {
  lua_pushinteger(L, luaL_ref(L, LUA_REGISTRYINDEX));
  return 1;
}

static int keep(sv_state *st, lraf_error *err) {
  lua_State *L = st->L;
  int ref = LUA_NOREF;
  lua_pushcfunction(L, ref_top);
  lua_pushvalue(L, -2);
  if (st->S != NULL) {
    if (lraf_call(st->S, 1, 1, err) != LRAF_OK) return LUA_NOREF;
  } else if (lua_pcall(L, 1, 1, 0) != LUA_OK) {
    sv_fail(err, LRAF_EMEM, "out of memory");
    lua_pop(L, 1);
    return LUA_NOREF;
  }
  ref = (int)lua_tointeger(L, -1);
  lua_pop(L, 1);
  return ref;
}

lraf_status sv_handler_push(sv_worker *w, sv_state *st,
                            const lraf_request *rq, lraf_error *err) {
  uint64_t key = key_of(rq);
  sv_handler *h, **hp;
  lraf_status code;
  lua_State *L = st->L;
  if (!lua_checkstack(L, 4)) return sv_fail(err, LRAF_EMEM, "stack overflow");
  for (hp = &st->handlers; (h = *hp) != NULL; hp = &h->next)
    if (strcmp(h->name, rq->handler) == 0) {
      if (h->hash == key) {
        lua_rawgeti(L, LUA_REGISTRYINDEX, h->ref);
        return LRAF_OK;
      }
      *hp = h->next;  /* the source changed: load it again */
      luaL_unref(L, LUA_REGISTRYINDEX, h->ref);
      free(h->name);
      free(h);
      break;
    }
  if (st->S == NULL) {
    char name[128];
    snprintf(name, sizeof name, "=%s", rq->handler);
    if (luaL_loadbuffer(L, rq->source, rq->source_len, name) != LUA_OK) {
      code = sv_fail(err, LRAF_ESYNTAX, "%s", lua_tostring(L, -1));
      lua_pop(L, 1);
      return code;
    }
  } else if (in_memory(w->opt)) {
    char name[128];
    snprintf(name, sizeof name, "=%s", rq->handler);
    atomic_fetch_add(&w->rewrites, 1);
    code = lraf_load_string(st->S, rq->source, rq->source_len, name, err);
    if (code != LRAF_OK) return code;
  } else {
    sv_chunk *c = NULL;
    if ((code = rewritten(w, rq, key, &c, err)) != LRAF_OK) return code;
    code = lraf_load_rewritten(st->S, c->data, c->size, err);
    if (code != LRAF_OK) return code;
  }
  if ((code = run_chunk(w, st, rq, err)) != LRAF_OK) return code;
  h = calloc(1, sizeof *h);
  if (h == NULL || (h->name = sv_strdup(rq->handler)) == NULL) {
    free(h);
    lua_pop(L, 1);
    return sv_fail(err, LRAF_EMEM, "out of memory");
  }
  h->hash = key;
  if ((h->ref = keep(st, err)) == LUA_NOREF) {
    free(h->name);
    free(h);
    lua_pop(L, 1);
    return err->code;
  }
  atomic_fetch_add(&w->loads, 1);
  h->next = st->handlers;
  st->handlers = h;
  return LRAF_OK;
}

void sv_worker_free(sv_worker *w) {
  sv_chunk *c, *next;
  while (w->nstates > 0) sv_state_drop(w, w->states[w->nstates - 1]);
  free(w->states);
  w->states = NULL;
  for (c = w->chunks; c != NULL; c = next) {
    next = c->next;
    free(c->data);
    free(c);
  }
  w->chunks = NULL;
  w->nchunks = 0;
  lraf_manager_release(w->system);
  w->system = NULL;
}
