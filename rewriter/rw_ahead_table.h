/*
** rw_ahead_table.h - the table of what a function has charged ahead, or run
** and not yet paid, where a frame may be left (rw_ahead_table.c), for the
** emitter.
*/
#ifndef RW_AHEAD_TABLE_H
#define RW_AHEAD_TABLE_H

#include "rw_code.h"

/* What the function has charged but not yet run (below 0: run but not
   yet paid) before each block's accounting code (c->ain): a block adds
   its head charge, its instructions take their cost (the emitter works
   out the value at each pc from there), and its paying jump, if it has
   one, adds the charge there.  It does not depend on the path, since
   every path to an exit is charged exactly; a block reached with two
   values is an error of the rewriter.  A TFORCALL that TFORPREP enters
   directly is neither charged nor counted, so there the value after it
   is the TFORPREP's.  Returns 0 on a contradiction, -1 out of memory. */
int rw_compute_ahead(rw_emitctx *c);

/* Whether a value of what is charged ahead gets an entry in the table
   where a frame may be left: anything (refunds) or only what was run
   and not yet charged (a block that pays at its end). */
static inline int rw_table_value(const rw_emitctx *c, int64_t a) {
  return c->refunds ? a != 0 : a < 0;
}

/* cur_ahead was set: the instructions put from here on may have entries
   in the table. */
static inline void rw_note_ahead(rw_emitctx *c) {
  if (c->ahead_lo < 0 && rw_table_value(c, c->cur_ahead))
    c->ahead_lo = c->o.n;
}

/* The table of what is charged ahead (or behind) where a frame may be
   left, from the leaves rw_put noted from ahead_lo on, in an array of
   the right size.  Returns 0 when a value does not fit an int. */
int rw_build_ahead(rw_emitctx *c, bc_ahead **table, int *size);

#endif
