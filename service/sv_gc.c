/*
** sv_gc.c - collections during requests.  A worker keeps a state's
** incremental collector stopped while a request runs (its finalizers
** would run Lua code at moments that depend on the state's history, and
** so move counts between requests); instead this allocator, in front of
** the state's own, refuses the growth that takes the bytes held past
** twice what the last collection left (SV_GC_FLOOR at least).  Lua then
** runs an emergency collection, which frees garbage but runs no
** finalizer, and retries the allocation, which goes through.  Only the
** allocation of a new Lua object is refused (Lua passes its type as the
** old size): Lua retries those always, while other users of the
** allocator (the rewriter's code blocks) would fail instead.
*/
#include <stdlib.h>

#include "sv.h"

#define SV_GC_FLOOR ((size_t)8 << 20)

static size_t next_of(size_t inuse) {
  return inuse < SV_GC_FLOOR / 2 ? SV_GC_FLOOR : inuse * 2;
}

static void *gc_alloc(void *ud, void *p, size_t osize, size_t nsize) {
  sv_gc *g = ud;
  size_t old = p != NULL ? osize : 0;
  void *q;
  if (nsize > old && g->refused) {
    /* Lua's retry after its emergency collection */
    g->refused = 0;
    g->collections++;
    g->next = next_of(g->inuse);
  } else if (g->on && p == NULL && osize > 0 && osize < 16 &&
             g->inuse + nsize > g->next) {
    g->refused = 1;
    return NULL;
  }
  q = g->f(g->ud, p, osize, nsize);
  if (nsize == 0) g->inuse -= old;
  else if (q != NULL) g->inuse = g->inuse - old + nsize;
  else if (nsize > old) g->refused = 1;  /* the state's own limit: Lua
                                            collects and retries too */
  return q;
}

sv_gc *sv_gc_install(lua_State *L) {
  sv_gc *g = calloc(1, sizeof *g);
  if (g == NULL) return NULL;
  g->f = lua_getallocf(L, &g->ud);
  g->inuse = (size_t)lua_gc(L, LUA_GCCOUNT, 0) * 1024 +
             (size_t)lua_gc(L, LUA_GCCOUNTB, 0);
  g->next = next_of(g->inuse);
  g->on = 1;
  lua_setallocf(L, gc_alloc, g);
  return g;
}

void sv_gc_rebase(sv_gc *g) {
  if (g == NULL) return;
  g->refused = 0;
  g->next = next_of(g->inuse);
}

void sv_gc_remove(lua_State *L, sv_gc *g) {
  if (g == NULL) return;
  lua_setallocf(L, g->f, g->ud);
  free(g);
}
