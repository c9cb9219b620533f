/*
** rw_lines.h - which source lines each accounting block's increment
** pays for (rw_options.lines), so that the profiler can turn the number
** of runs of each accounting instruction into exact per-line counts.
*/
#ifndef RW_LINES_H
#define RW_LINES_H

#include "rw_cfg.h"

typedef struct rw_lcost {
  int line;
  int64_t cost;
} rw_lcost;

typedef struct rw_lines {
  int *start;    /* per block: its entries are e[start[b]..start[b+1]) */
  rw_lcost *e;   /* by block, then line; no zero costs */
} rw_lines;

/* For every block of cfg that pays for itself: the lines of what its
   increment charges.  That is the instructions of the blocks it pays
   for (itself and those folded into it), each at pccost[pc] on line
   lines[pc], less what a branch fold charged ahead at the test for the
   other branch when the block is that test's refunding branch.  Returns
   0 when out of memory. */
int rw_lines_build(const bc_proto *f, const rw_cfg *cfg,
                   const uint32_t *pccost, const int *lines,
                   rw_lines *out);
void rw_lines_free(rw_lines *l);

#endif
