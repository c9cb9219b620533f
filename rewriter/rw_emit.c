/*
** rw_emit.c - writing the rewritten code of one function: the driver
** (rw_emit), which emits the code until every jump fits, and its passes
** over the original code (emit_main) and the metamethod stubs
** (emit_stubs).
**
** Each accounting block starts with the code that pays for it: an
** increment of the counter and, at the function's entry and at loop
** headers, a zero check, or on the lraf VM one ACCT (rw_pay_at_start.c).  On
** the lraf VM something else may pay for a block instead: the jump that
** ends it, the TFORLOOP that goes back to it, or the call that enters
** the function (rw_pay_elsewhere.c); then, and for exact mode's refunds, the
** function carries a table of what it has charged ahead where a frame
** may be left (rw_ahead_table.c).  A loop that outgrows its jumps is widened
** and the code emitted again (rw_widen.c).  rw_finish.c makes the result
** f's own.  rw_code.h holds what these files share, and rw_code.c the
** output they put the code into.
**
** An arithmetic op's MMBIN* runs only when the op falls back to a
** metamethod, and the count hook counts it only then.  The rewriter
** replaces it with a JMP to a stub at the end of the function, which the
** op skips on its fast path just as it skipped the MMBIN.  The stub
** charges the MMBIN, repeats the op (which fails again, without side
** effects) and its MMBIN, and jumps back.
**
** LFALSESKIP becomes LOADFALSE + JMP, since accounting code may now
** stand between it and the instruction it would skip to.
**
** The lraf VM needs no metamethod stubs: its MMBIN* charge themselves
** when they run (lua_setacctmmbin), so the op and its MMBIN stay as they
** are.  With rw_options.lines, every block that pays for itself gets an
** ACCT (of 0 if need be), and the emitter notes which lines each ACCT
** and MMBIN* pays for (note_block, rw_lines.c).
*/
#include <stdlib.h>
#include <string.h>

#include "rw_ahead_table.h"
#include "rw_code.h"
#include "rw_emit.h"
#include "rw_finish.h"
#include "rw_lines.h"
#include "rw_names.h"
#include "rw_pay_at_start.h"
#include "rw_pay_elsewhere.h"
#include "rw_sync.h"
#include "rw_widen.h"

/* The lraf VM has no r to keep in sync: nothing synced, flushed, lazy. */
static int no_sync(const rw_cfg *cfg, rw_arena *a, rw_sync *s) {
  size_t n = (size_t)cfg->nblocks + 1;
  unsigned char *all = rw_arena_zalloc(a, 3 * n, 1);  /* one request */
  if (all == NULL) return 0;
  s->synced = all;
  s->flush = all + n;
  s->lazy = all + 2 * n;
  return 1;
}

/* ---- what each ACCT and MMBIN* pays for, per line (opt->lines) ---- */

static void note_cost(rw_emitctx *c, int at, int line, int64_t cost) {
  if (c->nlc == c->caplc) {
    int cap = c->caplc ? 2 * c->caplc : 64;
    bc_linecost *lc = realloc(c->lc, (size_t)cap * sizeof *lc);
    if (lc == NULL) { c->o.oom = 1; return; }
    c->lc = lc;
    c->caplc = cap;
  }
  c->lc[c->nlc].pc = at;
  c->lc[c->nlc].line = line;
  c->lc[c->nlc++].cost = cost;
}

/* Block bi pays for itself with the code emitted from at on, charging
   n: every such block gets an ACCT (of 0 if need be), whose runs the
   profiler counts.  Its lines must add up to n; what the overhead mode
   adds for the block's own accounting code is on the block's line. */
static void note_block(rw_emitctx *c, int at, int bi, int64_t n, int line) {
  int k;
  int64_t sum = 0;
  if (c->o.n == at)
    rw_put(c, bc_set_bx(bc_abck(BC_OP_ACCT, BC_ACCT_ADD, 0, 0, 0),
                        BC_OFFSET_SBX), line, RW_J_NONE, 0);
  for (k = c->blines.start[bi]; k < c->blines.start[bi + 1]; k++) {
    note_cost(c, at, c->blines.e[k].line, c->blines.e[k].cost);
    sum += c->blines.e[k].cost;
  }
  if (sum != n && c->opt->mode == RW_OVERHEAD)
    note_cost(c, at, line, n - sum);
  else if (sum != n)
    c->lc_bad = 1;
}

