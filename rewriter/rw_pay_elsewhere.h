/*
** rw_pay_elsewhere.h - what the lraf VM pays for elsewhere than at a
** block's start (rw_pay_elsewhere.c), for the emitter: at the jump that
** ends the block, at the TFORLOOP that goes back to it, or as a call
** starts.
*/
#ifndef RW_PAY_ELSEWHERE_H
#define RW_PAY_ELSEWHERE_H

#include "rw_code.h"

/* For every block r that pays for itself (and what folds into it) with
   one checking ACCT, the block of its group (r or one folded into r with
   no branch fold on the way) that ends in a payable jump, where no CALL
   runs before it (rw_block.tail_end, rw_cfg.c): that jump pays for the
   group (c->tail, c->tail_pays).  Whether there is one. */
int rw_tail_blocks(rw_emitctx *c);

/* Whether the first block's charge becomes the function's entry charge
   (bc_proto.entry), which the lraf VM adds, with its zero check, as a
   call starts: the same charge at the same point as the block's ACCT,
   with no dispatch.  Where blocks pay at their end (the Proto carries
   what the code alone cannot), for a block that adds, and only when no
   jump comes back to the entry (a loop through it needs its ACCT). */
static inline int rw_entry_charge(const rw_emitctx *c) {
  const rw_block *b = &c->cfg->b[0];
  return rw_tail_payments(c->opt) && b->check && !b->takes_back &&
         b->charge > 0 && b->npreds == 0;
}

/* The loop bodies that the TFORLOOP going back to them pays for ahead,
   as TFORLOOPACCT (where blocks pay at their end: the same table covers
   them): a body block entered only from its TFORLOOP that adds its own
   charge (no branch fold's charge ahead or back, not paid at its end nor
   by its predecessors), within one ACCT's reach (c->tfor_body; after
   rw_tail_blocks).  Whether there is one (0 out of memory: none then). */
int rw_tfor_bodies(rw_emitctx *c);

/* The jump at pc pays for block r: a group that it ends (JMP, FORLOOP:
   what ran) or the loop body it goes back to (TFORLOOP: ahead).  Its
   paying form, to t, then the ACCT that holds r's charge. */
void rw_emit_paying_jump(rw_emitctx *c, int pc, int r, int t, int line);

/* Whether block bi pays at the jump ending block c->tail[bi] in this
   pass: not when that is a FORLOOP made wide. */
static inline int rw_pays_at_end(const rw_emitctx *c, int bi) {
  int m;
  if (!c->tails) return 0;
  m = c->tail[bi];
  return m >= 0 && !c->wide[c->cfg->b[m].end];
}

/* Whether block bi's TFORLOOP pays for it in this pass: not when that
   loop is made wide. */
static inline int rw_paid_by_tforloop(const rw_emitctx *c, int bi) {
  return c->tfor_body != NULL && bi >= 0 && c->tfor_body[bi] >= 0 &&
         !c->wide[c->tfor_body[bi]];
}

/* What a block's increment adds where it starts: its charge, unless it
   pays at its end (0 when another block pays for it). */
static inline int64_t rw_head_charge(const rw_emitctx *c, int bi) {
  const rw_block *b = &c->cfg->b[bi];
  return b->fold_into < 0 && !rw_pays_at_end(c, bi) ? b->charge : 0;
}

/* What block bi's paying jump adds at its end, if it has one. */
static inline int64_t rw_tail_charge(const rw_emitctx *c, int bi) {
  int r = c->tails ? c->tail_pays[bi] : -1;
  return r >= 0 && rw_pays_at_end(c, r) ? c->cfg->b[r].charge : 0;
}

#endif
