/*
** rt_pfname.c - what the profiler's two collectors share (rt_profile.h):
** naming functions as the outputs write them, each thread's stack, and
** charging what ran since the last event.  The stock target's hook
** (rt_profile.c) and the lraf VM's callback (rt_pfvm.c) both use it.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>

#include "rt_profile.h"

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

/* A name for the function at fidx found in the table on top of L under
   prefix (NULL: none): "prefix.key", or "prefix:key" when the function's
   first parameter is self; kept in best when better (rank first, then
   the smaller name). */
typedef struct pf_best {
  char name[128];
  int rank;  /* lower is better; 99: none */
} pf_best;

static void offer(pf_best *b, int rank, const char *name) {
  if (rank < b->rank || (rank == b->rank && strcmp(name, b->name) < 0)) {
    snprintf(b->name, sizeof b->name, "%s", name);
    b->rank = rank;
  }
}

static void search_table(lua_State *L, int fidx, const char *prefix,
                         int rank, pf_best *b) {
  const char *p1;
  int method;
  lua_pushvalue(L, fidx);
  p1 = lua_getlocal(L, NULL, 1);  /* pops nothing, pushes nothing */
  lua_pop(L, 1);
  method = p1 != NULL && strcmp(p1, "self") == 0;
  lua_pushnil(L);
  while (lua_next(L, -2)) {
    if (lua_type(L, -2) == LUA_TSTRING && lua_rawequal(L, -1, fidx)) {
      char name[128];
      snprintf(name, sizeof name, "%s%s%s", prefix, method ? ":" : ".",
               lua_tostring(L, -2));
      offer(b, rank, name);
    }
    lua_pop(L, 1);
  }
}

/* The Lua function at fidx in the global tables (one level down, e.g.
   Scheduler.schedule) and in the tables and locals of the running main
   chunk (local Scheduler = {}; local function helper). */
static void table_names(lua_State *L, int fidx, pf_best *b) {
  lua_Debug ar;
  int level, i;
  lua_pushglobaltable(L);
  lua_pushnil(L);
  while (lua_next(L, -2)) {
    if (lua_type(L, -2) == LUA_TSTRING && lua_istable(L, -1) &&
        !lua_rawequal(L, -1, -3))  /* _G._G */
      search_table(L, fidx, lua_tostring(L, -2), 2, b);
    lua_pop(L, 1);
  }
  lua_pop(L, 1);
  if (!lua_pushthread(L)) {  /* not the main thread: its frames only */
    lua_pop(L, 1);
    return;
  }
  lua_pop(L, 1);
  for (level = 0; lua_getstack(L, level, &ar); level++) {
    if (!lua_getinfo(L, "S", &ar) || ar.what[0] != 'm') continue;
    for (i = 1; i < 200; i++) {
      const char *name = lua_getlocal(L, &ar, i);
      if (name == NULL) break;
      if (name[0] != '(') {
        if (lua_rawequal(L, -1, fidx)) offer(b, 3, name);
        else if (lua_istable(L, -1)) search_table(L, fidx, name, 3, b);
      }
      lua_pop(L, 1);
    }
    break;
  }
}

/* A Lua function is its short source and line defined (what its frame
   is named by).  A cache slot chosen by the chunk's source address
   remembers the last function seen there; it is used only when its
   short source and line are this function's (the address of a
   collected chunk's source may come back with another chunk's).  The
   name is the best Lua can give at the function's first call: a global
   or module name (helper, mod.f), a field of a global table or of a
   table of the main chunk (Scheduler:schedule, with ':' when its first
   parameter is self), a local function of the main chunk, then the name
   it was called by (a field, a local, an upvalue; "hook" for a hook's
   function), else "function <source:line>" as lua5.4's tracebacks
   write it.  running: ar is a frame's (else the function is at the top
   of L, about to be called by the script's hook dispatcher). */
