/*
** rw_code.h - the code the emitter writes for one function, and what it
** keeps beside it: the context that rw_emit.c and the files it calls
** (rw_pay_at_start.c, rw_pay_elsewhere.c, rw_ahead_table.c,
** rw_widen.c, rw_finish.c) share while they write it (rw_emitctx), and
** the output they put it into, one instruction at a time (rw_put;
** rw_code.c grows it).
*/
#ifndef RW_CODE_H
#define RW_CODE_H

#include "rw_cfg.h"
#include "rw_lines.h"
#include "rw_sync.h"

/* How an emitted instruction's jump target is found: none; the group of
   an original pc; an original pc's instruction itself; a stub; an
   offset from the instruction's own index. */
enum { RW_J_NONE, RW_J_GROUP, RW_J_INSTR, RW_J_STUB, RW_J_REL };

/* An emitted instruction whose jump target rw_resolve_jumps sets. */
typedef struct rw_emitjump {
  int at;            /* its index */
  int kind, ref;     /* RW_J_*, and what the target is found from */
  int src;           /* original pc being emitted, -1 in stubs */
} rw_emitjump;

/* An emitted instruction where a frame may be left (rw_may_leave) with
   something charged ahead, for the table of what is (rw_ahead_table.c). */
typedef struct rw_emitleave {
  int64_t ahead;     /* charged ahead once it was counted */
  int at;            /* its index */
} rw_emitleave;

/* The emitted code and what is kept beside it, in arrays from malloc
   that grow by realloc (rw_grow), freed by rw_code_free. */
typedef struct rw_emitout {
  bc_instr *code;
  int *line;          /* per instruction: its source line */
  int n, cap;
  rw_emitjump *jumps; /* in the order emitted */
  int njumps, capjumps;
  rw_emitleave *leaves; /* with a table (rw_emitctx.table), in the order
                           emitted */
  int nleaves, capleaves;
  int oom;
} rw_emitout;

typedef struct rw_emitctx {
  bc_proto *f;
  const rw_cfg *cfg;
  const rw_options *opt;
  int r, counter, consume;
  const char *path;
  rw_emitout o;
  int *group;        /* pc -> first emitted index of pc's group */
  int *pos;          /* pc -> emitted index of the instruction itself */
  int *lines;        /* pc -> source line (bc_getlines) */
  uint32_t *base;    /* per block, overhead mode: cost of its own code */
  unsigned char *emits;   /* per block: has accounting code of its own */
  unsigned char *adds;    /* per block: that code adds to r */
  rw_sync sync;           /* where r holds the counter, or runs ahead */
  int nstubs;
  int *stub_pc, *stub_start, *stub_end;
  unsigned char *wide;  /* pc -> loop instruction widened */
  int *setters;         /* pc -> rw_name_setters of an op with MMBIN */
  unsigned char *nsetters;
  int cur_pc;           /* original pc being emitted */
  int b2;               /* index of the last wide TFORCALL's back JMP */
  rw_stats *stats;
  rw_arena *a;          /* everything above but o, lc and f's own arrays */
  int fused;            /* target RW_LRAVM: ACCT instead of r */
  int used_r;           /* fused code that still uses r (stub names) */
  int lc_on;            /* fused, opt->lines: say what each ACCT pays */
  rw_lines blines;      /* per block, the lines its increment pays for */
  bc_linecost *lc;      /* per ACCT and MMBIN*: its lines, by pc */
  int nlc, caplc;
  int lc_bad;           /* some charge does not split into its lines */
  int refunds;          /* rw_refunds: the table of what is charged ahead */
  int table;            /* a table of what is charged ahead (refunds) or
                           behind (blocks paid at their end) where a frame
                           may be left; without refunds only what is
                           behind */
  int64_t *ain;         /* per block: ahead before its ACCT (with a table) */
  int64_t cur_ahead;    /* what rw_put() records for the next instructions */
  int tails;            /* some block pays at the jump that ends it */
  int entry_in_proto;   /* the first block's charge is the function's
                           entry charge (rw_entry_charge) */
  int *tfor_body;       /* per block: -1, or the pc of the TFORLOOP that
                           pays for it ahead (rw_tfor_bodies); NULL: none */
  int *tail;            /* with tails, per block: -1, or the block whose
                           ending jump pays for it (rw_tail_blocks) */
  int *tail_pays;       /* per block: -1, or the block that its ending
                           jump pays for */
  int64_t run;          /* what is charged ahead (below 0: run and not yet
                           paid) once the pc being emitted was counted */
  int paid;             /* without refunds: nothing in the block being
                           emitted runs unpaid (run stays at 0 or more) */
  int ahead_lo;         /* this pass: the first emitted index that may
                           have an entry in the table, -1 for none */
} rw_emitctx;

/* Room for more output: 0 when out of memory (o->oom is set, now or
   before: then nothing more is put, the output being lost anyway). */
int rw_grow(rw_emitctx *c);

/* Room for more jumps: 0 when out of memory (o->oom is set). */
int rw_grow_jumps(rw_emitctx *c);

/* Room for more leaves: 0 when out of memory (o->oom is set). */
int rw_grow_leaves(rw_emitctx *c);

/* Whether a frame may be left at the emitted instruction i, by an error
   or a yield: it calls or raises, or it is an ACCT that checks. */
static inline int rw_may_leave(bc_instr i) {
  int op = bc_op(i);
  if (op == BC_OP_ACCT) return bc_a(i) != BC_ACCT_ADD;
  if (op == BC_OP_TFORLOOPACCT) return 1;  /* its check */
  return (bc_opinfo_of(op)->flags & (BC_OPF_CALLS | BC_OPF_ERRORS)) != 0;
}

/* Note that emitted instruction n is a jump of kind jkind (not RW_J_NONE)
   to jref.  (Inline like rw_put: a call into another file at every
   jump cost the emitting loops more than the few stores it makes.) */
static inline void rw_put_jump(rw_emitctx *c, int n, int jkind, int jref) {
  rw_emitout *o = &c->o;
  rw_emitjump *j;
  if (o->njumps == o->capjumps && !rw_grow_jumps(c)) return;
  j = &o->jumps[o->njumps++];
  j->at = n;
  j->kind = jkind;
  j->ref = jref;
  j->src = c->cur_pc;
}

/* Put instruction i, of source line line, and note its jump target
   (rw_resolve_jumps sets it).
   (n is read once: a store through one of the arrays could otherwise be
   taken to change it.  Out of memory is seen when the arrays are full:
   what is put until then is lost with the output.  jkind is a constant
   at most calls, RW_J_NONE at most of those.) */
static inline void rw_put(rw_emitctx *c, bc_instr i, int line, int jkind,
                          int jref) {
  rw_emitout *o = &c->o;
  int n = o->n;
  if (n == o->cap && !rw_grow(c)) return;
  o->n = n + 1;
  o->code[n] = i;
  o->line[n] = line;
  if (c->table && c->cur_ahead != 0 && rw_may_leave(i) &&
      (o->nleaves < o->capleaves || rw_grow_leaves(c))) {
    o->leaves[o->nleaves].ahead = c->cur_ahead;
    o->leaves[o->nleaves++].at = n;
  }
  if (jkind != RW_J_NONE) rw_put_jump(c, n, jkind, jref);
}

/* The source line of original pc. */
static inline int rw_line_of(const rw_emitctx *c, int pc) {
  return c->lines[pc];
}

/* Free o's arrays and clear it. */
void rw_code_free(rw_emitout *o);

#endif