/* Each pass: the lines of every block's charge, from the cost of each
   original instruction (in the overhead mode with what rewriting adds
   to it: trampolines, LFALSESKIP's JMP). */
static int lines_pass(rw_emitctx *c) {
  bc_proto *f = c->f;
  uint32_t *pccost = malloc(((size_t)f->sizecode + 1) * sizeof *pccost);
  int pc, ok;
  c->nlc = 0;
  c->lc_bad = 0;
  rw_lines_free(&c->blines);
  if (pccost == NULL) return 0;
  for (pc = 0; pc < f->sizecode; pc++) {
    pccost[pc] = rw_instr_cost(f, pc, c->opt);
    if (c->opt->mode == RW_OVERHEAD)
      pccost[pc] += rw_trampolines(c, pc) +
                    (bc_op(f->code[pc]) == BC_OP_LFALSESKIP);
  }
  ok = rw_lines_build(f, c->cfg, pccost, c->lines, &c->blines);
  free(pccost);
  return ok;
}

static void emit_main(rw_emitctx *c) {
  bc_proto *f = c->f;
  const bc_instr *code = f->code;
  const unsigned char *wide = c->wide;
  int pc, t, size = f->sizecode;
  c->run = 0;
  c->paid = !c->refunds;
  c->ahead_lo = -1;
  f->entry = 0;
  f->entry_mode = 0;
  if (c->table) rw_note_ahead(c);
  for (pc = 0; pc < size; pc++) {
    bc_instr i = code[pc];
    int op = bc_op(i), bi = c->cfg->block_at[pc], line = rw_line_of(c, pc);
    c->cur_pc = pc;
    c->group[pc] = c->o.n;
    if (wide[pc])
      rw_emit_wide_head(c, pc, line);
    if (bi >= 0) {  /* a folded block may still write r back */
      const rw_block *b = &c->cfg->b[bi];
      int own = b->fold_into < 0, at = c->o.n;
      int64_t n = own ? rw_block_charge(c, bi) : 0;
      if (c->table) {  /* what its checking ACCT leaves charged ahead */
        c->cur_ahead = c->ain[bi] + (b->charges_ahead ? 0 : own ? b->charge
                                                                : 0);
        rw_note_ahead(c);
        c->run = c->ain[bi] + rw_head_charge(c, bi);
        c->paid = !c->refunds && c->run >= (int64_t)b->cost;
      }
      if (own && rw_pays_at_end(c, bi)) {
        /* its paying jump pays for it */
      } else if (own && rw_paid_by_tforloop(c, bi)) {
        /* its TFORLOOPACCT pays for it, as the loop goes on */
      } else if (bi == 0 && c->entry_in_proto) {  /* the VM, at the call */
        f->entry = n;
        f->entry_mode = b->charges_ahead ? BC_ACCT_CHECKADD
                                         : BC_ACCT_ADDCHECK;
        c->stats->increments++;
        c->stats->checks++;
        c->stats->paid_at_entry++;
      } else if (c->fused) {  /* rw_emit_accounting's first case */
        rw_emit_acct(c, n, own && b->check, b->charges_ahead, line);
      } else {
        rw_emit_accounting(c, n, own && b->check,
                           b->charges_ahead, c->sync.synced[bi],
                           c->sync.flush[bi], line);
      }
      if (own && c->lc_on) note_block(c, at, bi, n, line);
    }
    if (c->table) {  /* once pc was counted (the table of a block that
                        pays at its end takes only what is below 0) */
      if (c->paid) {
        c->cur_ahead = 0;
      } else {
        c->cur_ahead = (c->run -= rw_instr_cost(f, pc, c->opt));
        rw_note_ahead(c);
      }
    }
    c->pos[pc] = c->o.n;
    if (wide[pc] && rw_emit_wide(c, pc, line)) {
      continue;
    } else if (op == BC_OP_LFALSESKIP) {
      rw_put(c, bc_abck(BC_OP_LOADFALSE, bc_a(i), 0, 0, 0), line,
             RW_J_NONE, 0);
      rw_put(c, bc_isj(BC_OP_JMP, 0), line, RW_J_GROUP, pc + 2);
    } else if (!c->fused && bc_mmbin_pair(f, pc)) {
      rw_put(c, i, line, RW_J_NONE, 0);
      c->stub_pc[c->nstubs] = pc;
      pc++;
      c->group[pc] = c->pos[pc] = c->o.n;
      rw_put(c, bc_isj(BC_OP_JMP, 0), rw_line_of(c, pc), RW_J_STUB,
             c->nstubs++);
    } else if (bc_jump_target(i, pc, &t)) {
      int m = c->cfg->block_of[pc], r = -1;
      if (c->tails && m >= 0 && c->cfg->b[m].end == pc) r = c->tail_pays[m];
      if (r >= 0 && rw_pays_at_end(c, r))
        rw_emit_paying_jump(c, pc, r, t, line);
      else if (op == BC_OP_TFORLOOP &&
               rw_paid_by_tforloop(c, c->cfg->block_at[t]))
        rw_emit_paying_jump(c, pc, c->cfg->block_at[t], t, line);
      else
        rw_put(c, i, line, op == BC_OP_TFORPREP ? RW_J_INSTR : RW_J_GROUP, t);
    } else {
      if (c->lc_on && (op == BC_OP_MMBIN || op == BC_OP_MMBINI ||
                       op == BC_OP_MMBINK))  /* charges itself when run */
        note_cost(c, c->o.n, line, rw_op_cost(op, c->opt));
      rw_put(c, i, line, RW_J_NONE, 0);
    }
  }
}

