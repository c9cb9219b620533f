/*
** rw_bound.h - declared costs: an upper bound on the instructions one
** call of each function of a chunk runs, proven from its bytecode in
** the original cost model (what a count hook of 1 sees), or the reason
** and the line why none is proven (docs/bound.md).
**
** Internal to lraf (prefix rw_bound).  Uses the rewriter's control-flow
** graph (rw_cfg.h) and cost metric (rw.h).
*/
#ifndef RW_BOUND_H
#define RW_BOUND_H

#include <stdint.h>

#include "bc.h"

/* One function of the chunk, in pre-order (the main function first). */
typedef struct rw_bound_fn {
  const bc_proto *f;
  int parent;          /* index of the enclosing function, -1 for main */
  int child;           /* its index in the parent's p[] */
  char name[64];       /* "main chunk", a global or local name, or "?" */
  int line;            /* linedefined (0: main chunk) */
  int global;          /* name is the global the chunk assigns it to */
  int returned;        /* the function the main chunk returns (a lraf
                          serve handler) */
  int bounded;
  uint64_t bound;      /* instructions of one call, callees included */
  int loopfree;        /* bounded with no loop in it or its callees */
  int metamethods;     /* bounded assuming no metamethod runs Lua code:
                          it (or a callee) has an instruction that may
                          call one */
  char reason[160];    /* why not bounded */
  int reason_line;
  int state;           /* analysis: 0 not yet, 1 running, 2 done */
} rw_bound_fn;

typedef struct rw_bound_result {
  int n;
  rw_bound_fn *fn;     /* malloc'ed; rw_bound_free */
} rw_bound_result;

/* Bound every function of chunk.  Fails only on memory or a malformed
   control-flow graph; unprovable functions are results, not errors. */
lraf_status rw_bound_chunk(const bc_chunk *chunk, rw_bound_result *out,
                           lraf_error *err);
void rw_bound_free(rw_bound_result *r);

#endif
