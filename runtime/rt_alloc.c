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
**
** Each refusal costs a full collection of the heap, uncharged.  With
** the heap held just under the limit every allocation would be one, so
** a refusal that comes before the state has allocated a sixteenth of
** the limit since the last is final: every growth is refused from then
** on, and the run stops with the memory limit.
**
** Also here: lraf_memory and its restartable peak, and the memory the
** rewriter takes for code a script loads (rt_rwmem_reserve), counted
** against the same limit.
*/
#include <stdlib.h>

#include <lua.h>

#include "rt.h"

static lraf_account *running_account(lraf_state *S) {
  rt_thread *t = S->cur;
  if (t != NULL && t->acct != NULL) return t->acct;
  return S->main.acct;
}

/* Keep n bytes out of what Lua's collector counts too (the lraf VM:
   then when it collects does not depend on them either). */
static void gc_uncount(lraf_state *S, long n) {
#ifdef LRAF_VM
  if (S->L != NULL) lua_gcuncount(S->L, n);
#else
  (void)S;
  (void)n;
#endif
}

/* What of p, a host block, is out of the count (0: not one); it
   leaves the list (it is freed or moved). */
static size_t host_block(lraf_state *S, void *p) {
  int i;
  for (i = 0; i < S->nhost; i++) {
    if (S->host[i].p == p) {
      size_t c = S->host[i].credit;
      S->host[i] = S->host[--S->nhost];
      gc_uncount(S, -(long)c);
      return c;
    }
  }
  return 0;
}

/* What of a new block of Lua's type tag is a host string's. */
static size_t host_new(const lraf_state *S, size_t tag, size_t nsize) {
  if (tag != LUA_TSTRING || S->nhost >= RT_HOST_BLOCKS) return 0;
  if (S->host_strings) return nsize;
  if (S->host_want != nsize) return 0;
  return S->host_credit > 0 && S->host_credit < nsize ? S->host_credit
                                                      : nsize;
}

/* A new block was made: a host block when credit > 0; the wanted
   string blocks are the next ones only. */
static void host_made(lraf_state *S, void *p, size_t tag, size_t credit) {
  if (S->host_want > 0 && !S->host_strings && tag == LUA_TSTRING &&
      (credit == 0 || --S->host_want_n == 0))
    S->host_want = 0;
  if (credit == 0) return;
  S->host[S->nhost].p = p;
  S->host[S->nhost++].credit = credit;
  gc_uncount(S, (long)credit);
}

void *rt_alloc(void *ud, void *ptr, size_t osize, size_t nsize) {
  lraf_state *S = ud;
  size_t old = ptr != NULL ? osize : 0, credit = 0, counted;
  void *p;
  if (ptr != NULL && S->nhost > 0) old -= host_block(S, ptr);
  if (nsize == 0) {
    free(ptr);
    S->mem_used -= old;
    return NULL;
  }
  if (ptr == NULL && (S->host_strings || S->host_want))
    credit = host_new(S, osize, nsize);
  counted = nsize - credit;
  if (counted > old && S->mem_limit > 0 &&
      (S->mem_thrash || S->mem_used > S->mem_limit ||
       counted - old > S->mem_limit - S->mem_used)) {
    if (S->mem_refused_at != 0 &&
        S->mem_grown + 1 - S->mem_refused_at < S->mem_limit / 16)
      S->mem_thrash = 1;
    S->mem_refused_at = S->mem_grown + 1;
    rt_stop_refused(S);
    S->mem_refused = 1;
    return NULL;
  }
  p = realloc(ptr, nsize);
  if (p == NULL) return NULL;
  if (ptr == NULL && (S->host_strings || S->host_want))
    host_made(S, p, osize, credit);
  S->mem_used = S->mem_used - old + counted;
  if (counted > old) S->mem_grown += counted - old;
  if (S->mem_used > S->mem_peak) S->mem_peak = S->mem_used;
  if (counted > old) {
    lraf_account *a = running_account(S);
    if (a != NULL)
      acct_note_alloc(a, (int64_t)(counted - old), (int64_t)S->mem_used);
  }
  return p;
}

void lraf_memory(const lraf_state *S, size_t *in_use, size_t *peak) {
  if (in_use != NULL) *in_use = S ? S->mem_used : 0;
  if (peak != NULL) *peak = S ? S->mem_peak : 0;
}

/* A peak that can be restarted: a request pool measures each request's
   own peak.  (The native units are lraf_native_units, rt_stop.c.) */
void lraf_memory_reset_peak(lraf_state *S) {
  if (S != NULL) S->mem_peak = S->mem_used;
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

void rt_alloc_want(lraf_state *S, size_t len, int n, size_t credit) {
  S->host_want = n > 0 ? S->str_header + len + 1 : 0;
  S->host_want_n = n;
  S->host_credit = credit;
}

/* ---- the rewriter's memory, counted against the memory limit ----

   The rewriter (bytecode/, rewriter/) allocates with malloc, outside the
   state's allocator.  While it works on a chunk that a script loads, an
   estimate of what it holds, RWMEM_PER_BYTE bytes per byte of the
   chunk's dump (measured: docs/cost-model.md), is added to the state's
   count, so that the limit refuses a rewrite the way it refuses an
   allocation: after a full collection, and with mem_refused set so that
   the stop is the limit's. */

/* Peak bytes the rewriter holds per byte of the dump it starts from:
   the dump, the read chunk, the control-flow graph and the rewritten
   chunk written out (about 8 at 2M instructions; 10 leaves a margin). */
#define RWMEM_PER_BYTE 10

static int fits(lraf_state *S, size_t n) {
  return S->mem_limit == 0 ||
         (S->mem_used <= S->mem_limit && n <= S->mem_limit - S->mem_used);
}

int rt_rwmem_reserve(lua_State *L, size_t dumped, size_t *held) {
  lraf_state *S = rt_state(L);
  size_t n = dumped <= (size_t)-1 / RWMEM_PER_BYTE
                 ? dumped * RWMEM_PER_BYTE : (size_t)-1;
  *held = 0;
  if (!fits(S, n)) lua_gc(L, LUA_GCCOLLECT, 0);
  if (!fits(S, n)) {
    S->mem_refused = 1;
    return 0;
  }
  S->mem_used += n;
  if (S->mem_used > S->mem_peak) S->mem_peak = S->mem_used;
  *held = n;
  return 1;
}

void rt_rwmem_release(lua_State *L, size_t held) {
  rt_state(L)->mem_used -= held;
}
