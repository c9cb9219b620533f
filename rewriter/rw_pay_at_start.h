/*
** rw_pay_at_start.h - the accounting code that starts a block and what the
** overhead mode charges for it (rw_pay_at_start.c), for the emitter.
*/
#ifndef RW_PAY_AT_START_H
#define RW_PAY_AT_START_H

#include "rw_code.h"

/* Add n to the counter (r already holds it when synced), write r back
   to the cell if flush, then the zero check if asked for; with
   check_first the check comes before the increment, which then pays
   ahead for a branch that no check may see.  Afterwards r holds the
   counter on every path.  On the lraf VM: rw_emit_acct. */
void rw_emit_accounting(rw_emitctx *c, int64_t n, int check, int check_first,
                        int synced, int flush, int line);
/* rw_emit_acct when there is something to put: n is not 0, or check
   is set. */
void rw_emit_accts(rw_emitctx *c, int64_t n, int check, int check_first,
                   int line);
/* The lraf VM: ACCT adds n with the zero check after it, or before it
   with check_first.  An n beyond sBx's range takes several ACCTs, of
   which only the last checks (the first with check_first).  (Inline:
   the emitter asks it for every block, many of which have nothing to
   put.) */
static inline void rw_emit_acct(rw_emitctx *c, int64_t n, int check,
                                int check_first, int line) {
  if (n != 0 || check) rw_emit_accts(c, n, check, check_first, line);
}

/* The charge of a block whose own code costs base: in overhead mode it
   includes the accounting code, whose size depends on the charge. */
uint32_t rw_settle_charge(rw_emitctx *c, uint32_t base, int check, int synced);

/* Overhead mode: what each block's own instructions cost once
   rewritten (LFALSESKIP becomes two instructions, widened loops run
   trampolines), summed into the block that pays for them (c->base). */
void rw_overhead_bases(rw_emitctx *c);

/* What the increment of block bi adds (it pays for itself). */
static inline int64_t rw_block_charge(rw_emitctx *c, int bi) {
  const rw_block *b = &c->cfg->b[bi];
  if (c->opt->mode == RW_OVERHEAD)
    return rw_settle_charge(c, c->base[bi], b->check, c->sync.synced[bi]);
  return b->charge;
}

/* What the stub of the op at pc, with ncopies instructions that name
   its operands, charges. */
uint32_t rw_stub_charge(rw_emitctx *c, int pc, int ncopies);

/* What each block's accounting code does (c->emits, c->adds), for
   rw_sync_find; in the overhead mode whether a block has some depends
   on its own code. */
void rw_accounting_kinds(rw_emitctx *c);

#endif
