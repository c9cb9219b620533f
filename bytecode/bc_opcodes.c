/*
** bc_opcodes.c - the Lua 5.4 opcode property table, instruction
** constructors and the properties that depend on operands (required
** successors, open stack top, hook counting, jump targets).
*/
#include "bc.h"

#define T BC_OPF_TEST
#define J BC_OPF_JUMP
#define M BC_OPF_MMBIN
#define C BC_OPF_CALLS
#define E BC_OPF_ERRORS
#define R BC_OPF_ENDS
#define U BC_OPF_UNCOUNTED
#define S BC_OPF_SKIPNEXT

#define ABC BC_FMT_ABC
#define ABX BC_FMT_ABX
#define ASBX BC_FMT_ASBX
#define AX BC_FMT_AX
#define SJ BC_FMT_SJ

/*
** CALLS: the op may call a function (a call, an iterator or a
** metamethod: __index, __newindex, __eq, __lt, __le, __len, __unm,
** __bnot, __concat, __close, arithmetic ones through MMBIN*).
** GC steps (NEWTABLE, CONCAT, CLOSURE, CALL, VARARG) may also run
** __gc finalizers, but Lua runs those with hooks off and turns their
** errors into warnings, so that alone does not set CALLS.
** ERRORS: the op may raise an error, including memory errors (table,
** closure and upvalue creation, stack growth) and integer division or
** modulo by zero (MOD, IDIV, MODK, IDIVK).  Arithmetic on wrong types
** does not fail in the op itself: it falls through to its MMBIN*.
*/
const bc_opinfo bc_opinfo_table[BC_OP_LAST + 1] = {
  {"MOVE", ABC, 0},
  {"LOADI", ASBX, 0},
  {"LOADF", ASBX, 0},
  {"LOADK", ABX, 0},
  {"LOADKX", ABX, 0},
  {"LOADFALSE", ABC, 0},
  {"LFALSESKIP", ABC, S},
  {"LOADTRUE", ABC, 0},
  {"LOADNIL", ABC, 0},
  {"GETUPVAL", ABC, 0},
  {"SETUPVAL", ABC, 0},
  {"GETTABUP", ABC, C | E},
  {"GETTABLE", ABC, C | E},
  {"GETI", ABC, C | E},
  {"GETFIELD", ABC, C | E},
  {"SETTABUP", ABC, C | E},
  {"SETTABLE", ABC, C | E},
  {"SETI", ABC, C | E},
  {"SETFIELD", ABC, C | E},
  {"NEWTABLE", ABC, E},
  {"SELF", ABC, C | E},
  {"ADDI", ABC, M},
  {"ADDK", ABC, M},
  {"SUBK", ABC, M},
  {"MULK", ABC, M},
  {"MODK", ABC, M | E},
  {"POWK", ABC, M},
  {"DIVK", ABC, M},
  {"IDIVK", ABC, M | E},
  {"BANDK", ABC, M},
  {"BORK", ABC, M},
  {"BXORK", ABC, M},
  {"SHRI", ABC, M},
  {"SHLI", ABC, M},
  {"ADD", ABC, M},
  {"SUB", ABC, M},
  {"MUL", ABC, M},
  {"MOD", ABC, M | E},
  {"POW", ABC, M},
  {"DIV", ABC, M},
  {"IDIV", ABC, M | E},
  {"BAND", ABC, M},
  {"BOR", ABC, M},
  {"BXOR", ABC, M},
  {"SHL", ABC, M},
  {"SHR", ABC, M},
  {"MMBIN", ABC, C | E},
  {"MMBINI", ABC, C | E},
  {"MMBINK", ABC, C | E},
  {"UNM", ABC, C | E},
  {"BNOT", ABC, C | E},
  {"NOT", ABC, 0},
  {"LEN", ABC, C | E},
  {"CONCAT", ABC, C | E},
  {"CLOSE", ABC, C | E},
  {"TBC", ABC, E},  /* non-closable value */
  {"JMP", SJ, J},
  {"EQ", ABC, T | C | E},
  {"LT", ABC, T | C | E},
  {"LE", ABC, T | C | E},
  {"EQK", ABC, T},  /* raw equality with a constant */
  {"EQI", ABC, T},
  {"LTI", ABC, T | C | E},
  {"LEI", ABC, T | C | E},
  {"GTI", ABC, T | C | E},
  {"GEI", ABC, T | C | E},
  {"TEST", ABC, T},
  {"TESTSET", ABC, T},
  {"CALL", ABC, C | E},
  {"TAILCALL", ABC, C | E | R},
  {"RETURN", ABC, C | E | R},  /* with k it closes upvalues: __close */
  {"RETURN0", ABC, R},
  {"RETURN1", ABC, R},
  {"FORLOOP", ABX, J},
  {"FORPREP", ABX, J | E},  /* 'for' initial value must be a number */
  {"TFORPREP", ABX, J | E},  /* to-be-closed 4th value */
  {"TFORCALL", ABC, C | E},
  {"TFORLOOP", ABX, J | U},  /* run by TFORCALL itself */
  {"SETLIST", ABC, E},  /* array growth */
  {"CLOSURE", ABX, E},
  {"VARARG", ABC, E},  /* stack growth */
  {"VARARGPREP", ABC, E},  /* stack growth */
  {"EXTRAARG", AX, U},
  /* the lraf VM's instruction: never fetched as far as the hook knows */
  {"ACCT", ASBX, U},
  /* its fused loop jumps: counted as the JMP and FORLOOP they are */
  {"JMPACCT", SJ, J},
  {"FORLOOPACCT", ABX, J},
  {"TFORLOOPACCT", ABX, J | U},  /* run by TFORCALL itself, as TFORLOOP */
};


