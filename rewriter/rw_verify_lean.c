/*
** rw_verify_lean.c - the lean structural check of code rewritten in memory for
** the lraf VM: what bc_check_code would find, checked only where
** rewriting changed the code.
**
** Why that is enough.  The original code is what Lua's own parser made
** of the source in this state, and Lua runs such code unchecked: its
** operands are in range, its pairs (test + JMP, op + MMBIN*, op +
** EXTRAARG, TFORCALL + TFORLOOP) are intact, VARARGPREP comes first and
** the last instruction returns.  Rewriting for the lraf VM keeps the
** constants, upvalues, nested functions and stack size, and changes the
** code only by
**   - inserting ACCTs (whose one operand that matters is its mode),
**   - moving jumps: a jump keeps its opcode and register and gets a new
**     offset,
**   - making a JMP that no test runs a JMPACCT, or a FORLOOP (TFORLOOP)
**     a FORLOOPACCT (TFORLOOPACCT) of the same register, each followed
**     by its ACCT,
**   - making LFALSESKIP a LOADFALSE of the same register and a JMP.
** The check walks the new code against the original, one instruction of
** each at a time: every other instruction must equal its original bit
** for bit, so its operands are the parser's and in range, since no size
** they index changed.  What it checks is what changed: an ACCT's mode;
** that no ACCT stands after an instruction that needs a particular next
** one (the only way a copied pair could come apart, as the copies keep
** their order); every jump's target inside the code, and a TFORPREP's
** on the matching TFORCALL; VARARGPREP still first; the last
** instruction still returning; and that the original code is used up.
** Anything else (the wide loop forms of very long loops, another stack
** size, or a bug) makes it answer 0, and the caller runs bc_check_code.
** Line information and local variables are rewritten as a whole and
** are checked as before (bc_check_debug).
*/
#include "rw_verify_lean.h"

/* Whether the jump i at pc of f lands inside the code (and a TFORPREP
   on its TFORCALL); with back, notes a jump back that rw_verify.c's
   first look would stop at. */
static int jump_ok(const bc_proto *f, bc_instr i, int pc, int *back) {
  int t;
  if (!bc_jump_target(i, pc, &t) || t < 0 || t >= f->sizecode) return 0;
  if (back != NULL && t <= pc && !*back)
    *back = rw_back_unchecked(f, pc, t);
  if (bc_op(i) == BC_OP_TFORPREP)
    return bc_op(f->code[t]) == BC_OP_TFORCALL &&
           bc_a(f->code[t]) == bc_a(i);
  return 1;
}

/* A paying jump at n is followed by its ACCT, and a FORLOOPACCT's or
   TFORLOOPACCT's exit lands inside the code; 1 for any other
   instruction. */
static int acct_follows(const bc_proto *f, bc_instr i, int n) {
  int op = bc_op(i);
  if (!bc_is_paying_jump(op)) return 1;
  return n + 1 < f->sizecode && bc_op(f->code[n + 1]) == BC_OP_ACCT &&
         (op == BC_OP_JMPACCT || n + 2 < f->sizecode);
}

int rw_verify_lean_code(const bc_proto *f, const rw_original *o) {
  return rw_verify_lean_scan(f, o, NULL);
}

/* Every jump of the new code is met below: a copied instruction (the
   default case) is its original, which is no jump, an ACCT is none, and
   the others are the cases that call jump_ok. */
int rw_verify_lean_scan(const bc_proto *f, const rw_original *o, int *back) {
  const bc_instr *in = o->code;
  int n, j = 0, m = o->sizecode;
  if (back != NULL) *back = 0;
  if (f->maxstacksize != o->maxstacksize || f->sizek != o->sizek ||
      f->sizeupvalues != o->sizeupvalues || f->sizep != o->sizep ||
      f->sizecode < 1 || m < 1)
    return 0;
  if (bc_op(in[0]) == BC_OP_VARARGPREP && f->code[0] != in[0])
    return 0;
  for (n = 0; n < f->sizecode; n++) {
    bc_instr i = f->code[n], orig;
    int op = bc_op(i), oop;
    if (op == BC_OP_ACCT) {  /* inserted, or a paying jump's */
      int need = n > 0 ? bc_required_next(f->code[n - 1]) : -1;
      if (bc_a(i) > BC_ACCT_ADD || (need >= 0 && need != BC_OP_ACCT))
        return 0;
      continue;
    }
    if (j >= m) return 0;
    orig = in[j++];
    oop = bc_op(orig);
    switch (oop) {
      case BC_OP_JMP:  /* a test's must stay a JMP: the test runs it */
        if ((op != BC_OP_JMP && (op != BC_OP_JMPACCT || n == 0 ||
                                 bc_required_next(f->code[n - 1]) ==
                                   BC_OP_JMP)) ||
            !jump_ok(f, i, n, back) || !acct_follows(f, i, n))
          return 0;
        break;
      case BC_OP_FORLOOP: case BC_OP_FORPREP: case BC_OP_TFORPREP:
      case BC_OP_TFORLOOP:
        if ((op != oop &&
             !(oop == BC_OP_FORLOOP && op == BC_OP_FORLOOPACCT) &&
             !(oop == BC_OP_TFORLOOP && op == BC_OP_TFORLOOPACCT)) ||
            bc_a(i) != bc_a(orig) || !jump_ok(f, i, n, back) ||
            !acct_follows(f, i, n))
          return 0;
        break;
      case BC_OP_LFALSESKIP:
        if (op != BC_OP_LOADFALSE || bc_a(i) != bc_a(orig) ||
            n + 1 >= f->sizecode || bc_op(f->code[n + 1]) != BC_OP_JMP ||
            !jump_ok(f, f->code[n + 1], n + 1, back))
          return 0;
        n++;
        break;
      default:
        if (i != orig) return 0;
        break;
    }
  }
  return j == m &&
         (bc_opinfo_of(bc_op(f->code[f->sizecode - 1]))->flags &
          BC_OPF_ENDS) != 0;
}
