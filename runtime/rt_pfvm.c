/*
** rt_pfvm.c - the profiler's collector on the lraf VM build.
**
** The VM reports every call, tail call and return from its own call and
** return paths (lua_setacctprof, lravm/patches/lua-acct-prof.patch): no debug
** hook, no lua_Debug filled on the way, and one predictable branch per
** call when no profile runs.  As on the stock target (rt_profile.c),
** each event charges what the state counted since the previous one to
** the frame that was on top after it, and frames are matched by their
** CallInfo, so frames an error unwound are dropped at the next event of
** their thread.  Functions are found through a cache keyed by Proto
** (Lua) or closure (C); only a miss asks lua_getinfo.  A Proto counted
** for per-line counts (below) leads to its own record, which remembers
** its function for the profile.
**
** Per-line counts: while a profile runs, the state rewrites what it
** loads with rw_options.lines, so every function says which lines each
** of its ACCTs and MMBIN*s pays for (bc_proto.linecosts), and the VM
** counts their runs in Proto.accthits.  Those arrays belong to the
** state (they must outlive Protos collected during the profile, and no
** ACCT may write after they are freed): rt_pfvm_close frees them after
** lua_close.  At the end of a profile, runs times costs are the lines'
** counts, exactly what the increments charged.
**
** Like rt_inplace.c this reads Lua's internal structures (CallInfo,
** Proto, closures), so it is compiled only against the lraf VM's
** sources (LUA_ACCT_VM).
*/
#include <stdlib.h>
#include <string.h>

#include "rt_profile.h"

#ifdef LUA_ACCT_VM

#include "lobject.h"
#include "lstate.h"

/* Since Lua 5.4.6 the stack pointers of CallInfo and lua_State are
   unions (StkIdRel) whose pointer is 'p'. */
#if LUA_VERSION_RELEASE_NUM >= 50406
#define STKPTR(s) ((s).p)
#else
#define STKPTR(s) (s)
#endif

#define PROTO_CACHE 1024

/* A Proto seen before, with a copy of its source to check a hit
   against (a collected Proto's address may come back with another). */
typedef struct proto_entry {
  const Proto *p;
  int line;
  int fn;
  char *src;
  size_t srclen;
} proto_entry;

struct rt_pfvm {
  const lua_Integer *counter;  /* the state's ACCT counter */
  proto_entry pe[PROTO_CACHE];
};

/* The ACCT counts of one function rewritten for a profile.  mem[0] is
   the record's index, mem + 1 the Proto's accthits. */
typedef struct pfl_func {
  lua_Integer *mem;
  lua_Integer *hits;     /* Proto.accthits: runs per pc */
  int sizecode;
  unsigned gen;          /* fn is the function in profile gen */
  int fn;
  char source[LUA_IDSIZE];  /* short source, as lua_getinfo gives it */
  int line;
  bc_linecost *cost;     /* bc_proto.linecosts */
  int ncost;
} pfl_func;

struct rt_pflines {
  pfl_func *f;
  int n, cap;
  unsigned gen;          /* profiles started */
  int oom;               /* some function could not be counted */
};

int rt_pfvm_builtin(void) {
  return 1;
}

/* ---- functions ---- */

static int lua_fn(lraf_profile *R, lua_State *L, CallInfo *ci) {
  const Proto *p = clLvalue(s2v(STKPTR(ci->func)))->p;
  proto_entry *e = &R->vm->pe[((uintptr_t)p >> 5) % PROTO_CACHE];
  const char *src = p->source ? getstr(p->source) : "";
  size_t len = p->source ? tsslen(p->source) : 0;
  lua_Debug ar;
  char *copy;
  if (p->accthits != NULL) {  /* counted: its record knows */
    struct rt_pflines *pl = R->S->pflines;
    pfl_func *f = &pl->f[p->accthits[-1]];
    if (f->gen != pl->gen) {
      ar.i_ci = ci;
      if (!lua_getinfo(L, "S", &ar)) return -1;
      f->fn = rt_pf_lua(R, L, &ar);
      f->gen = pl->gen;
    }
    return f->fn;
  }
  if (e->p == p && e->line == p->linedefined && e->srclen == len &&
      memcmp(e->src, src, len) == 0)
    return e->fn;
  ar.i_ci = ci;
  if (!lua_getinfo(L, "S", &ar)) return -1;
  e->fn = rt_pf_lua(R, L, &ar);
  copy = realloc(e->src, len + 1);
  if (copy == NULL) {  /* no cache entry */
    e->p = NULL;
    return e->fn;
  }
  memcpy(copy, src, len);
  e->src = copy;
  e->srclen = len;
  e->p = p;
  e->line = p->linedefined;
  return e->fn;
}

