/*
** rw_pay_elsewhere.c - what the lraf VM pays for elsewhere than at a block's
** start: at the jump that ends the block, at the TFORLOOP that goes
** back to a generic for loop's body, or as a call starts the function.
**
** In the lraf VM's default mode a block may pay at its end, when it or
** a block folded into it (which runs exactly as often) ends in a jump
** that the VM has a paying form of (rw_tail_payments, rw_tail_blocks):
** the JMP or FORLOOP becomes JMPACCT or FORLOOPACCT, which adds the
** charge held by the ACCT after it (which never runs itself) and makes
** the zero check, and the block starts with no ACCT.  A loop turn then
** runs no accounting dispatch at all.  Every run of the block goes on to
** that jump unless it ends in an error or a yield; for those, the
** function's table of what it has charged ahead (bc_proto.ahead, the
** VM's Proto.acctahead, rw_ahead_table.c) holds, at every pc where the frame
** may be left with work run and not yet paid, that amount below 0, which
** the VM charges when an error discards the frame or a yield suspends it
** (and takes back on resuming, as the jump will pay).  So no error or
** abandoned coroutine runs anything uncharged, and the default mode's
** count stays at or above the hook's.  Only code rewritten in memory
** carries that table (the dump format has no room for it), so only such
** code pays at its ends, and only in the default mode
** (rw_tail_payments).  Every cycle through the block passes the jump, so
** it checks as often.  Not for a block whose increment pays ahead for a
** branch or takes such a charge back (no check may see that charge, and
** the block's own code might run one), the entry (every entry checks
** first) or a block that TFORPREP enters.  Nor where a CALL runs before
** the group pays: what the group ran is not seen by the checks of the
** code that runs meanwhile, and a call may recurse as deep as Lua's
** stack goes, with as much unseen in every frame; a metamethod goes at
** most 200 C calls deep, so a group pays at its end at most RW_TAIL_MAX,
** and a quota stop comes at most 200 x that late.
**
** Where blocks pay at their end, the same table lets the TFORLOOP of a
** generic for loop pay ahead for the body it goes back to (TFORLOOPACCT,
** rw_tfor_bodies), and the first block's charge become the function's
** entry charge, which the VM adds as a call starts (rw_entry_charge).
*/
#include "rw_pay_elsewhere.h"

int rw_tail_blocks(rw_emitctx *c) {
  const rw_cfg *cfg = c->cfg;
  int i, ri, found = 0;
  if (!rw_tail_payments(c->opt) || cfg->ntail_ends == 0) return 0;
  for (ri = 1; ri < cfg->nblocks; ri++) {
    const rw_block *r = &cfg->b[ri];
    int m = r->tail_end;
    if (m < 0 || rw_cfg_equal_payer(cfg, m) != ri || r->fold_into >= 0 ||
        r->charges_ahead || r->takes_back || (r->charge == 0 && !r->check) ||
        r->charge > RW_TAIL_MAX || r->charge < 0)
      continue;
    if (!found)  /* the tables, once there is one */
      for (i = 0; i < cfg->nblocks; i++) c->tail[i] = c->tail_pays[i] = -1;
    c->tail[ri] = m;
    c->tail_pays[m] = ri;
    found = 1;
  }
  return found;
}

void rw_emit_paying_jump(rw_emitctx *c, int pc, int r, int t, int line) {
  bc_instr i = c->f->code[pc];
  int64_t n = c->cfg->b[r].charge;
  int op = bc_op(i) == BC_OP_FORLOOP ? BC_OP_FORLOOPACCT
         : bc_op(i) == BC_OP_TFORLOOP ? BC_OP_TFORLOOPACCT : BC_OP_JMPACCT;
  rw_put(c, bc_set_op(i, op), line, RW_J_GROUP, t);
  rw_put(c, bc_set_bx(bc_abck(BC_OP_ACCT, BC_ACCT_ADD, 0, 0, 0),
                      (int)n + BC_OFFSET_SBX), line, RW_J_NONE, 0);
  if (n != 0) c->stats->increments++;
  c->stats->checks++;
  if (op == BC_OP_TFORLOOPACCT)
    c->stats->paid_by_tforloop++;
  else
    c->stats->paid_at_end++;
}

int rw_tfor_bodies(rw_emitctx *c) {
  const rw_cfg *cfg = c->cfg;
  const bc_proto *f = c->f;
  int bi, i, found = 0;
  if (!rw_tail_payments(c->opt) || cfg->ntforcalls == 0) return 0;
  for (bi = 0; bi < cfg->nblocks; bi++) {  /* TFORCALL, TFORLOOP */
    int t, bt, pc = cfg->b[bi].start + 1;
    const rw_block *b;
    if (!cfg->b[bi].tforcall || pc >= f->sizecode ||
        bc_op(f->code[pc]) != BC_OP_TFORLOOP ||
        !bc_jump_target(f->code[pc], pc, &t) || t < cfg->first || t >= pc ||
        (bt = cfg->block_at[t]) < 0)
      continue;
    b = &cfg->b[bt];
    if (!b->reachable || b->fold_into >= 0 || b->charges_ahead ||
        b->takes_back || b->charge <= 0 || b->charge > BC_OFFSET_SBX ||
        (c->tails && c->tail[bt] >= 0) ||
        b->npreds != 1)  /* only its TFORLOOP enters it */
      continue;
    if (c->tfor_body == NULL) {
      c->tfor_body = rw_arena_alloc(c->a, (size_t)cfg->nblocks + 1,
                                    sizeof *c->tfor_body);
      if (c->tfor_body == NULL) return 0;
      for (i = 0; i < cfg->nblocks; i++) c->tfor_body[i] = -1;
    }
    c->tfor_body[bt] = pc;
    found = 1;
  }
  return found;
}
