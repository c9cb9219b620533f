/*
** rt_rwmem.c - the memory lraf's rewriter takes for code that a script
** loads, counted against the state's memory limit.
**
** The rewriter (bytecode/, rewriter/) allocates with malloc, outside the
** state's allocator.  While it works on a chunk, an estimate of what it
** holds, RWMEM_PER_BYTE bytes per byte of the chunk's dump (measured:
** docs/cost-model.md), is added to the state's count, so that the limit
** refuses a rewrite the way it refuses an allocation: after a full
** collection, and with mem_refused set so that the stop is the limit's.
*/
#include "rt.h"

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
