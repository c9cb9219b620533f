/*
** rw_widen.c - the emitted jumps' offsets, and loops too long for them.
**
** Loop instructions reach only 2^17-1 instructions.  When a loop body
** outgrows that, rw_resolve_jumps finds it and the loop is "widened":
** the function is emitted again with the loop's instructions jumping to
** trampoline JMPs next to them (the layouts at rw_emit_wide_head), and
** each block running a trampoline is charged for it in overhead mode
** (rw_trampolines).  A jump that widening cannot help (a JMP, or one of
** the wide forms' own) makes the rewrite fail.
*/
#include "rw_widen.h"

/* Widened loops, with T a trampoline JMP:
     FORPREP   ->  FORPREP A 0; T body; T exit
     FORLOOP   ->  JMP +1; B: T body; FORLOOP A ->B; T next
     TFORPREP  ->  TFORPREP A ->C; B: T body; C: TFORCALL; TFORLOOP ->B;
                   T exit
     TFORCALL  ->  JMP +1; B: T body; accounting; TFORCALL; TFORLOOP ->B;
                   T exit
   TFORPREP enters a copy of the TFORCALL pair placed next to it, so the
   original pair is reached only from the body.  Every run of a FORPREP or
   TFORPREP takes one trampoline, of a FORLOOP or TFORCALL two. */
void rw_emit_wide_head(rw_emitctx *c, int pc, int line) {
  int body;
  if (bc_op(c->f->code[pc]) != BC_OP_TFORCALL ||
      !bc_jump_target(c->f->code[pc + 1], pc + 1, &body))
    return;
  rw_put(c, bc_isj(BC_OP_JMP, 0), line, RW_J_REL, 2);
  c->b2 = c->o.n;
  rw_put(c, bc_isj(BC_OP_JMP, 0), line, RW_J_GROUP, body);
}

int rw_emit_wide(rw_emitctx *c, int pc, int line) {
  bc_proto *f = c->f;
  bc_instr i = f->code[pc], jmp = bc_isj(BC_OP_JMP, 0);
  int t;
  if (!bc_jump_target(i, pc, &t)) return 0;
  switch (bc_op(i)) {
    case BC_OP_FORPREP:
      c->stats->widened++;
      rw_put(c, i, line, RW_J_REL, 2);
      rw_put(c, jmp, line, RW_J_GROUP, pc + 1);
      rw_put(c, jmp, line, RW_J_GROUP, t);
      return 1;
    case BC_OP_FORLOOP:
      rw_put(c, jmp, line, RW_J_REL, 2);
      rw_put(c, jmp, line, RW_J_GROUP, t);
      rw_put(c, i, line, RW_J_REL, -1);
      rw_put(c, jmp, line, RW_J_GROUP, pc + 1);
      return 1;
    case BC_OP_TFORPREP:
      c->stats->widened++;
      rw_put(c, i, line, RW_J_REL, 2);
      rw_put(c, jmp, line, RW_J_GROUP, pc + 1);
      rw_put(c, f->code[t], rw_line_of(c, t), RW_J_NONE, 0);
      rw_put(c, f->code[t + 1], rw_line_of(c, t + 1), RW_J_REL, -2);
      rw_put(c, jmp, line, RW_J_GROUP, t + 2);
      return 1;
    case BC_OP_TFORLOOP:
      rw_put(c, i, line, RW_J_REL, c->b2 - c->o.n);
      rw_put(c, jmp, line, RW_J_GROUP, pc + 1);
      return 1;
    default:
      return 0;
  }
}

/* Mark the loop whose instruction at pc cannot reach its target as
   wide: both of its loop instructions, and the TFORCALL of a generic
   loop.  Returns 0 if pc is no loop instruction. */
static int widen(rw_emitctx *c, int pc) {
  bc_instr i;
  int t;
  if (pc < 0) return 0;
  if (c->wide[pc]) return 1;  /* its partner was marked in this pass */
  i = c->f->code[pc];
  if (!bc_jump_target(i, pc, &t) || t < 1) return 0;
  switch (bc_op(i)) {
    case BC_OP_FORPREP: case BC_OP_FORLOOP:
      c->wide[pc] = c->wide[t - 1] = 1;
      return 1;
    case BC_OP_TFORPREP:
      c->wide[pc] = c->wide[t] = c->wide[t + 1] = 1;
      return 1;
    case BC_OP_TFORLOOP:
      c->wide[pc] = c->wide[pc - 1] = c->wide[t - 1] = 1;
      return 1;
    default:
      return 0;
  }
}

int rw_resolve_jumps(rw_emitctx *c) {
  rw_emitout *o = &c->o;
  int k, again = 0;
  for (k = 0; k < o->njumps; k++) {
    const rw_emitjump *j = &o->jumps[k];
    int n = j->at, t;
    switch (j->kind) {
      case RW_J_GROUP: t = c->group[j->ref]; break;
      case RW_J_INSTR: t = c->pos[j->ref]; break;
      case RW_J_STUB: t = c->stub_start[j->ref]; break;
      case RW_J_REL: t = n + j->ref; break;
      default: continue;
    }
    if (bc_set_jump_target(&o->code[n], n, t))
      continue;
    if (j->kind == RW_J_REL || bc_op(o->code[n]) == BC_OP_JMP ||
        !widen(c, j->src))
      return -1;
    again = 1;
  }
  return again;
}
