/*
** rt_profile.c - the profiler's collector on the stock target, and the
** lraf_profile_* API.
**
** The rewritten code already counts every instruction exactly; the
** collector only has to say whose instructions they were.  A call and
** return hook (no line or count hook: between calls and returns Lua
** runs at full speed) reads the state's running total (rt_total_run) at
** every call and return and charges what ran since the last event to
** the frame that was on top after it, in the profile core
** (profile/pf.h).  Every accounting block belongs to one function and
** is charged while that function is on top, so each function gets
** exactly its own instructions, whatever the cost model.  The cost is
** two hook calls per Lua call (docs/profiling.md has the figures).  On
** the lraf VM build the VM reports the same events from its own call and
** return paths instead, with per-line counts (rt_pfvm.c).
**
** The hook is shared with the script's own debug hooks (rt_collector):
** on a thread where the script set one, rt_debug.c's dispatcher is the
** Lua hook; it gives the collector the calls and returns, then calls
** the script's hook function, which the collector makes a frame of its
** own.  Elsewhere the collector's hook is the Lua hook itself.
**
** Frames are matched by their CallInfo (lua_Debug.i_ci): frames that an
** error unwound without a return event are dropped at the next event of
** their thread.  A coroutine gets its own stack, rooted under the
** coroutine.create or coroutine.wrap call that made it.  The consume
** calls of the accounting code are not frames.
*/
#include <stdlib.h>

#include "err.h"
#include "rt_profile.h"

/* ---- the hook ---- */

/* A coroutine.create or wrap returning in L: the new thread's stack
   starts under node, that call's. */
static void created(lraf_profile *R, lua_State *L, lua_Debug *ar,
                    int node) {
  lua_State *co = NULL;
  if (!lua_getinfo(L, "r", ar) || ar->ntransfer < 1) return;
  if (lua_getlocal(L, ar, ar->ftransfer) == NULL) return;
  co = lua_tothread(L, -1);
  if (co == NULL && lua_iscfunction(L, -1) &&
      lua_getupvalue(L, -1, 1) != NULL) {
    co = lua_tothread(L, -1);
    lua_pop(L, 1);
  }
  lua_pop(L, 1);
  if (co != NULL) rt_pf_created(R, co, node);
}

/* A call or return: the stacks follow it. */
static void event(lraf_profile *R, lua_State *L, lua_Debug *ar, int s) {
  int fn, is_c, node;
  if (ar->event == LUA_HOOKRET) {  /* needs no getinfo */
    node = pf_return(R->P, s, ar->i_ci);
    if (node >= 0) {
      fn = R->P->node[node].fn;
      if (fn == R->create_fn || fn == R->wrap_fn) created(R, L, ar, node);
    }
    return;
  }
  if (!lua_getinfo(L, "S", ar)) return;
  is_c = ar->what[0] == 'C';
  if (is_c && rt_pf_host_c(R, s)) return;  /* the host's, not a frame */
  if (is_c) {
    lua_getinfo(L, "f", ar);
    if (lua_tocfunction(L, -1) == rt_consume) {
      lua_pop(L, 1);
      return;
    }
  }
  if (ar->event == LUA_HOOKTAILCALL) {
    if (pf_unwind(R->P, s, ar->i_ci)) pf_leave(R->P, s);
  } else {
    lua_Debug caller;
    pf_unwind(R->P, s, lua_getstack(L, 1, &caller) ? caller.i_ci : NULL);
  }
  if (is_c) {
    fn = rt_pf_c(R, L, ar);
    lua_pop(L, 1);
  } else {
    fn = rt_pf_lua(R, L, ar);
  }
  pf_enter(R->P, s, fn, ar->i_ci);
  if ((node = pf_site_wanted(R->P, s)) >= 0) {  /* a new call path */
    lua_Debug caller;
    R->P->node[node].site = ar->event != LUA_HOOKTAILCALL &&
                            lua_getstack(L, 1, &caller) &&
                            lua_getinfo(L, "l", &caller)
                          ? caller.currentline : -1;
  }
}

/* Everything counted since the last event ran in the node that was on
   top after it (also when an error then unwound that frame). */
static void hook(lua_State *L, lua_Debug *ar) {
  lraf_profile *R = rt_state(L)->profile;
  int s;
  if (R == NULL) {  /* a thread the stopped collector did not reach */
    rt_hook_set(L);
    return;
  }
  if ((s = rt_pf_stack(R, L)) < 0) return;
  rt_pf_charge(R, L);
  event(R, L, ar, s);
  R->running = pf_top(R->P, s);
}

/* A script's hook function (at the top of L) is a frame of its own,
   under the frame on top: the one a call hook ran for, the one a return
   hook returns to, the one running a line or count hook. */
static const char hook_frame = 0;

static void hook_enter(lua_State *L, lua_Debug *ar) {
  lraf_profile *R = rt_state(L)->profile;
  int s, node;
  (void)ar;
  if ((s = rt_pf_stack(R, L)) < 0) return;
  rt_pf_charge(R, L);
  pf_enter(R->P, s, rt_pf_hookfn(R, L), &hook_frame);
  if ((node = pf_site_wanted(R->P, s)) >= 0) {
    lua_Debug here;
    R->P->node[node].site = lua_getstack(L, 0, &here) &&
                            lua_getinfo(L, "l", &here)
                          ? here.currentline : -1;
  }
  R->running = pf_top(R->P, s);
}

static void hook_leave(lua_State *L) {
  lraf_profile *R = rt_state(L)->profile;
  int s;
  if ((s = rt_pf_stack(R, L)) < 0) return;
  rt_pf_charge(R, L);
  pf_return(R->P, s, &hook_frame);
  R->running = pf_top(R->P, s);
}