/* The C function of ci; -2 for consume (not a frame). */
static int c_fn(lraf_profile *R, lua_State *L, CallInfo *ci) {
  const TValue *o = s2v(STKPTR(ci->func));
  lua_CFunction f = ttislcf(o) ? fvalue(o) : clCvalue(o)->f;
  const void *p = ttislcf(o) ? cast_voidp(cast_sizet(f))
                             : (const void *)clCvalue(o);
  rt_pf_centry *e;
  lua_Debug ar;
  int fn;
  if (f == rt_consume) return -2;
  e = rt_pf_cfind(R, p);
  if (e != NULL && e->cfn == f && e->fn >= 0) return e->fn;
  ar.i_ci = ci;  /* the VM left LUA_MINSTACK slots for the call */
  if (!lua_getinfo(L, "f", &ar)) return -1;
  fn = rt_pf_c(R, L, &ar);
  lua_pop(L, 1);
  return fn;
}

/* A coroutine.create or wrap returning: its results are the top nres
   values of L. */
static void created(lraf_profile *R, lua_State *L, int nres, int node) {
  const TValue *o;
  lua_State *co = NULL;
  if (nres < 1) return;
  o = s2v(STKPTR(L->top) - nres);
  if (ttisthread(o)) {
    co = thvalue(o);
  } else if (ttisCclosure(o) && clCvalue(o)->nupvalues >= 1 &&
             ttisthread(&clCvalue(o)->upvalue[0])) {
    co = thvalue(&clCvalue(o)->upvalue[0]);
  }
  if (co != NULL) rt_pf_created(R, co, node);
}

/* ---- the VM's events ---- */

/* A new frame ci hangs under its caller's; frames above that one an
   error unwound.  The VM reports a return before the return hook runs,
   so a function a script's return hook calls has a caller already gone
   from the stack: its frame hangs under the nearest live frame below
   (where the stock target's collector puts it too). */
static void unwind_to_caller(lraf_profile *R, int s, CallInfo *ci) {
  const pf_stack *st = &R->P->stack[s];
  const CallInfo *c;
  int i;
  for (c = ci->previous; c != NULL; c = c->previous)
    for (i = st->n - 1; i >= 0; i--)
      if (st->frame[i] == c) {
        pf_unwind(R->P, s, c);
        return;
      }
  pf_unwind(R->P, s, NULL);
}

static void event(lua_State *L, int ev, CallInfo *ci, int nres) {
  lraf_profile *R = rt_state(L)->profile;
  int s, fn = -1, node;
  int64_t now;
  if (R == NULL || R->vm == NULL) return;
  if ((s = rt_pf_stack(R, L)) < 0) return;
  if (!isLua(ci) && ev != LUA_HOOKRET &&
      (rt_pf_host_c(R, s) || (fn = c_fn(R, L, ci)) == -2))
    return;  /* the host's (not a frame), or consume */
  now = rt_total_of(R->S, *R->vm->counter);  /* rt_pf_charge, inline */
  if (R->S->opt.exact)  /* code with refunds: what its frames ran */
    now -= rt_vm_ahead(L);
  pf_charge(R->P, R->running, now - R->last);
  R->last = now;
  if (ev == LUA_HOOKRET) {
    node = pf_return(R->P, s, ci);
    if (node >= 0 && !isLua(ci)) {
      fn = R->P->node[node].fn;
      if (fn >= 0 && (fn == R->create_fn || fn == R->wrap_fn))
        created(R, L, nres, node);
    }
  } else {
    if (isLua(ci)) fn = lua_fn(R, L, ci);
    if (ev == LUA_HOOKTAILCALL) {
      if (pf_unwind(R->P, s, ci)) pf_leave(R->P, s);
    } else {
      unwind_to_caller(R, s, ci);
    }
    if (fn >= 0) pf_enter(R->P, s, fn, ci);
    if ((node = pf_site_wanted(R->P, s)) >= 0) {  /* a new call path */
      lua_Debug caller;
      caller.i_ci = ci->previous;
      R->P->node[node].site = ev != LUA_HOOKTAILCALL && ci->previous &&
                              lua_getinfo(L, "l", &caller)
                            ? caller.currentline : -1;
    }
  }
  R->running = pf_top(R->P, s);
}

/* ---- per-line counts ---- */

