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
** two hook calls per Lua call (docs/profiling.md has the figures); the
** lraf VM can report the same events from its call and return paths.
**
** Frames are matched by their CallInfo (lua_Debug.i_ci): frames that an
** error unwound without a return event are dropped at the next event of
** their thread.  A coroutine gets its own stack, rooted under the
** coroutine.create or coroutine.wrap call that made it.  The consume
** calls of the accounting code are not frames.
*/
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>

#include "err.h"
#include "pf.h"
#include "rt.h"

#define LUA_CACHE 1024  /* Lua functions: source address, line -> function */
#define C_CACHE 256     /* C functions: closure -> function */

typedef struct c_entry {
  const void *p;
  lua_CFunction cfn;  /* against a reused address */
  int fn;             /* -1: in no loaded module */
} c_entry;

struct lraf_profile {
  pf_profile *P;
  lraf_state *S;
  int64_t last;          /* rt_total at the last event */
  int running;           /* the node on top since the last event */
  const lua_State *curL; /* the stack of the last event's thread */
  int cur;
  int create_fn, wrap_fn;  /* coroutine.create and wrap, once seen */
  int lua[LUA_CACHE];    /* -1: empty */
  c_entry c[C_CACHE];
};

/* ---- naming functions ---- */

/* The function at the top of L as "module.name" from package.loaded
   (the smallest such name, "_G." names last and without the prefix),
   written to buf; 0 when it is in no loaded module. */
static int module_name(lua_State *L, char *buf, size_t size) {
  int found = 0, fidx = lua_gettop(L);
  char best[128] = "";
  int bestg = 1;
  if (!lua_checkstack(L, 6)) return 0;
  lua_getfield(L, LUA_REGISTRYINDEX, LUA_LOADED_TABLE);
  if (!lua_istable(L, -1)) { lua_pop(L, 1); return 0; }
  lua_pushnil(L);
  while (lua_next(L, -2)) {
    if (lua_type(L, -2) == LUA_TSTRING && lua_istable(L, -1)) {
      const char *mod = lua_tostring(L, -2);
      lua_pushnil(L);
      while (lua_next(L, -2)) {
        if (lua_type(L, -2) == LUA_TSTRING && lua_rawequal(L, -1, fidx)) {
          char name[128];
          int g = strcmp(mod, "_G") == 0;
          snprintf(name, sizeof name, "%s%s%s", g ? "" : mod, g ? "" : ".",
                   lua_tostring(L, -2));
          if (!found || g < bestg || (g == bestg && strcmp(name, best) < 0)) {
            memcpy(best, name, sizeof best);
            bestg = g;
          }
          found = 1;
        }
        lua_pop(L, 1);
      }
    }
    lua_pop(L, 1);
  }
  lua_pop(L, 1);
  if (found) snprintf(buf, size, "%s", best);
  return found;
}

/* A Lua function is its short source and line defined (what its frame
   is named by).  A cache slot chosen by the chunk's source address
   remembers the last function seen there; it is used only when its
   short source and line are this function's (the address of a
   collected chunk's source may come back with another chunk's).  The
   name is that of the function's first call. */
static int lua_func(lraf_profile *R, lua_State *L, lua_Debug *ar) {
  uint32_t h = (uint32_t)((uintptr_t)ar->source >> 4) * 31u +
               (uint32_t)ar->linedefined;
  int *slot = &R->lua[h % LUA_CACHE], fn = *slot;
  const char *name;
  if (fn >= 0 && R->P->fn[fn].line == ar->linedefined &&
      strcmp(R->P->fn[fn].source, ar->short_src) == 0)
    return fn;
  fn = pf_func_find(R->P, ar->short_src, ar->linedefined, NULL, 0);
  if (fn < 0) {
    if (ar->what[0] == 'm') {
      name = "main chunk";
    } else {
      lua_getinfo(L, "n", ar);
      name = ar->name ? ar->name : "?";
    }
    fn = pf_func_id(R->P, ar->short_src, ar->linedefined, name, 0);
  }
  *slot = fn;
  return fn;
}

/* The C function at the top of L (left there): named by the loaded
   module that holds it (cached), else by its call (debug.getinfo's
   name, looked up at every call: closures come and go). */