static const rt_collector collector = {hook, hook_enter, hook_leave};

/* ---- the API ---- */

/* The lraf VM reports calls and returns of code rewritten for it; code
   rewritten for the stock target (--vm stock) gets the hook. */
static int vm_collects(const lraf_state *S) {
  return rt_pfvm_builtin() && S->opt.target == RW_LRAVM;
}

/* The profile's tables count against the state's memory limit while
   it runs (a calling-context tree can outgrow the script's own heap):
   a refused reservation leaves the profile incomplete, and
   lraf_profile_stop says that the limit was reached. */
static int reserve(void *ud, size_t n) {
  lraf_state *S = ud;
  if (S->mem_limit > 0 &&
      (S->mem_used > S->mem_limit || n > S->mem_limit - S->mem_used))
    return 0;
  S->mem_used += n;
  if (S->mem_used > S->mem_peak) S->mem_peak = S->mem_used;
  return 1;
}

/* The profile leaves the state: what it holds is the host's now. */
static void unreserve(lraf_state *S, lraf_profile *R) {
  if (R->P->reserve == NULL) return;
  S->mem_used -= R->P->bytes;
  R->P->reserve = NULL;
}

lraf_status lraf_profile_start(lraf_state *S, lraf_error *err) {
  lraf_profile *R;
  int i;
  lua_State *L = S->L;
  if (S->profile != NULL)
    return err_fail(err, LRAF_EARG, "lraf_profile_start: a profile is "
                    "already running on this state");
  if (!vm_collects(S) && rt_hook_foreign(L))
    return err_fail(err, LRAF_EARG, "lraf_profile_start: the state's main "
                    "thread has a debug hook that lraf did not set");
  R = calloc(1, sizeof *R);
  if (R == NULL || (R->P = pf_new(S->model)) == NULL) {
    free(R);
    return err_fail(err, LRAF_EMEM, "lraf_profile_start: out of memory");
  }
  R->S = S;
  R->P->reserve = reserve;
  R->P->reserve_ud = S;
  R->create_fn = R->wrap_fn = -1;
  for (i = 0; i < RT_PF_LUA_CACHE; i++) R->lua[i] = -1;
  R->last = rt_total_run(S, L);
  if (vm_collects(S)) {  /* the lraf VM reports calls and returns */
    if (!rt_pfvm_start(R)) {
      unreserve(S, R);
      lraf_profile_free(R);
      return err_fail(err, LRAF_EMEM, "lraf_profile_start: out of memory");
    }
    S->profile = R;
    return LRAF_OK;
  }
  S->profile = R;
  S->collector = &collector;
  S->main.followed = 1;
  rt_hook_set(L);
  return LRAF_OK;
}

/* The collector stops: no more events. */
static void unhook(lraf_state *S, lraf_profile *R) {
  if (R->vm != NULL) {
    rt_pfvm_stop(R);
  } else {
    size_t i;
    S->collector = NULL;
    S->main.followed = 0;
    if (S->L != NULL) rt_hook_set(S->L);
    for (i = 0; i < S->nlive; i++) {  /* the coroutines it followed */
      rt_thread *t = S->live[i].t;
      if (t->followed) {
        t->followed = 0;
        rt_hook_set(t->L);
      }
    }
  }
  S->profile = NULL;
  unreserve(S, R);
}

lraf_status lraf_profile_stop(lraf_state *S, lraf_profile **out,
                              lraf_error *err) {
  lraf_profile *R = S->profile;
  *out = NULL;
  if (R == NULL)
    return err_fail(err, LRAF_EARG, "lraf_profile_stop: no profile is "
                    "running on this state");
  rt_pf_charge(R, S->L);
  unhook(S, R);
  pf_finish(R->P);
  if (R->P->oom) {
    int limit = R->P->refused;
    lraf_profile_free(R);
    if (limit)
      return err_fail(err, LRAF_EMEMLIMIT, "lraf_profile_stop: the profile "
                      "reached the state's memory limit (%zu bytes), which "
                      "counts it", S->mem_limit);
    return err_fail(err, LRAF_EMEM, "lraf_profile_stop: out of memory "
                    "while profiling");
  }
  *out = R;
  return LRAF_OK;
}

void rt_profile_drop(lraf_state *S) {
  lraf_profile *R = S->profile;
  if (R == NULL) return;
  unhook(S, R);
  lraf_profile_free(R);
}

void lraf_profile_free(lraf_profile *R) {
  if (R == NULL) return;
  rt_pfvm_free(R);
  pf_free(R->P);
  free(R);
}

lraf_status lraf_profile_write(const lraf_profile *R, const char *format,
                               int top, FILE *out, lraf_error *err) {
  pf_format fmt;
  if (!pf_format_of(format, &fmt))
    return err_fail(err, LRAF_EARG, "unknown profile format '%s' (table, "
                    "folded, callgrind, svg or json)", format);
  return pf_write(R->P, fmt, top, out, err);
}

int64_t lraf_profile_total(const lraf_profile *R) {
  return R->P->total;
}

int lraf_profile_functions(const lraf_profile *R) {
  return R->P->nfn;
}

int lraf_profile_function(const lraf_profile *R, int i,
                          lraf_profile_func *out) {
  const pf_func *f;
  if (i < 0 || i >= R->P->nfn) return 0;
  f = &R->P->fn[i];
  out->name = f->name;
  out->source = f->source;
  out->line = f->line;
  out->is_c = f->is_c;
  out->calls = f->calls;
  out->self = f->self;
  out->inclusive = f->incl;
  return 1;
}