void rt_pfvm_attach(lua_State *L, void *proto, const bc_proto *f) {
  lraf_state *S;
  struct rt_pflines *pl;
  Proto *p = proto;
  pfl_func *e;
  int i;
  if (G(L)->acct.prof != event) return;  /* no profile of ours runs on L */
  S = rt_state(L);
  if ((pl = S->pflines) == NULL) return;
  for (i = 0; i < p->sizep && i < f->sizep; i++)
    rt_pfvm_attach(L, p->p[i], f->p[i]);
  if (f->sizelinecosts == 0 || p->accthits != NULL) return;
  if (pl->n == pl->cap) {
    int cap = pl->cap ? 2 * pl->cap : 64;
    pfl_func *nf = realloc(pl->f, (size_t)cap * sizeof *nf);
    if (nf == NULL) { pl->oom = 1; return; }
    pl->f = nf;
    pl->cap = cap;
  }
  e = &pl->f[pl->n];
  e->mem = calloc((size_t)p->sizecode + 1, sizeof *e->mem);
  e->cost = malloc((size_t)f->sizelinecosts * sizeof *e->cost);
  if (e->mem == NULL || e->cost == NULL) {
    free(e->mem);
    free(e->cost);
    pl->oom = 1;
    return;
  }
  e->mem[0] = pl->n;
  e->hits = e->mem + 1;
  e->gen = 0;
  memcpy(e->cost, f->linecosts, (size_t)f->sizelinecosts * sizeof *e->cost);
  e->ncost = f->sizelinecosts;
  e->sizecode = p->sizecode;
  e->line = p->linedefined;
  if (p->source != NULL)
    luaO_chunkid(e->source, getstr(p->source), tsslen(p->source));
  else
    strcpy(e->source, "?");
  p->accthits = e->hits;
  G(L)->acct.lines = 1;  /* OP_ACCT now looks for accthits */
  pl->n++;
}

/* Every counted function's runs times costs into the profile's lines;
   the counts start again from 0. */
static void lines_out(lraf_profile *R) {
  struct rt_pflines *pl = R->S->pflines;
  int i, k;
  if (pl == NULL) return;
  for (i = 0; i < pl->n; i++) {
    pfl_func *e = &pl->f[i];
    int fn = -2;
    for (k = 0; k < e->ncost; k++) {
      lua_Integer n = e->hits[e->cost[k].pc];
      if (n == 0) continue;
      if (fn == -2)
        fn = e->gen == pl->gen ? e->fn
           : pf_func_find(R->P, e->source, e->line, NULL, 0);
      if (fn >= 0) pf_line(R->P, fn, e->cost[k].line, n * e->cost[k].cost);
    }
    memset(e->hits, 0, (size_t)e->sizecode * sizeof *e->hits);
  }
}

static void lines_zero(lraf_state *S) {
  struct rt_pflines *pl = S->pflines;
  int i;
  if (pl == NULL) return;
  for (i = 0; i < pl->n; i++)
    memset(pl->f[i].hits, 0, (size_t)pl->f[i].sizecode *
           sizeof *pl->f[i].hits);
}

void rt_pfvm_close(lraf_state *S) {
  struct rt_pflines *pl = S->pflines;
  int i;
  if (pl == NULL) return;
  for (i = 0; i < pl->n; i++) {
    free(pl->f[i].mem);
    free(pl->f[i].cost);
  }
  free(pl->f);
  free(pl);
  S->pflines = NULL;
}

/* ---- start and stop ---- */

int rt_pfvm_start(lraf_profile *R) {
  lraf_state *S = R->S;
  R->vm = calloc(1, sizeof *R->vm);
  if (R->vm == NULL) return 0;
  if (S->pflines == NULL &&
      (S->pflines = calloc(1, sizeof *S->pflines)) == NULL)
    return 0;
  R->vm->counter = lua_acctcounter(S->L);
  R->lines_was = S->opt.lines;
  S->opt.lines = S->opt.target == RW_LRAVM;
  lines_zero(S);
  S->pflines->gen++;
  lua_setacctprof(S->L, event);
  return 1;
}

void rt_pfvm_stop(lraf_profile *R) {
  lraf_state *S = R->S;
  if (S->L != NULL) lua_setacctprof(S->L, NULL);
  S->opt.lines = R->lines_was;
  lines_out(R);
}

void rt_pfvm_free(lraf_profile *R) {
  int i;
  if (R->vm == NULL) return;
  for (i = 0; i < PROTO_CACHE; i++) free(R->vm->pe[i].src);
  free(R->vm);
  R->vm = NULL;
}

#else

int rt_pfvm_builtin(void) {
  return 0;
}

int rt_pfvm_start(lraf_profile *R) {
  (void)R;
  return 0;
}

void rt_pfvm_stop(lraf_profile *R) {
  (void)R;
}

void rt_pfvm_free(lraf_profile *R) {
  (void)R;
}

void rt_pfvm_attach(lua_State *L, void *p, const bc_proto *f) {
  (void)L;
  (void)p;
  (void)f;
}

void rt_pfvm_close(lraf_state *S) {
  (void)S;
}

#endif
