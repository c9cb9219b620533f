/*
** rw_pay_at_start.c - the accounting code that starts a block, and in the
** overhead mode, which counts that code too, what blocks and stubs are
** charged.
**
** Each accounting block that pays for itself (or for blocks folded into
** it) starts with
**     GETUPVAL r counter; ADDI r r n; MMBINI; SETUPVAL r counter
** and a block with a zero check continues with
**     LTI r 0 k; JMP +3; GETUPVAL r consume; CALL r 1 1; GETUPVAL r counter
** where r is one register above everything the function uses.  A test
** that pays ahead for one of its branches (branch folding, rw_cfg.c)
** makes its check before its increment, and the other branch's increment
** may be negative (ADDI down to -127, else ADDK).
**
** The GETUPVAL is left out where r is known to hold the counter's value
** already: on every path from the last accounting code, only
** instructions ran that cannot run other Lua code, C functions or
** finalizers, and so cannot change the counter (rw_sync.c).  The
** increment then costs two dispatches instead of three.
**
** The SETUPVAL is left out too ("lazy" increments) in a block of quiet
** instructions, which moreover cannot raise an error: r runs ahead of
** the cell until a later block writes it back.  Every block that could
** let anything read the cell (a call, a metamethod, an error, a return,
** a GC step) writes r back first, as does every block leading to one
** that reloads r; so do the slow path of a lazy block's zero check (a
** SETUPVAL before the GETUPVAL of consume, the JMP skipping 4) and the
** metamethod stubs of a lazy block.  rw_sync.c decides where; the
** overhead mode has no lazy blocks.
**
** For the lraf VM (RW_LRAVM) the accounting code is ACCT instead: one
** instruction adds the charge and makes the zero check, in the order
** that the stock code would (rw_emit_acct), and neither the register r
** nor the sync analysis is needed.  The count hook never sees ACCT, so
** the overhead mode charges nothing for it.
*/
#include <stdlib.h>
#include <string.h>

#include "rw_pay_at_start.h"
#include "rw_widen.h"

/* Index of integer constant v usable by ADDK (below 256), adding it if
   there is room; -1 when there is none.  Only looks when add is 0. */
static int int_constant(rw_emitctx *c, int64_t v, int add) {
  bc_proto *f = c->f;
  int i, lim = f->sizek < 256 ? f->sizek : 256;
  bc_const *k;
  for (i = 0; i < lim; i++)
    if (f->k[i].tag == BC_TINT && f->k[i].i == v)
      return i;
  if (f->sizek >= 256)
    return -1;
  if (!add)
    return f->sizek;
  k = realloc(f->k, ((size_t)f->sizek + 1) * sizeof *k);
  if (k == NULL) { c->o.oom = 1; return -1; }
  memset(&k[f->sizek], 0, sizeof *k);
  k[f->sizek].tag = BC_TINT;
  k[f->sizek].i = v;
  f->k = k;
  return f->sizek++;
}

/* Whether ADDI's signed operand can hold n. */
static int fits_sc(int64_t n) {
  return n >= -BC_OFFSET_SC && n <= BC_OFFSET_SC + 1;
}

static uint32_t adds_needed(rw_emitctx *c, int64_t n) {
  if (n == 0) return 0;
  if (fits_sc(n) || int_constant(c, n, 0) >= 0) return 1;
  if (n < 0) return (uint32_t)((-n + BC_OFFSET_SC - 1) / BC_OFFSET_SC);
  return (uint32_t)((n + BC_OFFSET_SC) / (BC_OFFSET_SC + 1));
}

/* Instructions of accounting code the count hook sees (overhead mode). */
static uint32_t accounting_cost(rw_emitctx *c, uint32_t n, int check,
                                int synced) {
  uint32_t k = 0;
  if (c->fused) return 0;  /* the hook never sees ACCT */
  if ((n > 0 || check) && !synced) k++;   /* GETUPVAL */
  if (n > 0) k += adds_needed(c, n) + 1;  /* ADDI..., SETUPVAL (overhead
                                            mode has no lazy increments) */
  if (check) k++;                       /* LTI (its JMP is not fetched) */
  return k;
}

uint32_t rw_settle_charge(rw_emitctx *c, uint32_t base, int check,
                          int synced) {
  uint32_t n, prev;
  if (c->opt->mode != RW_OVERHEAD || (base == 0 && !check))
    return base;
  n = base;
  do {
    prev = n;
    n = base + accounting_cost(c, prev, check, synced);
  } while (n != prev);
  return n;
}

/* The zero check: LTI r 0 k; JMP over; the slow path calls consume,
   writing r back first when it may be ahead of the cell. */
static void emit_check(rw_emitctx *c, int ahead, int line) {
  int r = c->r;
  rw_put(c, bc_abck(BC_OP_LTI, r, BC_OFFSET_SC, 0, 1), line, RW_J_NONE, 0);
  rw_put(c, bc_isj(BC_OP_JMP, ahead ? 4 : 3), line, RW_J_NONE, 0);
  if (ahead)
    rw_put(c, bc_abck(BC_OP_SETUPVAL, r, c->counter, 0, 0), line,
           RW_J_NONE, 0);
  rw_put(c, bc_abck(BC_OP_GETUPVAL, r, c->consume, 0, 0), line, RW_J_NONE, 0);
  rw_put(c, bc_abck(BC_OP_CALL, r, 1, 1, 0), line, RW_J_NONE, 0);
  rw_put(c, bc_abck(BC_OP_GETUPVAL, r, c->counter, 0, 0), line, RW_J_NONE, 0);
  c->stats->checks++;
}