const char *bc_opname(int op) {
  const bc_opinfo *oi = bc_opinfo_of(op);
  return oi != NULL ? oi->name : "?";
}

static int has_flag(bc_instr i, unsigned flag) {
  const bc_opinfo *oi = bc_opinfo_of(bc_op(i));
  return oi != NULL && (oi->flags & flag) != 0;
}

/* ------------------------------------------------------------------ */

/* The instruction constructors (bc_abck...) are inline in bc.h. */

/* bc_needs_extraarg, bc_uses_top, bc_sets_top and bc_required_next are
   inline in bc.h.  NEWTABLE always skips the next instruction (its
   EXTRAARG is 0 when k is clear); SETLIST reads one only with k. */

int bc_hook_counts(bc_instr i) {
  int op = bc_op(i);
  if (bc_opinfo_of(op) == NULL) return 0;
  return !has_flag(i, BC_OPF_UNCOUNTED) && op != BC_OP_VARARGPREP;
}

/* ------------------------------------------------------------------ */

/* bc_jump_target is inline in bc.h; here its inverse. */
static int set_bx_checked(bc_instr *i, long bx) {
  if (bx < 0 || bx > BC_MAXARG_BX) return 0;
  *i = bc_set_bx(*i, (int)bx);
  return 1;
}

int bc_set_jump_target(bc_instr *i, int pc, int target) {
  long t = target, p = pc;
  switch (bc_op(*i)) {
    case BC_OP_JMP: case BC_OP_JMPACCT: {
      long sj = t - p - 1;
      if (sj < -BC_OFFSET_SJ || sj > BC_MAXARG_SJ - BC_OFFSET_SJ) return 0;
      *i = bc_set_sj(*i, (int)sj);
      return 1;
    }
    case BC_OP_FORLOOP: case BC_OP_TFORLOOP: case BC_OP_FORLOOPACCT:
    case BC_OP_TFORLOOPACCT:
      return set_bx_checked(i, p + 1 - t);
    case BC_OP_FORPREP: return set_bx_checked(i, t - p - 2);
    case BC_OP_TFORPREP: return set_bx_checked(i, t - p - 1);
    default: return 0;
  }
}

int bc_mmbin_pair(const bc_proto *f, int pc) {
  int next = bc_required_next(f->code[pc]);
  return (next == BC_OP_MMBIN || next == BC_OP_MMBINI ||
          next == BC_OP_MMBINK) && pc + 2 < f->sizecode &&
         bc_op(f->code[pc + 1]) == next;
}
