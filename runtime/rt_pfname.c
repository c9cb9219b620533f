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

/* A Lua function is its short source and line defined (what its frame
   is named by).  A cache slot chosen by the chunk's source address
   remembers the last function seen there; it is used only when its
   short source and line are this function's (the address of a
   collected chunk's source may come back with another chunk's).  The
   name is that of the function's first call. */
int rt_pf_lua(lraf_profile *R, lua_State *L, lua_Debug *ar) {
  uint32_t h = (uint32_t)((uintptr_t)ar->source >> 4) * 31u +
               (uint32_t)ar->linedefined;
  int *slot = &R->lua[h % RT_PF_LUA_CACHE], fn = *slot;
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
  return pf_func_id(R->P, "[C]", -1, ar->name ? ar->name : "?", 1);
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