void rw_emit_accts(rw_emitctx *c, int64_t n, int check, int check_first,
                   int line) {
  int first = 1;
  if (n != 0) c->stats->increments++;
  if (check) c->stats->checks++;
  do {
    int64_t step = n > BC_OFFSET_SBX ? BC_OFFSET_SBX
                 : n < -BC_OFFSET_SBX ? -BC_OFFSET_SBX : n;
    int last = n == step, mode = BC_ACCT_ADD;
    if (check && check_first && first) mode = BC_ACCT_CHECKADD;
    else if (check && !check_first && last) mode = BC_ACCT_ADDCHECK;
    rw_put(c, bc_set_bx(bc_abck(BC_OP_ACCT, mode, 0, 0, 0),
                        (int)step + BC_OFFSET_SBX), line, RW_J_NONE, 0);
    n -= step;
    first = 0;
  } while (n != 0);
}

void rw_emit_accounting(rw_emitctx *c, int64_t n, int check, int check_first,
                        int synced, int flush, int line) {
  int r = c->r, adds = n != 0, ahead;
  if (c->fused) {
    rw_emit_acct(c, n, check, check_first, line);
    return;
  }
  if (n == 0 && !check) {
    if (flush) {  /* a block that only writes back what r ran ahead */
      rw_put(c, bc_abck(BC_OP_SETUPVAL, r, c->counter, 0, 0), line,
             RW_J_NONE, 0);
      c->stats->flushes++;
    }
    return;
  }
  if (!synced)
    rw_put(c, bc_abck(BC_OP_GETUPVAL, r, c->counter, 0, 0), line,
           RW_J_NONE, 0);
  else
    c->stats->synced++;
  if (check && check_first) {
    emit_check(c, synced, line);
    check = 0;
  }
  if (n != 0) {
    int k = fits_sc(n) ? -1 : int_constant(c, n, 1);
    if (k >= 0) {
      rw_put(c, bc_abck(BC_OP_ADDK, r, r, k, 0), line, RW_J_NONE, 0);
      rw_put(c, bc_abck(BC_OP_MMBINK, r, k, RW_TM_ADD, 0), line, RW_J_NONE, 0);
    } else {
      while (n != 0) {  /* steps of at most 128 up or 127 down */
        int step = n > BC_OFFSET_SC + 1 ? BC_OFFSET_SC + 1
                 : n < -BC_OFFSET_SC ? -BC_OFFSET_SC : (int)n;
        rw_put(c, bc_abck(BC_OP_ADDI, r, r, step + BC_OFFSET_SC, 0), line,
               RW_J_NONE, 0);
        rw_put(c, bc_abck(BC_OP_MMBINI, r, step + BC_OFFSET_SC, RW_TM_ADD, 0),
               line, RW_J_NONE, 0);
        n -= step;
      }
    }
    c->stats->increments++;
  }
  ahead = adds || synced;  /* r holds the counter, maybe not the cell */
  if (flush && ahead) {
    rw_put(c, bc_abck(BC_OP_SETUPVAL, r, c->counter, 0, 0), line,
           RW_J_NONE, 0);
    if (!adds) c->stats->flushes++;
    ahead = 0;
  } else if (adds) {
    c->stats->lazy++;
  }
  if (check)  /* consume() reads the cell: write r back first if lazy */
    emit_check(c, ahead, line);
}

void rw_overhead_bases(rw_emitctx *c) {
  const rw_cfg *cfg = c->cfg;
  int i, pc;
  for (i = 0; i < cfg->nblocks; i++) {
    uint32_t n = 0;
    for (pc = cfg->b[i].start; pc <= cfg->b[i].end; pc++) {
      n += rw_instr_cost(c->f, pc, c->opt) + rw_trampolines(c, pc);
      if (bc_op(c->f->code[pc]) == BC_OP_LFALSESKIP) n++;
    }
    c->base[i] = n;
  }
  for (i = 0; i < cfg->nblocks; i++) {  /* sum folded blocks into roots */
    int r = i;
    while (cfg->b[r].fold_into >= 0) r = cfg->b[r].fold_into;
    if (r != i) {
      c->base[r] += c->base[i];
      c->base[i] = 0;
    }
  }
}

uint32_t rw_stub_charge(rw_emitctx *c, int pc, int ncopies) {
  if (c->opt->mode != RW_OVERHEAD)
    return rw_op_cost(bc_op(c->f->code[pc + 1]), c->opt);
  /* JMP to the stub, LFALSESKIP per copy, op, MMBIN, GETUPVAL (not on the
     lraf VM), JMP back */
  return rw_settle_charge(c, (uint32_t)(5 - c->fused + ncopies), 0, 0);
}

void rw_accounting_kinds(rw_emitctx *c) {
  const rw_cfg *cfg = c->cfg;
  int i;
  int overhead = c->opt->mode == RW_OVERHEAD;
  for (i = 0; i < cfg->nblocks; i++) {
    const rw_block *b = &cfg->b[i];
    int own = b->fold_into < 0 && (overhead ? c->base[i] > 0 : b->charge != 0);
    c->emits[i] = (unsigned char)(b->fold_into < 0 && (b->check || own));
    c->adds[i] = overhead ? c->emits[i] : (unsigned char)own;
  }
}
