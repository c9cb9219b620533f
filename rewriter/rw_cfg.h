/*
** rw_cfg.h - control-flow analysis of one function for the rewriter:
** accounting blocks, their costs, loop headers (zero checks) and the
** folding of a block's cost into a control-equivalent dominator.
*/
#ifndef RW_CFG_H
#define RW_CFG_H

#include "rw.h"
#include "rw_arena.h"

typedef struct rw_block {
  int start, end;       /* original pcs, inclusive */
  int nsucc;
  int succ[2];          /* successor blocks */
  int npreds;           /* edges into it (one per successor entry of
                           another block; 0 in a function that does not
                           branch) */
  uint32_t cost;        /* own cost under the metric */
  int64_t charge;       /* what this block's increment adds: own + folded,
                           less what a branch fold charged ahead for it */
  int fold_into;        /* -1, or the block whose increment pays for this one */
  unsigned char reachable;
  unsigned char check;  /* gets a zero check: function entry or loop header */
  unsigned char tforcall; /* starts with a TFORCALL that TFORPREP enters
                             directly, skipping the block's accounting code */
  unsigned char charges_ahead; /* its increment also pays for one of its
                                  branches (branch folding), so its zero
                                  check goes first */
  unsigned char paid_by_preds; /* its predecessors' increments pay for it
                                  and make its zero check */
  unsigned char branch_folded; /* charged ahead by the two-way branch
                                  before it (its fold_into) */
  unsigned char takes_back;    /* its increment takes back what a branch
                                  fold charged ahead for the other branch */
  unsigned char sunk;          /* its charge and check went to both of its
                                  successors, which pay for it behind */
  int tail_end;                /* for a payer whose group may pay at the
                                  jump that ends one of its blocks, that
                                  block (no CALL runs between the payer
                                  and it; rw_tail_payments); else -1 */
} rw_block;

typedef struct rw_cfg {
  int nblocks;
  rw_block *b;
  int *block_at;        /* pc -> block starting at pc, or -1 */
  int *block_of;        /* pc -> block containing pc, or -1 (VARARGPREP) */
  int first;            /* first pc of the entry block */
  int ntforcalls;       /* blocks with tforcall set */
  int ntail_ends;       /* blocks with a tail_end */
} rw_cfg;

/* The largest charge that a group pays at its end (rw_pay_elsewhere.c).  Work
   run and not yet paid is not seen by the checks of code that it runs
   in the meantime: no CALL runs before the group pays, so that code is
   a metamethod (a C call: at most LUAI_MAXCCALLS, 200, deep), and a
   quota stop comes at most 200 x this late. */
#define RW_TAIL_MAX 512

/* Whether b ends in a jump that the lraf VM has a paying form of: a
   FORLOOP, or a JMP that no test runs (JMPACCT, FORLOOPACCT). */
static inline int rw_ends_in_payable_jump(const bc_proto *f,
                                          const rw_block *b) {
  int op = bc_op(f->code[b->end]);
  return op == BC_OP_FORLOOP ||
         (op == BC_OP_JMP && !rw_follows_op_with(f, b->end, BC_OPF_TEST));
}

/* The block that pays for block b when b runs exactly as often as it,
   or -1: the fold_into chain from b to its payer passes no branch fold. */
int rw_cfg_equal_payer(const rw_cfg *cfg, int b);

/* Build the blocks of f, decide checks and folding.  path names f in
   error messages.  cfg's arrays, like the analysis's scratch, live in
   a: they go when a is reset. */
lraf_status rw_cfg_build(const bc_proto *f, const rw_options *opt,
                         const char *path, rw_arena *a, rw_cfg *cfg,
                         lraf_error *err);

#endif