/* At least as many as the stubs emit_main will make (stock target). */
static size_t count_stubs(const bc_proto *f) {
  size_t n = 1;
  int pc;
  for (pc = 0; pc < f->sizecode; pc++)
    n += bc_mmbin_pair(f, pc) != 0;
  return n;
}

static void emit_stubs(rw_emitctx *c) {
  bc_proto *f = c->f;
  int s, k;
  c->cur_pc = -1;
  for (s = 0; s < c->nstubs; s++) {
    int pc = c->stub_pc[s], nset = c->nsetters[pc];
    int bi = c->cfg->block_of[pc], lazy = bi >= 0 && c->sync.lazy[bi];
    const int *setters = &c->setters[2 * pc];
    int line = rw_line_of(c, pc + 1);
    c->stub_start[s] = c->o.n;
    /* in a lazy block r is valid and may be ahead: charge it and write
       it back, since the metamethod or the error may read the cell */
    rw_emit_accounting(c, rw_stub_charge(c, pc, nset), 0, 0, lazy, 1, line);
    for (k = 0; k < nset; k++) {  /* never run: names for error messages */
      rw_put(c, bc_abck(BC_OP_LFALSESKIP, c->r, 0, 0, 0), line, RW_J_NONE, 0);
      rw_put(c, f->code[setters[k]], line, RW_J_NONE, 0);
      c->used_r = 1;
    }
    rw_put(c, f->code[pc], rw_line_of(c, pc), RW_J_NONE, 0);
    rw_put(c, f->code[pc + 1], line, RW_J_NONE, 0);
    /* the metamethod may have charged: r holds the counter again */
    if (!c->fused)
      rw_put(c, bc_abck(BC_OP_GETUPVAL, c->r, c->counter, 0, 0), line,
             RW_J_NONE, 0);
    rw_put(c, bc_isj(BC_OP_JMP, 0), line, RW_J_GROUP, pc + 2);
    c->stub_end[s] = c->o.n;
    c->stats->stubs++;
  }
}

