/*
** rw_widen.h - the emitted jumps' offsets, and the wide forms of loops
** too long for them (rw_widen.c), for the emitter.
*/
#ifndef RW_WIDEN_H
#define RW_WIDEN_H

#include "rw_code.h"

/* Trampoline JMPs that every run of a widened pc executes (the wide
   forms at rw_emit_wide_head). */
static inline uint32_t rw_trampolines(const rw_emitctx *c, int pc) {
  if (!c->wide[pc]) return 0;
  switch (bc_op(c->f->code[pc])) {
    case BC_OP_FORPREP: case BC_OP_TFORPREP: return 1;
    case BC_OP_FORLOOP: case BC_OP_TFORCALL: return 2;
    default: return 0;
  }
}

/* Before the accounting code of a widened pc: a TFORCALL's jump over
   the trampoline that its TFORLOOP goes back through. */
void rw_emit_wide_head(rw_emitctx *c, int pc, int line);
/* The wide form of the loop instruction at pc, in place of it; 0 when
   it needs none (nothing is put then). */
int rw_emit_wide(rw_emitctx *c, int pc, int line);

/* Set every jump offset.  Returns 0 when all fit, 1 when some loops
   were widened and the code must be emitted again, -1 when a jump that
   cannot be widened does not fit. */
int rw_resolve_jumps(rw_emitctx *c);

#endif
