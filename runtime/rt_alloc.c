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
** Each refusal costs a full collection of the heap, uncharged.  With
** the heap held just under the limit every allocation would be one, so
** a refusal that comes before the state has allocated a sixteenth of
** the limit since the last is final: every growth is refused from then
** on, and the run stops with the memory limit.
*/
#include <stdlib.h>

#include "rt.h"

static lraf_account *running_account(lraf_state *S) {
  rt_thread *t = S->cur;
  if (t != NULL && t->acct != NULL) return t->acct;
  return S->main.acct;
}

void *rt_alloc(void *ud, void *ptr, size_t osize, size_t nsize) {
  lraf_state *S = ud;
  size_t old = ptr != NULL ? osize : 0;
  void *p;
  if (nsize == 0) {
    free(ptr);
    S->mem_used -= old;
    return NULL;
  }
  if (nsize > old && S->mem_limit > 0 &&
      (S->mem_thrash || S->mem_used > S->mem_limit ||
       nsize - old > S->mem_limit - S->mem_used)) {
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
  S->mem_used = S->mem_used - old + nsize;
  if (nsize > old) S->mem_grown += nsize - old;
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
