/*
** rw_verify_lean.h - the lean structural check of code rewritten in memory
** for the lraf VM (rw_verify_lean.c), for the verifier (rw_verify.c).
*/
#ifndef RW_VERIFY_LEAN_H
#define RW_VERIFY_LEAN_H

#include "rw.h"

/* Whether f's code is o's, Lua's parser's, but for what rewriting for
   the lraf VM may change, each change checked: then f is as sound as
   o's code, its debug information aside (bc_check_debug).  0 when it is
   not, or when some other change was made: then f needs the full check
   (bc_check_code). */
int rw_verify_lean_code(const bc_proto *f, const rw_original *o);
/* The same, and when it answers 1, *back says whether some jump goes
   back (to itself or before) to a target that does not start a run of
   plain instructions ending in a zero check: the first look of the
   verifier's search for a loop without a check (rw_verify.c), made on
   the way, since the walk meets every jump of the code. */
int rw_verify_lean_scan(const bc_proto *f, const rw_original *o, int *back);

/* An instruction that makes a zero check: an ACCT that checks, or a
   paying jump (bc_is_paying_jump: it checks whichever way it goes;
   bc_check_code and rw_verify_lean_code make sure that no test runs one as
   its jump). */
static inline int rw_is_check(bc_instr i) {
  int op = bc_op(i);
  return (op == BC_OP_ACCT && bc_a(i) != BC_ACCT_ADD) ||
         bc_is_paying_jump(op);
}

/* Whether control goes from i only to the next instruction (i is no
   check, jump, return or instruction that may skip the next). */
static inline int rw_plain(bc_instr i) {
  return !(bc_opinfo_of(bc_op(i))->flags &
           (BC_OPF_ENDS | BC_OPF_JUMP | BC_OPF_TEST | BC_OPF_MMBIN |
            BC_OPF_SKIPNEXT)) &&
         !bc_needs_extraarg(i) && !rw_is_check(i);
}

/* Whether i may skip the instruction after it (an edge to pc + 2). */
static inline int rw_skips(bc_instr i) {
  return (bc_opinfo_of(bc_op(i))->flags &
          (BC_OPF_TEST | BC_OPF_MMBIN | BC_OPF_SKIPNEXT)) ||
         bc_needs_extraarg(i);
}

/* Whether the jump at pc to t goes back to a target from which some path may
   avoid the next check.  Not when the jump checks itself (a paying jump:
   every cycle through it passes its check), nor when the instructions from t
   up to a check neither jump nor end the function (each goes on to the next,
   or skips one, as an arithmetic op skips its MMBIN) and the one just before
   the check does not skip it: every edge from them then lands at most on the
   check, and every path from t reaches it. */
static inline int rw_back_unchecked(const bc_proto *f, int pc, int t) {
  int x;
  if (t > pc || rw_is_check(f->code[pc])) return 0;  /* a paying jump */
  if (t < 0) return 1;
  for (x = t; x < f->sizecode && !rw_is_check(f->code[x]); x++) {
    bc_instr i = f->code[x];
    if ((bc_opinfo_of(bc_op(i))->flags & (BC_OPF_JUMP | BC_OPF_ENDS)) ||
        (x + 1 < f->sizecode && rw_is_check(f->code[x + 1]) && rw_skips(i)))
      return 1;
  }
  return x >= f->sizecode;
}

#endif