lraf_status rw_emit(bc_proto *f, const rw_cfg *cfg, const rw_options *opt,
                    int counter, int consume, const char *path, rw_arena *a,
                    rw_stats *stats, lraf_error *err) {
  rw_emitctx c;
  size_t n = (size_t)f->sizecode + 1, nb = (size_t)cfg->nblocks + 1;
  size_t ns = opt->target == RW_LRAVM ? 1 : count_stubs(f);
  int *ints;
  unsigned char *bytes;
  lraf_status st = LRAF_OK;
  rw_stats saved;
  int main_end, fit = 0;
  memset(&c, 0, sizeof c);
  c.f = f; c.cfg = cfg; c.opt = opt; c.path = path; c.stats = stats;
  c.r = f->maxstacksize; c.counter = counter; c.consume = consume;
  c.fused = opt->target == RW_LRAVM;
  c.lc_on = c.fused && opt->lines;
  c.a = a;
  c.refunds = rw_refunds(opt);
  c.ain = rw_arena_alloc(a, nb, sizeof *c.ain);
  /* (arrays of like lifetime and type come from one request: fewer of
     them) */
  if ((ints = rw_arena_alloc(a, 3 * n + 3 * ns, sizeof(int))) != NULL) {
    c.group = ints;
    c.pos = ints + n;
    c.lines = ints + 2 * n;
    c.stub_pc = ints + 3 * n;
    c.stub_start = ints + 3 * n + ns;
    c.stub_end = ints + 3 * n + 2 * ns;
  }
  if (opt->mode == RW_OVERHEAD)  /* (only that mode's costs use it) */
    c.base = rw_arena_zalloc(a, nb, sizeof(uint32_t));
  if ((bytes = rw_arena_zalloc(a, 2 * nb + n, 1)) != NULL) {
    c.emits = bytes;
    c.adds = bytes + nb;
    c.wide = bytes + 2 * nb;
  }
  if ((ints = rw_arena_alloc(a, 2 * nb, sizeof(int))) != NULL) {
    c.tail = ints;
    c.tail_pays = ints + nb;
  }
  if (!c.fused) {  /* stubs name what the op sets (rw_names.c) */
    c.setters = rw_arena_alloc(a, 2 * n, sizeof(int));
    c.nsetters = rw_arena_alloc(a, n, 1);
  }
  if (!c.group || !c.pos || !c.lines || !c.stub_pc || !c.stub_start ||
      !c.stub_end || !c.emits || !c.adds || !c.wide || !c.ain || !c.tail ||
      !c.tail_pays || (opt->mode == RW_OVERHEAD && !c.base) ||
      (!c.fused && (!c.setters || !c.nsetters ||
                    !rw_name_setters(f, c.setters, c.nsetters)))) {
    st = err_fail(err, LRAF_EMEM, "out of memory rewriting %s", path);
    goto done;
  }
  bc_getlines(f, c.lines);
  if (rw_tail_payments(opt)) {  /* what pays elsewhere (rw_pay_elsewhere.c) */
    c.tails = rw_tail_blocks(&c);
    c.entry_in_proto = rw_entry_charge(&c);
    rw_tfor_bodies(&c);
  }
  c.table = c.tails || c.refunds;
  saved = *stats;
  do {  /* emit, widening loops until every jump fits */
    c.o.n = 0;
    c.o.njumps = 0;
    c.o.nleaves = 0;
    c.nstubs = 0;
    if (fit > 0) *stats = saved;  /* a retry counts afresh */
    if (c.table) {  /* a FORLOOP made wide pays at its head instead */
      int ok = rw_compute_ahead(&c);
      if (ok < 0) {
        st = err_fail(err, LRAF_EMEM, "out of memory rewriting %s", path);
        goto done;
      }
      if (ok == 0) {
        st = err_fail(err, LRAF_EREWRITE, "%s: what is charged ahead "
                      "depends on the path (an error of the rewriter)", path);
        goto done;
      }
    }
    if (opt->mode == RW_OVERHEAD)
      rw_overhead_bases(&c);
    if (!c.fused) rw_accounting_kinds(&c);  /* for rw_sync_find */
    if (c.lc_on && !lines_pass(&c)) {
      st = err_fail(err, LRAF_EMEM, "out of memory rewriting %s", path);
      goto done;
    }
    c.used_r = 0;
    if (c.fused ? !no_sync(cfg, a, &c.sync)
        : !rw_sync_find(f, cfg, c.emits, c.adds, opt->mode != RW_OVERHEAD,
                        a, &c.sync)) {
      st = err_fail(err, LRAF_EMEM, "out of memory rewriting %s", path);
      goto done;
    }
    emit_main(&c);
    main_end = c.o.n;
    emit_stubs(&c);
    if (c.o.oom) {
      st = err_fail(err, LRAF_EMEM, "out of memory rewriting %s", path);
      goto done;
    }
    fit = rw_resolve_jumps(&c);
  } while (fit > 0);
  if (fit < 0) {
    st = err_fail(err, LRAF_ELIMIT, "a jump in %s is too long after "
                  "rewriting (more than %d instructions)", path,
                  BC_OFFSET_SJ);
    goto done;
  }
  st = rw_finish(&c, main_end);
  if (st == LRAF_ELIMIT)
    err_fail(err, st, "a charge in %s is too large for exact mode's table "
             "of refunds", path);
  else if (st != LRAF_OK)
    err_fail(err, st, "out of memory rewriting %s", path);
done:  /* (what rw_finish made f's own is no longer in c.o) */
  rw_code_free(&c.o);
  if (c.lc_on) {  /* the profile's tables (lines_pass, note_cost) */
    rw_lines_free(&c.blines);
    free(c.lc);
  }
  return st;
}