static int c_func(lraf_profile *R, lua_State *L, lua_Debug *ar) {
  const void *p = lua_topointer(L, -1);
  lua_CFunction cfn = lua_tocfunction(L, -1);
  c_entry *e = &R->c[((uintptr_t)p >> 4) % C_CACHE];
  char name[128] = "";
  if (e->p != p || e->cfn != cfn) {
    e->p = p;
    e->cfn = cfn;
    e->fn = module_name(L, name, sizeof name)
          ? pf_func_id(R->P, "[C]", -1, name, 1) : -1;
    if (strcmp(name, "coroutine.create") == 0) R->create_fn = e->fn;
    if (strcmp(name, "coroutine.wrap") == 0) R->wrap_fn = e->fn;
  }
  if (e->fn >= 0) return e->fn;
  lua_getinfo(L, "n", ar);
  return pf_func_id(R->P, "[C]", -1, ar->name ? ar->name : "?", 1);
}

/* ---- the hook ---- */

static int stack_of(lraf_profile *R, lua_State *L) {
  if (R->curL != L) {
    int s = pf_stack_id(R->P, L, 0);
    if (s < 0) return -1;
    R->curL = L;
    R->cur = s;
  }
  return R->cur;
}

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
  if (co != NULL) {
    pf_stack_reset(R->P, co, node);
    R->curL = NULL;
  }
}

/* A call or return: the stacks follow it. */
static void event(lraf_profile *R, lua_State *L, lua_Debug *ar, int s) {
  int fn, is_c;
  if (ar->event == LUA_HOOKRET) {  /* needs no getinfo */
    int node = pf_return(R->P, s, ar->i_ci);
    if (node >= 0) {
      fn = R->P->node[node].fn;
      if (fn == R->create_fn || fn == R->wrap_fn) created(R, L, ar, node);
    }
    return;
  }
  if (!lua_getinfo(L, "S", ar)) return;
  is_c = ar->what[0] == 'C';
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
    fn = c_func(R, L, ar);
    lua_pop(L, 1);
  } else {
    fn = lua_func(R, L, ar);
  }
  pf_enter(R->P, s, fn, ar->i_ci);
}

/* Everything counted since the last event ran in the node that was on
   top after it (also when an error then unwound that frame). */
static void hook(lua_State *L, lua_Debug *ar) {
  lraf_state *S = rt_state(L);
  lraf_profile *R = S->profile;
  int s;
  int64_t now;
  if (R == NULL) {  /* a coroutine hooked by a profile since stopped */
    lua_sethook(L, NULL, 0, 0);
    return;
  }
  if ((s = stack_of(R, L)) < 0) return;
  now = rt_total_run(S, L);
  pf_charge(R->P, R->running, now - R->last);
  R->last = now;
  event(R, L, ar, s);
  R->running = pf_top(R->P, s);
}

/* ---- the API ---- */

lraf_status lraf_profile_start(lraf_state *S, lraf_error *err) {
  lraf_profile *R;
  int i;
  lua_State *L = S->L;
  if (S->profile != NULL)
    return err_fail(err, LRAF_EARG, "lraf_profile_start: a profile is "
                    "already running on this state");
  if (lua_gethook(L) != NULL)
    return err_fail(err, LRAF_EARG, "lraf_profile_start: the state's main "
                    "thread has a debug hook already");
  R = calloc(1, sizeof *R);
  if (R == NULL || (R->P = pf_new(S->model)) == NULL) {
    free(R);
    return err_fail(err, LRAF_EMEM, "lraf_profile_start: out of memory");
  }
  R->S = S;
  R->create_fn = R->wrap_fn = -1;
  for (i = 0; i < LUA_CACHE; i++) R->lua[i] = -1;
  R->last = rt_total_run(S, L);
  S->profile = R;
  lua_sethook(L, hook, LUA_MASKCALL | LUA_MASKRET, 0);
  return LRAF_OK;
}

lraf_status lraf_profile_stop(lraf_state *S, lraf_profile **out,
                              lraf_error *err) {
  lraf_profile *R = S->profile;
  *out = NULL;
  if (R == NULL)
    return err_fail(err, LRAF_EARG, "lraf_profile_stop: no profile is "
                    "running on this state");
  lua_sethook(S->L, NULL, 0, 0);
  S->profile = NULL;
  {
    int64_t now = rt_total_run(S, S->L);
    pf_charge(R->P, R->running, now - R->last);
    R->last = now;
  }
  pf_finish(R->P);
  if (R->P->oom) {
    lraf_profile_free(R);
    return err_fail(err, LRAF_EMEM, "lraf_profile_stop: out of memory "
                    "while profiling");
  }
  *out = R;
  return LRAF_OK;
}

void rt_profile_drop(lraf_state *S) {
  lraf_profile *R = S->profile;
  if (R == NULL) return;
  if (S->L != NULL) lua_sethook(S->L, NULL, 0, 0);
  S->profile = NULL;
  lraf_profile_free(R);
}

void lraf_profile_free(lraf_profile *R) {
  if (R == NULL) return;
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