static int lua_fn(lraf_profile *R, lua_State *L, lua_Debug *ar,
                  int running) {
  uint32_t h = (uint32_t)((uintptr_t)ar->source >> 4) * 31u +
               (uint32_t)ar->linedefined;
  int *slot = &R->lua[h % RT_PF_LUA_CACHE], fn = *slot;
  if (fn >= 0 && R->P->fn[fn].line == ar->linedefined &&
      strcmp(R->P->fn[fn].source, ar->short_src) == 0)
    return fn;
  fn = pf_func_find(R->P, ar->short_src, ar->linedefined, NULL, 0);
  if (fn < 0) {
    pf_best b;
    b.rank = 99;
    b.name[0] = '\0';
    if (ar->what[0] == 'm') {
      offer(&b, 0, "main chunk");
    } else if (lua_checkstack(L, 8) &&
               (running ? lua_getinfo(L, "nf", ar)
                        : (lua_pushvalue(L, -1), 1))) {
      int fidx = lua_gettop(L);
      char name[128];
      if (module_name(L, name, sizeof name)) offer(&b, 1, name);
      else table_names(L, fidx, &b);
      lua_settop(L, fidx - 1);
      if (!running || strcmp(ar->namewhat, "hook") == 0)
        offer(&b, 4, "hook");  /* called by a hook */
      else if (b.rank == 99 && ar->name != NULL)
        offer(&b, 4, ar->name);
    }
    if (b.rank == 99)
      snprintf(b.name, sizeof b.name, "function <%s:%d>", ar->short_src,
               ar->linedefined);
    fn = pf_func_id(R->P, ar->short_src, ar->linedefined, b.name, 0);
  }
  *slot = fn;
  return fn;
}

int rt_pf_lua(lraf_profile *R, lua_State *L, lua_Debug *ar) {
  return lua_fn(R, L, ar, 1);
}

int rt_pf_hookfn(lraf_profile *R, lua_State *L) {
  lua_Debug ar;
  const void *p;
  rt_pf_centry *e;
  char name[128];
  lua_pushvalue(L, -1);
  lua_getinfo(L, ">S", &ar);
  if (ar.what[0] != 'C') return lua_fn(R, L, &ar, 0);
  p = lua_topointer(L, -1);
  e = rt_pf_cfind(R, p);
  if (e != NULL && e->cfn == lua_tocfunction(L, -1) && e->fn >= 0)
    return e->fn;
  return pf_func_id(R->P, "[C]", -1,
                    module_name(L, name, sizeof name) ? name : "hook", 1);
}

/* The cache holds sets of RT_PF_C_WAYS entries, a function's set chosen
   by its address; a function new to its set takes the set's first
   entry and the others move down, the last one leaving.  (One entry a
   set thrashed: two C functions called by turns whose addresses agree
   in the bits that chose the slot made every call scan package.loaded.) */
static rt_pf_centry *cset(lraf_profile *R, const void *p) {
  size_t sets = RT_PF_C_CACHE / RT_PF_C_WAYS;
  return &R->c[((uintptr_t)p >> 4) % sets * RT_PF_C_WAYS];
}

rt_pf_centry *rt_pf_cfind(lraf_profile *R, const void *p) {
  rt_pf_centry *set = cset(R, p);
  int k;
  for (k = 0; k < RT_PF_C_WAYS; k++)
    if (set[k].p == p) return &set[k];
  return NULL;
}

/* The C function at the top of L (left there): named by the loaded
   module that holds it (cached), else by its call (debug.getinfo's
   name, looked up at every call: closures come and go). */
int rt_pf_c(lraf_profile *R, lua_State *L, lua_Debug *ar) {
  const void *p = lua_topointer(L, -1);
  lua_CFunction cfn = lua_tocfunction(L, -1);
  rt_pf_centry *e = rt_pf_cfind(R, p);
  char name[128] = "";
  if (e == NULL) {  /* new to its set: the set's first entry */
    e = cset(R, p);
    memmove(e + 1, e, (RT_PF_C_WAYS - 1) * sizeof *e);
  }
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
  return pf_func_id(R->P, "[C]", -1, strcmp(ar->namewhat, "hook") == 0
                                     ? "hook" : ar->name ? ar->name : "?", 1);
}

/* ---- stacks and charges ---- */

int rt_pf_host_c(const lraf_profile *R, int s) {
  const pf_stack *st = &R->P->stack[s];
  return st->n == 0 && st->root == 0;
}

int rt_pf_stack(lraf_profile *R, lua_State *L) {
  if (R->curL != L) {
    int s = pf_stack_id(R->P, L, 0);
    if (s < 0) return -1;
    R->curL = L;
    R->cur = s;
  }
  return R->cur;
}


void rt_pf_created(lraf_profile *R, lua_State *co, int node) {
  pf_stack_reset(R->P, co, node);
  R->curL = NULL;
}

void rt_pf_charge(lraf_profile *R, lua_State *L) {
  int64_t now = rt_total_run(R->S, L);
  pf_charge(R->P, R->running, now - R->last);
  R->last = now;
}
