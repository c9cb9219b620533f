/*
** rt_alloc.c - the allocator of every lraf state: counts the bytes the
** state holds and their peak, attributes each allocation to the account
** of the thread that runs (bytes allocated, and the highest in-use
** figure it reached), and enforces the state's memory limit.
**
** Over the limit the allocator returns NULL; Lua then collects garbage
** in an emergency and tries again, and raises LUA_ERRMEM only when that
** fails too.  mem_refused tells the runtime that such an error came
** from the limit (rt_stopping makes it sticky).  Freeing and shrinking
** always succeed.
**
** Strings that hold what the host chose, not the script - a script's
** path in its chunk name, a command line in arg - are left out of the
** count, the peak and the accounts (up to RT_HOST_BLOCKS of them), so
** that where a memory limit stops a script does not depend on them.
*/
#include <stdlib.h>

#include <lua.h>

#include "rt.h"

static lraf_account *running_account(lraf_state *S) {
  rt_thread *t = S->cur;
  if (t != NULL && t->acct != NULL) return t->acct;
  return S->main.acct;
}

/* Is p a host block?  Then it leaves the list (it is freed or
   moved), and its size is what the count does not hold. */
static int host_block(lraf_state *S, void *p) {
  int i;
  for (i = 0; i < S->nhost; i++) {
    if (S->host[i].p == p) {
      S->host[i] = S->host[--S->nhost];
      return 1;
    }
  }
  return 0;
}

/* A new block of Lua's type tag: a host string to leave out? */
static int host_new(lraf_state *S, size_t tag, size_t nsize) {
  int want;
  if (tag != LUA_TSTRING || S->nhost >= RT_HOST_BLOCKS) return 0;
  if (S->host_strings) return 1;
  want = S->host_want == nsize;
  if (!want || --S->host_want_n == 0) S->host_want = 0;
  return want;
}

void *rt_alloc(void *ud, void *ptr, size_t osize, size_t nsize) {
  lraf_state *S = ud;
  size_t old = ptr != NULL ? osize : 0;
  void *p;
  if (ptr != NULL && S->nhost > 0 && host_block(S, ptr)) old = 0;
  if (nsize == 0) {
    free(ptr);
    S->mem_used -= old;
    return NULL;
  }
  if (ptr == NULL && (S->host_strings || S->host_want) &&
      host_new(S, osize, nsize)) {
    p = malloc(nsize);
    if (p == NULL) return NULL;
    S->host[S->nhost].p = p;
    S->host[S->nhost++].size = nsize;
    return p;
  }
  if (nsize > old && S->mem_limit > 0 &&
      (S->mem_used > S->mem_limit ||
       nsize - old > S->mem_limit - S->mem_used)) {
    rt_stop_refused(S);
    S->mem_refused = 1;
    return NULL;
  }
  p = realloc(ptr, nsize);
  if (p == NULL) return NULL;
  S->mem_used = S->mem_used - old + nsize;
  if (S->mem_used > S->mem_peak) S->mem_peak = S->mem_used;
  if (nsize > old) {
    lraf_account *a = running_account(S);
    if (a != NULL)
      acct_note_alloc(a, (int64_t)(nsize - old), (int64_t)S->mem_used);
  }
  return p;
}

void lraf_memory(const lraf_state *S, size_t *in_use, size_t *peak) {
  if (in_use != NULL) *in_use = S ? S->mem_used : 0;
  if (peak != NULL) *peak = S ? S->mem_peak : 0;
}

void lraf_host_strings(lraf_state *S, int on) {
  if (S != NULL) S->host_strings = on != 0;
}

void rt_alloc_probe(lraf_state *S) {
  static const char probe[] = "lraf: the size of a string's block, probed";
  lua_State *L = S->L;
  size_t before;
  lua_gc(L, LUA_GCSTOP);  /* no step frees anything meanwhile */
  before = S->mem_used;
  lua_pushlstring(L, probe, sizeof probe - 1);  /* long: a new block */
  S->str_header = S->mem_used - before - sizeof probe;
  lua_pop(L, 1);
  lua_gc(L, LUA_GCRESTART);
}

void rt_alloc_want(lraf_state *S, size_t len, int n) {
  S->host_want = n > 0 ? S->str_header + len + 1 : 0;
  S->host_want_n = n;
}
