/*
** rt_state.c - creating and closing lraf states: options, the Lua
** state and its environment, the main thread's account, and the anchor
** closure whose counter and consume upvalues every loaded chunk joins.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>

#include "rt.h"
#include "nat_cost.h"

static void warn_off(void *ud, const char *msg, int tocont);

/* Compile an empty chunk into the anchor and open the environment. */
static int init(lua_State *L) {
  lraf_state *S = lua_touserdata(L, 1);
  rt_loadres r;
  rt_alloc_probe(S);
  rt_threads_init(L, S);
  rt_protect_init(L);
  r = rt_load_buffer(L, "", 0, "=(lraf anchor)", "t");
  if (r.status != LUA_OK) return lua_error(L);
  S->anchor_ref = luaL_ref(L, LUA_REGISTRYINDEX);
  if (S->opt.target == RW_LRAVM) {
    rt_vm_bind(L, rt_consume, &S->opt, S->native);
    S->vmcounter = rt_vm_counter(L);
  }
  rt_regranulate(S, L);
  rt_env_open(L, S);
  return 0;
}

/* An error outside any protected call: Lua aborts after this returns.
   lraf runs everything protected, so this is a bug. */
static int panic(lua_State *L) {
  (void)L;
  return 0;
}

/* Warnings (warn()) are off until "@on", as in the stand-alone lua. */
static void warn_cont(void *ud, const char *msg, int tocont);

static void warn_on(void *ud, const char *msg, int tocont) {
  lraf_state *S = ud;
  if (!tocont && msg[0] == '@') {
    if (strcmp(msg, "@off") == 0) lua_setwarnf(S->L, warn_off, S);
    return;
  }
  fprintf(stderr, "Lua warning: %s", msg);
  warn_cont(ud, "", tocont);
}

static void warn_cont(void *ud, const char *msg, int tocont) {
  lraf_state *S = ud;
  fputs(msg, stderr);
  if (tocont) {
    lua_setwarnf(S->L, warn_cont, S);
  } else {
    fputs("\n", stderr);
    lua_setwarnf(S->L, warn_on, S);
  }
}

static void warn_off(void *ud, const char *msg, int tocont) {
  lraf_state *S = ud;
  if (!tocont && strcmp(msg, "@on") == 0) lua_setwarnf(S->L, warn_on, S);
}

static lraf_status options(lraf_state *S, const lraf_options *o,
                           lraf_error *err) {
  lraf_status st = rt_rw_options(o, &S->opt, S->weights, S->rwmodel,
                                 sizeof S->rwmodel, err);
  if (st != LRAF_OK) return st;
  S->native = o->native == LRAF_NATIVE_AUTO ? o->env == LRAF_ENV_SANDBOX
                                             : o->native != 0;
  S->native_call = o->native_call > 0 ? o->native_call : 0;
  S->det = o->deterministic == LRAF_DETERMINISTIC_AUTO
               ? o->env == LRAF_ENV_SANDBOX
               : o->deterministic != 0;
  S->hash_seed = o->hash_seed;
  S->mem_limit = o->memory_limit;
  if (S->native)
    snprintf(S->model, sizeof S->model, "%s/native-%08x", S->rwmodel,
             (unsigned)nat_hash());
  else
    snprintf(S->model, sizeof S->model, "%s", S->rwmodel);
  if (o->env != LRAF_ENV_FULL && o->env != LRAF_ENV_SANDBOX)
    return err_fail(err, LRAF_EARG, "unknown environment %d", (int)o->env);
  if (o->granularity < 0)
    return err_fail(err, LRAF_EARG, "negative granularity");
  S->granularity = o->granularity > 0 ? o->granularity
                                      : LRAF_DEFAULT_GRANULARITY;
  S->env = o->env;
  S->keep_accounts = o->keep_accounts > 0 ? o->keep_accounts : 0;
  S->traceback = o->traceback != 0;
  S->allow_offline = o->allow_offline != 0;
  if (o->offline_key != NULL && o->offline_key_len > 0) {
    S->key = malloc(o->offline_key_len);
    if (S->key == NULL) return err_fail(err, LRAF_EMEM, "out of memory");
    memcpy(S->key, o->offline_key, o->offline_key_len);
    S->keylen = o->offline_key_len;
  }
  if (o->env == LRAF_ENV_SANDBOX) {
    lraf_status st2 = rt_sandbox_options(S, o, err);
    if (st2 != LRAF_OK) free(S->key);
    return st2;
  }
  return LRAF_OK;
}

lraf_status lraf_new(const lraf_options *o, lraf_state **out,
                     lraf_error *err) {
  lraf_options dflt;
  lraf_state *S;
  lraf_manager *m;
  lraf_status st;
  if (out == NULL) return err_fail(err, LRAF_EARG, "lraf_new: no output");
  *out = NULL;
  if (o == NULL) {
    lraf_default_options(&dflt);
    o = &dflt;
  }
  S = calloc(1, sizeof *S);
  if (S == NULL) return err_fail(err, LRAF_EMEM, "out of memory");
  st = options(S, o, err);
  if (st != LRAF_OK) {
    free(S);
    return st;
  }
  m = o->manager ? lraf_manager_retain(o->manager) : lraf_total_new();
  S->main.acct = m ? acct_new(0, m) : NULL;
  lraf_manager_release(m);
  S->cur = &S->main;
#ifdef LRAF_VM
  /* lravm/patches/lua-determinism.patch: the seed and the pivot */
  lua_detrequest(S->det, S->hash_seed != 0, S->hash_seed);
#endif
  S->L = S->main.acct ? lua_newstate(rt_alloc, S) : NULL;
  if (S->L == NULL) {
    lraf_account_release(S->main.acct);
    free(S);
    return err_fail(err, LRAF_EMEM, "cannot create a Lua state");
  }
  lua_atpanic(S->L, panic);
  lua_setwarnf(S->L, warn_off, S);
  S->next_id = 1;
  S->main.L = S->L;
  S->main.S = S;
  S->cur = &S->main;
  S->running = S->L;
  S->anchor_ref = LUA_NOREF;
  *(rt_thread **)lua_getextraspace(S->L) = &S->main;
  st = rt_protected(S, init, S, 0, err);
  if (st != LRAF_OK) {
    lraf_close(S);
    return st;
  }
  *out = S;
  return LRAF_OK;
}

void lraf_close(lraf_state *S) {
  if (S == NULL) return;
  rt_profile_drop(S);  /* a profile the host did not stop */
  if (S->L != NULL) {
    S->closing = 1;
    S->cur = &S->main;
    S->running = S->L;
    lua_close(S->L);
  }
  rt_pfvm_close(S);  /* after the last ACCT ran */
  rt_settle(S);  /* a guard: lua_close finalized every coroutine's
                    record, and each settled the deferred counts then */
  rt_threads_free(S);
  free(S->cpath);
  rt_sandbox_free(S);
  free(S->key);
  free(S->last_error);
  free(S);
}

struct lua_State *lraf_lua(lraf_state *S) {
  return S ? S->L : NULL;
}

lraf_state *lraf_from_lua(struct lua_State *L) {
  return L ? rt_state(L) : NULL;
}

int lraf_deterministic(const lraf_state *S) {
  return S != NULL && S->det;
}

const char *lraf_model(const lraf_state *S) {
  return S ? S->model : "";
}
