/*
** rw_ahead_table.c - the table of what a function has charged ahead where a
** frame may be left (bc_proto.ahead, the lraf VM's Proto.acctahead),
** which only code rewritten in memory carries.
**
** A frame may be left, by an error or a yield, where an instruction
** calls, raises or makes a zero check (rw_may_leave).  With refunds (exact
** mode, rw_refunds) the table holds at each such pc what the function
** has charged there and not yet run, which the VM gives back when an
** error discards the frame or a yield suspends it.  Where blocks pay at
** the jump that ends them (rw_pay_elsewhere.c) it holds only what is
** behind: what the frame has run there and not yet paid, below 0, which
** the VM
** charges then (and takes back on resuming).  rw_compute_ahead works
** out the value before each block's accounting code; the emitter works
** out the value at each pc from there as it puts the code (rw_note_ahead
** marks where the table may start, rw_put notes each pc where a frame
** may be left with something charged ahead), and rw_build_ahead makes
** the table from what was noted.
*/
#include <stdlib.h>
#include <string.h>

#include "rw_ahead_table.h"
#include "rw_pay_elsewhere.h"

int rw_compute_ahead(rw_emitctx *c) {
  const rw_cfg *cfg = c->cfg;
  const bc_proto *f = c->f;
  int nb = cfg->nblocks, top = 0, i;
  rw_arena_mark mark = rw_arena_save(c->a);  /* scratch: dies here */
  int *stack = rw_arena_alloc(c->a, (size_t)nb + 1, sizeof *stack);
  unsigned char *seen = rw_arena_zalloc(c->a, (size_t)nb + 1, 1);
  if (stack == NULL || seen == NULL) {
    rw_arena_restore(c->a, mark);
    return -1;
  }
  for (i = 0; i < nb; i++) c->ain[i] = 0;
  seen[0] = 1;
  stack[top++] = 0;
  while (top > 0) {
    int bi = stack[--top];
    const rw_block *b = &cfg->b[bi];
    int64_t a = c->ain[bi] + rw_head_charge(c, bi) - b->cost +
                rw_tail_charge(c, bi);
    int j;
    for (j = 0; j < b->nsucc; j++) {
      int s = b->succ[j];
      const rw_block *sb = &cfg->b[s];
      int64_t in = a;
      if (sb->tforcall && bc_op(f->code[b->end]) == BC_OP_TFORPREP)
        in = a - (sb->fold_into < 0 ? sb->charge : 0) +
             rw_instr_cost(f, sb->start, c->opt);
      if (!seen[s]) {
        seen[s] = 1;
        c->ain[s] = in;
        stack[top++] = s;
      } else if (c->ain[s] != in) {
        rw_arena_restore(c->a, mark);
        return 0;
      }
    }
  }
  rw_arena_restore(c->a, mark);
  return 1;
}

/* Whether leave l gets an entry in the table, from index lo on. */
static int in_table(const rw_emitleave *l, int lo, int refunds) {
  return l->at >= lo && (refunds ? l->ahead != 0 : l->ahead < 0);
}

int rw_build_ahead(rw_emitctx *c, bc_ahead **table, int *size) {
  const rw_emitout *o = &c->o;
  int j, k = 0, lo = c->ahead_lo, refunds = c->refunds;  /* (the stores
                                                 below could alias them) */
  bc_ahead *t;
  *table = NULL;
  *size = 0;
  if (lo < 0) return 1;
  for (j = 0; j < o->nleaves; j++) {  /* counted first: exactly sized */
    int64_t v = o->leaves[j].ahead;
    if (!in_table(&o->leaves[j], lo, refunds)) continue;
    if (v > INT32_MAX || v < -INT32_MAX) return 0;
    k++;
  }
  if (k == 0) return 1;
  t = malloc((size_t)k * sizeof *t);
  if (t == NULL) {
    c->o.oom = 1;
    return 1;
  }
  for (k = 0, j = 0; j < o->nleaves; j++)
    if (in_table(&o->leaves[j], lo, refunds)) {
      t[k].pc = o->leaves[j].at;
      t[k++].n = (int)o->leaves[j].ahead;
    }
  *table = t;
  *size = k;
  return 1;
}
